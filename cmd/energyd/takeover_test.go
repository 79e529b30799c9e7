package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/server"
)

// Size of the archive of killMidJob: 5 files of 10,000 smart indexes with two dials each,
// long enough to process that the replica is killed while it works on it.
const (
	takeoverFiles   = 5
	takeoverIndexes = 10_000
)

// killMidJob: replica A is killed (SIGKILL) while it processes a large archive; once A's
// lease expires B takes the job over and finishes it: DONE once, with every operation OK and
// exactly one row per dial and reading stored.
func killMidJob(t *testing.T, c *server.LocalCluster, database string, ra, rb replicaClient) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if st, _, body := ra.do("PUT", "/v2/sites/S2", "application/json", []byte(`{}`)); st != http.StatusOK {
		t.Fatalf("PUT site S2 through A: %d %s", st, body)
	}
	files := map[string]string{}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for f := range takeoverFiles {
		readings := make([][3]any, takeoverIndexes)
		for i := range readings {
			n := f*takeoverIndexes + i
			readings[i] = [3]any{start.Add(time.Duration(n) * time.Hour).Format(time.RFC3339), n, 2 * n}
		}
		files[fmt.Sprintf("part-%d.json", f)] = smartElecIndexes("S2", readings...)
	}
	// A's own node: the job row A writes is read there without waiting for replication.
	dbA, err := schema.Open(ctx, c.DSN(1, database), c.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer dbA.Close()
	job := ra.submitArchive(tarGz(files))
	id := job[strings.LastIndex(job, "/")+1:]
	state := func() string {
		var st string
		if err := dbA.Conn.QueryRow(ctx, "SELECT state FROM (SELECT state FROM jobs FINAL WHERE tenant_id = 'acme' AND job_id = ?)", id).Scan(&st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	for state() != "IN_PROGRESS" {
		if ctx.Err() != nil {
			t.Fatal("A never started the job")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := ra.d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-ra.d.exited
	killed := time.Now()
	if st := state(); st != "IN_PROGRESS" {
		t.Fatalf("A finished the job (%s) before it was killed: make the archive larger", st)
	}

	// The whole archive is processed again by B: on a loaded machine that takes a while.
	st, ok := rb.waitJobWithin(job, 3*time.Minute)
	ops := takeoverFiles * takeoverIndexes
	if st != "DONE" || ok != ops {
		t.Fatalf("job after A was killed: %s with %d operations OK, want DONE with %d", st, ok, ops)
	}
	t.Logf("B finished A's job %v after A was killed (lease 3 s)", time.Since(killed).Round(time.Millisecond))
	_, _, body := rb.do("GET", job, "", nil)
	var detail struct {
		State struct {
			History []struct{ Current string }
		}
	}
	if err := json.Unmarshal(body, &detail); err != nil {
		t.Fatal(err)
	}
	var history []string
	for _, h := range detail.State.History {
		history = append(history, h.Current)
	}
	if fmt.Sprint(history) != "[SUBMITTED IN_PROGRESS DONE]" {
		t.Errorf("job history %v, want [SUBMITTED IN_PROGRESS DONE]", history)
	}
	var rows, readings uint64
	if err := dbA.Conn.QueryRow(ctx, "SELECT count(), uniqExact(ts) FROM elec_indexes FINAL WHERE tenant_id = 'acme' AND site_id = 'S2'").Scan(&rows, &readings); err != nil {
		t.Fatal(err)
	}
	if rows != uint64(2*ops) || readings != uint64(ops) {
		t.Errorf("S2 holds %d index rows at %d instants, want %d (two dials) at %d", rows, readings, 2*ops, ops)
	}
	if n := metric(t, rb, "energy_ingest_jobs_taken_over_total"); n != "1" {
		t.Errorf("B took over %s jobs, want 1", n)
	}
}

// metric returns the value of an unlabelled metric of the replica.
func metric(t *testing.T, r replicaClient, name string) string {
	t.Helper()
	resp, err := http.Get("http://" + r.d.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(b)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// recentLines drains the stderr lines the daemon logged and not yet read.
func (d *daemon) recentLines() string { return drainLines(d.lines) }
