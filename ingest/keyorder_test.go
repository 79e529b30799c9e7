package ingest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestKeyOrder(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	series := func(site, pod string, days ...int) []MaxPowerRow {
		var out []MaxPowerRow
		for _, d := range days {
			out = append(out, MaxPowerRow{SiteID: site, PodID: pod, TS: day(d), GenerationTS: day(d + 1)})
		}
		return out
	}
	show := func(runs [][]MaxPowerRow) string {
		var out []string
		for _, run := range runs {
			for _, r := range run {
				out = append(out, fmt.Sprintf("%s/%s/%d", r.SiteID, r.PodID, r.TS.Day()))
			}
		}
		return strings.Join(out, " ")
	}
	many := func(rows ...[]MaxPowerRow) []MaxPowerRow {
		var out []MaxPowerRow
		for _, r := range rows {
			out = append(out, r...)
		}
		return out
	}
	defer func(n int) { minRowsPerRun = n }(minRowsPerRun)
	minRowsPerRun = 1
	for _, c := range []struct {
		name  string
		files []Rows
		want  string
	}{
		{"series in key order across files", []Rows{
			{MaxPowers: many(series("S2", "P1", 1, 2, 3), series("S1", "P9", 1, 2))},
			{MaxPowers: many(series("S1", "P2", 1, 2, 3))}},
			"S1/P2/1 S1/P2/2 S1/P2/3 S1/P9/1 S1/P9/2 S2/P1/1 S2/P1/2 S2/P1/3"},
		{"interleaved series keep file order", []Rows{
			{MaxPowers: many(series("S1", "P1", 1, 3), series("S1", "P1", 2, 4))}},
			"S1/P1/1 S1/P1/3 S1/P1/2 S1/P1/4"},
		{"equal keys at a boundary are in order", []Rows{
			{MaxPowers: many(series("S1", "P1", 3, 4), series("S1", "P1", 1, 2, 3))}},
			"S1/P1/1 S1/P1/2 S1/P1/3 S1/P1/3 S1/P1/4"},
	} {
		got := show(keyOrder(c.files, func(r *Rows) []MaxPowerRow { return r.MaxPowers }, maxPowerKey))
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	minRowsPerRun = 64
	rows := many(series("S1", "P2", 1), series("S1", "P1", 1))
	if got := show(keyOrder([]Rows{{MaxPowers: rows}}, func(r *Rows) []MaxPowerRow { return r.MaxPowers }, maxPowerKey)); got != "S1/P2/1 S1/P1/1" {
		t.Errorf("short runs: %s, want file order", got)
	}
}
