package main

import (
	"strings"
	"testing"
	"time"
)

// The table's cost is the median with it over the median without it; 15 % more end to end is
// the bound.
func TestDailyCostMarkdown(t *testing.T) {
	s := time.Second
	indexes := &benchArchive{Name: "indexes.tar.gz"}
	with := []result{{archive: indexes, times: []time.Duration{11 * s / 10, 12 * s / 10, 13 * s / 10}, inserts: []time.Duration{s / 2, s / 2, s / 2}}}
	without := []result{{archive: indexes, times: []time.Duration{s, 11 * s / 10, 9 * s / 10}, inserts: []time.Duration{s / 2, s / 2, s / 2}}}
	md := dailyCostMarkdown(with, without)
	for _, want := range []string{
		"| archive | POST → DONE with the table | without | with / without | batch inserts with the table | without | with / without | ≤ 1.15 |",
		"| indexes.tar.gz | 1.20 s | 1.00 s | 1.20 | 0.50 s | 0.50 s | 1.00 | **no** |",
		"All runs without the table (s): indexes.tar.gz: energyd 1.00, 1.10, 0.90",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
	without[0].times = []time.Duration{11 * s / 10, 11 * s / 10, 11 * s / 10}
	if md := dailyCostMarkdown(with, without); !strings.Contains(md, "| 1.09 | 0.50 s | 0.50 s | 1.00 | yes |") {
		t.Errorf("1.20 s against 1.10 s is within 15 %%:\n%s", md)
	}
}
