package ingest

import (
	"context"
	"sync"
	"time"

	"energy/schema"
)

// jobWriter writes job states to the jobs table in shared inserts (group commit). Each insert
// is a part that ClickHouse merges later and loads again at every start until the merged-away
// copy is deleted, so the state changes of jobs that happen together (concurrent uploads,
// workers finishing at once) go in one insert. A caller still returns only once its row is
// stored: nothing is reported that is not durable. A write that finds no insert running starts
// one at once (no added wait); the writes that arrive meanwhile go in the next one.
type jobWriter struct {
	db *schema.DB

	mu       sync.Mutex
	queue    []*pendingJobWrite
	flushing bool
}

// pendingJobWrite is one row waiting for its insert.
type pendingJobWrite struct {
	ctx    context.Context
	within time.Duration // how long the caller lets the insert take (0: the store's write bound)
	row    []any
	done   chan error // receives the insert's outcome
}

// write stores row (the jobs table's columns in jobInsert order) and returns once it is stored,
// or when ctx ends or the insert fails. within bounds the insert that carries the row.
func (w *jobWriter) write(ctx context.Context, within time.Duration, row []any) error {
	p := &pendingJobWrite{ctx: ctx, within: within, row: row, done: make(chan error, 1)}
	w.mu.Lock()
	w.queue = append(w.queue, p)
	if !w.flushing {
		w.flushing = true
		go w.flush()
	}
	w.mu.Unlock()
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// flush inserts the waiting rows, one insert for all of them, until none is left.
func (w *jobWriter) flush() {
	for {
		w.mu.Lock()
		batch := w.queue
		w.queue = nil
		if len(batch) == 0 {
			w.flushing = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		err := w.insert(batch)
		for _, p := range batch {
			p.done <- err
		}
	}
}

// insert writes the rows of the writes whose callers still wait, bounded by the shortest
// time one of them allows.
func (w *jobWriter) insert(batch []*pendingJobWrite) error {
	var rows [][]any
	var within time.Duration
	for _, p := range batch {
		if p.ctx.Err() != nil {
			continue // its caller has given up and reported the failure
		}
		rows = append(rows, p.row)
		if p.within > 0 && (within == 0 || p.within < within) {
			within = p.within
		}
	}
	if len(rows) == 0 {
		return nil
	}
	ctx := schema.WithCallTimeout(context.Background(), within)
	b, err := w.db.Conn.PrepareBatch(ctx, jobInsert)
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
	jobStateInserts.Inc()
	jobStatesWritten.Add(float64(len(rows)))
	return nil
}
