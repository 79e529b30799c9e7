package weather

import (
	"context"
	"math"
	"testing"
	"time"

	"energy/schema/chtest"
)

func TestDegreeDaysPerLocalDay(t *testing.T) {
	ctx := context.Background()
	w := NewStore(chtest.DB(t))
	paris, _ := time.LoadLocation("Europe/Paris")
	temps := map[string]float64{
		// 10 January (local): mean (2 + 6) / 2 = 4 → 18 − 4 = 14 DD.
		"2024-01-10T00:00:00+01:00": 2,
		"2024-01-10T12:00:00+01:00": 6,
		// 11 January (local): mean (19 + 23) / 2 = 21 → max(0, 18 − 21) = 0 DD. The 00:30 local
		// value is 10 January in UTC: grouping by UTC day would give 10 Jan mean 9 (9 DD) instead.
		"2024-01-11T00:30:00+01:00": 19,
		"2024-01-11T12:00:00+01:00": 23,
		// 12 January: no observation (missing).
		// 9 and 13 January lie outside the period.
		"2024-01-09T23:59:59+01:00": -30,
		"2024-01-13T00:00:00+01:00": -30,
		// 31 March is a 23-hour day in Paris: 00:00 local is 30 March 23:00Z and 23:30 local is
		// 21:30Z; mean (8 + 12) / 2 = 10 → 8 DD. 1 April 00:00 local (31 March 22:00Z) is not in it.
		"2024-03-31T00:00:00+01:00": 8,
		"2024-03-31T23:30:00+02:00": 12,
		"2024-04-01T00:00:00+02:00": -20,
	}
	var obs []Observation
	for d, v := range temps {
		obs = append(obs, Observation{Date: mustTime(t, d), Temperature: v, Cloudiness: 4})
	}
	if err := w.Put(ctx, "acme", "S1", obs); err != nil {
		t.Fatal(err)
	}
	day := func(m time.Month, d int) time.Time { return time.Date(2024, m, d, 0, 0, 0, 0, paris) }

	// 10..12 January: 14 + 0 DD over 3 days, 12 January missing.
	dd, err := w.DegreeDays(ctx, "acme", "S1", paris, day(1, 10), day(1, 13))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(dd.Total-14) > 1e-9 || dd.Days != 3 || dd.Missing != 1 || dd.Complete() {
		t.Fatalf("10-12 Jan: %+v, want total 14, 3 days, 1 missing, incomplete", dd)
	}

	// 12 January arrives: mean (17 + 18) / 2 = 17.5 → 0.5 DD; total 14.5, complete.
	if err := w.Put(ctx, "acme", "S1", []Observation{
		{Date: mustTime(t, "2024-01-12T06:00:00+01:00"), Temperature: 17},
		{Date: mustTime(t, "2024-01-12T18:00:00+01:00"), Temperature: 18},
	}); err != nil {
		t.Fatal(err)
	}
	dd, err = w.DegreeDays(ctx, "acme", "S1", paris, day(1, 10), day(1, 13))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(dd.Total-14.5) > 1e-9 || dd.Days != 3 || dd.Missing != 0 || !dd.Complete() {
		t.Fatalf("10-12 Jan after 12 Jan arrived: %+v, want total 14.5, complete", dd)
	}

	dd, err = w.DegreeDays(ctx, "acme", "S1", paris, day(3, 31), day(4, 1))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(dd.Total-8) > 1e-9 || dd.Days != 1 || !dd.Complete() {
		t.Fatalf("31 March (23 h): %+v, want total 8 over 1 complete day", dd)
	}

	// A station without observations: every day missing, nothing to compare.
	dd, err = w.DegreeDays(ctx, "acme", "NONE", paris, day(1, 1), day(2, 1))
	if err != nil {
		t.Fatal(err)
	}
	if dd.Days != 31 || dd.Missing != 31 || dd.Total != 0 || dd.Complete() {
		t.Fatalf("empty station: %+v, want 31 days all missing", dd)
	}
}

// TestDailyMeansOfDecimalTemperatures: daily means of temperatures with decimals, whose means
// no float64 holds exactly, are the correctly rounded true means (the float64 nearest to the
// exact decimal mean, the value a user computes by hand), whatever the order in which the server
// adds them. Under make test-compat, ClickHouse 18.16 and 26.x must answer the read with the
// same bits. An avg of the floats gave 6.149999999999999 for 10 January and
// 11.200000000000001 for 31 March on 18.16, and its last bits follow the order of addition.
func TestDailyMeansOfDecimalTemperatures(t *testing.T) {
	ctx := context.Background()
	w := NewStore(chtest.DB(t))
	paris, _ := time.LoadLocation("Europe/Paris")
	hourly := func(day time.Time, temps ...float64) []Observation {
		obs := make([]Observation, len(temps))
		for i, v := range temps {
			obs[i] = Observation{Date: day.Add(time.Duration(i) * time.Hour), Temperature: v, Cloudiness: 4}
		}
		return obs
	}
	repeat := func(n int, temps ...float64) []float64 {
		var out []float64
		for range n {
			out = append(out, temps...)
		}
		return out
	}
	steps := func(first float64, n int) []float64 { // first, first + 0.1, … as typed in decimal
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(int(math.Round(first*10))+i) / 10
		}
		return out
	}
	day := func(m time.Month, d int) time.Time { return time.Date(2024, m, d, 0, 0, 0, 0, paris) }
	days := [][]Observation{
		// 5.0, 5.1, …, 7.3: (24 × 5.0 + 0.1 × 276) / 24 = 147.6 / 24 = 6.15.
		hourly(day(1, 10), steps(5.0, 24)...),
		// (5.7 + 5.8 + 5.8) × 8 / 24 = 138.4 / 24 = 173/30 = 5.7666…
		hourly(day(1, 11), repeat(8, 5.7, 5.8, 5.8)...),
		// (−2.3 − 1.1 + 0.3) × 8 / 24 = −24.8 / 24 = −31/30 = −1.0333…
		hourly(day(1, 12), repeat(8, -2.3, -1.1, 0.3)...),
		// 31 March is a 23-hour day in Paris: 10.1, 10.2, …, 12.3: 257.6 / 23 = 11.2.
		hourly(day(3, 31), steps(10.1, 23)...),
		// Digits beyond the ninth decimal are rounded off: 24 × 1.0000000004 counts 24 × 1.
		hourly(day(4, 2), repeat(24, 1.0000000004)...),
	}
	// Each day in two inserts, its second half first: several parts, rows not in date order.
	for _, obs := range days {
		half := len(obs) / 2
		for _, part := range [][]Observation{obs[half:], obs[:half]} {
			if err := w.Put(ctx, "acme", "S1", part); err != nil {
				t.Fatal(err)
			}
		}
	}
	means, err := w.DailyMeans(ctx, "acme", "S1", paris, day(1, 1), day(5, 1))
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint32]float64{
		20240110: 6.15,
		20240111: 173.0 / 30,
		20240112: -31.0 / 30,
		20240331: 11.2,
		20240402: 1,
	}
	if len(means) != len(want) {
		t.Errorf("means of %d days, want %d: %v", len(means), len(want), means)
	}
	for d, v := range want {
		if got, ok := means[d]; !ok || got != v {
			t.Errorf("%d: mean %v (present %v), want %v", d, got, ok, v)
		}
	}
}
