package contract

import (
	"context"
	"testing"
	"time"

	"energy/query/consumption"
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

func kva(n int) *int { return &n }

// Tariffs of the tests. Standing charges are whole cents a day in 2025 (365 days): BASE 6 kVA
// 0.40 EUR, BASE 9 kVA 0.50, HPHC 9 kVA 0.55, TEMPO 9 kVA 0.52.
func base(id string, power int, yearly float64) registry.Tariff {
	return registry.Tariff{TenantID: "acme", TariffID: id, Option: registry.OptionBase, SubscribedPowerKva: kva(power),
		DialHeadings:    map[string]string{"1": "BASE"},
		Prices:          []registry.PricePeriod{{ValidFrom: "2025-01-01", ByHeading: map[string]float64{"BASE": 0.2016}}},
		StandingCharges: []registry.StandingChargePeriod{{ValidFrom: "2025-01-01", Yearly: map[string]float64{"subscription": yearly}}}}
}

func hphc() registry.Tariff {
	return registry.Tariff{TenantID: "acme", TariffID: "HPHC-9", Option: registry.OptionHPHC, SubscribedPowerKva: kva(9),
		DialHeadings: map[string]string{"1": "HC", "2": "HP"}, DefaultHeading: "HP",
		TimeOfUse:       []registry.TimeOfUse{{From: "22:00", To: "06:00", Heading: "HC"}},
		Prices:          []registry.PricePeriod{{ValidFrom: "2025-01-01", ByHeading: map[string]float64{"HC": 0.1635, "HP": 0.2146}}},
		StandingCharges: []registry.StandingChargePeriod{{ValidFrom: "2025-01-01", Yearly: map[string]float64{"subscription": 200.75}}}}
}

func tempo() registry.Tariff {
	t := registry.Tariff{TenantID: "acme", TariffID: "TEMPO-9", Option: registry.OptionTempo, SubscribedPowerKva: kva(9),
		DayColourCalendarID: "TEMPO", DefaultHeading: "HPJB",
		DialHeadings: map[string]string{"1": "HCJB", "2": "HPJB", "3": "HCJW", "4": "HPJW", "5": "HCJR", "6": "HPJR"},
		Prices: []registry.PricePeriod{{ValidFrom: "2025-01-01", ByHeading: map[string]float64{
			"HCJB": 0.1296, "HPJB": 0.1609, "HCJW": 0.1486, "HPJW": 0.1894, "HCJR": 0.1568, "HPJR": 0.7562}}},
		StandingCharges: []registry.StandingChargePeriod{{ValidFrom: "2025-01-01", Yearly: map[string]float64{"subscription": 189.80}}}}
	for _, c := range []struct{ colour, letter string }{{"BLUE", "B"}, {"WHITE", "W"}, {"RED", "R"}} {
		t.TimeOfUse = append(t.TimeOfUse,
			registry.TimeOfUse{From: "22:00", To: "06:00", Heading: "HCJ" + c.letter, DayColour: c.colour},
			registry.TimeOfUse{From: "06:00", To: "22:00", Heading: "HPJ" + c.letter, DayColour: c.colour})
	}
	return t
}

// fixture is site S1 in Paris on HPHC-9 over the week of Monday 6 January 2025 with the Tempo
// calendar of that week (but the dates in skip), and:
//   - a 30-minute load curve at 1,000 W, 4,000 W on Wednesday 8 from 05:30 to 06:30: 171 kWh,
//     57.5 kWh between 22:00 and 06:00 (HC: 8 kWh a day, 9.5 on Wednesday) and 113.5 kWh in HP
//     (16 a day, 17.5 on Wednesday);
//   - the HPHC meter's two dials read at every local midnight, agreeing with it;
//   - daily max powers 5,000 W (6th), 6,500 W (8th), 7,000 W (9th), 5,800 W (10th): two dates
//     above 6 kVA, none above 9.
type fixture struct {
	t      *testing.T
	db     *schema.DB
	reg    *registry.Store
	engine *Engine
	site   registry.Site
}

func newFixture(t *testing.T, skip ...string) *fixture {
	t.Helper()
	db := chtest.DB(t)
	reg := registry.New(db)
	ctx := context.Background()
	f := &fixture{t: t, db: db, reg: reg, engine: NewEngine(db, reg, consumption.NewEngine(db, reg, 0.052)),
		site: registry.Site{TenantID: "acme", SiteID: "S1", Timezone: "Europe/Paris", TariffID: "HPHC-9"}}
	if err := reg.PutDayColourCalendar(ctx, registry.DayColourCalendar{TenantID: "acme", CalendarID: "TEMPO", Name: "Tempo", DayStartsAt: "06:00"}); err != nil {
		t.Fatal(err)
	}
	var days []registry.DayColour
	for i, colour := range []string{"BLUE", "BLUE", "WHITE", "RED", "RED", "WHITE", "BLUE", "BLUE"} {
		date := at("2025-01-05T00:00").AddDate(0, 0, i).Format(time.DateOnly)
		if !contains(skip, date) {
			days = append(days, registry.DayColour{Date: date, Colour: colour})
		}
	}
	if err := reg.PutDayColours(ctx, "acme", "TEMPO", days); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []registry.Tariff{base("BASE-6", 6, 146), base("BASE-9", 9, 182.5), hphc(), tempo()} {
		if err := reg.PutTariff(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := reg.PutSite(ctx, f.site); err != nil {
		t.Fatal(err)
	}
	f.insert("INSERT INTO load_curve_points (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id)",
		func(add func(...any)) {
			for b := at("2025-01-06T00:00"); b.Before(at("2025-01-13T00:00")); b = b.Add(30 * time.Minute) {
				w := int64(1000)
				if !b.Before(at("2025-01-08T05:30")) && b.Before(at("2025-01-08T06:30")) {
					w = 4000
				}
				add("acme", "S1", "PDL1", b.UTC(), b.Add(30*time.Minute).UTC(), at("2025-02-01T00:00").UTC(), w, uint8(0), time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC), "job")
			}
		})
	f.insert("INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)",
		func(add func(...any)) {
			hc, hp := int64(100000), int64(200000)
			for d := 6; d <= 13; d++ {
				ts := at("2025-01-06T00:00").AddDate(0, 0, d-6)
				add("acme", "S1", "PDL1", ts.UTC(), uint8(0), "MKT_SMART_DISTRIBUTOR", ts.Add(time.Hour).UTC(), "1", hc, "job")
				add("acme", "S1", "PDL1", ts.UTC(), uint8(0), "MKT_SMART_DISTRIBUTOR", ts.Add(time.Hour).UTC(), "2", hp, "job")
				hc, hp = hc+8000, hp+16000
				if d == 8 { // Wednesday's spike: 1.5 kWh more on each side of 06:00
					hc, hp = hc+1500, hp+1500
				}
			}
		})
	f.insert("INSERT INTO max_powers (tenant_id, site_id, pod_id, ts, generation_ts, value, job_id)",
		func(add func(...any)) {
			for date, w := range map[string]int64{"2025-01-06T19:00": 5000, "2025-01-08T06:10": 6500, "2025-01-09T19:30": 7000, "2025-01-10T08:00": 5800} {
				add("acme", "S1", "PDL1", at(date).UTC(), at("2025-02-01T00:00").UTC(), w, "job")
			}
		})
	return f
}

func (f *fixture) insert(sql string, rows func(add func(...any))) {
	f.t.Helper()
	b, err := f.db.Conn.PrepareBatch(context.Background(), sql)
	if err != nil {
		f.t.Fatal(err)
	}
	rows(func(v ...any) {
		if err := b.Append(v...); err != nil {
			f.t.Fatal(err)
		}
	})
	if err := b.Send(); err != nil {
		f.t.Fatal(err)
	}
}

// simulate runs the simulation of the week with the named candidates.
func (f *fixture) simulate(ids ...string) (*Simulations, error) {
	f.t.Helper()
	var cands []registry.Tariff
	for _, id := range ids {
		t, err := f.reg.Tariff(context.Background(), "acme", id)
		if err != nil {
			f.t.Fatal(err)
		}
		cands = append(cands, t)
	}
	return f.engine.Compute(context.Background(), f.site, Request{Start: at("2025-01-06T00:00"), End: at("2025-01-13T00:00"), Candidates: cands})
}
