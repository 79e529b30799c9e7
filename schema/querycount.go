package schema

import (
	"context"
	"sync/atomic"
)

type queryCountKey struct{}

// CountQueries returns a context under which every read sent to ClickHouse through a DB (its
// pool, or a shard's on a cluster) is counted, and a function giving the count so far: how
// many queries one answer costs.
func CountQueries(ctx context.Context) (context.Context, func() int64) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, queryCountKey{}, n), n.Load
}

// countQuery counts a read made under a CountQueries context.
func countQuery(ctx context.Context) {
	if n, ok := ctx.Value(queryCountKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}
