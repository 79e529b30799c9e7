package main

import (
	"log/slog"
	"runtime/debug"
	"testing"
)

// The soft memory limit is the cache bound plus the headroom; GOMEMLIMIT wins when set.
func TestMemoryLimitFollowsTheCacheBound(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	log := slog.New(slog.DiscardHandler)
	unsetenv(t, "GOMEMLIMIT")
	if got := setMemoryLimit(256, 128, log); got != 384<<20 || debug.SetMemoryLimit(-1) != 384<<20 {
		t.Fatalf("limit %d (in force %d), want %d", got, debug.SetMemoryLimit(-1), 384<<20)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(1 << 30) // what the runtime read from GOMEMLIMIT at start
	if got := setMemoryLimit(256, 128, log); got != 1<<30 {
		t.Fatalf("with GOMEMLIMIT=1GiB the limit is %d, want %d", got, 1<<30)
	}
}
