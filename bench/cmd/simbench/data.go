package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"energy/schema"
	"energy/schema/registry"
)

// simulationData is what loadSimulationData stored.
type simulationData struct {
	candidates                    []string
	points, maxPowers, colourDays int
}

// loadSimulationData stores the site, its HPHC contract, 10 candidate tariffs, a Tempo calendar
// and a year of 30-minute load curve with its daily max powers and daily two-dial indexes.
func loadSimulationData(ctx context.Context, db *schema.DB, reg *registry.Store, year int, loc *time.Location) (*simulationData, error) {
	data := &simulationData{}
	if err := reg.PutDayColourCalendar(ctx, registry.DayColourCalendar{TenantID: tenant, CalendarID: "TEMPO", Name: "Tempo", DayStartsAt: "06:00"}); err != nil {
		return nil, err
	}
	var days []registry.DayColour
	for d := time.Date(year-1, 12, 31, 0, 0, 0, 0, time.UTC); d.Year() <= year; d = d.AddDate(0, 0, 1) {
		colour := "BLUE" // a synthetic Tempo year: 22 RED weekdays in January and February, WHITE every fourth winter day
		switch wd, m := d.Weekday(), d.Month(); {
		case (m == time.January || m == time.February) && wd != time.Saturday && wd != time.Sunday && d.YearDay()%2 == 0 && d.YearDay() <= 44:
			colour = "RED"
		case (m <= time.March || m >= time.November) && wd != time.Sunday && d.YearDay()%4 == 1:
			colour = "WHITE"
		}
		days = append(days, registry.DayColour{Date: d.Format(time.DateOnly), Colour: colour})
	}
	if err := reg.PutDayColours(ctx, tenant, "TEMPO", days); err != nil {
		return nil, err
	}
	data.colourDays = len(days)

	from := fmt.Sprintf("%d-01-01", year-1)
	standing := func(yearly float64) []registry.StandingChargePeriod {
		return []registry.StandingChargePeriod{{ValidFrom: from, Yearly: map[string]float64{"subscription": yearly, "cta": 21.35}}}
	}
	kva := func(n int) *int { return &n }
	base := func(id string, power int, yearly float64) registry.Tariff {
		return registry.Tariff{TariffID: id, Option: registry.OptionBase, SubscribedPowerKva: kva(power), DialHeadings: map[string]string{"1": "BASE", "2": "BASE"},
			Prices: []registry.PricePeriod{{ValidFrom: from, ByHeading: map[string]float64{"BASE": 0.2016}}}, StandingCharges: standing(yearly)}
	}
	hphc := func(id string, power int, yearly float64, hc ...registry.TimeOfUse) registry.Tariff {
		return registry.Tariff{TariffID: id, Option: registry.OptionHPHC, SubscribedPowerKva: kva(power), DialHeadings: map[string]string{"1": "HC", "2": "HP"},
			DefaultHeading: "HP", TimeOfUse: hc, StandingCharges: standing(yearly),
			Prices: []registry.PricePeriod{{ValidFrom: from, ByHeading: map[string]float64{"HC": 0.1635, "HP": 0.2146}}}}
	}
	night := registry.TimeOfUse{From: "22:00", To: "06:00", Heading: "HC"}
	tempo := func(id string, power int, yearly float64) registry.Tariff {
		t := registry.Tariff{TariffID: id, Option: registry.OptionTempo, SubscribedPowerKva: kva(power), DayColourCalendarID: "TEMPO", DefaultHeading: "HPJB",
			DialHeadings: map[string]string{"1": "HCJB", "2": "HPJB", "3": "HCJW", "4": "HPJW", "5": "HCJR", "6": "HPJR"},
			Prices: []registry.PricePeriod{{ValidFrom: from, ByHeading: map[string]float64{
				"HCJB": 0.1288, "HPJB": 0.1552, "HCJW": 0.1447, "HPJW": 0.1792, "HCJR": 0.1518, "HPJR": 0.6586}}},
			StandingCharges: standing(yearly)}
		for _, c := range []struct{ colour, letter string }{{"BLUE", "B"}, {"WHITE", "W"}, {"RED", "R"}} {
			t.TimeOfUse = append(t.TimeOfUse, registry.TimeOfUse{From: "22:00", To: "06:00", Heading: "HCJ" + c.letter, DayColour: c.colour},
				registry.TimeOfUse{From: "06:00", To: "22:00", Heading: "HPJ" + c.letter, DayColour: c.colour})
		}
		return t
	}
	own := hphc("HPHC-9", 9, 197.64, night)
	candidates := []registry.Tariff{
		base("BASE-6", 6, 151.20), base("BASE-9", 9, 189.12), base("BASE-12", 12, 228.48),
		hphc("HPHC-6", 6, 158.04, night), hphc("HPHC-12", 12, 238.20, night),
		hphc("HPHC-9-2307", 9, 197.64, registry.TimeOfUse{From: "23:00", To: "07:00", Heading: "HC"}),
		hphc("HPHC-9-SPLIT", 9, 197.64, registry.TimeOfUse{From: "02:00", To: "07:00", Heading: "HC"}, registry.TimeOfUse{From: "13:00", To: "16:00", Heading: "HC"}),
		tempo("TEMPO-6", 6, 158.88), tempo("TEMPO-9", 9, 196.92), tempo("TEMPO-12", 12, 228.12),
	}
	for _, t := range append([]registry.Tariff{own}, candidates...) {
		t.TenantID = tenant
		if err := reg.PutTariff(ctx, t); err != nil {
			return nil, fmt.Errorf("tariff %s: %w", t.TariffID, err)
		}
		if t.TariffID != own.TariffID {
			data.candidates = append(data.candidates, t.TariffID)
		}
	}
	if err := reg.PutSite(ctx, registry.Site{TenantID: tenant, SiteID: siteID, Timezone: loc.String(), TariffID: own.TariffID}); err != nil {
		return nil, err
	}
	return data, loadReadings(ctx, db, data, year, loc)
}

// loadReadings stores the site's year: a 30-minute load curve of an electrically heated home
// (deterministic), each day's max power above its highest half-hour and the HC/HP dials read
// at every local midnight.
func loadReadings(ctx context.Context, db *schema.DB, data *simulationData, year int, loc *time.Location) error {
	r := rand.New(rand.NewPCG(1, 2))
	lc, err := db.Conn.PrepareBatch(ctx, "INSERT INTO load_curve_points (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id)")
	if err != nil {
		return err
	}
	mp, err := db.Conn.PrepareBatch(ctx, "INSERT INTO max_powers (tenant_id, site_id, pod_id, ts, generation_ts, value, job_id)")
	if err != nil {
		return err
	}
	ix, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		return err
	}
	hcWs, hpWs := int64(5_000_000*3600), int64(9_000_000*3600) // dial indexes in W·s, read in Wh
	for day := time.Date(year, 1, 1, 0, 0, 0, 0, loc); day.Year() == year || day.Equal(time.Date(year+1, 1, 1, 0, 0, 0, 0, loc)); day = day.AddDate(0, 0, 1) {
		gen := day.AddDate(0, 0, 1).Add(6 * time.Hour).UTC()
		for _, dial := range []struct {
			name string
			ws   int64
		}{{"1", hcWs}, {"2", hpWs}} {
			if err := ix.Append(tenant, siteID, "PDL1", day.UTC(), uint8(0), "MKT_SMART_DISTRIBUTOR", gen, dial.name, dial.ws/3600, "bench"); err != nil {
				return err
			}
		}
		if day.Year() != year {
			break
		}
		winter := math.Max(0, math.Cos(2*math.Pi*float64(day.YearDay()-15)/365.25))
		var peak int64
		next := day.AddDate(0, 0, 1)
		for t := day; t.Before(next); t = t.Add(30 * time.Minute) {
			h := float64(t.Hour()) + float64(t.Minute())/60
			w := 350 + 3800*winter*(0.7+0.3*math.Sin(math.Pi*h/24)) + 1400*math.Exp(-math.Pow(h-19.5, 2)/2) + 700*math.Exp(-math.Pow(h-7.5, 2)/1)
			w *= 1 + 0.08*r.NormFloat64()
			watts := int64(math.Max(0, math.Round(w)))
			peak = max(peak, watts)
			if err := lc.Append(tenant, siteID, "PDL1", t.UTC(), t.Add(30*time.Minute).UTC(), gen, watts, uint8(0), time.Date(year, day.Month(), day.Day(), 0, 0, 0, 0, time.UTC), "bench"); err != nil {
				return err
			}
			data.points++
			if h >= 22 || h < 6 {
				hcWs += watts * 1800
			} else {
				hpWs += watts * 1800
			}
		}
		if err := mp.Append(tenant, siteID, "PDL1", day.Add(19*time.Hour).UTC(), gen, int64(math.Round(float64(peak)*1.2))+600, "bench"); err != nil {
			return err
		}
		data.maxPowers++
	}
	for _, b := range []interface{ Send() error }{lc, mp, ix} {
		if err := b.Send(); err != nil {
			return err
		}
	}
	return nil
}
