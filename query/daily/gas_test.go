package daily

import (
	"context"
	"testing"
	"time"

	"energy/query/consumption"
	"energy/schema/chtest"
	"energy/schema/registry"
	"energy/schema/sitedata"
)

// TestGasDaysOfSeveralSites writes the gas days of two sites' readings through the ingest hook
// (one read for both sites) and then through a rebuild (one read per span of days): G1's
// readings are all in m3, so its days share the read; G2's meter is replaced on day 60 by one
// counting in ft3, and a day's volume unit is the latest reading's around that day (m3 far
// before the change, ft3 near it), so its days are answered one by one. Every day is the API's
// answer for that day, volume and unit included.
func TestGasDaysOfSeveralSites(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	for _, id := range []string{"G1", "G2"} {
		if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: id, Timezone: "Europe/Paris"}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO gas_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, value, unit, conversion_units, conversion_factors, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2024, 1, 10, 5, 0, 0, 0, time.UTC) // off midnight: every day interpolated
	gen := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	add := func(site string, ts time.Time, before bool, value int64, unit string, factor float64) {
		t.Helper()
		bc := uint8(0)
		if before {
			bc = 1
		}
		if err := b.Append("acme", site, "P"+site, ts, bc, "MKT_CYCLIC_DISTRIBUTOR", gen, value, unit, []string{"kWh"}, []float64{factor}, "j"); err != nil {
			t.Fatal(err)
		}
	}
	for d := 0; d <= 90; d += 5 {
		ts := start.AddDate(0, 0, d)
		add("G1", ts, false, 1000+int64(d)*12, "m3", 11.2)
		switch {
		case d < 60:
			add("G2", ts, false, 5000+int64(d)*7, "m3", 11.2)
		case d == 60: // the m3 meter's last index, then the ft3 meter from 0
			add("G2", ts, true, 5000+int64(d)*7, "m3", 11.2)
			add("G2", ts, false, 0, "ft3", 0.317)
		default:
			add("G2", ts, false, int64(d-60)*250, "ft3", 0.317)
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	engine := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	table := New(db, reg, engine)
	last := start.AddDate(0, 0, 90)
	w := sitedata.Written{TenantID: "acme", JobID: "j", Spans: []sitedata.ReadingSpan{
		{SiteID: "G1", Fluid: registry.HeatingGas, First: start, Last: last},
		{SiteID: "G2", Fluid: registry.HeatingGas, First: start, Last: last},
	}}
	paris, _ := time.LoadLocation("Europe/Paris")
	from, to := time.Date(2024, 1, 10, 0, 0, 0, 0, paris), time.Date(2024, 4, 9, 0, 0, 0, 0, paris)
	check := func(how string) {
		t.Helper()
		for _, site := range []string{"G1", "G2"} {
			days := checkSiteDays(t, db, engine, site, registry.HeatingGas, from, to)
			if len(days) != 91 {
				t.Errorf("%s: %s has %d days, want the 91 of January 10th to April 9th", how, site, len(days))
			}
			if u := days["2024-04-09"].VolumeUnit; u != map[string]string{"G1": "m3", "G2": "ft3"}[site] {
				t.Errorf("%s: %s's last day in %q", how, site, u)
			}
		}
		if u := readDays(t, db, "acme", "G2", registry.HeatingGas)["2024-01-20"].VolumeUnit; u != "m3" {
			t.Errorf("%s: G2's January 20th, two months before its ft3 meter, in %q", how, u)
		}
	}
	if err := table.Written(ctx, w); err != nil {
		t.Fatal(err)
	}
	check("ingest hook")
	spans, err := table.Spans(ctx, "acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.Rebuild(ctx, spans, nil); err != nil {
		t.Fatal(err)
	}
	check("rebuild")
}
