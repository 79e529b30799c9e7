package main

import (
	"log/slog"
	"os"
	"runtime/debug"
)

// setMemoryLimit gives the Go collector a soft limit (debug.SetMemoryLimit): the result
// cache's bound plus headroomMB for everything else (requests in flight, jobs decoding an
// archive, the runtime). Without it garbage piles up between collections and the RSS grows far
// past the cache bound under steady traffic. GOMEMLIMIT, when set, is the operator's choice
// and wins. It returns the limit in force, in bytes.
func setMemoryLimit(cacheMB, headroomMB int, log *slog.Logger) int64 {
	if v := os.Getenv("GOMEMLIMIT"); v != "" {
		limit := debug.SetMemoryLimit(-1) // reads without changing it
		log.Info("memory limit from GOMEMLIMIT", "GOMEMLIMIT", v, "bytes", limit)
		return limit
	}
	limit := int64(cacheMB+headroomMB) << 20
	debug.SetMemoryLimit(limit)
	log.Info("memory limit", "MiB", cacheMB+headroomMB, "cacheMiB", cacheMB, "headroomMiB", headroomMB)
	return limit
}
