package consumption

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// A site's index reads stay proportional to the period asked, whatever its history: a year of
// DAYS on a site with ten years of daily readings reads about the year and its 35-day margins,
// not the 400 days on each side that a bracket may be looked for in when the margins hold none.
// ClickHouse reports the rows it read (whole 1,024-row granules of the by-site table) in its
// progress packets.
func TestReadingsReadStayNearThePeriod(t *testing.T) {
	f := newConsumptionFixture(t)
	f.tariff(baseTariff())
	// Four dials, daily from 2015-01-01 to 2025-01-01: 14,616 rows, 100 Wh a day on each dial.
	var rows []idxRow
	for d, day := 0, pd("2015-01-01"); !day.After(pd("2025-01-01")); d, day = d+1, AddSteps(day, parisLoc, UnitDays, 1) {
		for dial := 1; dial <= 4; dial++ {
			rows = append(rows, idxRow{ts: day, dial: fmt.Sprint(dial), value: int64(d) * 100})
		}
	}
	f.indexes(rows...)
	req := withGlobal(days("2020-01-01", "2021-01-01"))
	f.compute(req) // loads the site directory, which is not what is measured

	var read atomic.Uint64
	ctx := clickhouse.Context(context.Background(), clickhouse.WithProgress(func(p *clickhouse.Progress) { read.Add(p.Rows) }))
	res, err := f.engine.Compute(ctx, f.site, req)
	if err != nil {
		t.Fatal(err)
	}
	if g := res.GlobalConsumption; g == nil || g.EnergyMeter.Total == nil || *g.EnergyMeter.Total != 366*4*100 {
		t.Fatalf("global consumption of 2020: %+v, want %d Wh", g, 366*4*100)
	}
	// 2020 and its margins: 436 days × 4 dials = 1,744 rows, read as whole 1,024-row granules:
	// three, or four when the range straddles two parts. The year with 400 days on each side
	// would be 1,166 days: 4,664 rows, five granules or more (6,424 rows read, measured).
	if got := read.Load(); got == 0 || got > 4*1024 {
		t.Errorf("rows read for a DAYS year: %d, want 1 to %d", got, 4*1024)
	}
}

// When the 35-day margins hold no reading on one side, the second read looks farther on that
// side only, and the bracket it finds there estimates the period's edge. Base tariff: 0.25
// EUR/kWh and 1 EUR a day; 100 Wh a day between the readings.
func TestReadingsBracketBeyondOneMargin(t *testing.T) {
	base := tariffPtr(baseTariff())
	runConsumptionCases(t, []consumptionCase{
		{
			// Readings on 04-05 (0) and from 05-16 daily (4,100 after 41 days): 05-15's start is
			// interpolated from 04-05, 05-16 is measured.
			name:   "before",
			tariff: base,
			indexes: []idxRow{
				{ts: pd("2024-04-05"), dial: "1", value: 0},
				{ts: pd("2024-05-16"), dial: "1", value: 4100}, {ts: pd("2024-05-17"), dial: "1", value: 4200},
			},
			req: withGlobal(withStrategy(days("2024-05-15", "2024-05-17"), StrategyAllEstimated)),
			items: []wantItem{
				{wh: ptr(100), eur: ptr(1.025), status: StatusComplete, nature: NatureEstimated, quality: ptr(0)},
				{wh: ptr(100), eur: ptr(1.025), status: StatusComplete, nature: NatureReal},
			},
			global: &wantItem{wh: ptr(200), eur: ptr(2.05)},
		},
		{
			// Readings on 05-15 (0) and 05-16 (100), then 07-30 (7,600 after 75 more days):
			// 05-16 is measured up to 05-17, whose index is interpolated towards 07-30.
			name:   "after",
			tariff: base,
			indexes: []idxRow{
				{ts: pd("2024-05-15"), dial: "1", value: 0}, {ts: pd("2024-05-16"), dial: "1", value: 100},
				{ts: pd("2024-07-30"), dial: "1", value: 7600},
			},
			req: withGlobal(withStrategy(days("2024-05-15", "2024-05-17"), StrategyAllEstimated)),
			items: []wantItem{
				{wh: ptr(100), eur: ptr(1.025), status: StatusComplete, nature: NatureReal},
				{wh: ptr(100), eur: ptr(1.025), status: StatusComplete, nature: NatureEstimated, quality: ptr(0)},
			},
			global: &wantItem{wh: ptr(200), eur: ptr(2.05)},
		},
	})
}
