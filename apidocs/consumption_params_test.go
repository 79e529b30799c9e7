package apidocs

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"energy/query/consumption"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// recordingEngine answers every request with an empty result and keeps the requests it got,
// to check what the HTTP layer hands to the engine (the engine's own answers are tested with
// data in consumption_test.go).
type recordingEngine struct {
	mu   sync.Mutex
	reqs []consumption.Request
}

func (e *recordingEngine) Compute(_ context.Context, site registry.Site, req consumption.Request) (*consumption.ConsumptionResult, error) {
	e.mu.Lock()
	e.reqs = append(e.reqs, req)
	e.mu.Unlock()
	loc := site.Location()
	return &consumption.ConsumptionResult{Period: consumption.Period{StartTime: req.Start.In(loc), EndTime: req.End.In(loc)}, Step: "P1D", Consumptions: []consumption.Consumption{}}, nil
}

func (e *recordingEngine) last(t *testing.T) consumption.Request {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.reqs) == 0 {
		t.Fatal("the engine was not called")
	}
	return e.reqs[len(e.reqs)-1]
}

// newConsumptionHarness is newHarness with the consumption endpoint on engine (the real one
// when nil) behind a fresh cache; it also returns the cache to inspect it.
func newConsumptionHarness(t *testing.T, engine consumption.Computer) (*harness, *consumption.Cached) {
	t.Helper()
	db := chtest.DB(t)
	reg := registry.New(db)
	if engine == nil {
		engine = consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	}
	cache := consumption.NewCached(engine, reg.Versions, 1000, 0)
	h, _ := NewMain(Config{Registry: reg, Ready: db.Ping, Consumptions: cache})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	hs := &harness{t: t, db: db, reg: reg, srv: srv}
	hs.admin = hs.token("acme", "admin")
	return hs, cache
}

func (h *harness) putSite(token, id, body string) {
	h.t.Helper()
	if st, b, _ := h.do("PUT", "/v2/sites/"+id, token, body); st != http.StatusOK {
		h.t.Fatalf("PUT site %s: %d %s", id, st, b)
	}
}

const consPath = "/v2/sites/S1/fluids/elec/consumptions"

func TestConsumptionParametersRejected(t *testing.T) {
	h, _ := newConsumptionHarness(t, &recordingEngine{})
	h.putSite(h.admin, "S1", `{"timezone":"Europe/Paris"}`)
	reader := h.token("acme", "read")
	ok := "?startTs=2024-01-01T00:00:00&endTs=2024-02-01T00:00:00"
	cases := []struct {
		query, code, param string
	}{
		{"?endTs=2024-02-01T00:00:00", CodeInvalidParameter, "startTs"},
		{"?startTs=2024-01-01T00:00:00", CodeInvalidParameter, "endTs"},
		{"?startTs=2024-01-01&endTs=2024-02-01T00:00:00", CodeInvalidParameter, "startTs"},
		{"?startTs=2024-01-01T00:00:00.000Z&endTs=2024-02-01T00:00:00", CodeInvalidParameter, "startTs"},
		{"?startTs=2024-01-01T00:00:00%2B0100&endTs=2024-02-01T00:00:00", CodeInvalidParameter, "startTs"},
		{"?startTs=2024-13-01T00:00:00&endTs=2024-02-01T00:00:00", CodeInvalidParameter, "startTs"},
		{"?startTs=2024-02-30T00:00:00&endTs=2024-03-01T00:00:00", CodeInvalidParameter, "startTs"},
		{"?startTs=2024-01-01T24:00:00&endTs=2024-02-01T00:00:00", CodeInvalidParameter, "startTs"},
		{"?startTs=2024-01-01T00:00:00&endTs=2024-02-01T00:00:00X", CodeInvalidParameter, "endTs"},
		{"?startTs=1969-12-31T00:00:00Z&endTs=2024-02-01T00:00:00", CodeInvalidParameter, "startTs"},
		{"?startTs=2024-01-01T00:00:00&endTs=2024-01-01T00:00:00", CodeInvalidParameter, "endTs"},
		{"?startTs=2024-01-02T00:00:00&endTs=2024-01-01T00:00:00", CodeInvalidParameter, "endTs"},
		// 00:30+01:00 is 23:30Z the day before: the end is before the start once both are instants.
		{"?startTs=2024-01-01T00:00:00Z&endTs=2024-01-01T00:30:00%2B01:00", CodeInvalidParameter, "endTs"},
		{ok + "&stepUnit=WEEKS", CodeInvalidParameter, "stepUnit"},
		{ok + "&stepUnit=days", CodeInvalidParameter, "stepUnit"},
		{ok + "&stepUnit=DAYS&stepValue=0", CodeInvalidParameter, "stepValue"},
		{ok + "&stepUnit=DAYS&stepValue=1001", CodeInvalidParameter, "stepValue"},
		{ok + "&stepUnit=DAYS&stepValue=two", CodeInvalidParameter, "stepValue"},
		{ok + "&stepValue=2", CodeInvalidParameter, "stepValue"},
		{ok + "&stepValue=1", CodeInvalidParameter, "stepValue"},
		{ok + "&indexCategories=FOO", CodeInvalidParameter, "indexCategories"},
		{ok + "&indexCategories=SMART_METER,FOO", CodeInvalidParameter, "indexCategories"},
		{ok + "&indexCategories=SMART_METER&indexCategories=smart_meter", CodeInvalidParameter, "indexCategories"},
		{ok + "&indexStrategy=SOME_ESTIMATED", CodeInvalidParameter, "indexStrategy"},
		{ok + "&dataSources=LOAD_CURVE,GAS", CodeInvalidParameter, "dataSources"},
		{ok + "&loadCurveCompletion=maybe", CodeInvalidParameter, "loadCurveCompletion"},
		{ok + "&options=withCost", CodeInvalidParameter, "options"},
		{ok + "&options=withoutCost&options=WITHOUTCOST", CodeInvalidParameter, "options"},
		// One calendar year and one second, and one year and a day, in local time.
		{"?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:01&options=withGlobalConsumption", CodePeriodTooLong, "endTs"},
		{"?startTs=2024-03-01T00:00:00&endTs=2025-03-02T00:00:00&options=withCarbonFootprint,withGlobalConsumption", CodePeriodTooLong, "withGlobalConsumption"},
		// 2025-01-01T00:00:00Z is 01:00 local, an hour past the local year.
		{"?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00Z&options=withGlobalConsumption", CodePeriodTooLong, "endTs"},
	}
	for _, c := range cases {
		st, b, hdr := h.do("GET", consPath+c.query, reader, "")
		t.Run(c.query, func(t *testing.T) {
			h.t = t
			h.wantError(st, b, hdr, http.StatusBadRequest, c.code, c.param)
		})
	}
}

func TestConsumptionAuthAndSites(t *testing.T) {
	h, _ := newConsumptionHarness(t, &recordingEngine{})
	h.putSite(h.admin, "S1", `{}`)
	other := h.token("globex", "admin")
	h.putSite(other, "G1", `{}`)
	q := "?startTs=2024-01-01T00:00:00&endTs=2024-02-01T00:00:00"

	st, b, hdr := h.do("GET", consPath+q, "", "")
	h.wantError(st, b, hdr, http.StatusUnauthorized, CodeInvalidAuth)
	st, b, hdr = h.do("GET", consPath+q, h.token("acme", "collect"), "")
	h.wantError(st, b, hdr, http.StatusForbidden, CodeAccessDenied, "read")
	// Another tenant's site and an unknown one are alike.
	st, b, hdr = h.do("GET", "/v2/sites/G1/fluids/elec/consumptions"+q, h.token("acme", "read"), "")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeSiteNotFound, "G1")
	st, b, hdr = h.do("GET", "/v2/sites/NOPE/fluids/elec/consumptions"+q, h.token("acme", "read"), "")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeSiteNotFound, "NOPE")
	// globex reaches its own site, and acme's S1 stays 404 for globex even once acme's answer is cached.
	if st, b, _ = h.do("GET", consPath+q, h.token("acme", "read"), ""); st != http.StatusOK {
		t.Fatalf("acme S1: %d %s", st, b)
	}
	if st, b, _ = h.do("GET", consPath+q, h.token("acme", "read"), ""); st != http.StatusOK {
		t.Fatalf("acme S1 again: %d %s", st, b)
	}
	st, b, hdr = h.do("GET", consPath+q, other, "")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeSiteNotFound, "S1")
	if st, b, _ = h.do("GET", "/v2/sites/G1/fluids/elec/consumptions"+q, other, ""); st != http.StatusOK {
		t.Fatalf("globex G1: %d %s", st, b)
	}
	// admin implies read.
	if st, b, _ = h.do("GET", consPath+q, h.admin, ""); st != http.StatusOK {
		t.Fatalf("admin: %d %s", st, b)
	}
}

func TestConsumptionRequestHandedToTheEngine(t *testing.T) {
	eng := &recordingEngine{}
	h, _ := newConsumptionHarness(t, eng)
	h.putSite(h.admin, "S1", `{"timezone":"Europe/Paris"}`)
	h.putSite(h.admin, "NY", `{"timezone":"America/New_York"}`)
	reader := h.token("acme", "read")
	get := func(path string) consumption.Request {
		t.Helper()
		st, b, hdr := h.do("GET", path, reader, "")
		if st != http.StatusOK {
			t.Fatalf("%s: %d %s", path, st, b)
		}
		if hdr.Get("X-Cache") != "MISS" {
			t.Fatalf("%s: X-Cache %q on a first request", path, hdr.Get("X-Cache"))
		}
		return eng.last(t)
	}
	rfc := func(tm time.Time) string { return tm.Format(time.RFC3339) }

	// Defaults: one step, SURROUNDING_ESTIMATED, all categories and sources, no option.
	r := get(consPath + "?startTs=2024-01-01T00:00:00&endTs=2024-02-01T00:00:00")
	if rfc(r.Start) != "2024-01-01T00:00:00+01:00" || rfc(r.End) != "2024-02-01T00:00:00+01:00" || r.StepUnit != "" || r.StepValue != 1 ||
		r.IndexStrategy != consumption.StrategySurroundingEstimated || r.IndexCategories != nil || r.DataSources != nil ||
		r.LoadCurveCompletion || r.WithoutCost || r.WithCarbonFootprint || r.WithGlobalConsumption || r.WithRatioByTariffHeading {
		t.Errorf("defaults: %+v", r)
	}
	if !r.Start.Equal(time.Date(2023, 12, 31, 23, 0, 0, 0, time.UTC)) {
		t.Errorf("local midnight in Paris is 23:00Z: %v", r.Start.UTC())
	}
	// Z, explicit offsets and a '+' left unencoded (a space); local times in the site's zone.
	r = get(consPath + "?startTs=2024-03-31T00:00:00Z&endTs=2024-03-31T05:00:00+02:00&stepUnit=HOURS")
	if !r.Start.Equal(time.Date(2024, 3, 31, 0, 0, 0, 0, time.UTC)) || !r.End.Equal(time.Date(2024, 3, 31, 3, 0, 0, 0, time.UTC)) || r.StepUnit != "HOURS" {
		t.Errorf("offsets: %v %v", r.Start, r.End)
	}
	r = get("/v2/sites/NY/fluids/elec/consumptions?startTs=2024-03-10T00:00:00&endTs=2024-03-11T00:00:00-04:00")
	if rfc(r.Start) != "2024-03-10T00:00:00-05:00" || !r.End.Equal(time.Date(2024, 3, 11, 4, 0, 0, 0, time.UTC)) {
		t.Errorf("New York: %s %s", rfc(r.Start), rfc(r.End))
	}
	// A local time skipped by the spring change moves forward by the gap.
	r = get(consPath + "?startTs=2024-03-31T02:30:00&endTs=2024-04-01T00:00:00&stepUnit=DAYS")
	if rfc(r.Start) != "2024-03-31T03:30:00+02:00" {
		t.Errorf("start in the DST gap: %s", rfc(r.Start))
	}

	// Both forms of repeatable parameters, mixed, with repeats: the same normalised request.
	forms := []string{
		"&indexCategories=SMART_METER&indexCategories=ESTIMATED&dataSources=LOAD_CURVE&dataSources=SMART_METER&options=withCarbonFootprint&options=withRatioByTariffHeading&options=withoutCost",
		"&indexCategories=SMART_METER,ESTIMATED&dataSources=LOAD_CURVE,SMART_METER&options=withCarbonFootprint,withRatioByTariffHeading,withoutCost",
		"&indexCategories=ESTIMATED,SMART_METER&indexCategories=SMART_METER&dataSources=SMART_METER&dataSources=LOAD_CURVE,SMART_METER&options=withoutCost,withRatioByTariffHeading&options=withCarbonFootprint",
	}
	base := consPath + "?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&stepUnit=MONTHS&stepValue=2&indexStrategy=NO_ESTIMATED&loadCurveCompletion=true"
	r = get(base + forms[0])
	if !slices.Equal(r.IndexCategories, []string{"ESTIMATED", "SMART_METER"}) || !slices.Equal(r.DataSources, []string{"LOAD_CURVE", "SMART_METER"}) ||
		!r.WithoutCost || !r.WithCarbonFootprint || !r.WithRatioByTariffHeading || r.WithGlobalConsumption ||
		r.StepUnit != "MONTHS" || r.StepValue != 2 || r.IndexStrategy != "NO_ESTIMATED" || !r.LoadCurveCompletion {
		t.Errorf("repeated form: %+v", r)
	}
	calls := len(eng.reqs)
	for _, f := range forms[1:] {
		st, b, hdr := h.do("GET", base+f, reader, "")
		if st != http.StatusOK || hdr.Get("X-Cache") != "HIT" {
			t.Errorf("%s: %d X-Cache %q %s, want the cached answer of the same request", f, st, hdr.Get("X-Cache"), b)
		}
	}
	if len(eng.reqs) != calls {
		t.Errorf("equivalent forms reached the engine again")
	}
	// Every category listed is the same as none.
	r = get(consPath + "?startTs=2024-01-01T00:00:00&endTs=2024-02-01T00:00:00&indexCategories=RTM,SUPPLIER,SMART_METER,LEGACY_METER,SENSOR,STEREO,SELF_METER_READING,ESTIMATED&stepUnit=DAYS")
	if r.IndexCategories != nil {
		t.Errorf("all categories: %v", r.IndexCategories)
	}

	// withGlobalConsumption over exactly one calendar year is accepted, from a leap day too
	// (Feb 29 + 1 year = Feb 28).
	r = get(consPath + "?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&options=withGlobalConsumption")
	if !r.WithGlobalConsumption {
		t.Error("withGlobalConsumption not passed")
	}
	get(consPath + "?startTs=2024-02-29T00:00:00&endTs=2025-02-28T00:00:00&options=withGlobalConsumption&stepUnit=MONTHS")
	st, b, hdr := h.do("GET", consPath+"?startTs=2024-02-29T00:00:00&endTs=2025-03-01T00:00:00&options=withGlobalConsumption", reader, "")
	h.wantError(st, b, hdr, http.StatusBadRequest, CodePeriodTooLong, "endTs")
}

// The timestamp check accepts exactly the shapes of its documented pattern; time.Parse then
// checks the values.
func TestStampShapeAsItsPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})?$`)
	cases := []string{"2024-01-01T00:00:00", "2024-01-01T00:00:00Z", "2024-01-01T00:00:00+01:00", "2024-01-01T00:00:00-09:30",
		"2024-01-01", "2024-01-01T00:00", "2024-01-01 00:00:00", "2024-01-01T00:00:00z", "2024-01-01T00:00:00+0100",
		"2024-01-01T00:00:00+01:00Z", "2024-01-01T00:00:00.000", "20240-01-01T00:00:00", "2024-1-01T00:00:00", "２０２４-01-01T00:00:00", ""}
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "0123456789-T:Z+ .z"
	for range 20000 { // mutations of valid stamps
		b := []byte(cases[rng.IntN(4)])
		for range 1 + rng.IntN(2) {
			switch i := rng.IntN(len(b)); rng.IntN(3) {
			case 0:
				b[i] = alphabet[rng.IntN(len(alphabet))]
			case 1:
				b = append(b[:i], b[i+1:]...)
			default:
				b = append(b[:i], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[i:]...)...)
			}
		}
		cases = append(cases, string(b))
	}
	for _, v := range cases {
		if got, want := stampShape(v), pattern.MatchString(v); got != want {
			t.Errorf("stampShape(%q) = %v, pattern says %v", v, got, want)
		}
	}
}
