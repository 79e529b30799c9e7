package apidocs

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"energy/query/consumption"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestColdAnswerIsOneQuery: with the result cache off, every DAYS answer is computed, and it
// costs ClickHouse one query, the site's readings (the daily energy table, which holds none of
// these sites' days, is read once per site and data version): the site and its tariff come
// from the registry's directory, warmed once. A site created since by another process (another store on
// the same database, as another energyd replica) costs one registry read the first time it is
// asked for, then nothing. An unknown site answers 404 after one registry read, every time.
func TestColdAnswerIsOneQuery(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	engine := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	h, _ := NewMain(Config{Registry: reg, Ready: db.Ping, Consumptions: consumption.NewCached(engine, reg.Versions, 0, 0)})
	// Counts the ClickHouse reads each request makes, auth included.
	var lastQueries atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cctx, queries := schema.CountQueries(r.Context())
		h.ServeHTTP(w, r.WithContext(cctx))
		lastQueries.Store(queries())
	}))
	t.Cleanup(srv.Close)
	hs := &harness{t: t, db: db, reg: reg, srv: srv}
	reader := hs.token("acme", "read")

	tariff := registry.Tariff{TenantID: "acme", TariffID: "BASE-2024", Option: registry.OptionBase, DialHeadings: map[string]string{"1": "BASE"},
		Prices: []registry.PricePeriod{{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"BASE": 0.25}}}}
	if err := reg.PutTariff(ctx, tariff); err != nil {
		t.Fatal(err)
	}
	if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: "S1", TariffID: "BASE-2024"}); err != nil {
		t.Fatal(err)
	}
	// Local midnights of Jan 1-3 2024 in Paris: 1,500 then 2,200 Wh a day, at 0.25 EUR/kWh.
	readings := func(site string) {
		t.Helper()
		b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range []int64{10_000, 11_500, 13_700} {
			ts := time.Date(2023, 12, 31, 23, 0, 0, 0, time.UTC).AddDate(0, 0, i)
			if err := b.Append("acme", site, "PDL-"+site, ts, uint8(0), "MKT_SMART_DISTRIBUTOR", ts, "1", v, "t"); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Send(); err != nil {
			t.Fatal(err)
		}
	}
	readings("S1")
	readings("S2")
	if err := reg.Directory.Warm(ctx); err != nil {
		t.Fatal(err)
	}

	days := func(site string) (int, []float64, []float64, int64) {
		t.Helper()
		st, b, _ := hs.do("GET", "/v2/sites/"+site+"/fluids/elec/consumptions?startTs=2024-01-01T00:00:00&endTs=2024-01-03T00:00:00&stepUnit=DAYS&options=withoutCost", reader, "")
		n := lastQueries.Load()
		if st != http.StatusOK {
			return st, nil, nil, n
		}
		var body consumptionBody
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		var wh, eur []float64
		for _, c := range body.Consumptions {
			if c.EnergyMeter.Total != nil {
				wh = append(wh, *c.EnergyMeter.Total)
			}
			if c.Cost != nil {
				eur = append(eur, c.Cost.Total)
			}
		}
		return st, wh, eur, n
	}
	days("S1") // the token's first use reads it; later requests find it in the token cache
	for i := range 3 {
		if st, wh, _, n := days("S1"); st != http.StatusOK || len(wh) != 2 || wh[0] != 1500 || wh[1] != 2200 || n != 1 {
			t.Fatalf("answer %d of S1: %d, Wh %v, %d ClickHouse queries; want 200, [1500 2200], 1 query", i+1, st, wh, n)
		}
	}

	// S2 is created by another process: not in the directory, read once from the registry.
	if err := registry.New(db).PutSite(ctx, registry.Site{TenantID: "acme", SiteID: "S2", TariffID: "BASE-2024"}); err != nil {
		t.Fatal(err)
	}
	// Its readings were loaded without their daily energy table rows: the table, read first, holds
	// none of its days, which the engine remembers until the site's data changes.
	if st, wh, _, n := days("S2"); st != http.StatusOK || len(wh) != 2 || wh[0] != 1500 || n != 3 {
		t.Fatalf("first answer of S2, created by another process: %d, Wh %v, %d queries; want 200, [1500 2200], 3 (site, daily table, readings)", st, wh, n)
	}
	if st, _, _, n := days("S2"); st != http.StatusOK || n != 1 {
		t.Fatalf("second answer of S2: %d, %d queries; want 200, 1 (the site is kept)", st, n)
	}
	for range 2 {
		if st, _, _, n := days("S3"); st != http.StatusNotFound || n != 1 {
			t.Fatalf("unknown site S3: %d, %d queries; want 404 after 1 registry read", st, n)
		}
	}

	// The cost needs the tariff, also from the directory: 1.5 kWh × 0.25 = 0.375 EUR.
	st, b, _ := hs.do("GET", "/v2/sites/S1/fluids/elec/consumptions?startTs=2024-01-01T00:00:00&endTs=2024-01-02T00:00:00", reader, "")
	var body consumptionBody
	if err := json.Unmarshal(b, &body); err != nil || st != http.StatusOK {
		t.Fatalf("%d %s", st, b)
	}
	if n := lastQueries.Load(); len(body.Consumptions) != 1 || body.Consumptions[0].Cost == nil || !near(body.Consumptions[0].Cost.Total, 0.375) || n != 1 {
		t.Fatalf("with cost: %+v, %d queries; want 0.375 EUR and 1 query", body.Consumptions, n)
	}
}
