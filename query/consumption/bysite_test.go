package consumption

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
	"energy/schema/tables"
)

// Randomized index readings of many sites and both fluids: every generation, nature and
// _INVALID twin, meter changes, gaps of days to months, readings at any hour, several time
// zones. The by-site tables the per-site reads use are filled by the views on insert; the
// answers must equal those computed from the raw monthly tables, for every step unit,
// strategy and category filter, also after the by-site tables are emptied and rebuilt.

var randomNatures = []string{"MKT_SMART_DISTRIBUTOR", "MKT_CYCLIC_DISTRIBUTOR", "DTN_CUSTOMER_ACK", "MKT_CUSTOMER", "MKT_ESTIMATION"}

type randomRecord struct {
	site, pod, dial string
	ts, gen         time.Time
	before          bool
	nature          string
	value           int64
	unit            string
	factor          float64 // 0: no conversion factor
}

// randomSiteRecords draws the raw records of one site and fluid.
func randomSiteRecords(rng *rand.Rand, site string, gas bool) []randomRecord {
	var out []randomRecord
	dials := []string{"1"}
	if !gas && rng.IntN(2) == 0 {
		dials = append(dials, "2")
	}
	if gas {
		dials = []string{""}
	}
	pods := 1 + rng.IntN(2)
	for p := range pods {
		pod := fmt.Sprintf("P%d", p)
		t := time.Date(2023, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), 0, 0, 0, time.UTC)
		end := time.Date(2025, time.Month(1+rng.IntN(12)), 1, 0, 0, 0, 0, time.UTC)
		value := int64(rng.IntN(100000))
		for t.Before(end) {
			value += int64(rng.IntN(5000))
			change := rng.IntN(60) == 0
			for _, d := range dials {
				v := value
				if d == "2" {
					v = value / 2
				}
				n := 1 + rng.IntN(3) // several records at one instant: natures, generations
				for range n {
					r := randomRecord{site: site, pod: pod, dial: d, ts: t, gen: t.Add(time.Duration(1+rng.IntN(72)) * time.Hour),
						nature: randomNatures[rng.IntN(len(randomNatures))], value: v + int64(rng.IntN(3)-1)*int64(rng.IntN(50)), unit: "m3", factor: 10 + float64(rng.IntN(1000))/1000}
					if rng.IntN(8) == 0 {
						r.nature += invalidSuffix
					}
					if rng.IntN(15) == 0 {
						r.gen = r.gen.Add(-48 * time.Hour)
					}
					if gas && rng.IntN(10) == 0 {
						r.unit, r.factor = "kWh", 0
					}
					if gas && rng.IntN(25) == 0 {
						r.factor = 0
					}
					out = append(out, r)
				}
				if change { // the old meter's last index, then the new meter's first
					out = append(out, randomRecord{site: site, pod: pod, dial: d, ts: t, gen: t.Add(time.Hour), before: true, nature: "MKT_SMART_DISTRIBUTOR", value: v + 10, unit: "m3", factor: 11})
					if gas {
						out[len(out)-1].nature = "MKT_CYCLIC_DISTRIBUTOR"
					}
				}
			}
			if change {
				value = int64(rng.IntN(100))
			}
			switch rng.IntN(20) {
			case 0: // a gap of one to five months
				t = t.Add(time.Duration(30+rng.IntN(120)) * 24 * time.Hour)
			case 1: // a reading within the day
				t = t.Add(time.Duration(1+rng.IntN(20)) * time.Hour)
			default:
				t = t.AddDate(0, 0, 1+rng.IntN(3)*rng.IntN(15))
			}
		}
	}
	return out
}

func insertRandomRecords(t *testing.T, db *schema.DB, tenant string, recs []randomRecord, gas bool) {
	t.Helper()
	ctx := context.Background()
	sql := "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)"
	if gas {
		sql = "INSERT INTO gas_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, value, unit, conversion_units, conversion_factors, job_id)"
	}
	b, err := db.Conn.PrepareBatch(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		var ibc uint8
		if r.before {
			ibc = 1
		}
		if gas {
			units, factors := []string{}, []float64{}
			if r.factor != 0 {
				units, factors = []string{"kWh"}, []float64{r.factor}
			}
			err = b.Append(tenant, r.site, r.pod, r.ts, ibc, r.nature, r.gen, r.value, r.unit, units, factors, "random")
		} else {
			err = b.Append(tenant, r.site, r.pod, r.ts, ibc, r.nature, r.gen, r.dial, r.value, "random")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
}

// randomRequests draws requests of the index path over the site's data and around it.
func randomRequests(rng *rand.Rand, fluid string, loc *time.Location) []Request {
	var out []Request
	strategies := []string{"", StrategyNoEstimated, StrategyAllEstimated, StrategySurroundingEstimated}
	categories := [][]string{nil, {"SMART_METER"}, {"SELF_METER_READING", "ESTIMATED"}, {"LEGACY_METER", "SMART_METER"}}
	for _, unit := range []string{UnitDays, UnitMonths, UnitYears, ""} {
		{
			start := time.Date(2023+rng.IntN(2), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), 0, 0, 0, 0, loc)
			end := start.AddDate(0, 1+rng.IntN(14), rng.IntN(10))
			if rng.IntN(3) == 0 { // a start inside a day
				start = start.Add(time.Duration(rng.IntN(24)) * time.Hour)
			}
			out = append(out, Request{Fluid: fluid, Start: start, End: end, StepUnit: unit, StepValue: 1 + rng.IntN(2),
				IndexStrategy: strategies[rng.IntN(len(strategies))], IndexCategories: categories[rng.IntN(len(categories))],
				WithGlobalConsumption: rng.IntN(2) == 0})
		}
	}
	return out
}

func TestBySiteReadsAnswerAsTheRawTables(t *testing.T) {
	began := time.Now()
	db := chtest.DB(t)
	ctx := context.Background()
	reg := registry.New(db)
	bySite := NewEngine(db, reg, 0.06)
	raw := NewEngine(db, reg, 0.06)
	raw.fluids = readingRawTables()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	bySite.now, raw.now = func() time.Time { return now }, func() time.Time { return now }

	rng := rand.New(rand.NewPCG(18, 2026))
	zones := []string{"Europe/Paris", "America/New_York", "UTC"}
	var sites []registry.Site
	records := map[string][]randomRecord{}
	var all [2][]randomRecord // elec, gas
	for i := range 16 {
		s := registry.Site{TenantID: "acme", SiteID: fmt.Sprintf("S%02d", i), Timezone: zones[i%len(zones)]}
		sites = append(sites, s)
		for f, gas := range []bool{false, true} {
			if i%4 == 3 && gas == (i%8 == 3) { // some sites have one fluid only
				continue
			}
			k := s.SiteID + fmt.Sprint(gas)
			records[k] = randomSiteRecords(rng, s.SiteID, gas)
			all[f] = append(all[f], records[k]...)
		}
	}
	for f, recs := range all {
		// As two archives, the second one replaying part of the first.
		half := len(recs) / 2
		insertRandomRecords(t, db, "acme", recs[:half+len(recs)/4], f == 1)
		insertRandomRecords(t, db, "acme", recs[half:], f == 1)
	}
	rawRows := waitForSameRows(t, db, 0)

	t.Logf("stored, %s", time.Since(began))
	compare := func(label string) {
		t.Helper()
		compared, withData := 0, 0
		for _, s := range sites {
			for _, fluid := range []string{FluidElec, FluidGas} {
				for _, req := range randomRequests(rng, fluid, s.Location()) {
					a := sameAnswer(t, label, bySite, raw, s, req)
					compared++
					for _, c := range a.Consumptions {
						if c.EnergyMeter.Total != nil {
							withData++
							break
						}
					}
				}
				from, to := time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
				days, err := DailyEnergy(ctx, db, s, fluid, from, to)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := records[s.SiteID+fmt.Sprint(fluid == FluidGas)]; ok != (len(days) > 0) {
					t.Errorf("%s: site %s %s: %d days of energy, records stored: %v", label, s.SiteID, fluid, len(days), ok)
				}
			}
		}
		if withData < compared/2 {
			t.Fatalf("%s: only %d of %d answers have energy: the data is too thin to compare", label, withData, compared)
		}
		t.Logf("%s: %d answers identical (%d with energy), %s", label, compared, withData, time.Since(began))
	}
	compare("after ingest")

	// Emptied, the by-site tables answer nothing; rebuilt from the raw ones, the same again.
	truncate(t, db, bySiteIndexTables...)
	if days, err := DailyEnergy(ctx, db, sites[0], FluidElec, time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil || len(days) != 0 {
		t.Fatalf("emptied by-site tables: %d days, %v; want none", len(days), err)
	}
	// The raw engine reads the raw tables: it still finds the energy the by-site one no longer does.
	req := Request{Start: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		StepUnit: UnitYears, StepValue: 1, WithGlobalConsumption: true}
	for e, want := range map[*Engine]bool{bySite: false, raw: true} {
		res, err := e.Compute(ctx, sites[0], req)
		if err != nil || (res.GlobalConsumption.EnergyMeter.Total != nil) != want {
			t.Fatalf("emptied by-site tables: energy %v (%v), want some: %v", res.GlobalConsumption.EnergyMeter.Total, err, want)
		}
	}
	if _, err := db.RebuildReadingsBySite(ctx); err != nil {
		t.Fatal(err)
	}
	waitForSameRows(t, db, rawRows)
	compare("after rebuild")
}

// sameAnswer computes req on both engines and fails unless the answers are identical; it
// returns the answer.
// readingRawTables are the fluids read from the raw monthly index tables, which hold the same
// rows as the by-site ones the engine reads.
func readingRawTables() map[string]*fluid {
	raw := map[string]*fluid{}
	for name, table := range map[string]string{FluidElec: tables.ElecIndexes, FluidGas: tables.GasIndexes} {
		f := *fluids[name]
		f.table = table
		raw[name] = &f
	}
	return raw
}

func sameAnswer(t *testing.T, label string, bySite, raw *Engine, s registry.Site, req Request) *ConsumptionResult {
	t.Helper()
	ctx := context.Background()
	a, err := bySite.Compute(ctx, s, req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := raw.Compute(ctx, s, req)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("%s: site %s %+v: by-site answer differs from the raw one:\n%s\n%s", label, s.SiteID, req, ja, jb)
	}
	return a
}

// truncate empties tables (on a cluster, the shards' local tables).
func truncate(t *testing.T, db *schema.DB, tables ...string) {
	t.Helper()
	for _, table := range tables {
		sql := "TRUNCATE TABLE " + table
		if db.Cluster != "" {
			sql = "TRUNCATE TABLE `" + db.Name + "`." + table + "_local ON CLUSTER `" + db.Cluster + "`"
		}
		if err := db.Conn.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
}

// The raw index tables and their by-site copies.
var (
	rawIndexTables    = []string{"elec_indexes", "gas_indexes"}
	bySiteIndexTables = []string{"elec_indexes_by_site", "gas_indexes_by_site"}
)

// leastIndexRecords is how many distinct index records the randomized test stores at least.
const leastIndexRecords = 5000

func waitForSameRows(t *testing.T, db *schema.DB, want uint64) uint64 {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	count := func(tables []string) uint64 {
		var total uint64
		for _, table := range tables {
			var n uint64
			if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+table+" FINAL").Scan(&n); err != nil {
				t.Fatal(err)
			}
			total += n
		}
		return total
	}
	for {
		raw, bySite := count(rawIndexTables), count(bySiteIndexTables)
		if raw >= leastIndexRecords && bySite == raw && (want == 0 || raw == want) {
			return raw
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v hold %d distinct records, %v %d: want the same, at least %d (and %d if not 0)", rawIndexTables, raw, bySiteIndexTables, bySite, leastIndexRecords, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
