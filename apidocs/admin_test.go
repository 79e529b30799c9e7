package apidocs

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

const hphcTariffJSON = `{"option": "HPHC", "dialHeadings": {"1": "HC", "2": "HP"}, "headingGroups": {"HC": "HC", "HP": "HP"},
 "timeOfUse": [{"from": "22:00", "to": "06:00", "heading": "HC"}], "defaultHeading": "HP",
 "prices": [{"validFrom": "2025-02-01", "byHeading": {"HC": 0.1696, "HP": 0.2146}}, {"validFrom": "2024-02-01", "byHeading": {"HC": 0.2068, "HP": 0.2700}}],
 "standingCharges": [{"validFrom": "2024-02-01", "yearly": {"subscription": 151.20, "cta": 21.35}}],
 "carbonCoefficient": 0.052}`

// PUT then GET of each admin resource returns what was stored; references are checked.
func TestAdminResourcesRoundTrip(t *testing.T) {
	h := newHarness(t)
	st, b, _ := h.do("PUT", "/v2/tariffs/HPHC-2024", h.admin, hphcTariffJSON)
	if st != http.StatusOK {
		t.Fatalf("PUT tariff: %d %s", st, b)
	}
	var put, got TariffBody
	_ = json.Unmarshal(b, &put)
	st, b, _ = h.do("GET", "/v2/tariffs/HPHC-2024", h.admin, "")
	if st != http.StatusOK || json.Unmarshal(b, &got) != nil {
		t.Fatalf("GET tariff: %d %s", st, b)
	}
	if got.TariffID != "HPHC-2024" || len(got.Prices) != 2 || got.Prices[0].ValidFrom != "2024-02-01" || got.Prices[1].ByHeading["HP"] != 0.2146 ||
		got.StandingCharges[0].Yearly["cta"] != 21.35 || got.CarbonCoefficient == nil || *got.CarbonCoefficient != 0.052 || got.DefaultHeading != "HP" {
		t.Fatalf("GET tariff returned %s", b)
	}
	if pb, _ := json.Marshal(put); string(pb) != strings.TrimSpace(string(mustJSON(t, got))) {
		t.Fatalf("PUT answered %s, GET %s", pb, mustJSON(t, got))
	}

	if st, b, _ = h.do("PUT", "/v1/weather-stations/07149", h.admin, `{"name":"Paris-Orly","latitude":48.72,"longitude":2.38}`); st != http.StatusOK {
		t.Fatalf("PUT station: %d %s", st, b)
	}
	st, b, _ = h.do("GET", "/v1/weather-stations/07149", h.admin, "")
	if st != http.StatusOK || !strings.Contains(string(b), `"name":"Paris-Orly"`) || !strings.Contains(string(b), `"stationId":"07149"`) {
		t.Fatalf("GET station: %d %s", st, b)
	}

	site := `{"siteCustomerId":"C-1","personCustomerId":"P-1","weatherStationId":"07149","tariffId":"HPHC-2024","heatingFluid":"GAS"}`
	if st, b, _ = h.do("PUT", "/v2/sites/SITE-1", h.admin, site); st != http.StatusOK {
		t.Fatalf("PUT site: %d %s", st, b)
	}
	st, b, _ = h.do("GET", "/v2/sites/SITE-1", h.token("acme", "read"), "")
	var s SiteBody
	if st != http.StatusOK || json.Unmarshal(b, &s) != nil || s != (SiteBody{SiteID: "SITE-1", SiteCustomerID: "C-1", PersonCustomerID: "P-1",
		Timezone: "Europe/Paris", WeatherStationID: "07149", TariffID: "HPHC-2024", HeatingFluid: "GAS"}) {
		t.Fatalf("GET site: %d %s", st, b)
	}

	// Unknown resources are 404 with the resource named; tariffs and stations of another
	// tenant do not exist for this one.
	st, b, hdr := h.do("GET", "/v2/tariffs/NOPE", h.admin, "")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeNotFound, "NOPE")
	st, b, hdr = h.do("GET", "/v1/weather-stations/07149", h.token("globex", "admin"), "")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeNotFound, "07149")
	st, b, hdr = h.do("GET", "/v2/sites/NOPE", h.admin, "")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeSiteNotFound, "NOPE")
}

// Bad admin values are 400 INVALID_PARAMETER naming the field, and nothing is stored.
func TestAdminRejectsBadValuesNamingTheField(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name, method, path, body string
		mentions                 []string
	}{
		{"overlapping price periods", "PUT", "/v2/tariffs/T1", strings.Replace(hphcTariffJSON, "2025-02-01", "2024-02-01", 1), []string{"prices[1].validFrom", "overlaps"}},
		{"negative price", "PUT", "/v2/tariffs/T1", strings.Replace(hphcTariffJSON, `"HP": 0.2146`, `"HP": -0.2146`, 1), []string{"prices[0].byHeading.HP"}},
		{"unknown heading", "PUT", "/v2/tariffs/T1", strings.Replace(hphcTariffJSON, `"heading": "HC"`, `"heading": "HCJB"`, 1), []string{"timeOfUse[0].heading", "HCJB"}},
		{"bad date", "PUT", "/v2/tariffs/T1", strings.Replace(hphcTariffJSON, "2025-02-01", "2025-02-29", 1), []string{"prices[0].validFrom", "2025-02-29"}},
		{"unknown option", "PUT", "/v2/tariffs/T1", strings.Replace(hphcTariffJSON, `"HPHC"`, `"EJP"`, 1), []string{"option"}},
		{"tariff id differs", "PUT", "/v2/tariffs/T1", strings.Replace(hphcTariffJSON, `{"option"`, `{"tariffId": "T2", "option"`, 1), []string{"tariffId", "T2"}},
		{"unknown time zone", "PUT", "/v2/sites/S1", `{"timezone":"Europe/Atlantis"}`, []string{"timezone", "Europe/Atlantis"}},
		{"unknown tariff", "PUT", "/v2/sites/S1", `{"tariffId":"NOPE"}`, []string{"tariffId", "NOPE"}},
		{"unknown station", "PUT", "/v2/sites/S1", `{"weatherStationId":"99999"}`, []string{"weatherStationId", "99999"}},
		{"half a customer pair", "PUT", "/v2/sites/S1", `{"siteCustomerId":"C-1"}`, []string{"personCustomerId"}},
		{"unknown site field", "PUT", "/v2/sites/S1", `{"colour":"red"}`, []string{"colour"}},
		{"station latitude", "PUT", "/v1/weather-stations/W1", `{"name":"x","latitude":-91,"longitude":0}`, []string{"latitude"}},
		{"station without name", "PUT", "/v1/weather-stations/W1", `{"latitude":1,"longitude":0}`, []string{"name"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, b, hdr := h.do(c.method, c.path, h.admin, c.body)
			h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, c.mentions...)
		})
	}
	for _, p := range []string{"/v2/tariffs/T1", "/v2/sites/S1", "/v1/weather-stations/W1"} {
		if st, b, _ := h.do("GET", p, h.admin, ""); st != http.StatusNotFound {
			t.Errorf("GET %s after rejected PUTs: %d %s, want 404", p, st, b)
		}
	}
	// The customer pair is unique within the tenant.
	if st, b, _ := h.do("PUT", "/v2/sites/S1", h.admin, `{"siteCustomerId":"C-1","personCustomerId":"P-1"}`); st != http.StatusOK {
		t.Fatalf("PUT S1: %d %s", st, b)
	}
	st, b, hdr := h.do("PUT", "/v2/sites/S2", h.admin, `{"siteCustomerId":"C-1","personCustomerId":"P-1"}`)
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "siteCustomerId", "S1")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
