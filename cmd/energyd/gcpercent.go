package main

import (
	"log/slog"
	"math"
	"os"
	"runtime/debug"
)

// gcPercentUnderLimit is the collector's GOGC while a soft memory limit is in force. With the
// default 100 a small live heap (the result cache off or cold, a few MB of directory) is
// collected after every few MB of garbage: a computed 1,200-hour answer makes about 1 MB, so
// the collector ran every few requests and took about a third of energyd's CPU per request.
// At 400 the heap may grow to five times what is live, never past the limit, which makes the
// collector work harder as the heap nears it: a full cache is collected as often as before.
const gcPercentUnderLimit = 400

// setGCPercent raises GOGC to gcPercentUnderLimit when limit (the soft memory limit in force,
// bytes) bounds the heap, unless the operator set GOGC. It returns the GOGC in force.
func setGCPercent(limit int64, log *slog.Logger) int {
	if v, ok := os.LookupEnv("GOGC"); ok {
		percent := debug.SetGCPercent(-1)
		debug.SetGCPercent(percent) // reads without changing it
		log.Info("collector pacing from GOGC", "GOGC", v)
		return percent
	}
	if limit <= 0 || limit == math.MaxInt64 {
		debug.SetGCPercent(100) // no limit bounds the heap: Go's default
		return 100
	}
	debug.SetGCPercent(gcPercentUnderLimit)
	log.Info("collector pacing", "GOGC", gcPercentUnderLimit, "memoryLimitMiB", limit>>20)
	return gcPercentUnderLimit
}
