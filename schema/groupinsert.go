package schema

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// GroupInsert writes rows of one INSERT statement in shared inserts (group commit). Each insert
// is a part that ClickHouse merges later and loads again at every start until the merged-away
// copy is deleted, so rows written at the same time (the state changes of concurrent jobs) go
// in one insert. A caller still returns only once its row is stored: nothing is reported that
// is not durable. A write that finds no insert running starts one at once (no added wait); the
// writes that arrive meanwhile go in the next one.
//
// The table is a ReplacingMergeTree(version) whose rows are written whole: the insert's last
// column is the row version, which Write gives each row when it is written, so that the later
// of two writes of a row wins.
type GroupInsert struct {
	db       *DB
	insert   string
	versions RowVersions
	// sent, when set, hears each insert that succeeded and how many rows it carried.
	sent func(rows int)

	mu       sync.Mutex
	queue    []*pendingRow
	flushing bool
}

// pendingRow is one row waiting for its insert.
type pendingRow struct {
	ctx    context.Context
	within time.Duration // how long the caller waits for its row to be stored
	row    []any
	done   chan error // receives the insert's outcome
	// abandoned: its caller stopped waiting (an insert not yet sent leaves the row out).
	abandoned atomic.Bool
	// leftOut, set by send, says why the row was not in the insert: its caller then hears that,
	// never the insert's success.
	leftOut error
}

// NewGroupInsert writes rows with insert ("INSERT INTO t (columns, version)"); sent, when not
// nil, hears each insert sent and its number of rows.
func NewGroupInsert(db *DB, insert string, sent func(rows int)) *GroupInsert {
	return &GroupInsert{db: db, insert: insert, sent: sent}
}

// Write stores row (values in the insert's column order, the version left out: Write appends
// a fresh one) and returns once it is stored, or
// when ctx ends or the insert fails. within bounds the caller's wait, the time spent behind an
// insert already under way included, and the insert that carries the row (0: the store's
// write bound); past it the error is context.DeadlineExceeded (the store does not answer).
func (g *GroupInsert) Write(ctx context.Context, within time.Duration, row ...any) error {
	if within <= 0 {
		within = g.db.Timeouts.orDefaults().Write
	}
	p := &pendingRow{ctx: ctx, within: within, row: append(row, g.versions.Next()), done: make(chan error, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, p)
	if !g.flushing {
		g.flushing = true
		go g.flush()
	}
	g.mu.Unlock()
	wait := time.NewTimer(within)
	defer wait.Stop()
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		p.abandoned.Store(true)
		return ctx.Err()
	case <-wait.C:
		p.abandoned.Store(true)
		return fmt.Errorf("insert not done within %s: %w", within, context.DeadlineExceeded)
	}
}

// flush inserts the waiting rows, one insert for all of them, until none is left.
func (g *GroupInsert) flush() {
	for {
		g.mu.Lock()
		batch := g.queue
		g.queue = nil
		if len(batch) == 0 {
			g.flushing = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		err := g.send(batch)
		for _, p := range batch {
			if p.leftOut != nil {
				p.done <- p.leftOut
				continue
			}
			p.done <- err
		}
	}
}

// send inserts the rows whose callers still wait, bounded by the shortest time one of them
// allows. A row left out gets its reason in leftOut: Write's select may take the insert's
// outcome rather than its own context's end when both are ready, and must then not report
// as stored a row that was never sent (a job released at stop would be taken for finished).
func (g *GroupInsert) send(batch []*pendingRow) error {
	var rows [][]any
	var within time.Duration
	for _, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.leftOut = err
			continue
		}
		if p.abandoned.Load() {
			p.leftOut = fmt.Errorf("insert not done within %s: %w", p.within, context.DeadlineExceeded)
			continue
		}
		rows = append(rows, p.row)
		if within == 0 || p.within < within {
			within = p.within
		}
	}
	if len(rows) == 0 {
		return nil
	}
	b, err := g.db.Conn.PrepareBatch(WithCallTimeout(context.Background(), within), g.insert)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := b.Append(r...); err != nil {
			_ = b.Abort()
			return err
		}
	}
	if err := b.Send(); err != nil {
		return err
	}
	if g.sent != nil {
		g.sent(len(rows))
	}
	return nil
}
