package consumption

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// Test fixtures of the consumption engine: a site in Paris with a tariff, index readings and
// load-curve points written with PrepareBatch like the intake does.

const (
	fxTenant = "acme"
	fxSite   = "S1"
	fxPod    = "PDL1"
)

var parisLoc = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		panic(err)
	}
	return loc
}()

// lt is a Paris wall-clock time "2006-01-02T15:04" (earlier instant when ambiguous).
func pt(s string) time.Time {
	v, err := time.ParseInLocation("2006-01-02T15:04", s, parisLoc)
	if err != nil {
		panic(err)
	}
	return v
}

// ld is Paris local midnight of a date "2006-01-02".
func pd(s string) time.Time { return pt(s + "T00:00") }

// idxRow is one dial of one index record.
type idxRow struct {
	ts     time.Time
	dial   string
	value  int64
	nature string    // default MKT_SMART_DISTRIBUTOR
	gen    time.Time // default ts + 1 day
	before bool      // indexBeforeChange
	pod    string    // default fxPod
}

// lcPoint is one load-curve point: W over [begin, end).
type lcPoint struct {
	begin, end  time.Time
	watts       int64
	reliability uint8
	gen         time.Time // default end + 1 day
}

// daily returns one dial's readings at local midnights from first, one per value.
func dailyIndexes(first string, dial string, values ...int64) []idxRow {
	var out []idxRow
	d := pd(first)
	for i, v := range values {
		out = append(out, idxRow{ts: AddSteps(d, parisLoc, UnitDays, i), dial: dial, value: v})
	}
	return out
}

// constantLoadCurve returns points of step minutes at watts covering [from, to).
func constantLoadCurve(from, to time.Time, step time.Duration, watts int64) []lcPoint {
	var out []lcPoint
	for t := from; t.Before(to); t = t.Add(step) {
		out = append(out, lcPoint{begin: t, end: t.Add(step), watts: watts})
	}
	return out
}

type consumptionFixture struct {
	t      *testing.T
	db     *schema.DB
	reg    *registry.Store
	engine *Engine
	site   registry.Site
}

func newConsumptionFixture(t *testing.T) *consumptionFixture {
	t.Helper()
	db := chtest.DB(t)
	reg := registry.New(db)
	site := registry.Site{TenantID: fxTenant, SiteID: fxSite, Timezone: "Europe/Paris"}
	f := &consumptionFixture{t: t, db: db, reg: reg, engine: NewEngine(db, reg, 0.06), site: site}
	if err := reg.PutSite(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	return f
}

// tariff creates the tariff and makes it the site's.
func (f *consumptionFixture) tariff(tr registry.Tariff) {
	f.t.Helper()
	ctx := context.Background()
	tr.TenantID = fxTenant
	if err := f.reg.PutTariff(ctx, tr); err != nil {
		f.t.Fatal(err)
	}
	f.site.TariffID = tr.TariffID
	if err := f.reg.PutSite(ctx, f.site); err != nil {
		f.t.Fatal(err)
	}
}

func (f *consumptionFixture) indexes(rows ...idxRow) {
	f.t.Helper()
	b, err := f.db.Conn.PrepareBatch(context.Background(), "INSERT INTO elec_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		f.t.Fatal(err)
	}
	for _, r := range rows {
		if r.nature == "" {
			r.nature = "MKT_SMART_DISTRIBUTOR"
		}
		if r.gen.IsZero() {
			r.gen = r.ts.Add(24 * time.Hour)
		}
		if r.pod == "" {
			r.pod = fxPod
		}
		var ibc uint8
		if r.before {
			ibc = 1
		}
		if err := b.Append(fxTenant, fxSite, r.pod, r.ts.UTC(), ibc, r.nature, r.gen.UTC(), r.dial, r.value, "test"); err != nil {
			f.t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		f.t.Fatal(err)
	}
}

func (f *consumptionFixture) loadCurve(points ...lcPoint) {
	f.t.Helper()
	b, err := f.db.Conn.PrepareBatch(context.Background(), "INSERT INTO load_curve_points (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id)")
	if err != nil {
		f.t.Fatal(err)
	}
	for _, p := range points {
		if p.gen.IsZero() {
			p.gen = p.end.Add(24 * time.Hour)
		}
		y, m, d := p.begin.In(parisLoc).Date()
		if err := b.Append(fxTenant, fxSite, fxPod, p.begin.UTC(), p.end.UTC(), p.gen.UTC(), p.watts, p.reliability, time.Date(y, m, d, 0, 0, 0, 0, time.UTC), "test"); err != nil {
			f.t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		f.t.Fatal(err)
	}
}

func (f *consumptionFixture) compute(req Request) *ConsumptionResult {
	f.t.Helper()
	res, err := f.engine.Compute(context.Background(), f.site, req)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

// baseTariff: one dial, BASE at 0.25 EUR/kWh, 366 EUR/year of subscription (1 EUR a day in 2024).
func baseTariff() registry.Tariff {
	return registry.Tariff{
		TariffID: "BASE-2024", Option: registry.OptionBase,
		DialHeadings:    map[string]string{"1": "BASE"},
		Prices:          []registry.PricePeriod{{ValidFrom: "2023-01-01", ByHeading: map[string]float64{"BASE": 0.25}}},
		StandingCharges: []registry.StandingChargePeriod{{ValidFrom: "2023-01-01", Yearly: map[string]float64{"subscription": 366}}},
	}
}

// wantItem is what a test expects of one consumption item; nil pointers and empty fields are not
// checked except where noted.
type wantItem struct {
	start, end string   // local "2006-01-02T15:04"; checked when set
	wh         *float64 // nil: total must be null (NO_DATA)
	byHeading  map[string]float64
	eur        *float64 // cost.total; nil: no cost member
	standing   *float64
	components map[string]float64 // cost.standingChargeByComponents, checked when set
	eurHeading map[string]float64
	status     string // checked when set
	nature     string
	quality    *float64
	flags      []string // always checked (nil = no flag)
	natures    []string // checked when set
	aggregated *bool
	loadCurve  *bool
}

func ptr(v float64) *float64 { return &v }
func isTrue() *bool          { v := true; return &v }
func isFalse() *bool         { v := false; return &v }

const consumptionEps = 1e-6

func nearly(a, b float64) bool { return math.Abs(a-b) <= consumptionEps*math.Max(1, math.Abs(b)) }

func checkItem(t *testing.T, label string, got Consumption, w wantItem) {
	t.Helper()
	if w.start != "" && !got.Period.StartTime.Equal(pt(w.start)) {
		t.Errorf("%s: start %s, want %s", label, got.Period.StartTime.Format(time.RFC3339), pt(w.start).Format(time.RFC3339))
	}
	if w.end != "" && !got.Period.EndTime.Equal(pt(w.end)) {
		t.Errorf("%s: end %s, want %s", label, got.Period.EndTime.Format(time.RFC3339), pt(w.end).Format(time.RFC3339))
	}
	switch {
	case w.wh == nil && got.EnergyMeter.Total != nil:
		t.Errorf("%s: total %v Wh, want null", label, *got.EnergyMeter.Total)
	case w.wh != nil && got.EnergyMeter.Total == nil:
		t.Errorf("%s: total null, want %v Wh", label, *w.wh)
	case w.wh != nil && !nearly(*got.EnergyMeter.Total, *w.wh):
		t.Errorf("%s: total %v Wh, want %v", label, *got.EnergyMeter.Total, *w.wh)
	}
	if w.wh == nil && len(got.EnergyMeter.ByTariffHeading) != 0 {
		t.Errorf("%s: byTariffHeading %v, want empty", label, got.EnergyMeter.ByTariffHeading)
	}
	if w.byHeading != nil && !sameMap(got.EnergyMeter.ByTariffHeading, w.byHeading) {
		t.Errorf("%s: byTariffHeading %v, want %v", label, got.EnergyMeter.ByTariffHeading, w.byHeading)
	}
	switch {
	case w.eur == nil && got.Cost != nil:
		t.Errorf("%s: cost %+v, want none", label, *got.Cost)
	case w.eur != nil && got.Cost == nil:
		t.Errorf("%s: no cost, want %v EUR", label, *w.eur)
	case w.eur != nil:
		if !nearly(got.Cost.Total, *w.eur) {
			t.Errorf("%s: cost.total %v EUR, want %v", label, got.Cost.Total, *w.eur)
		}
		if w.standing != nil && !nearly(got.Cost.StandingCharge, *w.standing) {
			t.Errorf("%s: cost.standingCharge %v EUR, want %v", label, got.Cost.StandingCharge, *w.standing)
		}
		if w.components != nil && !sameMap(got.Cost.StandingChargeByComponents, w.components) {
			t.Errorf("%s: cost.standingChargeByComponents %v, want %v", label, got.Cost.StandingChargeByComponents, w.components)
		}
		if w.eurHeading != nil && !sameMap(got.Cost.ByTariffHeading, w.eurHeading) {
			t.Errorf("%s: cost.byTariffHeading %v, want %v", label, got.Cost.ByTariffHeading, w.eurHeading)
		}
	}
	if w.status != "" && got.Status != w.status {
		t.Errorf("%s: status %s, want %s", label, got.Status, w.status)
	}
	if w.nature != "" && got.Nature != w.nature {
		t.Errorf("%s: nature %s, want %s", label, got.Nature, w.nature)
	}
	if w.quality != nil && !nearly(got.Quality, *w.quality) {
		t.Errorf("%s: quality %v, want %v", label, got.Quality, *w.quality)
	}
	flags := append([]string(nil), got.ErrorFlags...)
	wantFlags := append([]string(nil), w.flags...)
	sort.Strings(flags)
	sort.Strings(wantFlags)
	if !slices.Equal(flags, wantFlags) {
		t.Errorf("%s: errorFlags %v, want %v", label, got.ErrorFlags, w.flags)
	}
	if w.natures != nil && !slices.Equal(got.IndexNatures, w.natures) {
		t.Errorf("%s: indexNatures %v, want %v", label, got.IndexNatures, w.natures)
	}
	if w.aggregated != nil && got.Aggregated != *w.aggregated {
		t.Errorf("%s: aggregated %v, want %v", label, got.Aggregated, *w.aggregated)
	}
	if w.loadCurve != nil && got.UsingLoadCurve != *w.loadCurve {
		t.Errorf("%s: usingLoadCurve %v, want %v", label, got.UsingLoadCurve, *w.loadCurve)
	}
}

func checkItems(t *testing.T, got []Consumption, ws []wantItem) {
	t.Helper()
	if len(got) != len(ws) {
		b, _ := json.MarshalIndent(got, "", " ")
		t.Fatalf("%d items, want %d: %s", len(got), len(ws), b)
	}
	for i, w := range ws {
		checkItem(t, "item "+got[i].Period.StartTime.Format(time.RFC3339), got[i], w)
	}
}

func sameMap(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if g, ok := a[k]; !ok || !nearly(g, v) {
			return false
		}
	}
	return true
}

func checkComputationPeriod(t *testing.T, res *ConsumptionResult, start, end string) {
	t.Helper()
	cp := res.ComputationPeriod
	switch {
	case start == "" && cp != nil:
		t.Errorf("computationPeriod %s..%s, want none", cp.StartTime.Format(time.RFC3339), cp.EndTime.Format(time.RFC3339))
	case start != "" && cp == nil:
		t.Errorf("no computationPeriod, want %s..%s", start, end)
	case start != "" && (!cp.StartTime.Equal(pt(start)) || !cp.EndTime.Equal(pt(end))):
		t.Errorf("computationPeriod %s..%s, want %s..%s", cp.StartTime.Format(time.RFC3339), cp.EndTime.Format(time.RFC3339), start, end)
	}
}
