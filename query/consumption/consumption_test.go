package consumption

import (
	"testing"
	"time"

	"energy/schema/registry"
)

// consumptionCase is one scenario of the engine against the real ClickHouse: data written as
// the intake writes it, a request, and the items worked out by hand in the comments.
type consumptionCase struct {
	name    string
	tariff  *registry.Tariff // nil: the site has none
	indexes []idxRow
	points  []lcPoint
	req     Request
	items   []wantItem
	global  *wantItem
	cp      [2]string // computationPeriod; empty: none expected
}

func days(from, to string) Request {
	return Request{Start: pd(from), End: pd(to), StepUnit: UnitDays, StepValue: 1}
}

func withStrategy(r Request, s string) Request {
	r.IndexStrategy = s
	return r
}

func withGlobal(r Request) Request {
	r.WithGlobalConsumption = true
	return r
}

func tariffPtr(t registry.Tariff) *registry.Tariff { return &t }

func runConsumptionCases(t *testing.T, cases []consumptionCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newConsumptionFixture(t)
			if c.tariff != nil {
				f.tariff(*c.tariff)
			}
			if len(c.indexes) > 0 {
				f.indexes(c.indexes...)
			}
			if len(c.points) > 0 {
				f.loadCurve(c.points...)
			}
			res := f.compute(c.req)
			checkItems(t, res.Consumptions, c.items)
			if c.global != nil {
				if res.GlobalConsumption == nil {
					t.Fatal("no globalConsumption")
				}
				checkItem(t, "global", *res.GlobalConsumption, *c.global)
			} else if res.GlobalConsumption != nil {
				t.Error("unexpected globalConsumption")
			}
			checkComputationPeriod(t, res, c.cp[0], c.cp[1])
		})
	}
}

var smart = []string{"MKT_SMART_DISTRIBUTOR"}

// Tariff BASE-2024 (baseTariff): 0.25 EUR/kWh, 366 EUR/year = 1 EUR per local day of 2024,
// whatever the day's length.
func TestConsumptionDaysAcrossDST(t *testing.T) {
	base := tariffPtr(baseTariff())
	runConsumptionCases(t, []consumptionCase{
		{
			// Spring forward: 2024-03-31 lasts 23 h. Indexes at local midnights 1000, 2000, 4300.
			// 03-30: 2000−1000 = 1000 Wh, 1 kWh × 0.25 + 1 = 1.25 EUR.
			// 03-31: 4300−2000 = 2300 Wh over 23 h, 0.575 + 1 (a whole day) = 1.575 EUR.
			// Global: 3300 Wh, 0.825 + 2 = 2.825 EUR, two reading intervals → aggregated.
			name:    "spring day is 23 h",
			tariff:  base,
			indexes: dailyIndexes("2024-03-30", "1", 1000, 2000, 4300),
			req:     withGlobal(days("2024-03-30", "2024-04-01")),
			items: []wantItem{
				{start: "2024-03-30T00:00", end: "2024-03-31T00:00", wh: ptr(1000), byHeading: map[string]float64{"BASE": 1000},
					eur: ptr(1.25), standing: ptr(1), eurHeading: map[string]float64{"BASE": 0.25},
					status: StatusComplete, nature: NatureReal, quality: ptr(100), natures: smart, aggregated: isFalse(), loadCurve: isFalse()},
				{start: "2024-03-31T00:00", end: "2024-04-01T00:00", wh: ptr(2300), byHeading: map[string]float64{"BASE": 2300},
					eur: ptr(1.575), standing: ptr(1), status: StatusComplete, nature: NatureReal, quality: ptr(100), natures: smart},
			},
			global: &wantItem{wh: ptr(3300), eur: ptr(2.825), standing: ptr(2), status: StatusComplete, quality: ptr(100), aggregated: isTrue()},
		},
		{
			// Fall back: 2024-10-27 lasts 25 h. Indexes 0, 2400, 4900.
			// 10-26: 2400 Wh, 0.6 + 1 = 1.6 EUR. 10-27: 2500 Wh over 25 h, 0.625 + 1 = 1.625 EUR.
			name:    "fall day is 25 h",
			tariff:  base,
			indexes: dailyIndexes("2024-10-26", "1", 0, 2400, 4900),
			req:     days("2024-10-26", "2024-10-28"),
			items: []wantItem{
				{start: "2024-10-26T00:00", end: "2024-10-27T00:00", wh: ptr(2400), eur: ptr(1.6), status: StatusComplete, quality: ptr(100)},
				{start: "2024-10-27T00:00", end: "2024-10-28T00:00", wh: ptr(2500), eur: ptr(1.625), status: StatusComplete, quality: ptr(100)},
			},
		},
	})
}

// TestConsumptionHoursAcrossDST: HOURS steps come from the load curve (30-minute points); the
// power of the i-th absolute hour of the local day is 1000 + 100·i W, so hour i holds
// 1000 + 100·i Wh and a misplaced or doubled hour shows.
func TestConsumptionHoursAcrossDST(t *testing.T) {
	cases := []struct {
		name        string
		day         string
		hours       int
		thirdStarts time.Time // the hour after the change
		fourth      time.Time
		// Σ_{i<n} (1000 + 100 i) Wh; cost Σ kWh × 0.25 + 1 EUR (the day's standing charge).
		totalWh, totalEUR float64
	}{
		// 23 h: 23 000 + 100 × 253 = 48 300 Wh; 12.075 + 1 = 13.075 EUR. 01:00+01 → 03:00+02.
		{"spring", "2024-03-31", 23, time.Date(2024, 3, 31, 1, 0, 0, 0, time.UTC), time.Date(2024, 3, 31, 2, 0, 0, 0, time.UTC), 48300, 13.075},
		// 25 h: 25 000 + 100 × 300 = 55 000 Wh; 13.75 + 1 = 14.75 EUR. 02:00+02, then 02:00+01.
		{"fall", "2024-10-27", 25, time.Date(2024, 10, 27, 0, 0, 0, 0, time.UTC), time.Date(2024, 10, 27, 1, 0, 0, 0, time.UTC), 55000, 14.75},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newConsumptionFixture(t)
			f.tariff(baseTariff())
			from := pd(c.day)
			var pts []lcPoint
			for i := 0; i < c.hours; i++ {
				h := from.Add(time.Duration(i) * time.Hour)
				pts = append(pts, constantLoadCurve(h, h.Add(time.Hour), 30*time.Minute, int64(1000+100*i))...)
			}
			f.loadCurve(pts...)
			end := AddSteps(from, parisLoc, UnitDays, 1)
			res := f.compute(Request{Start: from, End: end, StepUnit: UnitHours, StepValue: 1, WithGlobalConsumption: true})
			if len(res.Consumptions) != c.hours {
				t.Fatalf("%d items, want %d", len(res.Consumptions), c.hours)
			}
			if res.Step != "PT1H" {
				t.Errorf("step %q, want PT1H", res.Step)
			}
			for i, it := range res.Consumptions {
				// Each hour: (1000+100i) Wh, cost kWh × 0.25 + 1/hours EUR of standing charge.
				wh := float64(1000 + 100*i)
				checkItem(t, it.Period.StartTime.Format(time.RFC3339), it, wantItem{
					wh: ptr(wh), eur: ptr(roundTo(wh/1000*0.25+1/float64(c.hours), moneyDecimals)),
					status: StatusComplete, nature: NatureReal, quality: ptr(100), aggregated: isTrue(), loadCurve: isTrue(),
					natures: []string{},
				})
			}
			if got := res.Consumptions[2].Period.StartTime; !got.Equal(c.thirdStarts) {
				t.Errorf("third hour starts %s, want %s", got.Format(time.RFC3339), c.thirdStarts.In(parisLoc).Format(time.RFC3339))
			}
			if got := res.Consumptions[3].Period.StartTime; !got.Equal(c.fourth) {
				t.Errorf("fourth hour starts %s, want %s", got.Format(time.RFC3339), c.fourth.In(parisLoc).Format(time.RFC3339))
			}
			checkItem(t, "global", *res.GlobalConsumption, wantItem{wh: ptr(c.totalWh), eur: ptr(c.totalEUR), standing: ptr(1), status: StatusComplete, quality: ptr(100)})
			checkComputationPeriod(t, res, "", "")
		})
	}
}

func TestConsumptionIndexRules(t *testing.T) {
	base := tariffPtr(baseTariff())
	gen := func(s string) time.Time { return pt(s) }
	runConsumptionCases(t, []consumptionCase{
		{
			// March 2024 (MONTHS): 03-01 1000; on 03-10 the old meter ends at 1500 and the new one
			// starts at 20; 04-01 520. (1500−1000) + (520−20) = 1000 Wh; two reading intervals.
			// Cost 1 kWh × 0.25 + 31 days × 1 = 31.25 EUR.
			name:   "meter change inside a month",
			tariff: base,
			indexes: []idxRow{
				{ts: pd("2024-03-01"), dial: "1", value: 1000},
				{ts: pd("2024-03-10"), dial: "1", value: 1500, before: true},
				{ts: pd("2024-03-10"), dial: "1", value: 20},
				{ts: pd("2024-04-01"), dial: "1", value: 520},
			},
			req: Request{Start: pd("2024-03-01"), End: pd("2024-04-01"), StepUnit: UnitMonths, StepValue: 1},
			items: []wantItem{{start: "2024-03-01T00:00", end: "2024-04-01T00:00", wh: ptr(1000), eur: ptr(31.25), standing: ptr(31),
				status: StatusComplete, nature: NatureReal, quality: ptr(100), flags: []string{FlagMeterChange}, aggregated: isTrue()}},
		},
		{
			// A meter change exactly at 03-10 00:00 flags the day that starts there, not the one
			// that ends there. 200−100, 300−200 (old meter), 105−5 (new meter): 100 Wh each.
			name:   "meter change on a step boundary",
			tariff: base,
			indexes: []idxRow{
				{ts: pd("2024-03-08"), dial: "1", value: 100},
				{ts: pd("2024-03-09"), dial: "1", value: 200},
				{ts: pd("2024-03-10"), dial: "1", value: 300, before: true},
				{ts: pd("2024-03-10"), dial: "1", value: 5},
				{ts: pd("2024-03-11"), dial: "1", value: 105},
			},
			req: days("2024-03-08", "2024-03-11"),
			items: []wantItem{
				{wh: ptr(100), eur: ptr(1.025)},
				{wh: ptr(100), eur: ptr(1.025)},
				{wh: ptr(100), eur: ptr(1.025), flags: []string{FlagMeterChange}},
			},
		},
		{
			// 03-02 is sent as 9999, invalidated by a later MKT_SMART_DISTRIBUTOR_INVALID, then
			// re-sent as 1200 by a still later generation: 1200−1000 = 200, 1500−1200 = 300 Wh.
			name:   "index invalidated then re-sent",
			tariff: base,
			indexes: []idxRow{
				{ts: pd("2024-03-01"), dial: "1", value: 1000},
				{ts: pd("2024-03-02"), dial: "1", value: 9999, gen: gen("2024-03-02T06:00")},
				{ts: pd("2024-03-02"), dial: "1", value: 9999, gen: gen("2024-03-03T06:00"), nature: "MKT_SMART_DISTRIBUTOR_INVALID"},
				{ts: pd("2024-03-02"), dial: "1", value: 1200, gen: gen("2024-03-04T06:00")},
				{ts: pd("2024-03-03"), dial: "1", value: 1500},
			},
			req: withGlobal(days("2024-03-01", "2024-03-03")),
			items: []wantItem{
				{wh: ptr(200), eur: ptr(1.05), status: StatusComplete, quality: ptr(100), natures: smart},
				{wh: ptr(300), eur: ptr(1.075), status: StatusComplete, quality: ptr(100), natures: smart},
			},
			global: &wantItem{wh: ptr(500), eur: ptr(2.125), aggregated: isTrue()},
		},
		{
			// Invalidated and never re-sent: 03-02 has no index. Under the default strategy
			// (SURROUNDING_ESTIMATED) the interior boundary 03-02 cannot be interpolated, so both
			// days have no data; the whole period [03-01, 03-03] is one real interval: 500 Wh.
			name:   "index invalidated, default strategy",
			tariff: base,
			indexes: []idxRow{
				{ts: pd("2024-03-01"), dial: "1", value: 1000},
				{ts: pd("2024-03-02"), dial: "1", value: 9999, gen: gen("2024-03-02T06:00")},
				{ts: pd("2024-03-02"), dial: "1", value: 9999, gen: gen("2024-03-03T06:00"), nature: "MKT_SMART_DISTRIBUTOR_INVALID"},
				{ts: pd("2024-03-03"), dial: "1", value: 1500},
			},
			req: withGlobal(days("2024-03-01", "2024-03-03")),
			items: []wantItem{
				{wh: nil, status: StatusNoData, quality: ptr(0), flags: []string{FlagMissingData}},
				{wh: nil, status: StatusNoData, quality: ptr(0), flags: []string{FlagMissingData}},
			},
			global: &wantItem{wh: ptr(500), eur: ptr(2.125), status: StatusComplete, nature: NatureReal, quality: ptr(100), aggregated: isFalse()},
		},
		{
			// Same data, ALL_ESTIMATED: 03-02 is interpolated (estimated) at 1250: 250 + 250 Wh,
			// quality 0 (no real data), COMPLETE, ESTIMATED. 0.0625 + 1 EUR each.
			name:   "index invalidated, all estimated",
			tariff: base,
			indexes: []idxRow{
				{ts: pd("2024-03-01"), dial: "1", value: 1000},
				{ts: pd("2024-03-02"), dial: "1", value: 9999, gen: gen("2024-03-02T06:00")},
				{ts: pd("2024-03-02"), dial: "1", value: 9999, gen: gen("2024-03-03T06:00"), nature: "MKT_SMART_DISTRIBUTOR_INVALID"},
				{ts: pd("2024-03-03"), dial: "1", value: 1500},
			},
			req: withStrategy(days("2024-03-01", "2024-03-03"), StrategyAllEstimated),
			items: []wantItem{
				{wh: ptr(250), eur: ptr(1.0625), status: StatusComplete, nature: NatureEstimated, quality: ptr(0)},
				{wh: ptr(250), eur: ptr(1.0625), status: StatusComplete, nature: NatureEstimated, quality: ptr(0)},
			},
		},
		{
			// 03-02 holds a distributor index (1200), a customer one (1300) and an estimation
			// (1250): the distributor wins. 200 and 300 Wh, natures: the distributor only.
			name:   "three natures at one ts, distributor wins",
			tariff: base,
			indexes: []idxRow{
				{ts: pd("2024-03-01"), dial: "1", value: 1000},
				{ts: pd("2024-03-02"), dial: "1", value: 1200},
				{ts: pd("2024-03-02"), dial: "1", value: 1300, nature: "MKT_CUSTOMER"},
				{ts: pd("2024-03-02"), dial: "1", value: 1250, nature: "MKT_ESTIMATION"},
				{ts: pd("2024-03-03"), dial: "1", value: 1500},
			},
			req:   days("2024-03-01", "2024-03-03"),
			items: []wantItem{{wh: ptr(200), eur: ptr(1.05), natures: smart}, {wh: ptr(300), eur: ptr(1.075), natures: smart}},
		},
		{
			// The distributor's 03-02 index is invalidated: the family is gone there and the
			// customer reading (1300) wins: 300 and 200 Wh, both natures used.
			name:   "two natures at one ts, distributor invalidated",
			tariff: base,
			indexes: []idxRow{
				{ts: pd("2024-03-01"), dial: "1", value: 1000},
				{ts: pd("2024-03-02"), dial: "1", value: 1200},
				{ts: pd("2024-03-02"), dial: "1", value: 1200, nature: "MKT_SMART_DISTRIBUTOR_INVALID", gen: gen("2024-03-05T00:00")},
				{ts: pd("2024-03-02"), dial: "1", value: 1300, nature: "MKT_CUSTOMER"},
				{ts: pd("2024-03-03"), dial: "1", value: 1500},
			},
			req: days("2024-03-01", "2024-03-03"),
			items: []wantItem{
				{wh: ptr(300), eur: ptr(1.075), nature: NatureReal, quality: ptr(100), natures: []string{"MKT_CUSTOMER", "MKT_SMART_DISTRIBUTOR"}},
				{wh: ptr(200), eur: ptr(1.05), nature: NatureReal, quality: ptr(100), natures: []string{"MKT_CUSTOMER", "MKT_SMART_DISTRIBUTOR"}},
			},
		},
		{
			// Same data with indexCategories SMART_METER and ESTIMATED only: the customer reading
			// is ignored, the distributor one is invalidated, the estimation (1250) wins at 03-02
			// and, under ALL_ESTIMATED, is used: 250 + 250 Wh, estimated (quality 0).
			name:   "category filter leaves the estimation",
			tariff: base,
			indexes: []idxRow{
				{ts: pd("2024-03-01"), dial: "1", value: 1000},
				{ts: pd("2024-03-02"), dial: "1", value: 1200},
				{ts: pd("2024-03-02"), dial: "1", value: 1200, nature: "MKT_SMART_DISTRIBUTOR_INVALID", gen: gen("2024-03-05T00:00")},
				{ts: pd("2024-03-02"), dial: "1", value: 1300, nature: "MKT_CUSTOMER"},
				{ts: pd("2024-03-02"), dial: "1", value: 1250, nature: "MKT_ESTIMATION"},
				{ts: pd("2024-03-03"), dial: "1", value: 1500},
			},
			req: func() Request {
				r := withStrategy(days("2024-03-01", "2024-03-03"), StrategyAllEstimated)
				r.IndexCategories = []string{"SMART_METER", "ESTIMATED"}
				return r
			}(),
			items: []wantItem{
				{wh: ptr(250), eur: ptr(1.0625), nature: NatureEstimated, quality: ptr(0), natures: []string{"MKT_ESTIMATION", "MKT_SMART_DISTRIBUTOR"}},
				{wh: ptr(250), eur: ptr(1.0625), nature: NatureEstimated, quality: ptr(0), natures: []string{"MKT_ESTIMATION", "MKT_SMART_DISTRIBUTOR"}},
			},
		},
		{
			// 1000, 1500, 1400 (down without meter change), 1600: 500, 0 flagged, 200 Wh.
			// The flagged day still costs its standing charge: 0 + 1 EUR.
			name:    "negative consumption",
			tariff:  base,
			indexes: dailyIndexes("2024-03-01", "1", 1000, 1500, 1400, 1600),
			req:     withGlobal(days("2024-03-01", "2024-03-04")),
			items: []wantItem{
				{wh: ptr(500), eur: ptr(1.125)},
				{wh: ptr(0), eur: ptr(1), status: StatusComplete, flags: []string{FlagNegativeConsumption}},
				{wh: ptr(200), eur: ptr(1.05)},
			},
			global: &wantItem{wh: ptr(700), eur: ptr(3.175), flags: []string{FlagNegativeConsumption}},
		},
		{
			// Readings 100 days apart (04-01: 0, 07-10: 10 000 Wh, 100 Wh a day) and a period in
			// between, farther than the first query's 35-day margin from both: the bracket query
			// finds them. ALL_ESTIMATED: 100 Wh a day, interpolated (quality 0); 0.025 + 1 EUR.
			name:    "sparse readings found beyond the window",
			tariff:  base,
			indexes: []idxRow{{ts: pd("2024-04-01"), dial: "1", value: 0}, {ts: pd("2024-07-10"), dial: "1", value: 10000}},
			req:     withGlobal(withStrategy(days("2024-05-15", "2024-05-17"), StrategyAllEstimated)),
			items: []wantItem{
				{wh: ptr(100), eur: ptr(1.025), status: StatusComplete, nature: NatureEstimated, quality: ptr(0)},
				{wh: ptr(100), eur: ptr(1.025), status: StatusComplete, nature: NatureEstimated, quality: ptr(0)},
			},
			global: &wantItem{wh: ptr(200), eur: ptr(2.05), aggregated: isFalse()},
		},
		{
			// Same under SURROUNDING_ESTIMATED: the interior boundary 05-16 is not interpolated
			// (both days have no data) but the period's own ends are: the global item is 200 Wh.
			name:    "sparse readings, surrounding estimated",
			tariff:  base,
			indexes: []idxRow{{ts: pd("2024-04-01"), dial: "1", value: 0}, {ts: pd("2024-07-10"), dial: "1", value: 10000}},
			req:     withGlobal(days("2024-05-15", "2024-05-17")),
			items: []wantItem{
				{wh: nil, status: StatusNoData, flags: []string{FlagMissingData}},
				{wh: nil, status: StatusNoData, flags: []string{FlagMissingData}},
			},
			global: &wantItem{wh: ptr(200), eur: ptr(2.05), status: StatusComplete, nature: NatureEstimated, quality: ptr(0)},
		},
		{
			// Two points of delivery on one site: their dials add up under the heading
			// (300 + 500 Wh), one reading interval each → aggregated.
			name:   "two pods add up",
			tariff: base,
			indexes: []idxRow{
				{ts: pd("2024-03-01"), dial: "1", value: 0, pod: "PDL-A"}, {ts: pd("2024-03-02"), dial: "1", value: 300, pod: "PDL-A"},
				{ts: pd("2024-03-01"), dial: "1", value: 1000, pod: "PDL-B"}, {ts: pd("2024-03-02"), dial: "1", value: 1500, pod: "PDL-B"},
			},
			req:   days("2024-03-01", "2024-03-02"),
			items: []wantItem{{wh: ptr(800), byHeading: map[string]float64{"BASE": 800}, eur: ptr(1.2), quality: ptr(100), aggregated: isTrue()}},
		},
		{
			// No tariff: headings are the dial numbers, no cost; carbon from the service default
			// (0.06 kgCO2e/kWh in the fixture) is checked in TestConsumptionCarbon.
			name:    "no tariff keys by dial",
			indexes: append(dailyIndexes("2024-03-01", "1", 0, 700), dailyIndexes("2024-03-01", "2", 0, 300)...),
			req:     days("2024-03-01", "2024-03-02"),
			items:   []wantItem{{wh: ptr(1000), byHeading: map[string]float64{"1": 700, "2": 300}, eur: nil, aggregated: isFalse()}},
		},
	})
}

// TestConsumptionGapUnderEachStrategy: real readings at local midnights
//
//	01-01: 0, 01-03: 300, 01-04: 400, 01-06: 700, 01-07: 800, 01-08: 900, 01-10: 1100
//
// and an MKT_ESTIMATION reading at 01-05: 520. Requested [01-02, 01-09) by day: the period
// starts and ends between readings and has a gap (01-04 → 01-06) in the middle.
func TestConsumptionGapUnderEachStrategy(t *testing.T) {
	base := tariffPtr(baseTariff())
	readings := []idxRow{
		{ts: pd("2024-01-01"), dial: "1", value: 0},
		{ts: pd("2024-01-03"), dial: "1", value: 300},
		{ts: pd("2024-01-04"), dial: "1", value: 400},
		{ts: pd("2024-01-05"), dial: "1", value: 520, nature: "MKT_ESTIMATION"},
		{ts: pd("2024-01-06"), dial: "1", value: 700},
		{ts: pd("2024-01-07"), dial: "1", value: 800},
		{ts: pd("2024-01-08"), dial: "1", value: 900},
		{ts: pd("2024-01-10"), dial: "1", value: 1100},
	}
	req := withGlobal(days("2024-01-02", "2024-01-09"))
	both := []string{"MKT_ESTIMATION", "MKT_SMART_DISTRIBUTOR"}
	noData := wantItem{wh: nil, eur: nil, status: StatusNoData, quality: ptr(0), flags: []string{FlagMissingData}}
	real100 := wantItem{wh: ptr(100), eur: ptr(1.025), status: StatusComplete, nature: NatureReal, quality: ptr(100), natures: smart}
	runConsumptionCases(t, []consumptionCase{
		{
			// Estimated indexes anywhere: 01-02 is interpolated at 150 → 150 Wh; 01-04 → 01-05
			// uses the estimation: 120 and 180 Wh; 01-09 is interpolated at 1000 → 100 Wh. Those
			// days are ESTIMATED with quality 0; each costs kWh × 0.25 + 1.
			// Global: 1000 − 150 = 850 Wh, real data on 01-03 and 01-06..01-08 (3 of 7 days →
			// 42.86 %), 0.2125 + 7 = 7.2125 EUR.
			name:    "ALL_ESTIMATED",
			tariff:  base,
			indexes: readings,
			req:     withStrategy(req, StrategyAllEstimated),
			items: []wantItem{
				{start: "2024-01-02T00:00", wh: ptr(150), eur: ptr(1.0375), status: StatusComplete, nature: NatureEstimated, quality: ptr(0), natures: smart},
				real100,
				{wh: ptr(120), eur: ptr(1.03), status: StatusComplete, nature: NatureEstimated, quality: ptr(0), natures: both},
				{wh: ptr(180), eur: ptr(1.045), status: StatusComplete, nature: NatureEstimated, quality: ptr(0), natures: both},
				real100,
				real100,
				{start: "2024-01-08T00:00", wh: ptr(100), eur: ptr(1.025), status: StatusComplete, nature: NatureEstimated, quality: ptr(0)},
			},
			global: &wantItem{wh: ptr(850), eur: ptr(7.2125), standing: ptr(7), status: StatusComplete, nature: NatureEstimated, quality: ptr(42.86), natures: both, aggregated: isTrue()},
		},
		{
			// No estimated index at all: no interpolation at any boundary and the estimation is
			// dropped, so only days holding two real readings count: 01-03, 01-06, 01-07.
			// computationPeriod: first computed instant 01-03, last 01-08.
			// Global: real intervals inside the period: 100 + 300 + 100 + 100 = 600 Wh over
			// 01-03..01-08 (5 of 7 days → 71.43 %), PARTIAL; 0.15 + 7 = 7.15 EUR.
			name:    "NO_ESTIMATED",
			tariff:  base,
			indexes: readings,
			req:     withStrategy(req, StrategyNoEstimated),
			items:   []wantItem{noData, real100, noData, noData, real100, real100, noData},
			global: &wantItem{wh: ptr(600), eur: ptr(7.15), status: StatusPartial, nature: NatureReal, quality: ptr(71.43),
				flags: []string{FlagMissingData}, natures: smart},
			cp: [2]string{"2024-01-03T00:00", "2024-01-08T00:00"},
		},
		{
			// Estimated only at the start and end of the period: 01-02 and 01-09 are interpolated
			// (150 and 100 Wh, estimated); the estimation at 01-05 lies between real readings of
			// the period and is not used, and the interior boundary 01-05 is not interpolated:
			// 01-04 and 01-05 have no data. Global: 150 + 100 + 300 + 100 + 100 + 100 = 850 Wh,
			// COMPLETE, real on 01-03..01-08 (71.43 %), 7.2125 EUR.
			name:    "SURROUNDING_ESTIMATED",
			tariff:  base,
			indexes: readings,
			req:     withStrategy(req, StrategySurroundingEstimated),
			items: []wantItem{
				{wh: ptr(150), eur: ptr(1.0375), status: StatusComplete, nature: NatureEstimated, quality: ptr(0)},
				real100, noData, noData, real100, real100,
				{wh: ptr(100), eur: ptr(1.025), status: StatusComplete, nature: NatureEstimated, quality: ptr(0)},
			},
			global: &wantItem{wh: ptr(850), eur: ptr(7.2125), status: StatusComplete, nature: NatureEstimated, quality: ptr(71.43), natures: smart},
		},
	})
}

// TestConsumptionEstimatesCompleteTheEnds: MKT_ESTIMATION readings at 01-01 (0), 01-02 (100) and
// 01-05 (400) around real ones at 01-03 (200) and 01-04 (300); [01-01, 01-05) by day.
func TestConsumptionEstimatesCompleteTheEnds(t *testing.T) {
	readings := []idxRow{
		{ts: pd("2024-01-01"), dial: "1", value: 0, nature: "MKT_ESTIMATION"},
		{ts: pd("2024-01-02"), dial: "1", value: 100, nature: "MKT_ESTIMATION"},
		{ts: pd("2024-01-03"), dial: "1", value: 200},
		{ts: pd("2024-01-04"), dial: "1", value: 300},
		{ts: pd("2024-01-05"), dial: "1", value: 400, nature: "MKT_ESTIMATION"},
	}
	est := wantItem{wh: ptr(100), status: StatusComplete, nature: NatureEstimated, quality: ptr(0), eur: ptr(1.025)}
	runConsumptionCases(t, []consumptionCase{
		{
			// SURROUNDING_ESTIMATED (default): the estimations before the first and after the
			// last real reading complete the period: 100 Wh a day, the first two and the last
			// estimated.
			name: "surrounding", tariff: tariffPtr(baseTariff()), indexes: readings,
			req: days("2024-01-01", "2024-01-05"),
			items: []wantItem{est, est,
				{wh: ptr(100), status: StatusComplete, nature: NatureReal, quality: ptr(100), natures: smart, eur: ptr(1.025)},
				{wh: ptr(100), status: StatusComplete, nature: NatureEstimated, quality: ptr(0), natures: []string{"MKT_ESTIMATION", "MKT_SMART_DISTRIBUTOR"}, eur: ptr(1.025)}},
		},
		{
			// NO_ESTIMATED: only 01-03 → 01-04 counts; computationPeriod is that day.
			name: "no estimated", tariff: tariffPtr(baseTariff()), indexes: readings,
			req: withStrategy(days("2024-01-01", "2024-01-05"), StrategyNoEstimated),
			items: []wantItem{
				{wh: nil, status: StatusNoData, flags: []string{FlagMissingData}},
				{wh: nil, status: StatusNoData, flags: []string{FlagMissingData}},
				{wh: ptr(100), status: StatusComplete, nature: NatureReal, eur: ptr(1.025)},
				{wh: nil, status: StatusNoData, flags: []string{FlagMissingData}},
			},
			cp: [2]string{"2024-01-03T00:00", "2024-01-04T00:00"},
		},
	})
}

// hphcShiftedTariff sends 09:30–10:30 local to HC (0.20 EUR/kWh), the rest to HP (0.30), no
// standing charge.
func hphcShiftedTariff() registry.Tariff {
	return registry.Tariff{
		TariffID: "HPHC-T", Option: registry.OptionHPHC,
		DialHeadings:   map[string]string{"1": "HC", "2": "HP"},
		TimeOfUse:      []registry.TimeOfUse{{From: "09:30", To: "10:30", Heading: "HC"}},
		DefaultHeading: "HP",
		Prices:         []registry.PricePeriod{{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"HC": 0.20, "HP": 0.30}}},
	}
}

func TestConsumptionLoadCurve(t *testing.T) {
	// endTs-stamped 30-minute points (stored as their interval) on 2024-06-12, offset by 15
	// minutes from the hour so that each straddles an hour boundary:
	//   endTs 09:15 [08:45,09:15) 1000 W · 09:45 [09:15,09:45) 2000 W · 10:15 [09:45,10:15) 4000 W
	//   10:45 [10:15,10:45) 800 W (reliability 1) · 11:15 [10:45,11:15) 1600 W · nothing after.
	points := []lcPoint{
		{begin: pt("2024-06-12T08:45"), end: pt("2024-06-12T09:15"), watts: 1000},
		{begin: pt("2024-06-12T09:15"), end: pt("2024-06-12T09:45"), watts: 2000},
		{begin: pt("2024-06-12T09:45"), end: pt("2024-06-12T10:15"), watts: 4000},
		{begin: pt("2024-06-12T10:15"), end: pt("2024-06-12T10:45"), watts: 800, reliability: 1},
		{begin: pt("2024-06-12T10:45"), end: pt("2024-06-12T11:15"), watts: 1600},
	}
	runConsumptionCases(t, []consumptionCase{
		{
			// 09h: 1000×¼ (HP) + 2000×¼ (HP) + 2000×¼ (HC, from 09:30) + 4000×¼ (HC)
			//      = HP 750 + HC 1500 = 2250 Wh; 0.75×0.30 + 1.5×0.20 = 0.525 EUR.
			// 10h: 4000×¼ (HC) + 800×¼ (HC) + 800×¼ (HP, from 10:30) + 1600×¼ (HP)
			//      = HC 1200 + HP 600 = 1800 Wh; 0.24 + 0.18 = 0.42 EUR; half the hour is
			//      unreliable → quality 50, UNRELIABLE_LOAD_CURVE, ESTIMATED.
			// 11h: 1600×¼ = 400 Wh HP, then no point: PARTIAL, MISSING_DATA, quality 25; 0.12 EUR.
			// computationPeriod: 09:00 → 11:15, the last computed instant.
			name:   "endTs points straddling hour boundaries, time of use, reliability",
			tariff: tariffPtr(hphcShiftedTariff()),
			points: points,
			req:    Request{Start: pt("2024-06-12T09:00"), End: pt("2024-06-12T12:00"), StepUnit: UnitHours, StepValue: 1},
			items: []wantItem{
				{start: "2024-06-12T09:00", wh: ptr(2250), byHeading: map[string]float64{"HC": 1500, "HP": 750}, eur: ptr(0.525), standing: ptr(0),
					eurHeading: map[string]float64{"HC": 0.3, "HP": 0.225}, status: StatusComplete, nature: NatureReal, quality: ptr(100),
					aggregated: isTrue(), loadCurve: isTrue(), natures: []string{}},
				{start: "2024-06-12T10:00", wh: ptr(1800), byHeading: map[string]float64{"HC": 1200, "HP": 600}, eur: ptr(0.42),
					status: StatusComplete, nature: NatureEstimated, quality: ptr(50), flags: []string{FlagUnreliableLoadCurve}, loadCurve: isTrue()},
				{start: "2024-06-12T11:00", wh: ptr(400), byHeading: map[string]float64{"HC": 0, "HP": 400}, eur: ptr(0.12),
					status: StatusPartial, nature: NatureReal, quality: ptr(25), flags: []string{FlagMissingData}, aggregated: isFalse(), loadCurve: isTrue()},
			},
			cp: [2]string{"2024-06-12T09:00", "2024-06-12T11:15"},
		},
		{
			// A newer generation of the 09:15 point (3000 W instead of 2000) wins:
			// 09h = 250 HP + 750 HP + 750 HC + 1000 HC = 2750 Wh.
			name:   "latest generation of a point wins",
			tariff: tariffPtr(hphcShiftedTariff()),
			points: append(append([]lcPoint(nil), points...),
				lcPoint{begin: pt("2024-06-12T09:15"), end: pt("2024-06-12T09:45"), watts: 3000, gen: pt("2024-06-20T00:00")}),
			req:   Request{Start: pt("2024-06-12T09:00"), End: pt("2024-06-12T10:00"), StepUnit: UnitHours, StepValue: 1},
			items: []wantItem{{wh: ptr(2750), byHeading: map[string]float64{"HC": 1750, "HP": 1000}, eur: ptr(0.65), quality: ptr(100)}},
		},
		{
			// DAYS steps use indexes; the indexes miss 01-01 and 01-02 (first reading 01-03), so
			// with loadCurveCompletion those days come from the load curve (500 W all day:
			// 12 000 Wh, 3 + 1 = 4 EUR), the rest from indexes (100 Wh, 1.025 EUR).
			name:   "load curve completes the start",
			tariff: tariffPtr(baseTariff()),
			indexes: []idxRow{
				{ts: pd("2024-01-03"), dial: "1", value: 300},
				{ts: pd("2024-01-04"), dial: "1", value: 400},
				{ts: pd("2024-01-05"), dial: "1", value: 500},
			},
			points: constantLoadCurve(pd("2024-01-01"), pd("2024-01-03"), 30*time.Minute, 500),
			req: func() Request {
				r := days("2024-01-01", "2024-01-05")
				r.LoadCurveCompletion = true
				return r
			}(),
			items: []wantItem{
				{wh: ptr(12000), byHeading: map[string]float64{"BASE": 12000}, eur: ptr(4), status: StatusComplete, quality: ptr(100), loadCurve: isTrue()},
				{wh: ptr(12000), eur: ptr(4), loadCurve: isTrue()},
				{wh: ptr(100), eur: ptr(1.025), loadCurve: isFalse()},
				{wh: ptr(100), eur: ptr(1.025), loadCurve: isFalse()},
			},
		},
		{
			// Same without completion: the first two days have no data and computationPeriod
			// starts at the first reading.
			name:   "without completion the start is missing",
			tariff: tariffPtr(baseTariff()),
			indexes: []idxRow{
				{ts: pd("2024-01-03"), dial: "1", value: 300},
				{ts: pd("2024-01-04"), dial: "1", value: 400},
				{ts: pd("2024-01-05"), dial: "1", value: 500},
			},
			points: constantLoadCurve(pd("2024-01-01"), pd("2024-01-03"), 30*time.Minute, 500),
			req:    days("2024-01-01", "2024-01-05"),
			items: []wantItem{
				{wh: nil, status: StatusNoData, flags: []string{FlagMissingData}},
				{wh: nil, status: StatusNoData, flags: []string{FlagMissingData}},
				{wh: ptr(100), eur: ptr(1.025)},
				{wh: ptr(100), eur: ptr(1.025)},
			},
			cp: [2]string{"2024-01-03T00:00", "2024-01-05T00:00"},
		},
	})
}

func TestConsumptionCost(t *testing.T) {
	// January 2024 at BASE: 0.20 EUR/kWh until 01-14, 0.30 from 01-15; subscription 183 and
	// cta 36.6 EUR/year (2024: 366 days → 0.5 and 0.1 EUR a day).
	priceChange := registry.Tariff{
		TariffID: "BASE-CHANGE", Option: registry.OptionBase,
		DialHeadings: map[string]string{"1": "BASE"},
		Prices: []registry.PricePeriod{
			{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"BASE": 0.20}},
			{ValidFrom: "2024-01-15", ByHeading: map[string]float64{"BASE": 0.30}},
		},
		StandingCharges: []registry.StandingChargePeriod{{ValidFrom: "2024-01-01", Yearly: map[string]float64{"subscription": 183, "cta": 36.6}}},
	}
	runConsumptionCases(t, []consumptionCase{
		{
			// One reading interval 01-01 0 → 02-01 31 000 Wh spread evenly over its 744 h:
			// 14 days × 1000 Wh at 0.20 = 2.80 EUR, 17 days × 1000 Wh at 0.30 = 5.10 EUR → 7.90;
			// standing 31 × 0.5 = 15.5 + 31 × 0.1 = 3.1 → 18.6; total 26.5 EUR.
			name:    "price change on the 15th, monthly step",
			tariff:  &priceChange,
			indexes: []idxRow{{ts: pd("2024-01-01"), dial: "1", value: 0}, {ts: pd("2024-02-01"), dial: "1", value: 31000}},
			req:     Request{Start: pd("2024-01-01"), End: pd("2024-02-01"), StepUnit: UnitMonths, StepValue: 1},
			items: []wantItem{{wh: ptr(31000), eur: ptr(26.5), standing: ptr(18.6), components: map[string]float64{"subscription": 15.5, "cta": 3.1},
				eurHeading: map[string]float64{"BASE": 7.9}}},
		},
		{
			// A half day, 01-14 12:00 → 01-15 12:00, from readings at those instants (1000 Wh):
			// 500 Wh on the 14th at 0.20 = 0.10, 500 Wh on the 15th at 0.30 = 0.15; standing: half
			// of each day, 0.6 EUR a day → 0.6; total 0.85 EUR.
			name:    "price change inside a step that does not start at midnight",
			tariff:  &priceChange,
			indexes: []idxRow{{ts: pt("2024-01-14T12:00"), dial: "1", value: 0}, {ts: pt("2024-01-15T12:00"), dial: "1", value: 1000}},
			req:     Request{Start: pt("2024-01-14T12:00"), End: pt("2024-01-15T12:00")},
			items:   []wantItem{{wh: ptr(1000), eur: ptr(0.85), standing: ptr(0.6), eurHeading: map[string]float64{"BASE": 0.25}}},
		},
		{
			// withoutCost: no cost member at all.
			name:    "withoutCost",
			tariff:  &priceChange,
			indexes: []idxRow{{ts: pd("2024-01-01"), dial: "1", value: 0}, {ts: pd("2024-02-01"), dial: "1", value: 31000}},
			req:     Request{Start: pd("2024-01-01"), End: pd("2024-02-01"), WithoutCost: true},
			items:   []wantItem{{wh: ptr(31000), eur: nil}},
		},
	})
}
