package apidocs

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// gasIndexes is an archive file of cyclic gas indexes (m3): each reading is "ts value factor
// generationTs", a factor of 0 meaning no conversionFactors.
func gasIndexes(site string, readings ...string) string {
	var items []string
	for _, r := range readings {
		var ts, gen string
		var value int
		var factor float64
		fmt.Sscan(r, &ts, &value, &factor, &gen)
		factors := "{}"
		if factor != 0 {
			factors = fmt.Sprintf(`{"kWh":%v}`, factor)
		}
		items = append(items, fmt.Sprintf(`{"siteId":%q,"podId":"GAS-%s","ts":%q,"generationTs":%q,"nature":"MKT_CYCLIC_DISTRIBUTOR","value":%d,"unit":"m3","conversionFactors":%s}`,
			site, site, ts, gen, value, factors))
	}
	return `{"cyclicGasIndexes":[` + strings.Join(items, ",") + `]}`
}

// gasItem is a gas consumption item as a client reads it: the electricity item and its volume.
type gasItem struct {
	consumptionItem
	Volume *struct {
		Total *float64 `json:"total"`
		Unit  string   `json:"unit"`
	} `json:"volume"`
}

const gasPath = "/v2/sites/S1/fluids/gas/consumptions"

// Gas readings through the archive intake, then the gas endpoint: kWh through each reading's
// factor, volume, cost from the gas tariff, the gas carbon default, MISSING_CONVERSION_FACTOR;
// cached, and recomputed after an ingest and after a tariff change.
func TestGasConsumptionRoundTrip(t *testing.T) {
	h := newJobsHarness(t, "", true, nil)
	gasTariff := `{"option":"GAS","prices":[{"validFrom":"2024-01-01","byHeading":{"BASE":%v}}],"standingCharges":[{"validFrom":"2024-01-01","yearly":{"subscription":366}}]}`
	if st, b, _ := h.do("PUT", "/v2/tariffs/GAS-T", h.admin, fmt.Sprintf(gasTariff, 0.10)); st != http.StatusOK {
		t.Fatalf("PUT tariff: %d %s", st, b)
	}
	h.putSite(h.admin, "S1", `{"gasTariffId":"GAS-T"}`)
	collector, reader := h.token("acme", "collect"), h.token("acme", "read")
	// Local midnights of Jan 1 to 4, 2024 in Paris (UTC+1); the reading of Jan 4 has no factor.
	h.ingestArchive(collector, gasIndexes("S1", "2023-12-31T23:00:00Z 1000 11.2 2024-01-05T00:00:00Z", "2024-01-01T23:00:00Z 1010 11.2 2024-01-05T00:00:00Z",
		"2024-01-02T23:00:00Z 1030 10.5 2024-01-05T00:00:00Z", "2024-01-03T23:00:00Z 1031 0 2024-01-05T00:00:00Z"))

	q := "?startTs=2024-01-01T00:00:00&endTs=2024-01-04T00:00:00&stepUnit=DAYS&options=withCarbonFootprint"
	get := func(wantCache string) []gasItem {
		t.Helper()
		_, raw := h.consumption(reader, gasPath+q, wantCache)
		var body struct {
			Units        map[string]string `json:"units"`
			Consumptions []gasItem         `json:"consumptions"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		if body.Units["energyMeter"] != "kWh" || body.Units["cost"] != "EUR" || len(body.Consumptions) != 3 {
			t.Fatalf("units %v, %d items: %s", body.Units, len(body.Consumptions), raw)
		}
		return body.Consumptions
	}
	// Jan 1: 10 m3 × 11.2 = 112 kWh, 112 × 0.10 + 1 EUR a day = 12.2 EUR, 112 × 0.227 = 25.424 kg.
	// Jan 2: 20 m3 × 10.5 (the later reading's factor) = 210 kWh, 22 EUR, 47.67 kg.
	// Jan 3: closed by the factorless reading: no data, MISSING_CONVERSION_FACTOR.
	type day struct {
		kwh, m3 *float64
		status  string
		flags   string
	}
	jan1, jan2 := day{ptrTo(112), ptrTo(10), "COMPLETE", ""}, day{ptrTo(210), ptrTo(20), "COMPLETE", ""}
	check := func(items []gasItem, price float64, want ...day) {
		t.Helper()
		for i, w := range want {
			c := items[i]
			if c.Status != w.status || strings.Join(c.ErrorFlags, ",") != w.flags || c.Volume == nil || c.Volume.Unit != "m3" ||
				!sameOptional(c.EnergyMeter.Total, w.kwh) || !sameOptional(c.Volume.Total, w.m3) {
				t.Errorf("day %d: %s %v energy %v volume %+v", i+1, c.Status, c.ErrorFlags, c.EnergyMeter.Total, c.Volume)
				continue
			}
			if w.kwh == nil {
				if c.Cost != nil {
					t.Errorf("day %d: cost %+v without data", i+1, c.Cost)
				}
				continue
			}
			if c.Cost == nil || !near(c.Cost.Total, *w.kwh*price+1) || !near(c.Cost.ByTariffHeading["BASE"], *w.kwh*price) ||
				c.CarbonFootprint == nil || c.CarbonFootprint.Coefficient != 0.227 || !near(*c.CarbonFootprint.Total, *w.kwh*0.227) {
				t.Errorf("day %d: cost %+v carbon %+v", i+1, c.Cost, c.CarbonFootprint)
			}
		}
	}
	unknown := day{nil, nil, "NO_DATA", "MISSING_DATA,MISSING_CONVERSION_FACTOR"}
	check(get("MISS"), 0.10, jan1, jan2, unknown)
	check(get("HIT"), 0.10, jan1, jan2, unknown)

	// The electricity answer of the site has no gas in it and no volume member.
	if st, b, _ := h.do("GET", consPath+q, reader, ""); st != http.StatusOK || strings.Contains(string(b), `"volume"`) || !strings.Contains(string(b), `"energyMeter":"Wh"`) {
		t.Errorf("electricity answer: %d %s", st, b)
	}

	// The reading of Jan 4 again, of a later generation, with its factor: recomputed, Jan 3 has
	// 1 m3 × 11 = 11 kWh.
	h.ingestArchive(collector, gasIndexes("S1", "2024-01-03T23:00:00Z 1031 11 2024-01-06T00:00:00Z"))
	jan3 := day{ptrTo(11), ptrTo(1), "COMPLETE", ""}
	check(get("HIT"), 0.10, jan1, jan2, jan3) // computed again before the job was DONE
	// A new gas price: recomputed (Jan 1: 112 × 0.2 + 1 = 23.4 EUR).
	if st, b, _ := h.do("PUT", "/v2/tariffs/GAS-T", h.admin, fmt.Sprintf(gasTariff, 0.20)); st != http.StatusOK {
		t.Fatalf("PUT tariff: %d %s", st, b)
	}
	check(get(eitherCache), 0.20, jan1, jan2, jan3)
	check(get("HIT"), 0.20, jan1, jan2, jan3)
	// The site loses its gas tariff: recomputed, no cost member (its electricity tariff, if
	// any, never prices gas).
	h.putSite(h.admin, "S1", `{}`)
	for i, c := range get(eitherCache) {
		if c.Cost != nil {
			t.Errorf("day %d without gas tariff: cost %+v", i+1, c.Cost)
		}
	}
}

// Bad gas requests: 400 naming the parameter, 404 for an unknown site, as for electricity.
func TestGasConsumptionErrors(t *testing.T) {
	h := newHarness(t)
	h.putSite(h.admin, "S1", `{}`)
	reader := h.token("acme", "read")
	for _, c := range []struct {
		path, code string
		status     int
		mentions   string
	}{
		{gasPath + "?startTs=2024-01-01&endTs=2024-01-02T00:00:00", "INVALID_PARAMETER", 400, "startTs"},
		{gasPath + "?startTs=2024-01-02T00:00:00&endTs=2024-01-01T00:00:00", "INVALID_PARAMETER", 400, "endTs"},
		{gasPath + "?startTs=2024-01-01T00:00:00&endTs=2024-01-02T00:00:00&stepValue=2", "INVALID_PARAMETER", 400, "stepValue"},
		{gasPath + "?startTs=2024-01-01T00:00:00&endTs=2024-01-02T00:00:00&options=withCost", "INVALID_PARAMETER", 400, "options"},
		{gasPath + "?startTs=2024-01-01T00:00:00&endTs=2024-01-02T00:00:00&indexCategories=GAS", "INVALID_PARAMETER", 400, "indexCategories"},
		{gasPath + "?startTs=2024-01-01T00:00:00&endTs=2026-01-02T00:00:00&options=withGlobalConsumption", "PERIOD_TOO_LONG", 400, "endTs"},
		{"/v2/sites/NOPE/fluids/gas/consumptions?startTs=2024-01-01T00:00:00&endTs=2024-01-02T00:00:00", "SITE_NOT_FOUND", 404, "NOPE"},
	} {
		st, b, hdr := h.do("GET", c.path, reader, "")
		h.wantError(st, b, hdr, c.status, c.code, c.mentions)
	}
	// A site without gas readings: one NO_DATA item, its volume null.
	st, b, _ := h.do("GET", gasPath+"?startTs=2024-01-01T00:00:00&endTs=2024-01-02T00:00:00", reader, "")
	if st != http.StatusOK || !strings.Contains(string(b), `"volume":{"total":null,"unit":""}`) || !strings.Contains(string(b), `"status":"NO_DATA"`) {
		t.Errorf("site without gas readings: %d %s", st, b)
	}
}

func ptrTo(v float64) *float64 { return &v }

// sameOptional: both null, or both numbers within 1e-9.
func sameOptional(got, want *float64) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	return near(*got, *want)
}
