package heating

import (
	"context"
	"math"
	"slices"
	"strconv"
	"testing"
	"time"

	"energy/query/weather"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestPublishedSampleFittedThroughClickHouse: OpenEEmeter's sample (see realdata_test.go), whose
// readings and weather end in February 2018, stored as a site's gas indexes and its station's
// hourly observations, is fitted by the budgeter on today's clock: the fit period ends at the
// last reading (8 February 2018, 00:00), the normal years are 2016 and 2017, and the fit is the
// one of the readings in memory, within the sample's tolerances of its truth.
func TestPublishedSampleFittedThroughClickHouse(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	// The sample's days start at Illinois' local midnights (−06:00, −05:00 in summer).
	site := registry.Site{TenantID: "acme", SiteID: "IL", Timezone: "America/Chicago", WeatherStationID: "724390", HeatingFluid: registry.HeatingGas}
	loc := site.Location()

	var obs []weather.Observation
	for _, r := range readGzipCSV(t, "testdata/eemeter/il-tempF.csv.gz") {
		if r[1] == "nan" {
			continue
		}
		ts, err := time.Parse(time.RFC3339, r[0])
		if err != nil {
			t.Fatal(err)
		}
		f, err := strconv.ParseFloat(r[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		obs = append(obs, weather.Observation{Date: ts, Temperature: (f - 32) / 1.8, Cloudiness: 4})
	}
	if err := weather.NewStore(db).Put(ctx, site.TenantID, site.WeatherStationID, obs); err != nil {
		t.Fatal(err)
	}

	// The reporting year's days (after the blackout) as a cumulative index in Wh-units, with a
	// kWh factor of 0.001 per unit: a reading at each local midnight.
	blackoutEnd := time.Date(2017, 1, 4, 0, 0, 0, 0, loc)
	var days []Interval
	for _, iv := range sampleDays(t, loc) {
		if !iv.From.Before(blackoutEnd) {
			days = append(days, iv)
		}
	}
	batch, err := db.Conn.PrepareBatch(ctx, "INSERT INTO gas_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, value, unit, conversion_units, conversion_factors, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	var wh float64
	for i, iv := range days {
		if i > 0 && !iv.From.Equal(days[i-1].To) {
			t.Fatalf("the sample has a gap before %s", iv.From)
		}
		readings := []time.Time{iv.From}
		if i == len(days)-1 {
			readings = append(readings, iv.To)
		}
		for _, ts := range readings {
			if err := batch.Append("acme", "IL", "GAS1", ts.UTC(), uint8(0), "MKT_CYCLIC_DISTRIBUTOR", ts.UTC(), int64(math.Round(wh)), "m3", []string{"kWh"}, []float64{0.001}, "t"); err != nil {
				t.Fatal(err)
			}
			wh += iv.KWh * 1000
		}
	}
	if err := batch.Send(); err != nil {
		t.Fatal(err)
	}

	b := NewBudgeter(db, registry.New(db), nil) // the clock stays today's: years after the data
	got, err := b.Fit(ctx, site)
	if err != nil {
		t.Fatalf("fit on data ending in 2018, clock in %d: %v", time.Now().Year(), err)
	}
	want, err := FitModel(Input{Intervals: days, DailyMeans: sampleDailyMeans(t, loc), Loc: loc})
	if err != nil {
		t.Fatal(err)
	}
	if got.From != (Date{2017, time.February, 8}) || got.To != (Date{2018, time.February, 7}) || got.Intervals != want.Intervals ||
		!slices.Equal(got.NormalYears, []int{2016, 2017}) {
		t.Fatalf("fit period %s..%s with %d intervals and normal years %v, want 2017-02-08..2018-02-07, %d, [2016 2017]",
			got.From, got.To, got.Intervals, got.NormalYears, want.Intervals)
	}
	if got.BalancePoint == nil || *got.BalancePoint != *want.BalancePoint {
		t.Fatalf("balance point %v, want %v as fitted in memory", deref(got.BalancePoint), *want.BalancePoint)
	}
	// The indexes are whole Wh: the fit moves by far less than a millionth.
	total, heating := got.YearlyKWh(0)/kWhPerTherm, got.HeatingKWh()/kWhPerTherm
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"base", got.Base, want.Base}, {"slope", got.Slope, want.Slope}, {"total", total, want.YearlyKWh(0) / kWhPerTherm}} {
		if math.Abs(c.got/c.want-1) > 1e-6 {
			t.Errorf("%s %v, want %v as fitted in memory", c.what, c.got, c.want)
		}
	}
	t.Logf("fitted through ClickHouse: balance point %.1f °C, heating %.1f, total %.1f therms a year, R² %.3f", *got.BalancePoint, heating, total, got.R2)
	// The reporting year's truth: 675 therms of heating, 900 in all, balance point 15.56 °C.
	if math.Abs(heating/675-1) > 0.05 || math.Abs(total/900-1) > 0.06 || math.Abs(*got.BalancePoint-sampleBalancePointC) > 1.0 {
		t.Errorf("heating %.1f therms (want 675 ± 5 %%), total %.1f (900 ± 6 %%), balance point %.1f °C (%.2f ± 1)", heating, total, *got.BalancePoint, sampleBalancePointC)
	}
}
