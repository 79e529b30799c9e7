package apidocs

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"energy/ingest"
	"energy/schema/audit"
	"energy/schema/erasure"
)

// erasureFile: readings of S1 (both fluids, a max power, a load curve of 3 points) and of S2,
// which the erasure of S1 must leave alone.
const erasureFile = `{
  "cyclicGasIndexes": [
    {"siteId": "S1", "podId": "GAS-1", "nature": "MKT_CYCLIC_DISTRIBUTOR", "ts": "2023-12-31T23:00:00Z",
     "generationTs": "2024-01-02T06:00:00Z", "value": 12000, "unit": "m3", "conversionFactors": {"kWh": 11.2}},
    {"siteId": "S1", "podId": "GAS-1", "nature": "MKT_CYCLIC_DISTRIBUTOR", "ts": "2024-01-02T23:00:00Z",
     "generationTs": "2024-01-04T06:00:00Z", "value": 12010, "unit": "m3", "conversionFactors": {"kWh": 11.2}}],
  "smartElecIndexes": [
    {"siteId": "S1", "podId": "PDL-1", "nature": "MKT_SMART_DISTRIBUTOR", "ts": "2023-12-31T23:00:00Z", "generationTs": "2024-01-02T04:00:00Z", "value": {"1": 100000}},
    {"siteId": "S1", "podId": "PDL-1", "nature": "MKT_SMART_DISTRIBUTOR", "ts": "2024-01-02T23:00:00Z", "generationTs": "2024-01-04T04:00:00Z", "value": {"1": 120000}},
    {"siteId": "S2", "podId": "PDL-2", "nature": "MKT_SMART_DISTRIBUTOR", "ts": "2023-12-31T23:00:00Z", "generationTs": "2024-01-02T04:00:00Z", "value": {"1": 5000}}],
  "maxPowers": [{"siteId": "S1", "podId": "PDL-1", "ts": "2024-01-01T00:00:00Z", "generationTs": "2024-01-02T00:00:00Z", "value": 6000}],
  "loadCurves": [{"siteId": "S1", "podId": "PDL-1", "meterReadingDate": "2024-01-01", "generationTs": "2024-01-02T02:00:00+01:00",
     "step": "PT30M", "values": [
       {"beginTs": "2024-01-01T00:00:00+01:00", "value": 500, "reliability": 0},
       {"beginTs": "2024-01-01T00:30:00+01:00", "value": 700, "reliability": 0},
       {"beginTs": "2024-01-01T01:00:00+01:00", "value": 650, "reliability": 0}]}]
}`

// A site loaded with readings of both fluids, a load curve, max powers, a heating schedule, a
// contact and a target, with answers cached, is erased: DONE with the rows removed per table,
// 0 rows of it in every table that has a site_id column, no cached answer of it held (and the
// tenant's version moved), no spool file left, 404 SITE_NOT_FOUND on every endpoint, its
// later archives refused as UNKNOWN_SITE, the other site untouched, the erasure audited.
func TestEraseSiteRemovesEveryRow(t *testing.T) {
	h := newJobsHarness(t, "", true, nil)
	read := h.token("acme", "read")
	ctx := context.Background()
	if st, body, _ := h.do("PUT", "/v2/sites/S1", h.admin, `{"siteCustomerId": "C-1", "personCustomerId": "P-1", "contact": {"email": "a@example.org"}}`); st != http.StatusOK {
		t.Fatalf("put site: %d %s", st, body)
	}
	if st, body, _ := h.do("PUT", "/v1/sites/S1/heating-schedule", h.admin, `{"temperatures":{"COMFORT":20,"ECO":17},"weeklyCalendar":[{"offset":420,"temperature":"COMFORT"}]}`); st != http.StatusOK {
		t.Fatalf("put schedule: %d %s", st, body)
	}
	createTarget(t, h.harness, "/v2/sites/S1/targets", h.admin, newTarget)
	job := h.waitFinal(h.admin, jobIDOf(t, h.submit(h.admin, "r.tar.gz", tarGz(t, "r.json", erasureFile))))
	if job.State.Current != ingest.StateDone || job.Report.Overview.KO != 0 {
		t.Fatalf("load: %+v", job.Report)
	}
	siteRows := func(site string) map[string]uint64 { return rowsOfSite(t, h, site) }
	before := siteRows("S1")
	for _, table := range []string{"elec_indexes", "gas_indexes", "max_powers", "load_curve_points", "elec_indexes_by_site", "gas_indexes_by_site",
		"pods", "sites", "site_contacts", "heating_schedules", "targets", "target_settings", "data_versions"} {
		if before[table] == 0 {
			t.Fatalf("before the erasure, no row of S1 in %s (%v): the test loads too little", table, before)
		}
	}
	s2 := siteRows("S2")
	const elecDays = "/v2/sites/S1/fluids/elec/consumptions?startTs=2024-01-01T00:00:00&endTs=2024-01-03T00:00:00&stepUnit=DAYS"
	const gasDays = "/v2/sites/S1/fluids/gas/consumptions?startTs=2024-01-01T00:00:00&endTs=2024-01-03T00:00:00&stepUnit=DAYS"
	for range 2 { // the second answer comes from the cache
		for _, p := range []string{elecDays, gasDays} {
			if st, body, _ := h.do("GET", p, read, ""); st != http.StatusOK {
				t.Fatalf("GET %s: %d %s", p, st, body)
			}
		}
	}
	tenantVersion := h.reg.Versions.Get("acme", "")
	if n := h.answers.SiteEntries("acme", "S1"); n != 2 {
		t.Fatalf("%d cached answers of S1 before the erasure, want 2 (elec and gas)", n)
	}

	st, body, _ := h.do("DELETE", "/v2/sites/S1", h.admin, "")
	if st != http.StatusAccepted {
		t.Fatalf("DELETE: %d %s", st, body)
	}
	var accepted struct {
		Links SelfLinks `json:"_links"`
	}
	if err := json.Unmarshal(body, &accepted); err != nil || !strings.HasPrefix(accepted.Links.Self.Href, h.srv.URL+"/v2/site-erasures/") {
		t.Fatalf("DELETE answer %s", body)
	}
	e := waitErasure(t, h, strings.TrimPrefix(accepted.Links.Self.Href, h.srv.URL))
	for table, n := range before {
		if e.RowsRemoved[table] != n {
			t.Errorf("report: %d rows removed from %s, want %d", e.RowsRemoved[table], table, n)
		}
	}
	if len(e.RowsRemoved) != len(before) {
		t.Errorf("report %v, want the tables %v", e.RowsRemoved, before)
	}
	if after := siteRows("S1"); len(after) != 0 {
		t.Fatalf("rows of S1 left after the erasure: %v", after)
	}
	if got := siteRows("S2"); !equalCounts(got, s2) {
		t.Fatalf("rows of S2 %v after erasing S1, want %v", got, s2)
	}
	if n := h.answers.SiteEntries("acme", "S1"); n != 0 {
		t.Fatalf("%d cached answers of S1 held after the erasure, want 0", n)
	}
	if v := h.reg.Versions.Get("acme", ""); v <= tenantVersion {
		t.Fatalf("tenant version %d after the erasure, was %d: cached answers would still be served", v, tenantVersion)
	}
	for _, p := range []string{"/v2/sites/S1", elecDays, gasDays, "/v1/sites/S1/heating-schedule", "/v2/sites/S1/targets"} {
		st, body, hdr := h.do("GET", p, h.admin, "")
		h.wantError(st, body, hdr, http.StatusNotFound, CodeSiteNotFound)
	}
	st, body, hdr := h.do("DELETE", "/v2/sites/S1", h.admin, "")
	h.wantError(st, body, hdr, http.StatusNotFound, CodeSiteNotFound)
	h.wantSpoolEmpty()

	// An archive of the erased site is refused like an unknown site's (its 6 operations on S1;
	// the one on S2 is OK), and stores nothing of it.
	job = h.waitFinal(h.admin, jobIDOf(t, h.submit(h.admin, "late.tar.gz", tarGz(t, "r.json", erasureFile))))
	if job.State.Current != ingest.StateDone || job.Report.Overview.KO != 6 || job.Report.Overview.OK != 1 || job.Report.Files[0].FailedOperations[0].Errors[0].Code != "UNKNOWN_SITE" {
		t.Fatalf("late archive: %+v", job.Report)
	}
	if after := siteRows("S1"); len(after) != 0 {
		t.Fatalf("rows of S1 after a late archive: %v", after)
	}

	events, err := audit.Events(ctx, h.db, "acme", time.Now().Add(-time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	last := events[len(events)-1]
	if last.Action != audit.SiteErase || last.Resource != "sites/S1" || last.BeforeDigest == "" || last.AfterDigest != "" {
		t.Fatalf("last audit event %+v, want the erasure of S1", last)
	}
}

// rowsOfSite counts the site's rows in every table of the database that has a site_id column,
// whatever its other columns (views and Distributed tables have no rows of their own): a table
// added by any migration is checked here without being named. Tables with no row are left out.
func rowsOfSite(t *testing.T, h *jobsHarness, site string) map[string]uint64 {
	t.Helper()
	ctx := context.Background()
	rows, err := h.db.Conn.Query(ctx, `SELECT c.table FROM (SELECT table FROM system.columns WHERE database = currentDatabase() AND name = 'site_id') AS c
		ANY INNER JOIN (SELECT name AS table, engine FROM system.tables WHERE database = currentDatabase()) AS t USING table
		WHERE t.engine LIKE '%MergeTree' ORDER BY c.table`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	if len(names) < 13 {
		t.Fatalf("only %d tables with a site_id column: %v", len(names), names)
	}
	out := map[string]uint64{}
	for _, n := range names {
		var c uint64
		if err := h.db.Conn.QueryRow(ctx, "SELECT count() FROM `"+n+"` WHERE site_id = ?", site).Scan(&c); err != nil {
			t.Fatal(err)
		}
		if c > 0 {
			out[n] = c
		}
	}
	return out
}

func equalCounts(a, b map[string]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// waitErasure polls the erasure at path until DONE (30 s at most).
func waitErasure(t *testing.T, h *jobsHarness, path string) ErasureBody {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, body, _ := h.do("GET", path, h.admin, "")
		if st != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, st, body)
		}
		var e ErasureBody
		if err := json.Unmarshal(body, &e); err != nil {
			t.Fatal(err)
		}
		if e.State == erasure.StateDone {
			return e
		}
		if time.Now().After(deadline) {
			t.Fatalf("erasure still %s: %s", e.State, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Archives accepted before the erasure and not yet processed (the workers are stopped): the scan
// finds the spool file of the one holding readings of S1 (with S2's), not the one of S2 only.
// The erasure waits for them; once the workers run, S2's readings of both land, S1's operations
// are refused as UNKNOWN_SITE, and the erasure is DONE with no spool file left and 0 rows of S1.
func TestErasureWaitsForTheSpooledArchivesOfTheSite(t *testing.T) {
	h := newJobsHarness(t, "", false, nil)
	ctx := context.Background()
	const s2Only = `{"smartElecIndexes": [{"siteId": "S2", "podId": "PDL-2", "nature": "MKT_SMART_DISTRIBUTOR",
	  "ts": "2024-01-01T23:00:00Z", "generationTs": "2024-01-02T04:00:00Z", "value": {"1": 5100}}]}`
	both := jobIDOf(t, h.submit(h.admin, "both.tar.gz", tarGz(t, "r.json", erasureFile)))
	other := jobIDOf(t, h.submit(h.admin, "s2.tar.gz", tarGz(t, "r.json", s2Only)))
	held, err := h.jobs.ArchivesOfSite(ctx, "acme", "S1")
	if err != nil || len(held) != 1 || held[0] != both {
		t.Fatalf("archives of S1 before the erasure: %v %v, want [%s]", held, err, both)
	}
	if _, err := os.Stat(filepath.Join(h.spool, both+".job")); err != nil {
		t.Fatalf("spool file of S1's archive: %v", err)
	}

	st, body, _ := h.do("DELETE", "/v2/sites/S1", h.admin, "")
	if st != http.StatusAccepted {
		t.Fatalf("DELETE: %d %s", st, body)
	}
	var accepted struct {
		Links SelfLinks `json:"_links"`
	}
	if err := json.Unmarshal(body, &accepted); err != nil {
		t.Fatal(err)
	}
	path := strings.TrimPrefix(accepted.Links.Self.Href, h.srv.URL)
	time.Sleep(500 * time.Millisecond)
	if st, body, _ := h.do("GET", path, h.admin, ""); st != http.StatusOK || !strings.Contains(string(body), `"state":"IN_PROGRESS"`) {
		t.Fatalf("erasure while the archives wait: %d %s, want IN_PROGRESS", st, body)
	}
	if err := h.jobs.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitErasure(t, h, path)
	if held, err := h.jobs.ArchivesOfSite(ctx, "acme", "S1"); err != nil || len(held) != 0 {
		t.Fatalf("archives of S1 after the erasure: %v %v", held, err)
	}
	if n := h.spoolFiles(); n != 0 {
		t.Fatalf("%d spool files after the erasure", n)
	}
	job := h.getJob(h.admin, both)
	if job.State.Current != ingest.StateDone || job.Report.Overview.OK != 1 || job.Report.Overview.KO != 6 ||
		job.Report.Files[0].FailedOperations[0].Errors[0].Code != "UNKNOWN_SITE" {
		t.Fatalf("archive with S1 and S2: %+v", job.Report)
	}
	if j := h.getJob(h.admin, other); j.State.Current != ingest.StateDone || j.Report.Overview.OK != 1 {
		t.Fatalf("archive of S2: %+v", j.Report)
	}
	if left := rowsOfSite(t, h, "S1"); len(left) != 0 {
		t.Fatalf("rows of S1 after the erasure: %v", left)
	}
	var s2 uint64
	if err := h.db.Conn.QueryRow(ctx, "SELECT count() FROM elec_indexes WHERE site_id = 'S2'").Scan(&s2); err != nil || s2 != 2 {
		t.Fatalf("S2's electricity indexes: %d %v, want 2 (one of each archive)", s2, err)
	}
}
