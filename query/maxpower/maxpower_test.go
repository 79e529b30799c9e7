package maxpower

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

var paris = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		panic(err)
	}
	return loc
}()

// at is a Paris wall-clock time "2006-01-02T15:04".
func at(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02T15:04", s, paris)
	if err != nil {
		panic(err)
	}
	return t
}

type reading struct {
	ts, gen time.Time
	watts   int64
}

func insertMaxPowers(t *testing.T, db *schema.DB, site string, rs ...reading) {
	t.Helper()
	b, err := db.Conn.PrepareBatch(context.Background(), "INSERT INTO max_powers (tenant_id, site_id, pod_id, ts, generation_ts, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := b.Append("acme", site, "PDL1", r.ts.UTC(), r.gen.UTC(), r.watts, "job"); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
}

// maxPowerSite stores site S1 in Paris on a BASE tariff of 6 kVA with March and April 2025
// readings: March holds the DST change (30 March is 23 hours long) and a reading re-sent with
// a correction.
func maxPowerSite(t *testing.T) (*Engine, registry.Site) {
	t.Helper()
	db := chtest.DB(t)
	reg := registry.New(db)
	ctx := context.Background()
	kva := 6
	if err := reg.PutTariff(ctx, registry.Tariff{TenantID: "acme", TariffID: "BASE-6", Option: registry.OptionBase,
		DialHeadings: map[string]string{"1": "BASE"}, Prices: []registry.PricePeriod{{ValidFrom: "2025-01-01", ByHeading: map[string]float64{"BASE": 0.2}}},
		SubscribedPowerKva: &kva}); err != nil {
		t.Fatal(err)
	}
	site := registry.Site{TenantID: "acme", SiteID: "S1", Timezone: "Europe/Paris", TariffID: "BASE-6"}
	if err := reg.PutSite(ctx, site); err != nil {
		t.Fatal(err)
	}
	gen := at("2025-06-01T00:00")
	insertMaxPowers(t, db, "S1",
		reading{at("2025-03-01T12:00"), gen, 5000},
		reading{at("2025-03-15T19:00"), gen, 6500},
		reading{at("2025-03-30T23:30"), gen, 5800},                // 21:30 UTC: 30 March in Paris
		reading{at("2025-03-31T00:30"), gen, 7200},                // 22:30 UTC on the 30th, but 31 March in Paris …
		reading{at("2025-03-31T00:30"), gen.Add(time.Hour), 6100}, // … re-sent, corrected: this one wins
		reading{at("2025-04-10T08:00"), gen, 6000},                // exactly 6 kVA: no overrun
		reading{at("2025-04-20T08:00"), gen, 6000},
		reading{at("2025-05-01T00:00"), gen, 9000}, // the first instant after the period: left out
	)
	return NewEngine(db, reg), site
}

func compute(t *testing.T, e *Engine, site registry.Site, req Request) string {
	t.Helper()
	res, err := e.Compute(context.Background(), site, req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMaxPowersByMonthAcrossDST(t *testing.T) {
	e, site := maxPowerSite(t)
	got := compute(t, e, site, Request{Start: at("2025-03-01T00:00"), End: at("2025-05-01T00:00"), StepUnit: "MONTHS", StepValue: 1})
	// March: dates 1, 15, 30, 31 have readings (4 of 31); the peak 6500 W on the 15th; above
	// 6,000 W: the 15th (6500) and the 31st (6100, the corrected value, not 7200).
	// April: 6000 W on the 10th and the 20th, the first reaching it is the 10th; no overrun.
	want := `{"period":{"startTime":"2025-03-01T00:00:00+01:00","endTime":"2025-05-01T00:00:00+02:00"},"step":"P1M","unit":"W","subscribedPowerKva":6,"maxPowers":[` +
		`{"period":{"startTime":"2025-03-01T00:00:00+01:00","endTime":"2025-04-01T00:00:00+02:00"},"value":6500,"date":"2025-03-15","days":4,"overrunDays":2,"status":"PARTIAL"},` +
		`{"period":{"startTime":"2025-04-01T00:00:00+02:00","endTime":"2025-05-01T00:00:00+02:00"},"value":6000,"date":"2025-04-10","days":2,"overrunDays":0,"status":"PARTIAL"}]}`
	if got != want {
		t.Errorf("MONTHS:\n got %s\nwant %s", got, want)
	}
}

func TestMaxPowersByDayAcrossDST(t *testing.T) {
	e, site := maxPowerSite(t)
	got := compute(t, e, site, Request{Start: at("2025-03-29T00:00"), End: at("2025-04-01T00:00"), StepUnit: "DAYS", StepValue: 1})
	// 29 March: no reading. 30 March (23 hours): 5800 W only (the 00:30 reading of the 31st is
	// 22:30 UTC on the 30th, yet belongs to the 31st). 31 March: the corrected 6100 W, above 6 kVA.
	want := `{"period":{"startTime":"2025-03-29T00:00:00+01:00","endTime":"2025-04-01T00:00:00+02:00"},"step":"P1D","unit":"W","subscribedPowerKva":6,"maxPowers":[` +
		`{"period":{"startTime":"2025-03-29T00:00:00+01:00","endTime":"2025-03-30T00:00:00+01:00"},"value":null,"date":null,"days":0,"overrunDays":0,"status":"NO_DATA"},` +
		`{"period":{"startTime":"2025-03-30T00:00:00+01:00","endTime":"2025-03-31T00:00:00+02:00"},"value":5800,"date":"2025-03-30","days":1,"overrunDays":0,"status":"COMPLETE"},` +
		`{"period":{"startTime":"2025-03-31T00:00:00+02:00","endTime":"2025-04-01T00:00:00+02:00"},"value":6100,"date":"2025-03-31","days":1,"overrunDays":1,"status":"COMPLETE"}]}`
	if got != want {
		t.Errorf("DAYS:\n got %s\nwant %s", got, want)
	}
}

func TestMaxPowersWithoutSubscribedPower(t *testing.T) {
	e, site := maxPowerSite(t)
	site.TariffID = ""
	got := compute(t, e, site, Request{Start: at("2025-04-01T00:00"), End: at("2025-05-01T00:00")})
	want := `{"period":{"startTime":"2025-04-01T00:00:00+02:00","endTime":"2025-05-01T00:00:00+02:00"},"step":"P1M","unit":"W","subscribedPowerKva":null,"maxPowers":[` +
		`{"period":{"startTime":"2025-04-01T00:00:00+02:00","endTime":"2025-05-01T00:00:00+02:00"},"value":6000,"date":"2025-04-10","days":2,"overrunDays":null,"status":"PARTIAL"}]}`
	if got != want {
		t.Errorf("whole period without tariff:\n got %s\nwant %s", got, want)
	}
}
