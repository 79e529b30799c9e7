package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"energy/query/weather"
	"energy/schema/chtest"
	"energy/schema/registry"
)

func TestParseObservationsCSV(t *testing.T) {
	csv := "date,temperature,wind,cloudiness,picto\n" +
		"2024-01-01T00:00:00+01:00,3.2,12.5,6,P7\n" +
		"2024-01-01T01:00:00+01:00, -1, 0, 8,\n"
	obs, err := parseObservations([]byte(csv), "obs.csv", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(obs) != 2 || obs[0].Temperature != 3.2 || obs[0].Picto != "P7" || obs[1].Temperature != -1 || obs[1].Picto != "P9" ||
		!obs[1].Date.Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("parsed %+v", obs)
	}
	// Columns in any order, picto optional; content sniffing without an extension.
	obs, err = parseObservations([]byte("cloudiness,date,wind,temperature\n4,2024-01-01T00:00:00Z,1,2\n"), "-", "")
	if err != nil || len(obs) != 1 || obs[0].Cloudiness != 4 || obs[0].Picto != "P5" {
		t.Fatalf("reordered columns: %+v %v", obs, err)
	}

	bad := []struct{ file, mentions string }{
		{"date,temperature,wind\n", "cloudiness"},
		{"date,temperature,wind,cloudiness,humidity\n", "humidity"},
		{"date,temperature,wind,cloudiness\n2024-01-01T00:00:00Z,1,1,1\n2024-01-01T01:00:00,1,1,1\n", "line 3: date"},
		{"date,temperature,wind,cloudiness\n2024-01-01T00:00:00Z,1,1,1\n2024-01-01T01:00:00Z,warm,1,1\n", "line 3: temperature"},
		// Valid syntax, invalid value: found by the validation of the whole file, still named by line.
		{"date,temperature,wind,cloudiness\n2024-01-01T00:00:00Z,1,1,1\n\n2024-01-01T01:00:00Z,1,1,12\n", "line 4: cloudiness"},
		{"date,temperature,wind,cloudiness\n", "no observation"},
	}
	for _, b := range bad {
		if _, err := parseObservations([]byte(b.file), "obs.csv", ""); err == nil || !strings.Contains(err.Error(), b.mentions) {
			t.Errorf("%q: error %v, want one mentioning %q", b.file, err, b.mentions)
		}
	}
}

func TestParseObservationsJSON(t *testing.T) {
	body := `[
  {"date": "2024-01-01T12:00:00+01:00", "temperature": 3.2, "wind": 12.5, "cloudiness": 6, "picto": "P7"},
  {"date": "2024-01-01T13:00:00+01:00", "temperature": 0, "wind": 0, "cloudiness": 0}
]`
	obs, err := parseObservations([]byte(body), "obs.json", "")
	if err != nil || len(obs) != 2 || obs[1].Temperature != 0 || obs[1].Picto != "P1" {
		t.Fatalf("parsed %+v, %v", obs, err)
	}
	bad := []struct{ file, mentions string }{
		{`{"date": "2024-01-01T12:00:00+01:00"}`, "array"},
		{"[\n{\"date\": \"2024-01-01T12:00:00+01:00\", \"temperature\": 1, \"wind\": 1, \"cloudiness\": 1},\n{\"date\": \"2024-01-01T13:00:00+01:00\", \"temperature\": 1, \"wind\": 1}\n]", "line 3: item 1: cloudiness is required"},
		{"[\n{\"date\": \"2024-01-01T12:00:00+01:00\", \"temperature\": 1, \"wind\": 1, \"cloudiness\": 1, \"rain\": 2}\n]", "line 2: item 0: json: unknown field \"rain\""},
		{"[\n{\"date\": \"2024-01-01T12:00:00+01:00\", \"temperature\": 1, \"wind\": 1, \"cloudiness\": 1},\n\n  {\"date\": \"2024-01-01T13:00:00+01:00\", \"temperature\": 1, \"wind\": -4, \"cloudiness\": 1}]", "line 4: wind"},
	}
	for _, b := range bad {
		if _, err := parseObservations([]byte(b.file), "obs.json", ""); err == nil || !strings.Contains(err.Error(), b.mentions) {
			t.Errorf("%q: error %v, want one mentioning %q", b.file, err, b.mentions)
		}
	}
}

func TestImportObservationsInBatchesWithProgress(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	if err := registry.New(db).PutStation(ctx, registry.Station{TenantID: "acme", StationID: "ST1", Name: "Paris-Orly", Latitude: 48.72, Longitude: 2.38}); err != nil {
		t.Fatal(err)
	}
	// 25,000 hourly rows: three batches (10,000 + 10,000 + 5,000).
	start := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	obs := demoObservations("ST1", start, start.Add(25_000*time.Hour))
	var progress bytes.Buffer
	changes := func() (n uint64) {
		t.Helper()
		if err := db.Conn.QueryRow(ctx, "SELECT count() FROM data_versions WHERE tenant_id = 'acme' AND site_id = ''").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := changes()
	n, err := importObservations(ctx, db, "acme", "ST1", obs, &progress)
	if err != nil || n != 25_000 {
		t.Fatalf("imported %d, %v", n, err)
	}
	// A running energyd watches data_versions: the import is recorded as one change of the
	// tenant's reference data, so its cached comparisons and daily means are dropped.
	if got := changes(); got != before+1 {
		t.Errorf("reference changes recorded by the import: %d, want 1", got-before)
	}
	want := "weather import: 10000 / 25000 rows\nweather import: 20000 / 25000 rows\nweather import: 25000 / 25000 rows\n"
	if progress.String() != want {
		t.Errorf("progress %q, want %q", progress.String(), want)
	}
	got, err := weather.NewStore(db).Observations(ctx, "acme", "ST1", start, start.Add(25_000*time.Hour))
	if err != nil || len(got) != 25_000 || got[24_999].Temperature != obs[24_999].Temperature {
		t.Fatalf("read back %d observations, %v", len(got), err)
	}
	if _, err := importObservations(ctx, db, "acme", "NOPE", obs[:1], &progress); err == nil || !strings.Contains(err.Error(), `"NOPE" does not exist`) {
		t.Fatalf("unknown station: %v", err)
	}
	if _, err := importObservations(ctx, db, "globex", "ST1", obs[:1], &progress); err == nil {
		t.Fatal("another tenant's station accepted")
	}

	// demoWeather stores the same deterministic values again for a sub-range.
	if err := demoWeather(ctx, db, "acme", "ST1", start.Add(100*time.Hour), start.Add(110*time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, _ = weather.NewStore(db).Observations(ctx, "acme", "ST1", start.Add(100*time.Hour), start.Add(110*time.Hour))
	if len(got) != 10 || got[0] != obs[100] {
		t.Fatalf("demo sub-range %+v, want %+v first", got, obs[100])
	}
}

// demoDegreeDays is base-18 heating degree days of hourly observations per Paris local day.
func demoDegreeDays(obs []weather.Observation) float64 {
	paris, _ := time.LoadLocation("Europe/Paris")
	sum, count := map[string]float64{}, map[string]int{}
	for _, o := range obs {
		d := o.Date.In(paris).Format(time.DateOnly)
		sum[d] += o.Temperature
		count[d]++
	}
	dd := 0.0
	for d, s := range sum {
		dd += math.Max(0, 18-s/float64(count[d]))
	}
	return dd
}

func TestDemoWeatherIsPlausible(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	mean := func(obs []weather.Observation) float64 {
		s := 0.0
		for _, o := range obs {
			s += o.Temperature
		}
		return s / float64(len(obs))
	}
	month := func(y int, m time.Month) []weather.Observation {
		return demoObservations("07149", time.Date(y, m, 1, 0, 0, 0, 0, paris), time.Date(y, m+1, 1, 0, 0, 0, 0, paris))
	}
	for _, y := range []int{2023, 2024} {
		if jan := mean(month(y, time.January)); jan < 0 || jan > 8 {
			t.Errorf("January %d mean %.1f °C, want a French winter (0..8)", y, jan)
		}
		if jul := mean(month(y, time.July)); jul < 16 || jul > 24 {
			t.Errorf("July %d mean %.1f °C, want a French summer (16..24)", y, jul)
		}
	}
	year := func(y int) []weather.Observation {
		return demoObservations("07149", time.Date(y, 1, 1, 0, 0, 0, 0, paris), time.Date(y+1, 1, 1, 0, 0, 0, 0, paris))
	}
	obs := year(2024)
	if len(obs) != 366*24 {
		t.Fatalf("2024: %d hourly observations, want %d", len(obs), 366*24)
	}
	for _, o := range obs {
		if o.Temperature < -15 || o.Temperature > 40 || o.Wind < 0 || o.Wind > 60 || o.Cloudiness < 0 || o.Cloudiness > 8 {
			t.Fatalf("implausible %+v", o)
		}
	}
	if err := weather.ValidateObservations(obs); err != nil {
		t.Fatal(err)
	}
	// Consecutive years differ by well over 5 % of degree days, so the demo shows a message.
	dd23, dd24 := demoDegreeDays(year(2023)), demoDegreeDays(obs)
	if rate := (dd24 - dd23) / dd23 * 100; rate < 5 || dd23 < 1500 || dd24 > 3500 {
		t.Errorf("degree days 2023 %.0f, 2024 %.0f (%.1f %%), want a plausible colder 2024 by ≥ 5 %%", dd23, dd24, rate)
	}
	t.Logf("demo degree days: 2023 %.0f, 2024 %.0f", dd23, dd24)
	// Deterministic and independent of the requested range.
	again := demoObservations("07149", time.Date(2024, 6, 1, 0, 0, 0, 0, paris), time.Date(2024, 6, 2, 0, 0, 0, 0, paris))
	first := obs[int(time.Date(2024, 6, 1, 0, 0, 0, 0, paris).Sub(time.Date(2024, 1, 1, 0, 0, 0, 0, paris)).Hours())]
	if again[0] != first {
		t.Errorf("same instant differs across ranges: %+v vs %+v", again[0], first)
	}
}
