package erasure

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }

// errCrash stands for the process dying in the middle of an erasure.
var errCrash = errors.New("crash")

// An erasure that stops after emptying its second table (the process dies) is found
// unfinished by the next start, which finishes it: 0 rows of the site left, the report counts
// every table's rows once, and the other site of the tenant keeps its rows.
func TestErasureResumesAfterACrash(t *testing.T) {
	db := chtest.DB(t)
	reg := registry.New(db)
	ctx := context.Background()
	for _, site := range []string{"GONE", "KEPT"} {
		if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: site}); err != nil {
			t.Fatal(err)
		}
		insertReadings(t, db, site)
	}

	first := New(db, reg, nil)
	first.Lease = time.Second // the second start takes the erasure over once it expired
	crashCtx, crash := context.WithCancel(ctx)
	emptied := 0
	first.afterTable = func(string) error {
		if emptied++; emptied == 2 {
			crash()
			return errCrash
		}
		return nil
	}
	if err := first.Start(crashCtx); err != nil {
		t.Fatal(err)
	}
	site, err := reg.Site(ctx, "acme", "GONE")
	if err != nil {
		t.Fatal(err)
	}
	e, err := first.Request(crashCtx, "tok", site)
	if err != nil {
		t.Fatal(err)
	}
	first.Wait()
	stopped, err := first.Get(ctx, "acme", e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stopped.State != StateInProgress || len(stopped.RowsRemoved) != 2 {
		t.Fatalf("after the crash: %+v, want IN_PROGRESS with 2 tables counted", stopped)
	}
	if left := rowsOf(t, db, "GONE"); left["max_powers"] == 0 || left["load_curve_points"] == 0 {
		t.Fatalf("after the crash, rows left %v: the test crashes too late", left)
	}

	second := New(db, reg, nil)
	second.Lease, second.Watch = time.Second, 50*time.Millisecond
	runCtx, stop := context.WithCancel(ctx)
	defer func() { stop(); second.Wait() }()
	if err := second.Start(runCtx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second) // a loaded cluster takes tens of seconds (mutations ON CLUSTER)
	for {
		got, err := second.Get(ctx, "acme", e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.State == StateDone {
			e = got
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("erasure still %+v", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if left := rowsOf(t, db, "GONE"); len(left) != 0 {
		t.Fatalf("rows of the erased site left: %v", left)
	}
	want := map[string]uint64{"sites": 1, "elec_indexes": 2, "elec_indexes_by_site": 2, "gas_indexes": 1, "gas_indexes_by_site": 1,
		"max_powers": 1, "load_curve_points": 1, "site_contacts": 1}
	for table, n := range want {
		if e.RowsRemoved[table] != n {
			t.Errorf("report: %s %d rows, want %d (report %v)", table, e.RowsRemoved[table], n, e.RowsRemoved)
		}
	}
	if kept := rowsOf(t, db, "KEPT"); kept["elec_indexes"] != 2 || kept["sites"] != 1 {
		t.Fatalf("rows of the other site: %v", kept)
	}
}

// insertReadings writes 2 electricity indexes, a gas index, a max power and a load-curve point
// of the site.
func insertReadings(t *testing.T, db *schema.DB, site string) {
	t.Helper()
	ctx := context.Background()
	ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	batches := []struct {
		insert string
		rows   [][]any
	}{
		{"INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)",
			[][]any{{"acme", site, "P", ts, uint8(0), "MKT_SMART_DISTRIBUTOR", ts, "1", int64(100), "j"},
				{"acme", site, "P", ts.Add(24 * time.Hour), uint8(0), "MKT_SMART_DISTRIBUTOR", ts, "1", int64(200), "j"}}},
		{"INSERT INTO gas_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, value, unit, conversion_units, conversion_factors, job_id)",
			[][]any{{"acme", site, "G", ts, uint8(0), "MKT_CYCLIC_DISTRIBUTOR", ts, int64(10), "m3", []string{"kWh"}, []float64{11.2}, "j"}}},
		{"INSERT INTO max_powers (tenant_id, site_id, pod_id, ts, generation_ts, value, job_id)",
			[][]any{{"acme", site, "P", ts, ts, int64(6000), "j"}}},
		{"INSERT INTO load_curve_points (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id)",
			[][]any{{"acme", site, "P", ts, ts.Add(30 * time.Minute), ts, int64(500), uint8(0), ts, "j"}}},
	}
	for _, b := range batches {
		batch, err := db.Conn.PrepareBatch(ctx, b.insert)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b.rows {
			if err := batch.Append(r...); err != nil {
				t.Fatal(err)
			}
		}
		if err := batch.Send(); err != nil {
			t.Fatal(err)
		}
	}
}

// rowsOf counts the site's rows in each table that holds sites' rows (tables without any left out).
func rowsOf(t *testing.T, db *schema.DB, site string) map[string]uint64 {
	t.Helper()
	ts, err := db.SiteTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, table := range ts {
		n, err := db.CountSiteRows(context.Background(), table, "acme", site)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			out[table.Read] = n
		}
	}
	return out
}

// An erasure whose step keeps failing ends in ERROR after MaxFailures tries, showing the
// failure; the site's other rows stay until an admin retries (Retry, what a new DELETE does),
// which finishes it: 0 rows left, DONE, no error shown.
func TestErasureInErrorIsRetried(t *testing.T) {
	db := chtest.DB(t)
	reg := registry.New(db)
	ctx := context.Background()
	if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: "GONE"}); err != nil {
		t.Fatal(err)
	}
	insertReadings(t, db, "GONE")
	s := New(db, reg, nil)
	s.MaxFailures, s.RetryDelay = 3, 10*time.Millisecond
	var failing atomic.Bool
	failing.Store(true)
	var tries atomic.Int32
	s.afterTable = func(table string) error {
		if table == "sites" || !failing.Load() {
			return nil
		}
		tries.Add(1)
		return errors.New("mutation refused: disk full")
	}
	runCtx, stop := context.WithCancel(ctx)
	defer func() { stop(); s.Wait() }()
	if err := s.Start(runCtx); err != nil {
		t.Fatal(err)
	}
	site, err := reg.Site(ctx, "acme", "GONE")
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Request(ctx, "tok", site)
	if err != nil {
		t.Fatal(err)
	}
	failed := waitState(t, s, e.ID, StateError)
	if failed.Error != "mutation refused: disk full" || tries.Load() != 3 {
		t.Fatalf("after the failures: %+v after %d tries, want ERROR with the failure after 3", failed, tries.Load())
	}
	if left := rowsOf(t, db, "GONE"); len(left) == 0 {
		t.Fatal("every row erased although the step failed")
	}
	if _, ok, err := s.Retry(ctx, "acme", "KEPT"); ok || err != nil {
		t.Fatalf("retry of a site without an erasure in ERROR: %v %v", ok, err)
	}
	failing.Store(false)
	retried, ok, err := s.Retry(ctx, "acme", "GONE")
	if err != nil || !ok || retried.ID != e.ID {
		t.Fatalf("retry: %+v %v %v", retried, ok, err)
	}
	done := waitState(t, s, e.ID, StateDone)
	if done.Error != "" {
		t.Fatalf("DONE with error %q", done.Error)
	}
	if left := rowsOf(t, db, "GONE"); len(left) != 0 {
		t.Fatalf("rows left after the retry: %v", left)
	}
}

// Two energyd (services, each with its registry) on one store: the erasure requested through
// A runs on A only, B never empties a table of it although it watches for erasures to take
// over, and it is DONE; B's watch then tells B's registry that the site was erased (its caches
// drop the site's answers), once.
func TestErasureRunsOnOneServiceOnly(t *testing.T) {
	db := chtest.DB(t)
	reg, regB := registry.New(db), registry.New(db)
	var erasedOnB sync.Map
	var erasedCalls atomic.Int32
	regB.Versions.OnErased(func(tenantID, siteID string) {
		erasedCalls.Add(1)
		erasedOnB.Store(tenantID+"/"+siteID, true)
	})
	ctx := context.Background()
	if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: "GONE"}); err != nil {
		t.Fatal(err)
	}
	insertReadings(t, db, "GONE")
	var byA, byB atomic.Int32
	a, b := New(db, reg, nil), New(db, regB, nil)
	for _, x := range []struct {
		s *Service
		n *atomic.Int32
	}{{a, &byA}, {b, &byB}} {
		// A lease long enough for a cluster's ON CLUSTER mutations under load: this test is
		// about one service running the erasure, not about taking it over.
		x.s.Lease, x.s.Watch = 5*time.Second, 20*time.Millisecond
		n := x.n
		x.s.afterTable = func(string) error { n.Add(1); time.Sleep(300 * time.Millisecond); return nil }
	}
	runCtx, stop := context.WithCancel(ctx)
	defer func() { stop(); a.Wait(); b.Wait() }()
	for _, s := range []*Service{a, b} {
		if err := s.Start(runCtx); err != nil {
			t.Fatal(err)
		}
	}
	site, err := reg.Site(ctx, "acme", "GONE")
	if err != nil {
		t.Fatal(err)
	}
	e, err := a.Request(ctx, "tok", site)
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, a, e.ID, StateDone)
	if byA.Load() < 8 || byB.Load() != 0 {
		t.Fatalf("tables emptied by A %d, by B %d: want all by A", byA.Load(), byB.Load())
	}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if _, ok := erasedOnB.Load("acme/GONE"); ok {
			break
		}
		if time.Since(start) > 3*time.Second {
			t.Fatal("B's registry not told of the erasure 3 s after it was DONE")
		}
	}
	time.Sleep(100 * time.Millisecond) // a few more watches: the erasure is told once
	if n := erasedCalls.Load(); n != 1 {
		t.Fatalf("B told %d times of the erasure, want once", n)
	}
}

// waitState polls the erasure until it is in state (90 s at most).
func waitState(t *testing.T, s *Service, id, state string) Erasure {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second) // a loaded cluster takes tens of seconds (mutations ON CLUSTER)
	for {
		got, err := s.Get(context.Background(), "acme", id)
		if err != nil {
			t.Fatal(err)
		}
		if got.State == state {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("erasure still %+v, want %s", got, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
