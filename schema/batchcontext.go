package schema

import (
	"context"
	"sync"
	"time"
)

// batchContext is the context a batch gives the driver. clickhouse-go's Send starts a goroutine
// that closes the batch's connection when the batch's context ends, and stops it by closing a
// channel without waiting for it, then puts the connection back in the pool. When the context
// ends just after Send (a caller's deferred cancel, a job or a request that ends), that
// goroutine, if it runs late, can see both channels ready, pick the context's, and close a
// connection the next query already uses ("use of closed network connection").
//
// So the context the driver sees ends only while the batch is under way: it carries the
// caller's values and deadline, and ends when the caller's context ends before the batch is
// sent, aborted or closed. Once the batch is over it never ends.
type batchContext struct {
	context.Context // the caller's values; ends only through cancel
	parent          context.Context
	cancel          context.CancelFunc

	mu       sync.Mutex
	over     bool
	stopWait func() bool
}

func newBatchContext(parent context.Context) *batchContext {
	c := &batchContext{parent: parent}
	c.Context, c.cancel = context.WithCancel(context.WithoutCancel(parent))
	c.stopWait = context.AfterFunc(parent, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.over {
			c.cancel()
		}
	})
	return c
}

// Deadline is the caller's: the driver bounds the socket's reads and writes by it while it
// prepares the batch.
func (c *batchContext) Deadline() (time.Time, bool) { return c.parent.Deadline() }

// Err is the caller's context's error once this one has ended (it ends only because that one
// did), so that a batch cut by its deadline reports context.DeadlineExceeded.
func (c *batchContext) Err() error {
	if c.Context.Err() == nil {
		return nil
	}
	return c.parent.Err()
}

// end marks the batch over: from now on the context never ends.
func (c *batchContext) end() {
	c.mu.Lock()
	c.over = true
	c.mu.Unlock()
	c.stopWait()
}
