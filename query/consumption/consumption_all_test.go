package consumption

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// TestComputeAllAnswersAsComputeDoes reads two years of irregular readings once for several
// periods and checks each answer is byte for byte the one Compute gives for that period alone:
// weekly readings with a two-month gap, estimated readings around the year boundary and inside
// the gap, a meter change, a second dial, random periods and every strategy.
func TestComputeAllAnswersAsComputeDoes(t *testing.T) {
	f := newConsumptionFixture(t)
	tr := baseTariff()
	tr.DialHeadings["2"] = "BASE"
	f.tariff(tr)
	var rows []idxRow
	value := int64(1_000_000)
	for d := pd("2022-12-03"); d.Before(pd("2025-01-20")); d = d.AddDate(0, 0, 7) {
		value += 70_000 + int64(d.YearDay())*100
		if d.After(pd("2023-09-01")) && d.Before(pd("2023-11-01")) { // a gap
			continue
		}
		rows = append(rows, idxRow{ts: d, dial: "1", value: value}, idxRow{ts: d, dial: "2", value: value / 3})
	}
	rows = append(rows,
		idxRow{ts: pd("2023-10-01"), dial: "1", value: 3_900_000, nature: "MKT_ESTIMATION"},
		idxRow{ts: pt("2023-12-31T12:00"), dial: "1", value: 5_000_000, nature: "MKT_ESTIMATION"},
		idxRow{ts: pt("2024-06-10T10:00"), dial: "1", value: 9_000_000, before: true},
		idxRow{ts: pt("2024-06-10T10:00"), dial: "1", value: 100},
	)
	f.indexes(rows...)

	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(12, 27))
	for _, strategy := range []string{StrategySurroundingEstimated, StrategyNoEstimated, StrategyAllEstimated} {
		reqs := []Request{
			{Start: pd("2024-01-01"), End: pd("2025-01-01"), StepValue: 1, IndexStrategy: strategy},
			{Start: pd("2023-01-01"), End: pd("2024-01-01"), StepValue: 1, IndexStrategy: strategy},
			{Start: pd("2023-01-01"), End: pd("2023-12-01"), StepValue: 1, IndexStrategy: strategy, StepUnit: UnitMonths, WithGlobalConsumption: true},
		}
		for range 5 {
			a := pd("2022-11-01").Add(time.Duration(rnd.Int64N(int64(800 * 24 * time.Hour))))
			b := a.Add(time.Hour + time.Duration(rnd.Int64N(int64(300*24*time.Hour))))
			reqs = append(reqs, Request{Start: a, End: b, StepValue: 1, IndexStrategy: strategy, WithRatioByTariffHeading: true})
		}
		all, err := f.engine.ComputeAll(ctx, f.site, reqs)
		if err != nil {
			t.Fatal(err)
		}
		for i, req := range reqs {
			want, err := EncodeJSON(f.compute(req))
			if err != nil {
				t.Fatal(err)
			}
			got, err := EncodeJSON(all[i])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s %s – %s: ComputeAll answered\n%s\nCompute alone\n%s", strategy, req.Start, req.End, got, want)
			}
		}
	}
}
