package main

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func ms(v ...float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x * float64(time.Millisecond))
	}
	return out
}

// TestReplayBookkeeping: rows and archives count only DONE jobs, over the time from the phase
// start to the last job DONE; failures are counted and their first messages kept.
func TestReplayBookkeeping(t *testing.T) {
	smart := &benchArchive{Rows: 100_000}
	curves := &benchArchive{Rows: 360_000}
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	r := &replayStats{first: start}
	r.record(smart, 300*time.Millisecond, start.Add(2*time.Second), nil)
	r.record(curves, 500*time.Millisecond, start.Add(4*time.Second), nil)
	r.record(smart, 0, start.Add(5*time.Second), errors.New("job ended ERROR"))
	r.record(curves, 700*time.Millisecond, start.Add(3*time.Second), nil) // finished before the latest DONE
	if r.submitted != 4 || r.done != 3 || r.failed != 1 || r.rows != 820_000 {
		t.Fatalf("got %+v", r)
	}
	if got := r.rowsPerSecond(); got != 205_000 { // 820,000 rows in 4 s
		t.Errorf("rows/s %v, want 205000", got)
	}
	if got := r.archivesPerSecond(); got != 0.75 {
		t.Errorf("archives/s %v, want 0.75", got)
	}
	if len(r.errs) != 1 || r.errs[0] != "job ended ERROR" {
		t.Errorf("errors %q", r.errs)
	}
	if empty := (&replayStats{first: start}); empty.rowsPerSecond() != 0 || empty.archivesPerSecond() != 0 {
		t.Error("no job DONE must give 0, not a division by zero")
	}
}

func TestMixedTableJudgesP99AgainstIdleAndFailures(t *testing.T) {
	idle := &readStats{}
	idle.latencies[readComputed] = ms(10, 12, 20)
	idle.latencies[readCached] = ms(0.2, 0.3, 1)
	loaded := &readStats{}
	loaded.latencies[readComputed] = ms(15, 16, 38) // p99 1.9× idle
	loaded.latencies[readCached] = ms(0.4, 0.5, 3)  // p99 3× idle
	loaded.unexpect[readCached] = 1
	idle.latencies[readTouched] = ms(0.3, 0.3, 0.4)
	loaded.latencies[readTouched] = ms(0.3, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 9)
	loaded.unexpect[readTouched] = 1 // the last poll came before the refresh: 20 hits in 21
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	r := &replayStats{first: start}
	r.record(&benchArchive{Rows: 100_000}, 2*time.Second, start.Add(2*time.Second), nil)
	m := mixedOptions{readSites: 200, phase: 30 * time.Second, uploaders: 4, computedClients: 4, cachedClients: 4, computedEvery: 250 * time.Millisecond, cachedEvery: 20 * time.Millisecond}
	md := mixedMarkdown("- Machine: test\n", m, idle, loaded, r, []*benchArchive{{Name: "a.tar.gz", Rows: 100_000}}, goRuntime{}, goRuntime{})
	wantLines(t, md,
		"| computed (cache off), DAYS of a random site's year | 3 | 12.0 ms | 20.0 ms | 3 | 16.0 ms | 38.0 ms | 1.90× | – | 0 |",
		"| cached, DAYS of one site's year (1 answers with another X-Cache) | 3 | 0.30 ms | 1.00 ms | 3 | 0.50 ms | 3.00 ms | 3.00× | 66.7 % | 0 |",
		"| cached, DAYS of a site the uploads write to (January to June 2025) | 3 | 0.30 ms | 0.40 ms | 21 | 0.50 ms | 9.00 ms | 22.50× | 95.2 % | 0 |",
		"1 archives submitted, 1 DONE with every operation OK, 0 failed; 100,000 rows stored; 50,000 rows/s and 0.50 archives/s",
		"computed read p99 under ingest ≤ 1.5× idle **no** (1.90×); cached read p99 under ingest ≤ 1.5× idle **no** (3.00×); "+
			"cache hits polling the uploaded sites under ingest ≥ 99 % **no** (95.2 %); no failed request yes (0)",
	)
	idle.failed[readCached] = 2
	r.record(&benchArchive{Rows: 1}, 0, start, errors.New("HTTP 503"))
	if md := mixedMarkdown("", m, idle, loaded, r, nil, goRuntime{}, goRuntime{}); !strings.Contains(md, "no failed request **no** (3)") || !strings.Contains(md, "Failure: HTTP 503") {
		t.Errorf("failures not reported:\n%s", md)
	}
}

// The runtime's histograms are read as two readings' difference, and the table counts what
// lasted longer than the bucket bounds nearest 1, 10 and 100 ms.
func TestRuntimeTableFromTwoReadings(t *testing.T) {
	upper := []float64{0.0001, 0.00105, 0.0107, 0.117, math.Inf(1)}
	before := goRuntime{waits: histogram{upper, []uint64{50, 60, 60, 60, 60}}, gcPauses: histogram{upper, []uint64{1, 2, 2, 2, 2}}}
	// Since before: 900 waits ≤ 0.1 ms, 90 more ≤ 1.05 ms, 8 more ≤ 10.7 ms, 1 more ≤ 117 ms,
	// 1 longer; pauses: 3 ≤ 0.1 ms, 1 more ≤ 117 ms.
	after := goRuntime{waits: histogram{upper, []uint64{950, 1050, 1058, 1059, 1060}}, gcPauses: histogram{upper, []uint64{4, 5, 5, 6, 6}}}
	r := after.since(before)
	if r.waits.total() != 1000 || r.waits.over(0.0107) != 2 || r.gcPauses.total() != 4 {
		t.Fatalf("waits %d, over 10.7 ms %d, pauses %d", r.waits.total(), r.waits.over(0.0107), r.gcPauses.total())
	}
	md := runtimeMarkdown(goRuntime{waits: histogram{upper, make([]uint64, 5)}, gcPauses: histogram{upper, make([]uint64, 5)}}, r)
	wantLines(t, md,
		"| goroutine waits for a processor | 0 | 1,000 |\n| … longer than 1.05 ms | 0 | 10 |\n| … longer than 10.7 ms | 0 | 2 |\n| … longer than 117 ms | 0 | 1 |\n",
		"| collector's stop-the-world pauses | 0 | 4 |\n| … longer than 1.05 ms | 0 | 1 |\n| … longer than 10.7 ms | 0 | 1 |\n| … longer than 117 ms | 0 | 0 |\n",
	)
	// Without a bound near 1 ms, the one near 10 ms is shown once.
	coarse := []float64{0.0107, 0.117, math.Inf(1)}
	r = goRuntime{waits: histogram{coarse, []uint64{5, 6, 7}}, gcPauses: histogram{coarse, []uint64{1, 1, 1}}}
	wantLines(t, runtimeMarkdown(r, r), "| goroutine waits for a processor | 7 | 7 |\n| … longer than 10.7 ms | 2 | 2 |\n| … longer than 117 ms | 1 | 1 |\n| collector's")
}

// wantLines fails the test for each wanted line that the markdown lacks.
func wantLines(t *testing.T, md string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}

// A new run rewrites the tables and keeps the profiles part written by hand.
func TestNewRunKeepsTheProfiles(t *testing.T) {
	old := "# Reads during ingest\n\n| old table |\n\n## Profiles\n\nDataVersions.Get waited 5.7 s.\n"
	if got := keepProfiles(old, "# Reads during ingest\n\n| new table |\n"); got != "# Reads during ingest\n\n| new table |\n\n## Profiles\n\nDataVersions.Get waited 5.7 s.\n" {
		t.Errorf("got %q", got)
	}
	if got := keepProfiles("# Reads during ingest\n| old |\n", "| new |\n"); got != "| new |\n" {
		t.Errorf("without profiles: %q", got)
	}
}
