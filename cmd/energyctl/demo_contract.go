package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"energy/bench/synth"
)

// The demo's material for the contract optimizer: tariffs of 6 and 9 kVA (BASE, TEMPO; the
// demo sites' HPHC contract is 9 kVA) and a Tempo day-colour calendar over the demo years, so
// that a tariff simulation of a demo site compares options and subscribed powers.
const (
	demoCalendarID = "demo-tempo"
	demoBase6ID    = "demo-base-6kva"
	demoBase9ID    = "demo-base-9kva"
	demoTempo9ID   = "demo-tempo-9kva"
)

// demoSimulatedTariffs are the candidates the demo's simulation line names.
var demoSimulatedTariffs = []string{demoBase6ID, demoBase9ID, demoTempo9ID}

// demoBaseTariff is a BASE contract of kva kVA (French regulated prices of 2025, EUR incl. taxes).
func demoBaseTariff(kva int, subscription float64, year int) map[string]any {
	return map[string]any{
		"option": "BASE", "dialHeadings": map[string]string{synth.DialHC: "BASE", synth.DialHP: "BASE"}, "subscribedPowerKva": kva,
		"prices":            []map[string]any{{"validFrom": fmt.Sprintf("%d-02-01", year-10), "byHeading": map[string]float64{"BASE": 0.2016}}},
		"standingCharges":   []map[string]any{{"validFrom": fmt.Sprintf("%d-02-01", year-10), "yearly": map[string]float64{"subscription": subscription, "cta": 21.35}}},
		"carbonCoefficient": 0.052,
	}
}

// demoTempoTariff is a TEMPO contract of 9 kVA on the demo calendar: HC 22:00-06:00, HP
// 06:00-22:00, by colour.
func demoTempoTariff(year int) map[string]any {
	var tou []map[string]string
	for _, c := range []struct{ colour, letter string }{{"BLUE", "B"}, {"WHITE", "W"}, {"RED", "R"}} {
		tou = append(tou,
			map[string]string{"from": "22:00", "to": "06:00", "heading": "HCJ" + c.letter, "dayColour": c.colour},
			map[string]string{"from": "06:00", "to": "22:00", "heading": "HPJ" + c.letter, "dayColour": c.colour})
	}
	return map[string]any{
		"option":              "TEMPO",
		"dayColourCalendarId": demoCalendarID,
		"subscribedPowerKva":  9,
		"dialHeadings":        map[string]string{"1": "HCJB", "2": "HPJB", "3": "HCJW", "4": "HPJW", "5": "HCJR", "6": "HPJR"},
		"headingGroups":       map[string]string{"HCJB": "BLUE", "HPJB": "BLUE", "HCJW": "WHITE", "HPJW": "WHITE", "HCJR": "RED", "HPJR": "RED"},
		"timeOfUse":           tou,
		"defaultHeading":      "HPJB",
		"prices": []map[string]any{{"validFrom": fmt.Sprintf("%d-02-01", year-10), "byHeading": map[string]float64{
			"HCJB": 0.1288, "HPJB": 0.1552, "HCJW": 0.1447, "HPJW": 0.1792, "HCJR": 0.1518, "HPJR": 0.6586}}},
		"standingCharges":   []map[string]any{{"validFrom": fmt.Sprintf("%d-02-01", year-10), "yearly": map[string]float64{"subscription": 196.92, "cta": 21.35}}},
		"carbonCoefficient": 0.052,
	}
}

// demoTempoColours is a synthetic Tempo year for the demo (not RTE's): from December 31 of the
// year before first to December 31 of last, 22 RED weekdays from the second week of January
// (every other one), 43 WHITE days but Sundays in November, December, February and March
// (every third one), the rest BLUE.
func demoTempoColours(first, last int) []map[string]string {
	var out []map[string]string
	for y := first; y <= last; y++ {
		red, white, weekday, other := 0, 0, 0, 0
		day := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		if y == first {
			day = day.AddDate(0, 0, -1)
		}
		for ; day.Year() <= y; day = day.AddDate(0, 0, 1) {
			colour := "BLUE"
			wd := day.Weekday()
			switch m := day.Month(); {
			case day.Year() < y: // the colour day before the first year's first morning
			case m == time.January && day.Day() >= 6 && wd != time.Saturday && wd != time.Sunday && red < 22:
				if weekday++; weekday%2 == 0 {
					colour, red = "RED", red+1
				}
			case (m == time.February || m == time.March || m >= time.November) && wd != time.Sunday && white < 43:
				if other++; other%3 == 0 {
					colour, white = "WHITE", white+1
				}
			}
			out = append(out, map[string]string{"date": day.Format(time.DateOnly), "colour": colour})
		}
	}
	return out
}

// putDemoContracts creates the demo calendar with its colours and the 6 and 9 kVA tariffs.
func putDemoContracts(ctx context.Context, c *apiClient, firstYear, lastYear int) error {
	put := func(body any, call func(body io.Reader) (answer, error)) error {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		a, err := call(bytes.NewReader(b))
		return c.adminOutcome(ctx, a, err)
	}
	if err := put(map[string]string{"name": "Tempo (demo)", "dayStartsAt": "06:00"}, func(body io.Reader) (answer, error) {
		return c.api.PutDayColourCalendarWithBodyWithResponse(ctx, demoCalendarID, "application/json", body)
	}); err != nil {
		return fmt.Errorf("create day-colour calendar %s: %w", demoCalendarID, err)
	}
	days := demoTempoColours(firstYear, lastYear)
	for from := 0; from < len(days); from += 1500 {
		if err := put(days[from:min(from+1500, len(days))], func(body io.Reader) (answer, error) {
			return c.api.PutDayColoursWithBodyWithResponse(ctx, demoCalendarID, "application/json", body)
		}); err != nil {
			return fmt.Errorf("store the colours of calendar %s: %w", demoCalendarID, err)
		}
	}
	for id, body := range map[string]map[string]any{
		demoBase6ID:  demoBaseTariff(6, 151.20, lastYear),
		demoBase9ID:  demoBaseTariff(9, 189.12, lastYear),
		demoTempo9ID: demoTempoTariff(lastYear),
	} {
		if err := put(body, func(body io.Reader) (answer, error) {
			return c.api.PutTariffWithBodyWithResponse(ctx, id, "application/json", body)
		}); err != nil {
			return fmt.Errorf("create tariff %s: %w", id, err)
		}
	}
	return nil
}
