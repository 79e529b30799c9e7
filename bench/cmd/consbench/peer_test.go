package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"energy/bench"
)

func TestSameEnergiesIgnoresOrderAndZeroes(t *testing.T) {
	a := []energyRow{{"1/wh", 100, 1500}, {"2/wh", 100, 0}, {"1/wh", 0, 1200.0004}}
	b := []energyRow{{"1/wh", 0, 1200}, {"1/wh", 100, 1500}}
	if err := sameEnergies(a, b); err != nil {
		t.Fatalf("same energies reported different: %v", err)
	}
}

func TestSameEnergiesNamesTheDifference(t *testing.T) {
	a := []energyRow{{"1/wh", 0, 1200}, {"2/wh", 86400, 3000}}
	for _, c := range []struct {
		name string
		b    []energyRow
		want string
	}{
		{"value", []energyRow{{"1/wh", 0, 1200}, {"2/wh", 86400, 3000.01}}, "2/wh at 1970-01-02T00:00:00Z: 3000.000 Wh against 3000.010 Wh"},
		{"missing step", []energyRow{{"1/wh", 0, 1200}}, "2 energies against 1"},
		{"other step", []energyRow{{"1/wh", 0, 1200}, {"2/wh", 90000, 3000}}, "step 1970-01-02T00:00:00Z of 2/wh against step 1970-01-02T01:00:00Z of 2/wh"},
	} {
		err := sameEnergies(a, c.b)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func durations(ms ...float64) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m * float64(time.Millisecond))
	}
	return out
}

func TestRatioLine(t *testing.T) {
	days := &peerRequest{name: "DAYS"}
	days.times[storePG] = durations(1.5, 2, 9)
	days.times[storeEnergyd] = durations(13, 12, 30) // p50 13 ms / 2 ms
	hours := &peerRequest{name: "HOURS"}
	hours.times[storePG] = durations(4)
	hours.times[storeEnergyd] = durations(3)
	curve := &peerScan{}
	curve.times[storePG], curve.times[storeCH] = durations(4000), durations(500) // 8×
	idx := &peerScan{}
	idx.times[storePG], idx.times[storeCH] = durations(1000), durations(800) // 1.25×: the one shown
	got := ratioLine([]*peerRequest{days, hours}, []*peerScan{curve, idx})
	if want := "pg-ratio DAYS=6.50 HOURS=0.75 SCAN=1.25"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestCopyRowsInColumnOrder(t *testing.T) {
	curve, idx, err := bench.GenerateSites(3, 4, 2024)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	appendCurveRow(&b, curve, 0)
	appendIndexRow(&b, idx, 1)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	// 2024-01-01 00:00 in Paris is 2023-12-31 23:00 UTC; the point is generated at 06:00 UTC the next day.
	wantCurve := "2023-12-31 23:00:00+00\t2023-12-31 23:30:00+00\t2024-01-02 06:00:00+00\t" + strconv.FormatInt(curve.Value[0], 10) + "\t2024-01-01\t0\tbench\tB0003\tPDL40000000003\tbench-generator"
	wantIndex := "2023-12-31 23:00:00+00\t2024-01-01 05:00:00+00\t" + strconv.FormatInt(idx.Value[1], 10) + "\tf\tbench\tB0003\tPDL40000000003\tMKT_SMART_DISTRIBUTOR\t2\tbench-generator"
	if len(lines) != 2 || lines[0] != wantCurve || lines[1] != wantIndex {
		t.Fatalf("got\n%s\nwant\n%s\n%s", b.String(), wantCurve, wantIndex)
	}
	if got := strings.Count(pgCurveCopy, ",") + 1; got != strings.Count(lines[0], "\t")+1 {
		t.Errorf("COPY names %d curve columns, rows have %d", got, strings.Count(lines[0], "\t")+1)
	}
	if got := strings.Count(pgIndexCopy, ",") + 1; got != strings.Count(lines[1], "\t")+1 {
		t.Errorf("COPY names %d index columns, rows have %d", got, strings.Count(lines[1], "\t")+1)
	}
}

func TestEnergydEnergiesInTheSQLShape(t *testing.T) {
	body := []byte(`{"consumptions":[
	 {"period":{"startTime":"2024-01-01T00:00:00+01:00"},"energyMeter":{"total":3000,"byTariffHeading":{"HC":1000,"HP":2000}}},
	 {"period":{"startTime":"2024-01-02T00:00:00+01:00"},"energyMeter":{"total":500,"byTariffHeading":{"HP":500}}}]}`)
	jan1 := time.Date(2023, 12, 31, 23, 0, 0, 0, time.UTC).Unix()
	days, err := energydEnergies(body, false, benchDialOfHeading(2024))
	if err != nil {
		t.Fatal(err)
	}
	if err := sameEnergies(days, []energyRow{{"1/wh", jan1, 1000}, {"2/wh", jan1, 2000}, {"2/wh", jan1 + 86400, 500}}); err != nil {
		t.Errorf("index answer: %v", err)
	}
	hours, err := energydEnergies(body, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameEnergies(hours, []energyRow{{"wh", jan1, 3000}, {"hc", jan1, 1000}, {"wh", jan1 + 86400, 500}}); err != nil {
		t.Errorf("load-curve answer: %v", err)
	}
	if _, err := energydEnergies(body, false, map[string]string{"HC": "1"}); err == nil {
		t.Error("a heading without dial was accepted")
	}
}

func TestWithSetting(t *testing.T) {
	for dsn, want := range map[string]string{
		"clickhouse://127.0.0.1:9000/bench":                 "clickhouse://127.0.0.1:9000/bench?log_queries=1",
		"clickhouse://127.0.0.1:9000/bench?dial_timeout=2s": "clickhouse://127.0.0.1:9000/bench?dial_timeout=2s&log_queries=1",
	} {
		if got := withSetting(dsn, "log_queries", "1"); got != want {
			t.Errorf("withSetting(%q) = %q, want %q", dsn, got, want)
		}
	}
}
