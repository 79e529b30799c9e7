package consumption

import (
	"context"
	"math"
	"testing"
	"time"
)

// gasRow is one cyclic gas index: value in unit, with an optional kWh conversion factor.
type gasRow struct {
	ts     time.Time
	value  int64
	unit   string  // default m3
	factor float64 // kWh per unit; 0: none given
	before bool
	nature string    // default MKT_CYCLIC_DISTRIBUTOR
	gen    time.Time // default ts + 1 day
}

func (f *consumptionFixture) gasIndexes(rows ...gasRow) {
	f.t.Helper()
	b, err := f.db.Conn.PrepareBatch(context.Background(), "INSERT INTO gas_indexes (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, value, unit, conversion_units, conversion_factors, job_id)")
	if err != nil {
		f.t.Fatal(err)
	}
	for _, r := range rows {
		if r.unit == "" {
			r.unit = "m3"
		}
		units, factors := []string{}, []float64{}
		if r.factor != 0 {
			units, factors = []string{"kWh"}, []float64{r.factor}
		}
		var ibc uint8
		if r.before {
			ibc = 1
		}
		if r.nature == "" {
			r.nature = "MKT_CYCLIC_DISTRIBUTOR"
		}
		if r.gen.IsZero() {
			r.gen = r.ts.Add(24 * time.Hour)
		}
		if err := b.Append(fxTenant, fxSite, "GAS-POD", r.ts.UTC(), ibc, r.nature, r.gen.UTC(), r.value, r.unit, units, factors, "test"); err != nil {
			f.t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		f.t.Fatal(err)
	}
}

func TestReadingIntervalsOfGas(t *testing.T) {
	f := newConsumptionFixture(t)
	f.gasIndexes(
		gasRow{ts: pd("2024-01-01"), value: 1000, factor: 11.2},
		gasRow{ts: pd("2024-01-02"), value: 1010, factor: 11.2},             // 10 m3 × 11.2 = 112 kWh
		gasRow{ts: pd("2024-01-03"), value: 1030, factor: 10.5},             // factor of the later reading: 20 × 10.5 = 210
		gasRow{ts: pd("2024-01-04"), value: 1031},                           // no factor: unknown energy, left out
		gasRow{ts: pd("2024-01-05"), value: 1040, factor: 11},               // 9 × 11 = 99
		gasRow{ts: pd("2024-01-06"), value: 1052, factor: 11, before: true}, // old meter's last index: 12 × 11 = 132
		gasRow{ts: pd("2024-01-06"), value: 3, factor: 11},                  // new meter's first
		gasRow{ts: pt("2024-01-06T12:00"), value: 300, unit: "kWh"},         // index in kWh: 297 kWh
	)
	got, err := ReadingIntervals(context.Background(), f.db, f.site, FluidGas, pd("2023-12-01"), pd("2024-02-01"))
	if err != nil {
		t.Fatal(err)
	}
	want := []ReadingInterval{
		{pd("2024-01-01"), pd("2024-01-02"), 112},
		{pd("2024-01-02"), pd("2024-01-03"), 210},
		{pd("2024-01-04"), pd("2024-01-05"), 99},
		{pd("2024-01-05"), pd("2024-01-06"), 132},
		{pd("2024-01-06"), pt("2024-01-06T12:00"), 297},
	}
	checkIntervals(t, got, want)

	days, err := DailyEnergy(context.Background(), f.db, f.site, FluidGas, pd("2024-01-05"), pd("2024-01-08"))
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 2 || !days[0].Day.Equal(pd("2024-01-05")) || math.Abs(days[0].KWh-132) > 1e-9 || days[0].Covered != 1 ||
		!days[1].Day.Equal(pd("2024-01-06")) || math.Abs(days[1].KWh-297) > 1e-9 || days[1].Covered != 0.5 {
		t.Fatalf("daily energy %+v", days)
	}
}

func TestReadingIntervalsOfElectricitySumDials(t *testing.T) {
	f := newConsumptionFixture(t)
	f.indexes(append(dailyIndexes("2024-03-30", "1", 1000, 3000, 6000), dailyIndexes("2024-03-30", "2", 500, 1500, 1400)...)...)
	got, err := ReadingIntervals(context.Background(), f.db, f.site, FluidElec, pd("2024-03-01"), pd("2024-04-30"))
	if err != nil {
		t.Fatal(err)
	}
	// Dial 2 goes down on 1 April: that interval's energy is unknown and left out.
	checkIntervals(t, got, []ReadingInterval{{pd("2024-03-30"), pd("2024-03-31"), 3}})
	days, err := DailyEnergy(context.Background(), f.db, f.site, FluidElec, pd("2024-03-01"), pd("2024-04-30"))
	if err != nil || len(days) != 1 || days[0].KWh != 3 || days[0].Covered != 1 {
		t.Fatalf("daily %+v %v", days, err)
	}
}

func checkIntervals(t *testing.T, got, want []ReadingInterval) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("intervals %+v, want %+v", got, want)
	}
	for i := range want {
		if !got[i].From.Equal(want[i].From) || !got[i].To.Equal(want[i].To) || math.Abs(got[i].KWh-want[i].KWh) > 1e-9 {
			t.Fatalf("interval %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
