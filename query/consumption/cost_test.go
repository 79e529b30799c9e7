package consumption

import (
	"testing"
	"time"

	"energy/schema/registry"
)

// TestStandingChargeByLocalDay: each local day carries yearly ÷ days of its year, a partial day
// its share of the day's real length (no database).
func TestStandingChargeByLocalDay(t *testing.T) {
	p := newPricing(&registry.Tariff{StandingCharges: []registry.StandingChargePeriod{
		{ValidFrom: "2023-01-01", Yearly: map[string]float64{"subscription": 365}},
		{ValidFrom: "2024-01-01", Yearly: map[string]float64{"subscription": 732, "cta": 36.6}},
	}}, parisLoc)
	cases := []struct {
		name       string
		from, to   time.Time
		total      float64
		components map[string]float64
	}{
		// 2023 has 365 days: 1 EUR a day, the whole year 365.
		{"a year of 365 days", pd("2023-01-01"), pd("2024-01-01"), 365, map[string]float64{"subscription": 365}},
		// 2024 has 366: 2 + 0.1 EUR a day; the 23-hour 03-31 counts one day.
		{"spring day", pd("2024-03-31"), pd("2024-04-01"), 2.1, map[string]float64{"subscription": 2, "cta": 0.1}},
		// 12:00+02:00 → midnight on 03-31 is 12 of its 23 hours: 2.1 × 12/23.
		{"part of the spring day", pt("2024-03-31T12:00"), pd("2024-04-01"), 2.1 * 12 / 23, map[string]float64{"subscription": 2 * 12.0 / 23, "cta": 0.1 * 12 / 23}},
		// Across the change of period: 12-31 at 1 EUR, 01-01 at 2.1 EUR.
		{"across periods", pd("2023-12-31"), pd("2024-01-02"), 3.1, map[string]float64{"subscription": 3, "cta": 0.1}},
		// Before the first period: nothing.
		{"before any period", pd("2022-12-30"), pd("2022-12-31"), 0, map[string]float64{}},
	}
	for _, c := range cases {
		total, sums := p.standingCharge(c.from, c.to)
		comps := amountsMap(sums)
		if !nearly(total, c.total) || !sameMap(comps, c.components) {
			t.Errorf("%s: %v %v, want %v %v", c.name, total, comps, c.total, c.components)
		}
	}
	if daysInYear(2024) != 366 || daysInYear(2023) != 365 || daysInYear(2100) != 365 || daysInYear(2000) != 366 {
		t.Error("daysInYear")
	}
}

// TestEnergyCostDayByDay: a piece spanning a price change is priced per local day, its energy
// spread evenly over its duration (no database).
func TestEnergyCostDayByDay(t *testing.T) {
	p := newPricing(&registry.Tariff{Prices: []registry.PricePeriod{
		{ValidFrom: "2024-03-01", ByHeading: map[string]float64{"BASE": 0.10}},
		{ValidFrom: "2024-03-31", ByHeading: map[string]float64{"BASE": 0.20}},
	}}, parisLoc)
	// 03-30 00:00 → 04-01 00:00 is 24 + 23 = 47 h; 4700 Wh → 100 Wh an hour:
	// 2.4 kWh × 0.10 + 2.3 kWh × 0.20 = 0.24 + 0.46 = 0.70 EUR.
	got := amountsMap(energyCost(p, []piece{{start: pd("2024-03-30"), end: pd("2024-04-01"), heading: "BASE", wh: 4700}}))
	if !nearly(got["BASE"], 0.70) {
		t.Errorf("cost %v, want 0.70", got)
	}
	// Energy before the first price period is not costed; unknown headings neither.
	got = amountsMap(energyCost(p, []piece{{start: pd("2024-02-28"), end: pd("2024-02-29"), heading: "BASE", wh: 1000}, {start: pd("2024-03-02"), end: pd("2024-03-03"), heading: "HP", wh: 1000}}))
	if len(got) != 0 {
		t.Errorf("cost %v, want none", got)
	}
}

// energyCost is the EUR of the pieces by heading.
func energyCost(p *pricing, ps []piece) []amount {
	var out []amount
	for i := range ps {
		out = p.addEnergyCost(out, &ps[i])
	}
	return out
}

func amountsMap(sums []amount) map[string]float64 {
	m := map[string]float64{}
	for _, a := range sums {
		m[a.name] = a.value
	}
	return m
}
