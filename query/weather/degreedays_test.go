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
