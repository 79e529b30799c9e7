package weather

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"energy/schema/chtest"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestWeatherLatestValueWinsAndBoundaries(t *testing.T) {
	ctx := context.Background()
	w := NewStore(chtest.DB(t))
	first := []Observation{
		{Date: mustTime(t, "2024-01-01T01:00:00+01:00"), Temperature: 1, Wind: 10, Cloudiness: 0},
		{Date: mustTime(t, "2024-01-01T02:00:00+01:00"), Temperature: 2, Wind: 20, Cloudiness: 8, Picto: "P42"},
		{Date: mustTime(t, "2024-01-01T03:00:00+01:00"), Temperature: 3, Wind: 30, Cloudiness: 4},
	}
	if err := ValidateObservations(first); err != nil {
		t.Fatal(err)
	}
	if err := w.Put(ctx, "acme", "S1", first); err != nil {
		t.Fatal(err)
	}
	// A second delivery replaces 02:00 (twice in one batch: the later item wins) and adds 04:00.
	second := []Observation{
		{Date: mustTime(t, "2024-01-01T01:00:00Z"), Temperature: 9, Wind: 9, Cloudiness: 1}, // 02:00+01:00
		{Date: mustTime(t, "2024-01-01T01:00:00Z"), Temperature: -2.5, Wind: 5, Cloudiness: 6},
		{Date: mustTime(t, "2024-01-01T04:00:00+01:00"), Temperature: 4, Wind: 40, Cloudiness: 2},
	}
	if err := ValidateObservations(second); err != nil {
		t.Fatal(err)
	}
	if err := w.Put(ctx, "acme", "S1", second); err != nil {
		t.Fatal(err)
	}
	// Another tenant's station of the same id is never seen.
	if err := w.Put(ctx, "globex", "S1", []Observation{{Date: mustTime(t, "2024-01-01T02:30:00+01:00"), Temperature: 50, Picto: "P1"}}); err != nil {
		t.Fatal(err)
	}

	// [01:00, 04:00) local: 01:00, 02:00 (replaced by the last item of the second batch), 03:00;
	// 04:00 is the excluded end.
	got, err := w.Observations(ctx, "acme", "S1", mustTime(t, "2024-01-01T01:00:00+01:00"), mustTime(t, "2024-01-01T04:00:00+01:00"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Observation{
		{Date: mustTime(t, "2024-01-01T00:00:00Z"), Temperature: 1, Wind: 10, Cloudiness: 0, Picto: "P1"}, // 0 okta → P1
		{Date: mustTime(t, "2024-01-01T01:00:00Z"), Temperature: -2.5, Wind: 5, Cloudiness: 6, Picto: "P7"},
		{Date: mustTime(t, "2024-01-01T02:00:00Z"), Temperature: 3, Wind: 30, Cloudiness: 4, Picto: "P5"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d observations %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if !got[i].Date.Equal(want[i].Date) || got[i].Temperature != want[i].Temperature || got[i].Wind != want[i].Wind ||
			got[i].Cloudiness != want[i].Cloudiness || got[i].Picto != want[i].Picto {
			t.Errorf("[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	// Reversed or empty ranges read nothing; far bounds are clamped, not errors.
	if got, err := w.Observations(ctx, "acme", "S1", mustTime(t, "1900-01-01T00:00:00Z"), mustTime(t, "2200-01-01T00:00:00Z")); err != nil || len(got) != 4 {
		t.Fatalf("whole range: %d observations, %v; want 4", len(got), err)
	}
}

func TestPictoFromCloudiness(t *testing.T) {
	for okta, want := range map[float64]string{0: "P1", 0.4: "P1", 1: "P2", 4: "P5", 4.5: "P6", 6: "P7", 7: "P8", 8: "P9"} {
		if got := PictoFromCloudiness(okta); got != want {
			t.Errorf("PictoFromCloudiness(%v) = %s, want %s", okta, got, want)
		}
	}
}

func TestValidateObservationsNamesIndexAndField(t *testing.T) {
	ok := func() Observation {
		return Observation{Date: mustTime(t, "2024-01-01T12:00:00+01:00"), Temperature: 3.2, Wind: 12.5, Cloudiness: 6}
	}
	cases := []struct {
		field  string
		mutate func(*Observation)
	}{
		{"date", func(o *Observation) { o.Date = time.Time{} }},
		{"date", func(o *Observation) { o.Date = o.Date.Add(500 * time.Millisecond) }},
		{"date", func(o *Observation) { o.Date = mustTime(t, "1960-01-01T00:00:00Z") }},
		{"temperature", func(o *Observation) { o.Temperature = math.NaN() }},
		{"temperature", func(o *Observation) { o.Temperature = 120 }},
		{"wind", func(o *Observation) { o.Wind = -1 }},
		{"cloudiness", func(o *Observation) { o.Cloudiness = 9 }},
		{"picto", func(o *Observation) { o.Picto = "sunny" }},
	}
	for _, c := range cases {
		obs := []Observation{ok(), ok(), ok()}
		c.mutate(&obs[2])
		err := ValidateObservations(obs)
		var oe *ObservationError
		if !errors.As(err, &oe) || oe.Index != 2 || oe.Field != c.field {
			t.Errorf("%s case: error %v, want index 2 field %s", c.field, err, c.field)
		}
	}
	obs := []Observation{ok()}
	if err := ValidateObservations(obs); err != nil || obs[0].Picto != "P7" {
		t.Fatalf("valid observation: %v, picto %q (want P7 for 6 okta)", err, obs[0].Picto)
	}
}

// Twelve years of daily observations in one Put (144 monthly partitions) are all stored, the
// later of two items of a date winning; under make test-compat ClickHouse 26.x takes the same
// INSERTs (it refuses one into more than 100 partitions).
func TestPutOfManyYearsStoresEveryDay(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	chtest.SendInsertsTo26(t, db)
	w := NewStore(db)
	first, end := mustTime(t, "2010-01-01T00:00:00Z"), mustTime(t, "2022-01-01T00:00:00Z")
	var obs []Observation
	for d := first; d.Before(end); d = d.AddDate(0, 0, 1) {
		obs = append(obs, Observation{Date: d, Temperature: float64(d.YearDay()) / 10, Wind: float64(d.Year() - 2000), Cloudiness: float64(int(d.Month()) % 9)})
	}
	days := len(obs)
	obs = append(obs, Observation{Date: first, Temperature: -40, Wind: 1, Cloudiness: 8}) // replaces the first day
	if err := ValidateObservations(obs); err != nil {
		t.Fatal(err)
	}
	if err := w.Put(ctx, "acme", "S1", obs); err != nil {
		t.Fatal(err)
	}
	got, err := w.Observations(ctx, "acme", "S1", first, end)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != days {
		t.Fatalf("%d observations stored, want %d", len(got), days)
	}
	want := append([]Observation{obs[days]}, obs[1:days]...)
	for i := range want {
		if !got[i].Date.Equal(want[i].Date) || got[i].Temperature != want[i].Temperature || got[i].Wind != want[i].Wind || got[i].Cloudiness != want[i].Cloudiness {
			t.Fatalf("[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}
