package consumption

import (
	"context"
	"testing"

	"energy/schema/registry"
)

// tempoPrices are EUR/kWh by Tempo heading (HC 22:00-06:00, HP 06:00-22:00, J B/W/R: the colour).
var tempoPrices = map[string]float64{"HCJB": 0.1296, "HPJB": 0.1609, "HCJW": 0.1486, "HPJW": 0.1894, "HCJR": 0.1568, "HPJR": 0.7562}

// colourTempoTariff is a TEMPO tariff on calendar calendarID: six headings, each colour's HC from 22:00
// to 06:00 and HP from 06:00 to 22:00, and 365 EUR a year of standing charge (1 EUR a day in 2025).
func colourTempoTariff(id, calendarID string) registry.Tariff {
	t := registry.Tariff{TariffID: id, Option: registry.OptionTempo, DayColourCalendarID: calendarID, DefaultHeading: "HPJB",
		DialHeadings:    map[string]string{"1": "HCJB", "2": "HPJB", "3": "HCJW", "4": "HPJW", "5": "HCJR", "6": "HPJR"},
		HeadingGroups:   map[string]string{"HCJB": "BLUE", "HPJB": "BLUE", "HCJW": "WHITE", "HPJW": "WHITE", "HCJR": "RED", "HPJR": "RED"},
		Prices:          []registry.PricePeriod{{ValidFrom: "2025-01-01", ByHeading: tempoPrices}},
		StandingCharges: []registry.StandingChargePeriod{{ValidFrom: "2025-01-01", Yearly: map[string]float64{"subscription": 365}}},
	}
	for _, c := range []struct{ colour, letter string }{{"BLUE", "B"}, {"WHITE", "W"}, {"RED", "R"}} {
		t.TimeOfUse = append(t.TimeOfUse,
			registry.TimeOfUse{From: "22:00", To: "06:00", Heading: "HCJ" + c.letter, DayColour: c.colour},
			registry.TimeOfUse{From: "06:00", To: "22:00", Heading: "HPJ" + c.letter, DayColour: c.colour})
	}
	return t
}

// tempoWeek stores calendar TEMPO (days from 06:00) with the colours of 5 to 12 January 2025 but
// those in skip, makes a TEMPO tariff on it the site's, and a week of 30-minute load curve at
// 1,000 W from Monday 6 January 00:00, but 4,000 W on Wednesday 8 from 05:30 to 06:30.
func tempoWeek(t *testing.T, skip ...string) *consumptionFixture {
	t.Helper()
	f := newConsumptionFixture(t)
	ctx := context.Background()
	if err := f.reg.PutDayColourCalendar(ctx, registry.DayColourCalendar{TenantID: fxTenant, CalendarID: "TEMPO", Name: "Tempo", DayStartsAt: "06:00"}); err != nil {
		t.Fatal(err)
	}
	var days []registry.DayColour
	for date, colour := range map[string]string{"2025-01-05": "BLUE", "2025-01-06": "BLUE", "2025-01-07": "WHITE", "2025-01-08": "RED",
		"2025-01-09": "RED", "2025-01-10": "WHITE", "2025-01-11": "BLUE", "2025-01-12": "BLUE"} {
		if !containsString(skip, date) {
			days = append(days, registry.DayColour{Date: date, Colour: colour})
		}
	}
	if err := f.reg.PutDayColours(ctx, fxTenant, "TEMPO", days); err != nil {
		t.Fatal(err)
	}
	f.tariff(colourTempoTariff("TEMPO-9", "TEMPO"))
	var points []lcPoint
	for _, p := range constantLoadCurve(pd("2025-01-06"), pd("2025-01-13"), 30*60e9, 1000) {
		if !p.begin.Before(pt("2025-01-08T05:30")) && p.begin.Before(pt("2025-01-08T06:30")) {
			p.watts = 4000
		}
		points = append(points, p)
	}
	f.loadCurve(points...)
	return f
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestTempoWeekSplitByColourAndHour(t *testing.T) {
	f := tempoWeek(t)
	res := f.compute(Request{Start: pd("2025-01-06"), End: pd("2025-01-13"), StepUnit: UnitDays, StepValue: 1,
		DataSources: []string{SourceLoadCurve}, WithGlobalConsumption: true})
	// Monday 6: 00:00-06:00 is Sunday's BLUE colour day (HC), 06:00-22:00 HPJB, 22:00-24:00 HCJB:
	// 8 kWh HCJB, 16 kWh HPJB; 8 × 0.1296 + 16 × 0.1609 = 3.6112 EUR, plus 1 EUR standing charge.
	mon := res.Consumptions[0]
	wantMon := map[string]float64{"HCJB": 8000, "HPJB": 16000, "HCJW": 0, "HPJW": 0, "HCJR": 0, "HPJR": 0}
	if !sameMap(mon.EnergyMeter.ByTariffHeading, wantMon) || *mon.EnergyMeter.Total != 24000 || mon.Cost == nil || mon.Cost.Total != 4.6112 {
		t.Errorf("Monday: energy %v total %v cost %+v", mon.EnergyMeter.ByTariffHeading, *mon.EnergyMeter.Total, mon.Cost)
	}
	// Wednesday 8: 00:00-06:00 is Tuesday's WHITE day: 5.5 h at 1 kW + 30 min at 4 kW = 7.5 kWh HCJW;
	// then RED: 06:00-06:30 at 4 kW + 15.5 h at 1 kW = 17.5 kWh HPJR; 22:00-24:00 2 kWh HCJR.
	wed := res.Consumptions[2]
	wantWed := map[string]float64{"HCJB": 0, "HPJB": 0, "HCJW": 7500, "HPJW": 0, "HCJR": 2000, "HPJR": 17500}
	if !sameMap(wed.EnergyMeter.ByTariffHeading, wantWed) || *wed.EnergyMeter.Total != 27000 || len(wed.ErrorFlags) != 0 {
		t.Errorf("Wednesday: energy %v total %v flags %v", wed.EnergyMeter.ByTariffHeading, *wed.EnergyMeter.Total, wed.ErrorFlags)
	}
	// The week: HCJB 6+8+8+2 h, HPJB 3×16 h, HCJW 8+8 h +1.5 kWh, HPJW 2×16 h, HCJR 2×8 h,
	// HPJR 2×16 h +1.5 kWh.
	g := res.GlobalConsumption
	wantWeek := map[string]float64{"HCJB": 24000, "HPJB": 48000, "HCJW": 17500, "HPJW": 32000, "HCJR": 16000, "HPJR": 33500}
	if !sameMap(g.EnergyMeter.ByTariffHeading, wantWeek) || *g.EnergyMeter.Total != 171000 {
		t.Errorf("week: energy %v total %v", g.EnergyMeter.ByTariffHeading, *g.EnergyMeter.Total)
	}
	// 24×0.1296 + 48×0.1609 + 17.5×0.1486 + 32×0.1894 + 16×0.1568 + 33.5×0.7562
	// = 3.1104 + 7.7232 + 2.6005 + 6.0608 + 2.5088 + 25.3327 = 47.3364 EUR, + 7 days × 1 EUR.
	if g.Cost == nil || g.Cost.Total != 54.3364 || g.Cost.StandingCharge != 7 || g.Cost.ByTariffHeading["HPJR"] != 25.3327 {
		t.Errorf("week cost %+v, want total 54.3364 (47.3364 energy + 7 standing charge), HPJR 25.3327", g.Cost)
	}
}

func TestTempoMissingColourDayFlagged(t *testing.T) {
	f := tempoWeek(t, "2025-01-09") // Thursday's colour day (06:00 Thursday to 06:00 Friday) unknown
	res := f.compute(Request{Start: pd("2025-01-08"), End: pd("2025-01-11"), StepUnit: UnitDays, StepValue: 1,
		DataSources: []string{SourceLoadCurve}})
	wed, thu, fri := res.Consumptions[0], res.Consumptions[1], res.Consumptions[2]
	if len(wed.ErrorFlags) != 0 || wed.Cost == nil {
		t.Errorf("Wednesday lies in known colour days: flags %v cost %+v", wed.ErrorFlags, wed.Cost)
	}
	// Thursday: 00:00-06:00 belongs to Wednesday's RED day (6 kWh HCJR); the 18 kWh after it lie
	// in the missing day: in the total, under no heading, and no cost.
	wantThu := map[string]float64{"HCJB": 0, "HPJB": 0, "HCJW": 0, "HPJW": 0, "HCJR": 6000, "HPJR": 0}
	if !sameMap(thu.EnergyMeter.ByTariffHeading, wantThu) || *thu.EnergyMeter.Total != 24000 || thu.Cost != nil ||
		len(thu.ErrorFlags) != 1 || thu.ErrorFlags[0] != FlagMissingDayColour {
		t.Errorf("Thursday: energy %v total %v cost %+v flags %v", thu.EnergyMeter.ByTariffHeading, *thu.EnergyMeter.Total, thu.Cost, thu.ErrorFlags)
	}
	// Friday: 00:00-06:00 in the missing day; from 06:00 WHITE: 16 kWh HPJW, 2 kWh HCJW.
	wantFri := map[string]float64{"HCJB": 0, "HPJB": 0, "HCJW": 2000, "HPJW": 16000, "HCJR": 0, "HPJR": 0}
	if !sameMap(fri.EnergyMeter.ByTariffHeading, wantFri) || *fri.EnergyMeter.Total != 24000 || fri.Cost != nil ||
		len(fri.ErrorFlags) != 1 || fri.ErrorFlags[0] != FlagMissingDayColour {
		t.Errorf("Friday: energy %v total %v cost %+v flags %v", fri.EnergyMeter.ByTariffHeading, *fri.EnergyMeter.Total, fri.Cost, fri.ErrorFlags)
	}
}
