package apidocs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"energy/query/consumption"
)

// smartIndexes is an archive file of daily smart indexes: each reading is "ts HC HP" (Wh).
func smartIndexes(site string, readings ...string) string {
	var items []string
	for _, r := range readings {
		var ts string
		var hc, hp int
		fmt.Sscan(r, &ts, &hc, &hp)
		items = append(items, fmt.Sprintf(`{"siteId":%q,"podId":"PDL-%s","ts":%q,"generationTs":"2024-02-01T00:00:00Z","nature":"MKT_SMART_DISTRIBUTOR","value":{"1":%d,"2":%d}}`,
			site, site, ts, hc, hp))
	}
	return `{"smartElecIndexes":[` + strings.Join(items, ",") + `]}`
}

// ingestArchive submits the file through the real intake and waits for its job to be DONE.
func (h *jobsHarness) ingestArchive(token, file string) {
	h.t.Helper()
	j := h.waitFinal(token, jobIDOf(h.t, h.submit(token, "readings.tar.gz", tarGz(h.t, "readings.json", file))))
	if j.State.Current != "DONE" || j.Report.Overview.KO != 0 {
		h.t.Fatalf("ingest: %s, report %+v", j.State.Current, j.Report)
	}
}

// consumptionBody is the response as a client reads it.
type consumptionBody struct {
	Period            map[string]string `json:"period"`
	ComputationPeriod map[string]string `json:"computationPeriod"`
	Step              string            `json:"step"`
	Units             map[string]string `json:"units"`
	Consumptions      []consumptionItem `json:"consumptions"`
	GlobalConsumption *consumptionItem  `json:"globalConsumption"`
}

type consumptionItem struct {
	Period      map[string]string `json:"period"`
	EnergyMeter struct {
		Total           *float64           `json:"total"`
		ByTariffHeading map[string]float64 `json:"byTariffHeading"`
	} `json:"energyMeter"`
	Cost *struct {
		Total                      float64            `json:"total"`
		StandingCharge             float64            `json:"standingCharge"`
		StandingChargeByComponents map[string]float64 `json:"standingChargeByComponents"`
		ByTariffHeading            map[string]float64 `json:"byTariffHeading"`
	} `json:"cost"`
	CarbonFootprint *struct {
		Coefficient float64  `json:"coefficient"`
		Total       *float64 `json:"total"`
	} `json:"carbonFootprint"`
	Quality        float64  `json:"quality"`
	ErrorFlags     []string `json:"errorFlags"`
	IndexNatures   []string `json:"indexNatures"`
	Status         string   `json:"status"`
	Nature         string   `json:"nature"`
	Aggregated     bool     `json:"aggregated"`
	UsingLoadCurve bool     `json:"usingLoadCurve"`
	Ratios         *struct {
		ByTariffHeading      map[string]float64 `json:"byTariffHeading"`
		ByTariffHeadingGroup map[string]float64 `json:"byTariffHeadingGroup"`
	} `json:"ratios"`
}

// eitherCache is the X-Cache wanted of the first answer after a change of a tenant's reference
// data (tariffs, sites, weather): the cached answers polled before it are computed again in the
// background, and the request may come before that is done (MISS) or after (HIT). After an
// ingest they are computed before its job is DONE: HIT.
const eitherCache = "HIT or MISS"

// cacheIs tells whether an X-Cache header is the one wanted.
func cacheIs(got, want string) bool {
	return got == want || want == eitherCache && (got == "HIT" || got == "MISS")
}

func (h *harness) consumption(token, path, wantCache string) (consumptionBody, []byte) {
	h.t.Helper()
	st, b, hdr := h.do("GET", path, token, "")
	if st != http.StatusOK {
		h.t.Fatalf("GET %s: %d %s", path, st, b)
	}
	if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		h.t.Errorf("Content-Type %q", ct)
	}
	if got := hdr.Get("X-Cache"); !cacheIs(got, wantCache) {
		h.t.Errorf("GET %s: X-Cache %q, want %s", path, got, wantCache)
	}
	var body consumptionBody
	if err := json.Unmarshal(b, &body); err != nil {
		h.t.Fatalf("%s: %v", b, err)
	}
	return body, b
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// A full round trip: readings through the archive intake, then the endpoint with every option,
// checked against values worked out by hand.
func TestConsumptionRoundTrip(t *testing.T) {
	h := newJobsHarness(t, "", true, nil)
	st, b, _ := h.do("PUT", "/v2/tariffs/HPHC", h.admin, `{"option":"HPHC","dialHeadings":{"1":"HC","2":"HP"},
		"headingGroups":{"HC":"OFFPEAK","HP":"PEAK"},"timeOfUse":[{"from":"22:00","to":"06:00","heading":"HC"}],"defaultHeading":"HP",
		"prices":[{"validFrom":"2023-01-01","byHeading":{"HC":0.2068,"HP":0.27}}],
		"standingCharges":[{"validFrom":"2023-01-01","yearly":{"subscription":151.20,"cta":21.35}}],"carbonCoefficient":0.06}`)
	if st != http.StatusOK {
		t.Fatalf("PUT tariff: %d %s", st, b)
	}
	h.putSite(h.admin, "S1", `{"tariffId":"HPHC"}`)
	collector := h.token("acme", "collect")
	// Local midnights of Jan 1, 2 and 3 2024 in Paris (UTC+1).
	h.ingestArchive(collector, smartIndexes("S1", "2023-12-31T23:00:00Z 1000 5000", "2024-01-01T23:00:00Z 1500 6000", "2024-01-02T23:00:00Z 2200 7500"))

	reader := h.token("acme", "read")
	body, _ := h.consumption(reader, consPath+"?startTs=2024-01-01T00:00:00&endTs=2024-01-03T00:00:00&stepUnit=DAYS"+
		"&options=withCarbonFootprint,withRatioByTariffHeading&options=withGlobalConsumption", "MISS")

	if body.Step != "P1D" || body.Period["startTime"] != "2024-01-01T00:00:00+01:00" || body.Period["endTime"] != "2024-01-03T00:00:00+01:00" ||
		body.ComputationPeriod != nil || body.Units["energyMeter"] != "Wh" || body.Units["cost"] != "EUR" || body.Units["carbonFootprint"] != "kgCO2e" {
		t.Errorf("envelope: step %s period %v computationPeriod %v units %v", body.Step, body.Period, body.ComputationPeriod, body.Units)
	}
	if len(body.Consumptions) != 2 {
		t.Fatalf("%d consumptions", len(body.Consumptions))
	}
	// Day 1: HC 1500-1000 = 500 Wh, HP 6000-5000 = 1000 Wh. Day 2: HC 700 Wh, HP 1500 Wh.
	// Energy cost: HC 0.5 kWh × 0.2068 = 0.1034, HP 1 kWh × 0.27 = 0.27; day 2: 0.7 × 0.2068 =
	// 0.14476 → 0.1448, 1.5 × 0.27 = 0.405. Standing charge per day of 2024 (366 days):
	// subscription 151.20/366 = 0.413115 → 0.4131, cta 21.35/366 = 0.058333 → 0.0583, together
	// 0.471448 → 0.4714. Totals: 0.3734 + 0.471448 = 0.844848 → 0.8448; 0.54976 + 0.471448 =
	// 1.021208 → 1.0212. Carbon at the tariff's 0.06 kg/kWh: 1.5 × 0.06 = 0.09, 2.2 × 0.06 = 0.132.
	want := []struct {
		start                             string
		total, hc, hp                     float64
		costHC, costHP, standing, costSum float64
		carbon, ratioHC, ratioHP          float64
	}{
		{"2024-01-01T00:00:00+01:00", 1500, 500, 1000, 0.1034, 0.27, 0.4714, 0.8448, 0.09, 1.0 / 3, 2.0 / 3},
		{"2024-01-02T00:00:00+01:00", 2200, 700, 1500, 0.1448, 0.405, 0.4714, 1.0212, 0.132, 7.0 / 22, 15.0 / 22},
	}
	for i, w := range want {
		c := body.Consumptions[i]
		if c.Period["startTime"] != w.start || c.EnergyMeter.Total == nil || *c.EnergyMeter.Total != w.total ||
			c.EnergyMeter.ByTariffHeading["HC"] != w.hc || c.EnergyMeter.ByTariffHeading["HP"] != w.hp {
			t.Errorf("day %d energy: %v %+v", i+1, c.Period, c.EnergyMeter)
		}
		if c.Cost == nil || !near(c.Cost.ByTariffHeading["HC"], w.costHC) || !near(c.Cost.ByTariffHeading["HP"], w.costHP) ||
			!near(c.Cost.StandingCharge, w.standing) || !near(c.Cost.Total, w.costSum) ||
			!near(c.Cost.StandingChargeByComponents["subscription"], 0.4131) || !near(c.Cost.StandingChargeByComponents["cta"], 0.0583) {
			t.Errorf("day %d cost: %+v", i+1, c.Cost)
		}
		if c.CarbonFootprint == nil || c.CarbonFootprint.Coefficient != 0.06 || c.CarbonFootprint.Total == nil || !near(*c.CarbonFootprint.Total, w.carbon) {
			t.Errorf("day %d carbon: %+v", i+1, c.CarbonFootprint)
		}
		if c.Ratios == nil || !near(c.Ratios.ByTariffHeading["HC"], w.ratioHC) || !near(c.Ratios.ByTariffHeading["HP"], w.ratioHP) ||
			!near(c.Ratios.ByTariffHeadingGroup["OFFPEAK"], w.ratioHC) || !near(c.Ratios.ByTariffHeadingGroup["PEAK"], w.ratioHP) {
			t.Errorf("day %d ratios: %+v", i+1, c.Ratios)
		}
		if c.Status != "COMPLETE" || c.Nature != "REAL" || c.Quality != 100 || len(c.ErrorFlags) != 0 || c.Aggregated || c.UsingLoadCurve ||
			len(c.IndexNatures) != 1 || c.IndexNatures[0] != "MKT_SMART_DISTRIBUTOR" {
			t.Errorf("day %d state: %s %s q=%v flags=%v aggregated=%v lc=%v natures=%v", i+1, c.Status, c.Nature, c.Quality, c.ErrorFlags, c.Aggregated, c.UsingLoadCurve, c.IndexNatures)
		}
	}
	// The whole period: 3,700 Wh; energy 0.3734 + 0.54976 = 0.92316, standing 2 × 0.471448 =
	// 0.942896, total 1.866056 → 1.8661; two reading intervals, so aggregated.
	g := body.GlobalConsumption
	if g == nil || g.EnergyMeter.Total == nil || *g.EnergyMeter.Total != 3700 || g.Cost == nil || !near(g.Cost.Total, 1.8661) ||
		!near(g.Cost.StandingCharge, 0.9429) || !g.Aggregated || g.CarbonFootprint == nil || !near(*g.CarbonFootprint.Total, 0.222) {
		t.Errorf("global: %+v", g)
	}

	// withoutCost drops the cost member; MONTHS over January with readings up to the 3rd only:
	// the month is PARTIAL with MISSING_DATA.
	body, _ = h.consumption(reader, consPath+"?startTs=2024-01-01T00:00:00Z&endTs=2024-01-03T00:00:00%2B01:00&options=withoutCost", "MISS")
	if len(body.Consumptions) != 1 || body.Consumptions[0].Cost != nil || body.Consumptions[0].CarbonFootprint != nil || body.Step != "PT47H" {
		t.Errorf("withoutCost from 01:00 local: step %s %+v", body.Step, body.Consumptions)
	}
}

// The result cache: the same body cached and computed, invalidated by an ingest for the site and
// not by another site's.
func TestConsumptionCacheFollowsIngest(t *testing.T) {
	h := newJobsHarness(t, "", true, nil)
	collector, reader := h.token("acme", "collect"), h.token("acme", "read")
	h.ingestArchive(collector, smartIndexes("S1", "2023-12-31T23:00:00Z 1000 5000", "2024-01-01T23:00:00Z 1500 6000", "2024-01-02T23:00:00Z 2200 7500"))
	h.ingestArchive(collector, smartIndexes("S2", "2023-12-31T23:00:00Z 0 0", "2024-01-03T23:00:00Z 300 400"))

	q := "?startTs=2024-01-01T00:00:00&endTs=2024-01-04T00:00:00&stepUnit=DAYS&options=withGlobalConsumption"
	s1 := consPath + q
	s2 := "/v2/sites/S2/fluids/elec/consumptions" + q
	first, firstRaw := h.consumption(reader, s1, "MISS")
	_, again := h.consumption(reader, s1, "HIT")
	if !bytes.Equal(firstRaw, again) {
		t.Errorf("cached body differs from the computed one:\n%s\n%s", firstRaw, again)
	}
	// The same request on a server without cache gives the same bytes.
	nocache, _ := NewMain(Config{Registry: h.reg, Ready: h.db.Ping,
		Consumptions: consumption.NewCached(consumption.NewEngine(h.db, h.reg, consumption.DefaultCarbonCoefficient), h.reg.Versions, 0, 0)})
	srv := httptest.NewServer(nocache)
	defer srv.Close()
	direct := &harness{t: t, db: h.db, reg: h.reg, srv: srv}
	_, computed := direct.consumption(reader, s1, "MISS")
	if !bytes.Equal(computed, again) {
		t.Errorf("uncached server's body differs from the cached one:\n%s\n%s", computed, again)
	}
	s2Before, s2Raw := h.consumption(reader, s2, "MISS")
	if g := s2Before.GlobalConsumption; g == nil || g.EnergyMeter.Total == nil || *g.EnergyMeter.Total != 700 {
		t.Fatalf("S2: %+v", s2Before.GlobalConsumption)
	}

	// Before: day 3 of S1 has no reading at its end (NO_DATA), the period total 3,700 Wh.
	if c := first.Consumptions[2]; c.Status != "NO_DATA" || c.EnergyMeter.Total != nil {
		t.Fatalf("S1 day 3 before the ingest: %s %v", c.Status, c.EnergyMeter.Total)
	}
	// The reading of Jan 4 arrives for S1: its answer, polled, is computed again before the job
	// is DONE, so the next request hits it, and it holds day 3 (HC 2600-2200 = 400, HP 8000-7500
	// = 500); S2's answer still comes from the cache.
	h.ingestArchive(collector, smartIndexes("S1", "2024-01-03T23:00:00Z 2600 8000"))
	after, afterRaw := h.consumption(reader, s1, "HIT")
	if _, fresh := direct.consumption(reader, s1, "MISS"); !bytes.Equal(afterRaw, fresh) {
		t.Errorf("refreshed answer differs from the uncached server's:\n%s\n%s", afterRaw, fresh)
	}
	if c := after.Consumptions[2]; c.Status != "COMPLETE" || c.EnergyMeter.Total == nil || *c.EnergyMeter.Total != 900 {
		t.Errorf("S1 day 3 after the ingest: %s %v", c.Status, c.EnergyMeter.Total)
	}
	if g := after.GlobalConsumption; g == nil || g.EnergyMeter.Total == nil || *g.EnergyMeter.Total != 4600 {
		t.Errorf("S1 period after the ingest: %+v", g)
	}
	_, s2After := h.consumption(reader, s2, "HIT")
	if !bytes.Equal(s2Raw, s2After) {
		t.Error("S2's cached answer changed")
	}
	h.consumption(reader, s1, "HIT")
}
