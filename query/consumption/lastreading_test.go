package consumption

import (
	"context"
	"testing"
	"time"
)

// TestLastReadingFollowsTheResolutionRules: records arrive step by step on old dates (2019, far
// from today) and the last resolved reading moves as the index rules say; at each step the one
// aggregation agrees with the resolution in Go (resolveReadings) over the whole history.
func TestLastReadingFollowsTheResolutionRules(t *testing.T) {
	f := newConsumptionFixture(t)
	ctx := context.Background()
	gen := pt("2019-03-01T00:00")
	check := func(step string, fluid string, want time.Time) {
		t.Helper()
		got, ok, err := LastReading(ctx, f.db, f.site, fluid)
		if err != nil {
			t.Fatal(err)
		}
		if want.IsZero() {
			if ok {
				t.Fatalf("%s: last %s reading %s, want none", step, fluid, got)
			}
			return
		}
		if !ok || !got.Equal(want) {
			t.Fatalf("%s: last %s reading %s (found %v), want %s", step, fluid, got, ok, want)
		}
		fl, _ := fluidOf(fluid)
		rs, err := resolveReadings(ctx, f.db, fl, fxTenant, fxSite, allowedNatures(nil), pd("2000-01-01"), pd("2030-01-01"), false, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var inGo time.Time
		for _, r := range rs {
			if r.ts.After(inGo) {
				inGo = r.ts
			}
		}
		if !inGo.Equal(want) {
			t.Fatalf("%s: the resolution in Go ends at %s, the aggregation at %s", step, inGo, got)
		}
	}

	check("no reading", FluidGas, time.Time{})
	f.gasIndexes(
		gasRow{ts: pd("2019-01-01"), value: 100, factor: 11},
		gasRow{ts: pd("2019-01-02"), value: 110, factor: 11},
		gasRow{ts: pd("2019-01-03"), value: 120, factor: 11},
	)
	check("three daily readings", FluidGas, pd("2019-01-03"))
	check("no electricity reading", FluidElec, time.Time{})

	// The distributor invalidates its reading of 3 January (a later generation).
	f.gasIndexes(gasRow{ts: pd("2019-01-03"), value: 120, nature: "MKT_CYCLIC_DISTRIBUTOR_INVALID", gen: gen})
	check("3 January invalidated", FluidGas, pd("2019-01-02"))

	// The customer's own reading of that instant is another family: it stands.
	f.gasIndexes(gasRow{ts: pd("2019-01-03"), value: 121, nature: "MKT_CUSTOMER", factor: 11})
	check("a customer reading on 3 January", FluidGas, pd("2019-01-03"))

	// A reading and its invalidation of the same generation: the invalidation wins the tie.
	f.gasIndexes(
		gasRow{ts: pd("2019-01-04"), value: 130, nature: "MKT_ESTIMATION", factor: 11, gen: gen},
		gasRow{ts: pd("2019-01-04"), value: 130, nature: "MKT_ESTIMATION_INVALID", gen: gen},
	)
	check("4 January valid and invalid in one generation", FluidGas, pd("2019-01-03"))

	// Sent again in a later generation, the estimation is valid again; a trailing estimation
	// is a reading (no real one surrounds it).
	f.gasIndexes(gasRow{ts: pd("2019-01-04"), value: 130, nature: "MKT_ESTIMATION", factor: 11, gen: gen.Add(time.Hour)})
	check("4 January re-sent", FluidGas, pd("2019-01-04"))

	// The old meter's last index at a meter change is a reading too.
	f.gasIndexes(gasRow{ts: pt("2019-01-05T10:00"), value: 140, factor: 11, before: true})
	check("an old meter's last index", FluidGas, pt("2019-01-05T10:00"))

	// Electricity readings are the other fluid's.
	f.indexes(idxRow{ts: pd("2019-02-01"), dial: "1", value: 5}, idxRow{ts: pd("2019-02-01"), dial: "2", value: 7})
	check("gas after an electricity reading", FluidGas, pt("2019-01-05T10:00"))
	check("electricity", FluidElec, pd("2019-02-01"))
}
