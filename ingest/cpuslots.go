package ingest

import (
	"context"
	"runtime"
)

// cpuSlots bounds the goroutines of a Service that decompress archives and decode their files
// at once. That work is pure CPU, and Go runs at most GOMAXPROCS goroutines at a time: with as
// many decoders as processors, a request's goroutine waits behind them for a time slice, and
// the network itself is polled only by the runtime's monitor (every 10 ms or so) since no
// processor is ever idle. With one processor left to requests, reads stay fast while archives
// are ingested.
type cpuSlots chan struct{}

// DefaultDecodeSlots is one fewer than the processors Go runs goroutines on (GOMAXPROCS), at
// least one.
func DefaultDecodeSlots() int { return decodeSlotsFor(runtime.GOMAXPROCS(0)) }

func decodeSlotsFor(procs int) int { return max(1, procs-1) }

func newCPUSlots(n int) cpuSlots { return make(cpuSlots, n) }

// take waits for a free slot, or for ctx's end.
func (s cpuSlots) take(ctx context.Context) error {
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// give frees a slot taken.
func (s cpuSlots) give() { <-s }
