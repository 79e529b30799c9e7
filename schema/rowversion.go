package schema

import (
	"sync/atomic"
	"time"
)

// RowVersions hands out the version column of ReplacingMergeTree(version) tables: unix
// nanoseconds, so that writes from different processes order by time, made strictly
// increasing within the process so that the later of two writes wins even within one
// nanosecond.
type RowVersions struct {
	last atomic.Uint64
}

// Next returns a fresh version.
func (v *RowVersions) Next() uint64 { return v.Reserve(1) }

// Reserve returns the first of n consecutive fresh versions (n ≥ 1).
func (v *RowVersions) Reserve(n int) uint64 {
	for {
		first := uint64(time.Now().UnixNano())
		last := v.last.Load()
		if first <= last {
			first = last + 1
		}
		if v.last.CompareAndSwap(last, first+uint64(n)-1) {
			return first
		}
	}
}
