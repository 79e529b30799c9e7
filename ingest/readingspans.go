package ingest

import (
	"sort"
	"time"

	"energy/schema/registry"
	"energy/schema/sitedata"
)

// readingSpans returns, per site and fluid, the span of the instants of the index readings in
// the files: what a reader of derived data (the daily energy table) recomputes around.
func readingSpans(files []Rows) []sitedata.ReadingSpan {
	type key struct{ site, fluid string }
	spans := map[key]*sitedata.ReadingSpan{}
	add := func(site, fluid string, ts time.Time) {
		s := spans[key{site, fluid}]
		if s == nil {
			spans[key{site, fluid}] = &sitedata.ReadingSpan{SiteID: site, Fluid: fluid, First: ts, Last: ts}
			return
		}
		if ts.Before(s.First) {
			s.First = ts
		}
		if ts.After(s.Last) {
			s.Last = ts
		}
	}
	for _, r := range files {
		for _, x := range r.Elec {
			add(x.SiteID, registry.HeatingElec, x.TS)
		}
		for _, x := range r.Gas {
			add(x.SiteID, registry.HeatingGas, x.TS)
		}
	}
	out := make([]sitedata.ReadingSpan, 0, len(spans))
	for _, s := range spans {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].SiteID != out[j].SiteID {
			return out[i].SiteID < out[j].SiteID
		}
		return out[i].Fluid < out[j].Fluid
	})
	return out
}
