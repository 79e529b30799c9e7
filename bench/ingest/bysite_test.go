package main

import (
	"strings"
	"testing"
	"time"
)

// The copy's cost is the median with it over the median without it, end to end and for the
// batch inserts alone; 10 % more end to end is the bound.
func TestCopyCostMarkdown(t *testing.T) {
	s := time.Second
	indexes, curves := &benchArchive{Name: "indexes.tar.gz"}, &benchArchive{Name: "curves.tar.gz"}
	with := []result{
		{archive: indexes, times: []time.Duration{11 * s / 10, 12 * s / 10, 13 * s / 10}, inserts: []time.Duration{s / 2, 6 * s / 10, 7 * s / 10}},
		{archive: curves, times: []time.Duration{2 * s, 2 * s, 2 * s}, inserts: []time.Duration{s, s, s}},
	}
	without := []result{
		{archive: indexes, times: []time.Duration{s, s, 9 * s / 10}, inserts: []time.Duration{4 * s / 10, 4 * s / 10, 4 * s / 10}},
		{archive: curves, times: []time.Duration{2 * s, 19 * s / 10, 21 * s / 10}, inserts: []time.Duration{s, s, s}},
	}
	md := copyCostMarkdown(with, without)
	for _, want := range []string{
		"| indexes.tar.gz | 1.20 s | 1.00 s | 1.20 | 0.60 s | 0.40 s | 1.50 | **no** |",
		"| curves.tar.gz | 2.00 s | 2.00 s | 1.00 | 1.00 s | 1.00 s | 1.00 | yes |",
		"indexes.tar.gz: energyd 1.00, 1.00, 0.90 (batch inserts 0.40, 0.40, 0.40)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
}
