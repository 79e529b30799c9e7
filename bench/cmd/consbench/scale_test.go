package main

import (
	"strings"
	"testing"
	"time"

	"energy/bench"
)

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("100, 1000,10000")
	if err != nil || len(got) != 3 || got[0] != 100 || got[1] != 1000 || got[2] != 10000 {
		t.Fatalf("got %v, %v", got, err)
	}
	for in, want := range map[string]string{
		"100,abc":  `--scale: "abc" is not a number of sites ≥ 1`,
		"0":        `--scale: "0" is not a number of sites ≥ 1`,
		"1000,100": "--scale: sizes must increase (100 after 1000)",
		"":         `--scale: "" is not a number of sites ≥ 1`,
	} {
		if _, err := parseSizes(in); err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

// scaleSizeOf is a measured size whose DAYS computed times are cold and cached times cached.
func scaleSizeOf(sites int, cold, cached []time.Duration, rows float64) *scaleSize {
	return &scaleSize{
		report:   &report{spec: bench.Spec{Sites: sites, Year: 2024}, points: uint64(sites) * 17568, indexes: uint64(sites) * 734, diskBytes: uint64(sites) << 16},
		requests: []*scaleRequest{{name: "DAYS", label: "DAYS, 1 year", cold: cold, cached: cached, logged: queryLogStats{requests: 20, queries: 1, readRows: rows, readBytes: 1 << 20, durationMs: 9.5}}},
		elapsed:  42 * time.Second,
	}
}

func TestScaleTableShowsGrowthAgainstTheSmallestFleet(t *testing.T) {
	small := scaleSizeOf(100, durations(10, 12, 11, 30), durations(0.3), 14953)
	small.report.loadTime, small.report.optimizeTime = 10*time.Second, 2*time.Second
	large := scaleSizeOf(10000, durations(14, 13, 12, 50), durations(0.4), 15100) // p50 13 ms / 11 ms
	if g := growth([]*scaleSize{small, large}, 0); g < 1.18 || g > 1.19 {
		t.Fatalf("growth %.3f, want 13/11", g)
	}
	md := scaleMarkdown(options{scale: "100,10000", scaleDir: "var/bench-scale", year: 2024, runs: 4, cachedRuns: 1, logRequests: 20}, []*scaleSize{small, large}, "abc1234")
	for _, want := range []string{
		"| 100 | 1,756,800 | 73,400 | 6 MiB | 10.0 s | 183,020 | 2.0 s | 42 s |", // (1,756,800 + 73,400) rows in 10 s
		"| 10,000 | 175,680,000 | 7,340,000 | 625 MiB | - | - | - | 42 s |",      // loaded by an earlier run
		"| 100 | DAYS, 1 year | 11.0 ms | 30.0 ms | 0.30 ms | 1.0 | 14,953 | 1024 KiB | 9.5 ms | 1.00× |",
		"| 10,000 | DAYS, 1 year | 13.0 ms | 50.0 ms | 0.40 ms | 1.0 | 15,100 | 1024 KiB | 9.5 ms | 1.18× |",
		"Target: from 100 to 10,000 sites, computed p50 grows by at most 1.3×: DAYS 1.18× ✅.",
		"commit abc1234",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	large.requests[0].cold = durations(15, 15, 15)
	if md := scaleMarkdown(options{scale: "100,10000"}, []*scaleSize{small, large}, "x"); !strings.Contains(md, "DAYS 1.36× ❌") {
		t.Errorf("a 15/11 growth is not marked as missing the target:\n%s", md)
	}
}

func TestWrkTarget(t *testing.T) {
	if got := wrkTarget(&wrkResult{perSecond: 23692}, &wrkResult{perSecond: 7222}); got != "DAYS ≥ 20,000 cached req/s with wrk, gzip as dashboards ask ✅ (plain answers: 7222 req/s)" {
		t.Errorf("got %q", got)
	}
	if got := wrkTarget(&wrkResult{perSecond: 19999}, nil); !strings.HasSuffix(got, "❌") {
		t.Errorf("got %q", got)
	}
	if got := wrkTarget(nil, &wrkResult{perSecond: 30000}); !strings.Contains(got, "not measured") {
		t.Errorf("got %q", got)
	}
}
