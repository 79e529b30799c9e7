package consumption

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"energy/bench"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestAnswersUnchangedOnBenchData pins the exact bytes of answers on the benchmark's data (one
// site, a year of 30-minute points and daily indexes, the HPHC tariff with a price change on
// August 1st): the performance work on the engine and its encoder must not change a byte. The
// hashes were taken from the answers before that work. GOLDEN_DIR=dir writes the answers there
// to diff them after a failure.
func TestAnswersUnchangedOnBenchData(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	if err := bench.Generate(ctx, db, reg, bench.Spec{Sites: 1, Year: 2024}, nil); err != nil {
		t.Fatal(err)
	}
	site, err := reg.Site(ctx, bench.Tenant, bench.SiteID(0))
	if err != nil {
		t.Fatal(err)
	}
	engine := NewEngine(db, reg, DefaultCarbonCoefficient)
	engine.now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	at := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, parisLoc) }
	year := Request{Start: at(2024, 1, 1), End: at(2025, 1, 1), StepValue: 1}
	with := func(unit string, f func(*Request)) Request {
		r := year
		r.StepUnit = unit
		if f != nil {
			f(&r)
		}
		return r
	}
	everything := func(r *Request) {
		r.WithCarbonFootprint, r.WithRatioByTariffHeading, r.WithGlobalConsumption = true, true, true
	}
	cases := []struct {
		name string
		req  Request
		sum  string
	}{
		{"HOURS window", with(UnitHours, nil), "2801f06373c3bfb0253f5bc5bd17c875368f7e92c63aed837c15d058c938a417"},
		{"DAYS year", with(UnitDays, nil), "888d23aa684add2ebbfec422344b4153b95279320ad525951a88b210adfb4914"},
		{"MONTHS year", with(UnitMonths, nil), "c4052b9aaee5f7f16dd74a9572da883632b785431ed2cbd3119180c29578d9bb"},
		{"HOURS spring DST window, every option", with(UnitHours, func(r *Request) { r.Start = at(2024, 3, 1); everything(r) }), "90eb6328e584b8e449fcab193758191dedab97c8ef9a704992e6ed2d3539a74e"},
		{"HOURS fall DST window, every option", with(UnitHours, func(r *Request) { r.Start = at(2024, 10, 1); everything(r) }), "40f39b5ee8e710fbc15abed9b1848aa1a188c37ef307a7d878cdb10e77b2482f"},
		{"DAYS year, every option", with(UnitDays, everything), "d90d55dc689472e2cbadd44ebafe552cebc5f4e648f2711627bc893323b92948"},
		{"MINUTES 15 across a price change", with(UnitMinutes, func(r *Request) {
			r.Start, r.End, r.StepValue = at(2024, 7, 31), at(2024, 8, 2), 15
		}), "cf6e0abb942cea9d9405b428de732d015ec6a0dd5c5947ca2f372a6c7c1e647b"},
	}
	for _, c := range cases {
		res, err := engine.Compute(ctx, site, c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		body, err := EncodeJSON(res)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if dir := os.Getenv("GOLDEN_DIR"); dir != "" {
			if err := os.WriteFile(filepath.Join(dir, c.name+".json"), body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		sum := sha256.Sum256(body)
		if got := hex.EncodeToString(sum[:]); got != c.sum {
			t.Errorf("%s: %d bytes, sha256 %s, want %s", c.name, len(body), got, c.sum)
		}
	}
}
