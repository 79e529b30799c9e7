package daily

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"energy/bench"
	"energy/query/consumption"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestDailyPathAnswersLikeTheReadings computes requests on the golden answers' data set (a
// year of daily indexes at local midnight on two dials, the HPHC tariff whose prices change on
// August 1st, Paris with its DST days) both from the daily table and from the readings, and
// compares the JSON answers byte for byte, and with query/consumption's golden answers where
// they have one; it checks which path answered each, so that the comparison is not between two
// readings answers.
func TestDailyPathAnswersLikeTheReadings(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	if err := bench.Generate(ctx, db, reg, bench.Spec{Sites: 1, Year: 2024}, nil); err != nil {
		t.Fatal(err)
	}
	site, err := reg.Site(ctx, bench.Tenant, bench.SiteID(0))
	if err != nil {
		t.Fatal(err)
	}
	fast := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	slow := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient).WithoutDailyTable()
	table := New(db, reg, fast)
	spans, err := table.Spans(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.Rebuild(ctx, spans, nil); err != nil {
		t.Fatal(err)
	}

	loc, _ := time.LoadLocation(bench.Timezone)
	at := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, loc) }
	year := consumption.Request{Start: at(2024, 1, 1), End: at(2025, 1, 1), StepValue: 1}
	with := func(unit string, f func(*consumption.Request)) consumption.Request {
		r := year
		r.StepUnit = unit
		if f != nil {
			f(&r)
		}
		return r
	}
	everything := func(r *consumption.Request) {
		r.WithCarbonFootprint, r.WithRatioByTariffHeading, r.WithGlobalConsumption = true, true, true
	}
	const table_, readings = consumption.PathDailyTable, consumption.PathReadings
	cases := []struct {
		name string
		req  consumption.Request
		path string
	}{
		// The golden answers' DAYS and MONTHS requests.
		{"DAYS year", with(consumption.UnitDays, nil), table_},
		{"MONTHS year", with(consumption.UnitMonths, nil), table_},
		{"DAYS year, every option", with(consumption.UnitDays, everything), table_},
		{"YEARS year, every option", with(consumption.UnitYears, everything), table_},
		{"MONTHS year without cost", with(consumption.UnitMonths, func(r *consumption.Request) { r.WithoutCost = true }), table_},
		// A price change (August 1st) inside a step, DST days (March 31st, October 27th) inside steps.
		{"MONTHS from July 15th, every option", with(consumption.UnitMonths, func(r *consumption.Request) {
			r.Start, r.End = at(2024, 7, 15), at(2024, 11, 15)
			everything(r)
		}), table_},
		{"DAYS 10 from March 25th", with(consumption.UnitDays, func(r *consumption.Request) {
			r.Start, r.End, r.StepValue = at(2024, 3, 25), at(2024, 11, 2), 10
			everything(r)
		}), table_},
		{"DAYS around the fall DST change", with(consumption.UnitDays, func(r *consumption.Request) {
			r.Start, r.End = at(2024, 10, 26), at(2024, 10, 29)
		}), table_},
		{"MONTHS 5, the last one cut", with(consumption.UnitMonths, func(r *consumption.Request) {
			r.Start, r.End, r.StepValue = at(2024, 2, 10), at(2024, 12, 20), 5
			everything(r)
		}), table_},
		{"explicit defaults", with(consumption.UnitMonths, func(r *consumption.Request) {
			r.IndexStrategy, r.DataSources = consumption.StrategySurroundingEstimated, []string{"SMART_METER", "LOAD_CURVE"}
		}), table_},
		// Not the table's rules, or beyond its rows: the readings answer.
		{"past the last reading", with(consumption.UnitMonths, func(r *consumption.Request) {
			r.Start, r.End = at(2024, 11, 1), at(2025, 3, 1)
		}), readings},
		{"before the first reading", with(consumption.UnitDays, func(r *consumption.Request) {
			r.Start, r.End = at(2023, 12, 25), at(2024, 1, 10)
		}), readings},
		{"ALL_ESTIMATED", with(consumption.UnitMonths, func(r *consumption.Request) { r.IndexStrategy = consumption.StrategyAllEstimated }), readings},
		{"index categories", with(consumption.UnitMonths, func(r *consumption.Request) { r.IndexCategories = []string{"SMART_METER"} }), readings},
		{"load curve only", with(consumption.UnitDays, func(r *consumption.Request) { r.DataSources = []string{"LOAD_CURVE"} }), readings},
		{"from noon", with(consumption.UnitDays, func(r *consumption.Request) { r.Start = r.Start.Add(12 * time.Hour) }), readings},
		{"HOURS", with(consumption.UnitHours, func(r *consumption.Request) { r.End = at(2024, 1, 3) }), readings},
		{"one step", with("", nil), readings},
	}
	goldens := 0
	for _, c := range cases {
		before := consumption.AnswersComputedFrom(c.path)
		got, err := fast.Compute(ctx, site, c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if consumption.AnswersComputedFrom(c.path) != before+1 {
			t.Errorf("%s: not answered from the %s", c.name, c.path)
		}
		want, err := slow.Compute(ctx, site, c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		gotJSON, err := consumption.EncodeJSON(got)
		if err != nil {
			t.Fatal(err)
		}
		wantJSON, err := consumption.EncodeJSON(want)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gotJSON, wantJSON) {
			t.Errorf("%s: the answers differ:\ntable    %s\nreadings %s", c.name, clip(gotJSON), clip(wantJSON))
		}
		// The golden answers of query/consumption, one item a line: without their newlines, the
		// bytes the table answered.
		if golden, err := os.ReadFile(filepath.Join("..", "consumption", "testdata", "answers", goldenFile(c.name))); err == nil {
			if !bytes.Equal(bytes.ReplaceAll(golden, []byte("\n"), nil), bytes.ReplaceAll(gotJSON, []byte("\n"), nil)) {
				t.Errorf("%s: the table's answer is not the golden answer %s", c.name, goldenFile(c.name))
			}
			goldens++
		}
	}
	if goldens != 3 {
		t.Errorf("%d golden answers compared, want the 3 DAYS and MONTHS ones", goldens)
	}
}

// goldenFile is the name query/consumption's golden test gives the answer of a case.
func goldenFile(name string) string {
	return strings.ToLower(strings.NewReplacer(" ", "-", ",", "").Replace(name)) + ".json"
}

// clip keeps the start of an answer for a failure message.
func clip(b []byte) string {
	if len(b) > 1500 {
		return string(b[:1500]) + "…"
	}
	return string(b)
}
