package main

import (
	"strings"
	"testing"
	"time"
)

// The load's bound is the server's INSERT and OPTIMIZE CPU over the cores, judged against a
// third of PostgreSQL's load.
func TestLoadBound(t *testing.T) {
	c := loadCost{Inserts: 40, InsertRows: 18_302_000, InsertCPU: 45, OptimizeCPU: 5, LoaderCPU: 9.25, ServerCPUsOK: true}
	got := loadBound(c, 72*time.Second, "2", "")
	for _, want := range []string{
		"the 40 INSERTs of the readings took 45.0 s of server CPU for 18,302,000 rows",
		"406,711 rows per CPU-second, and OPTIMIZE FINAL 5.0 s",
		"used 9.2 s of CPU beside them", // 9.25 rounds to even
		"Spread over 2 cores, the server's work alone takes at least 25.0 s however fast the client, 1.0 s more than the 24.0 s that 3× PostgreSQL's speed allows.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if got := loadBound(c, 90*time.Second, "2", ""); !strings.Contains(got, "at least 25.0 s however fast the client, within the 30.0 s that 3× PostgreSQL's speed allows: the rest is") {
		t.Errorf("with PostgreSQL at 90 s (a third: 30 s > 25 s):\n%s", got)
	}
	c.ServerCPUsOK = false
	if got := loadBound(c, 72*time.Second, "2", ""); got != "" {
		t.Errorf("without the server's CPU times: %q", got)
	}
}
