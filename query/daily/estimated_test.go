package daily

import (
	"context"
	"testing"
	"time"

	"energy/query/consumption"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestEstimatedReadingsDays rebuilds days around MKT_ESTIMATION readings (loaded straight into
// the store: archives bring none for electricity), whose use depends on each day's own period,
// so each day is evaluated on its own: every day is still the API's answer for that day.
func TestEstimatedReadingsDays(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: "S1", Timezone: "Europe/Paris"}); err != nil {
		t.Fatal(err)
	}
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	gen := time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC)
	for _, r := range []struct {
		ts     string
		nature string
		value  int64
	}{
		{"2024-06-01T05:00:00Z", "MKT_SMART_DISTRIBUTOR", 1000},
		{"2024-06-02T06:00:00Z", "MKT_SMART_DISTRIBUTOR", 2000},
		{"2024-06-02T12:00:00Z", "MKT_ESTIMATION", 3000}, // between real readings of June 2nd: left out that day
		{"2024-06-02T20:00:00Z", "MKT_SMART_DISTRIBUTOR", 5000},
		{"2024-06-04T09:00:00Z", "MKT_ESTIMATION", 9000}, // no real reading around: used
		{"2024-06-06T05:00:00Z", "MKT_SMART_DISTRIBUTOR", 13000},
	} {
		ts, _ := time.Parse(time.RFC3339, r.ts)
		if err := b.Append("acme", "S1", "P1", ts, uint8(0), r.nature, gen, "1", r.value, "j"); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	engine := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	table := New(db, reg, engine)
	spans, err := table.Spans(ctx, "acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := table.Rebuild(ctx, spans, nil); err != nil || n != 6 {
		t.Fatalf("rebuild: %d rows, %v; want the 6 days of June 1st to 6th", n, err)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	checkSiteDays(t, db, engine, "S1", registry.HeatingElec, time.Date(2024, 6, 1, 0, 0, 0, 0, paris), time.Date(2024, 6, 6, 0, 0, 0, 0, paris))
	days := readDays(t, db, "acme", "S1", registry.HeatingElec)
	if r := days["2024-06-04"]; r.Nature != consumption.NatureEstimated {
		t.Errorf("June 4th, from an estimate: nature %s", r.Nature)
	}
	if r := days["2024-06-02"]; r.Quality <= 50 {
		t.Errorf("June 2nd, its estimate left out: quality %v", r.Quality)
	}
}
