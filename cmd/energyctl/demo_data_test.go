package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// These tests read the demo archives back the way the service would (gzip, tar, JSON) and
// check them against the contract's formats and limits, then check that the indexes, max
// powers and load curves tell the same story to the watt-hour.

var (
	reTimestampZ      = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$`)
	reTimestampOffset = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$`)
	reFullDate        = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	reDurationMinutes = regexp.MustCompile(`^PT(\d+)M$`)
)

var (
	smartNatures = []string{"MKT_SMART_DISTRIBUTOR", "MKT_SMART_DISTRIBUTOR_INVALID"}
	gasNatures   = []string{"MKT_CYCLIC_DISTRIBUTOR", "MKT_ESTIMATION", "DTN_CUSTOMER_ACK", "MKT_CUSTOMER",
		"MKT_CYCLIC_DISTRIBUTOR_INVALID", "MKT_ESTIMATION_INVALID", "DTN_CUSTOMER_ACK_INVALID", "MKT_CUSTOMER_INVALID"}
)

// readArchive is what the service sees of one archive: file name → parsed JSON object.
type readFile struct {
	name   string
	arrays map[string][]map[string]any
}

func readArchive(t *testing.T, data []byte) []readFile {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	tr := tar.NewReader(zr)
	var out []readFile
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("tar: %v", err)
		}
		if hdr.Typeflag != tar.TypeReg || !strings.HasSuffix(hdr.Name, ".json") || strings.Contains(hdr.Name, "/") {
			t.Fatalf("member %q: want a regular .json file at the top level", hdr.Name)
		}
		dec := json.NewDecoder(tr)
		dec.UseNumber()
		var obj map[string][]map[string]any
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("%s: invalid JSON: %v", hdr.Name, err)
		}
		if dec.More() {
			t.Fatalf("%s: trailing data after the JSON object", hdr.Name)
		}
		for k := range obj {
			if !slices.Contains([]string{"cyclicGasIndexes", "smartElecIndexes", "maxPowers", "loadCurves"}, k) {
				t.Fatalf("%s: unknown array %q", hdr.Name, k)
			}
		}
		out = append(out, readFile{name: hdr.Name, arrays: obj})
	}
	return out
}

func generateTestDemo(t *testing.T, n int, seed uint64) ([]demoSite, []demoArchive) {
	t.Helper()
	return generateTestDemoYears(t, n, seed, 2025, 2025)
}

func generateTestDemoYears(t *testing.T, n int, seed uint64, first, last int) ([]demoSite, []demoArchive) {
	t.Helper()
	sites := demoSites(n, seed)
	series, err := generateDemo(sites, demoSpan{FirstYear: first, LastYear: last, StationID: "07149"}, seed)
	if err != nil {
		t.Fatal(err)
	}
	archives, err := buildDemoArchives(series, last)
	if err != nil {
		t.Fatal(err)
	}
	return sites, archives
}

func TestDemoArchivesRespectLimits(t *testing.T) {
	for _, tc := range []struct{ sites, years int }{{1, 1}, {3, 1}, {7, 1}, {2, 5}} {
		n := tc.sites
		t.Run(fmt.Sprintf("%d sites %d years", n, tc.years), func(t *testing.T) {
			_, archives := generateTestDemoYears(t, n, 1, 2026-tc.years, 2025)
			ops := 0
			for _, a := range archives {
				if len(a.Data) > maxArchiveBytes {
					t.Errorf("%s: %d bytes, over %d", a.Name, len(a.Data), maxArchiveBytes)
				}
				files := readArchive(t, a.Data)
				if len(files) < 1 || len(files) > maxFilesPerArchive {
					t.Errorf("%s: %d files, want 1 to %d", a.Name, len(files), maxFilesPerArchive)
				}
				kinds := map[string]bool{}
				for _, f := range files {
					for kind, recs := range f.arrays {
						kinds[kind] = true
						ops += len(recs)
						limit := maxIndexesPerFile
						if kind == "loadCurves" {
							limit = maxCurvesPerFile
						}
						if len(recs) > limit {
							t.Errorf("%s/%s: %d %s, over %d", a.Name, f.name, len(recs), kind, limit)
						}
					}
				}
				if len(kinds) != 1 {
					t.Errorf("%s: content types %v, want one per archive", a.Name, kinds)
				}
			}
			// Per site: a midnight index per day and one more, a max power and a curve per day,
			// + 1 meter-change and 2 invalidation records somewhere; a gas reading per month (per
			// day for demo-site-2) per gas site and one more (+3).
			gasSites := n - (n+2)/3
			days := spanDays(2026-tc.years, 2025, time.UTC)
			want := n*(3*days+1) + 3
			if gasSites > 0 {
				want += 3 + (days + 1) + (gasSites-1)*(12*tc.years+1)
			}
			if ops != want {
				t.Errorf("%d operations in the archives, want %d", ops, want)
			}
		})
	}
}

// TestDemoArchivesSplitAtLimits checks the packing itself with files big enough to need it.
func TestDemoArchivesSplitAtLimits(t *testing.T) {
	var files []demoFile
	for i := range 12 {
		files = append(files, demoFile{Name: fmt.Sprintf("f%d.json", i), Records: 1, Body: noise(600_000, uint64(i))})
	}
	archives, err := packFiles(files, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, a := range archives {
		if len(a.Data) > maxArchiveBytes || len(a.Files) > maxFilesPerArchive {
			t.Errorf("archive of %d files is %d bytes", len(a.Files), len(a.Data))
		}
		total += len(a.Files)
	}
	if total != 12 || len(archives) < 4 { // 600 kB of noise each: at most 4 per 2.5 MB
		t.Errorf("%d files in %d archives, want 12 in at least 4", total, len(archives))
	}
}

// noise is incompressible bytes.
func noise(n int, seed uint64) []byte {
	b := make([]byte, n)
	x := seed*0x9e3779b97f4a7c15 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}

func TestDemoRecordsMatchFormats(t *testing.T) {
	sites, archives := generateTestDemo(t, 3, 7)
	known := map[string]bool{}
	for _, s := range sites {
		known["siteId="+s.SiteID] = true
		known["customer="+s.SiteCustomerID+"/"+s.PersonCustomerID] = true
	}
	variants := map[string]bool{}
	pointFields := map[string]bool{}
	for _, a := range archives {
		for _, f := range readArchive(t, a.Data) {
			fileVariant := ""
			for kind, recs := range f.arrays {
				for i, r := range recs {
					at := fmt.Sprintf("%s %s[%d]", f.name, kind, i)
					v := identityOf(t, at, r)
					if !known[v] {
						t.Fatalf("%s: identity %s is not a demo site", at, v)
					}
					variant, _, _ := strings.Cut(v, "=")
					if fileVariant != "" && variant != fileVariant {
						t.Fatalf("%s: identity variant %s in a file using %s", at, variant, fileVariant)
					}
					fileVariant = variant
					variants[variant] = true
					checkRecord(t, at, kind, r, pointFields)
				}
			}
		}
	}
	if !variants["siteId"] || !variants["customer"] {
		t.Errorf("identity variants used: %v, want both", variants)
	}
	if !pointFields["beginTs"] || !pointFields["endTs"] {
		t.Errorf("load-curve point time fields used: %v, want both", pointFields)
	}
}

func identityOf(t *testing.T, at string, r map[string]any) string {
	t.Helper()
	sid, hasSite := r["siteId"].(string)
	sc, hasSC := r["siteCustomerId"].(string)
	pc, hasPC := r["personCustomerId"].(string)
	switch {
	case hasSite && !hasSC && !hasPC && sid != "":
		return "siteId=" + sid
	case !hasSite && hasSC && hasPC && sc != "" && pc != "":
		return "customer=" + sc + "/" + pc
	}
	t.Fatalf("%s: identity fields %v, want siteId alone or siteCustomerId with personCustomerId", at, r)
	return ""
}

func checkRecord(t *testing.T, at, kind string, r map[string]any, pointFields map[string]bool) {
	t.Helper()
	allowed := map[string][]string{
		"smartElecIndexes": {"podId", "ts", "generationTs", "nature", "value", "indexBeforeChange"},
		"cyclicGasIndexes": {"podId", "nature", "ts", "generationTs", "indexBeforeChange", "value", "conversionFactors", "unit"},
		"maxPowers":        {"podId", "ts", "generationTs", "value"},
		"loadCurves":       {"podId", "meterReadingDate", "generationTs", "step", "values"},
	}[kind]
	for k := range r {
		if k != "siteId" && k != "siteCustomerId" && k != "personCustomerId" && !slices.Contains(allowed, k) {
			t.Fatalf("%s: unexpected field %q", at, k)
		}
	}
	str := func(field string, re *regexp.Regexp) string {
		s, ok := r[field].(string)
		if !ok || s == "" || (re != nil && !re.MatchString(s)) {
			t.Fatalf("%s: field %s = %v does not have the required format", at, field, r[field])
		}
		return s
	}
	str("podId", nil)
	switch kind {
	case "smartElecIndexes", "cyclicGasIndexes", "maxPowers":
		parseZ(t, at, str("ts", reTimestampZ))
		parseZ(t, at, str("generationTs", reTimestampZ))
		if b, ok := r["indexBeforeChange"]; ok {
			if _, isBool := b.(bool); !isBool {
				t.Fatalf("%s: indexBeforeChange %v is not a boolean", at, b)
			}
		}
	}
	switch kind {
	case "smartElecIndexes":
		if n := str("nature", nil); !slices.Contains(smartNatures, n) {
			t.Fatalf("%s: nature %q", at, n)
		}
		dials, ok := r["value"].(map[string]any)
		if !ok || len(dials) == 0 {
			t.Fatalf("%s: value %v is not a map of dials", at, r["value"])
		}
		for d, v := range dials {
			integer(t, at+" value."+d, v)
		}
	case "cyclicGasIndexes":
		if n := str("nature", nil); !slices.Contains(gasNatures, n) {
			t.Fatalf("%s: nature %q", at, n)
		}
		integer(t, at+" value", r["value"])
		str("unit", nil)
		cf, ok := r["conversionFactors"].(map[string]any)
		if !ok || len(cf) == 0 {
			t.Fatalf("%s: conversionFactors %v", at, r["conversionFactors"])
		}
		for u, f := range cf {
			if _, err := f.(json.Number).Float64(); err != nil || u == "" {
				t.Fatalf("%s: conversion factor %s=%v", at, u, f)
			}
		}
	case "maxPowers":
		integer(t, at+" value", r["value"])
	case "loadCurves":
		if _, err := time.Parse("2006-01-02", str("meterReadingDate", reFullDate)); err != nil {
			t.Fatalf("%s: meterReadingDate: %v", at, err)
		}
		parseOffset(t, at, str("generationTs", reTimestampOffset))
		str("step", reDurationMinutes)
		points, ok := r["values"].([]any)
		if !ok || len(points) == 0 {
			t.Fatalf("%s: values %v", at, r["values"])
		}
		for i, p := range points {
			pat := fmt.Sprintf("%s values[%d]", at, i)
			pt := p.(map[string]any)
			_, hasB := pt["beginTs"]
			_, hasE := pt["endTs"]
			if hasB == hasE {
				t.Fatalf("%s: want exactly one of beginTs and endTs: %v", pat, pt)
			}
			for k, v := range pt {
				switch k {
				case "beginTs", "endTs":
					s, _ := v.(string)
					if !reTimestampOffset.MatchString(s) {
						t.Fatalf("%s: %s %v is not a Timestamp-offset", pat, k, v)
					}
					parseOffset(t, pat, s)
					pointFields[k] = true
				case "value":
					if integer(t, pat+" value", v) < 0 {
						t.Fatalf("%s: negative power", pat)
					}
				case "reliability":
					if rel := integer(t, pat+" reliability", v); rel != 0 && rel != 1 {
						t.Fatalf("%s: reliability %d", pat, rel)
					}
				default:
					t.Fatalf("%s: unexpected field %q", pat, k)
				}
			}
		}
	}
}

func integer(t *testing.T, at string, v any) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%s: %v is not a number", at, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatalf("%s: %v is not an integer", at, v)
	}
	return i
}

func parseZ(t *testing.T, at, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("%s: %q: %v", at, s, err)
	}
	return v
}

func parseOffset(t *testing.T, at, s string) time.Time { return parseZ(t, at, s) }

// siteKey maps either identity variant to the site id.
func siteKeys(sites []demoSite) map[string]string {
	m := map[string]string{}
	for _, s := range sites {
		m["siteId="+s.SiteID] = s.SiteID
		m["customer="+s.SiteCustomerID+"/"+s.PersonCustomerID] = s.SiteID
	}
	return m
}

// reading is a resolved index record as the consumption rules see it.
type reading struct {
	ts     time.Time
	before bool
	nature string
	gen    time.Time
	dials  map[string]int64
}

// TestDemoIndexesMatchLoadCurves resolves the indexes by the contract's rules (latest
// generationTs per nature family, _INVALID removes the index, meter change counts the old meter
// to its last index and the new one from its first) and checks that each local day's index
// increase per dial equals the day's load-curve energy in that dial's hours, exactly; and that
// each max power is the day's highest curve point raised as a meter's peak is (demoPeakW).
func TestDemoIndexesMatchLoadCurves(t *testing.T) {
	sites, archives := generateTestDemoYears(t, 3, 3, 2024, 2025) // 2024 is a leap year
	const days = 366 + 365
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	keys := siteKeys(sites)
	raw := map[string][]reading{}               // site → smart index records
	curveWh := map[string]map[string][2]int64{} // site → local date → {HC, HP} Wh
	curveMax := map[string]map[string]int64{}   // site → local date → max W
	maxPower := map[string]map[string]int64{}   // site → local date → max power record
	for _, a := range archives {
		for _, f := range readArchive(t, a.Data) {
			for kind, recs := range f.arrays {
				for _, r := range recs {
					site := keys[identityOf(t, f.name, r)]
					switch kind {
					case "smartElecIndexes":
						rd := reading{ts: parseZ(t, f.name, r["ts"].(string)), nature: r["nature"].(string),
							gen: parseZ(t, f.name, r["generationTs"].(string)), dials: map[string]int64{}}
						rd.before, _ = r["indexBeforeChange"].(bool)
						for d, v := range r["value"].(map[string]any) {
							rd.dials[d] = integer(t, f.name, v)
						}
						raw[site] = append(raw[site], rd)
					case "maxPowers":
						day := parseZ(t, f.name, r["ts"].(string)).In(paris).Format("2006-01-02")
						setIn(maxPower, site, day, integer(t, f.name, r["value"]))
					case "loadCurves":
						day := r["meterReadingDate"].(string)
						step := stepOf(t, r["step"].(string))
						var hc, hp, top int64
						for _, p := range r["values"].([]any) {
							pt := p.(map[string]any)
							var begin time.Time
							if b, ok := pt["beginTs"].(string); ok {
								begin = parseOffset(t, f.name, b)
							} else {
								begin = parseOffset(t, f.name, pt["endTs"].(string)).Add(-step)
							}
							if got := begin.In(paris).Format("2006-01-02"); got != day {
								t.Fatalf("%s: point at %v outside its reading date %s", f.name, begin, day)
							}
							w := integer(t, f.name, pt["value"])
							top = max(top, w)
							if w*int64(step/time.Minute)%60 != 0 {
								t.Fatalf("%s: point energy %d W × %v is not a whole Wh", f.name, w, step)
							}
							wh := w * int64(step/time.Minute) / 60
							if h := begin.In(paris).Hour(); h >= 22 || h < 6 {
								hc += wh
							} else {
								hp += wh
							}
						}
						if curveWh[site] == nil {
							curveWh[site] = map[string][2]int64{}
						}
						curveWh[site][day] = [2]int64{hc, hp}
						setIn(curveMax, site, day, top)
					}
				}
			}
		}
	}
	for _, s := range sites {
		curve := curveWh[s.SiteID]
		if len(curve) != days {
			t.Fatalf("%s: %d days of load curve, want %d", s.SiteID, len(curve), days)
		}
		for day, m := range curveMax[s.SiteID] {
			if maxPower[s.SiteID][day] != demoPeakW(m) {
				t.Errorf("%s %s: max power %d W, curve max %d W (want %d W)", s.SiteID, day, maxPower[s.SiteID][day], m, demoPeakW(m))
			}
		}
		idx := resolve(raw[s.SiteID])
		checked := 0
		for i := 0; i+1 < len(idx); i++ {
			from, to := idx[i], idx[i+1]
			if from.ts.Equal(to.ts) { // the meter change: old meter's last, new meter's first
				if !from.before || to.before {
					t.Fatalf("%s: two readings at %v that are not a meter change", s.SiteID, from.ts)
				}
				continue
			}
			day := from.ts.In(paris).Format("2006-01-02")
			if to.ts.Sub(from.ts) > 25*time.Hour || from.ts.In(paris).Hour() != 0 {
				t.Fatalf("%s: readings %v and %v are not consecutive local midnights", s.SiteID, from.ts, to.ts)
			}
			want := curve[day]
			got := [2]int64{to.dials["1"] - from.dials["1"], to.dials["2"] - from.dials["2"]}
			if got != want {
				t.Errorf("%s %s: index increase HC/HP %v Wh, load curve %v Wh", s.SiteID, day, got, want)
			}
			checked++
		}
		if checked != days {
			t.Errorf("%s: %d days checked, want %d", s.SiteID, checked, days)
		}
	}
}

func setIn(m map[string]map[string]int64, a, b string, v int64) {
	if m[a] == nil {
		m[a] = map[string]int64{}
	}
	m[a][b] = v
}

func stepOf(t *testing.T, iso string) time.Duration {
	t.Helper()
	m := reDurationMinutes.FindStringSubmatch(iso)
	if m == nil {
		t.Fatalf("step %q", iso)
	}
	var n int
	fmt.Sscan(m[1], &n)
	return time.Duration(n) * time.Minute
}

// resolve applies the index rules to one pod's records: per (ts, indexBeforeChange) and
// nature family the latest generationTs wins; an _INVALID winner removes the index. Sorted by
// ts, the before-change reading first.
func resolve(recs []reading) []reading {
	type key struct {
		ts     int64
		before bool
		family string
	}
	win := map[key]reading{}
	for _, r := range recs {
		k := key{r.ts.Unix(), r.before, strings.TrimSuffix(r.nature, "_INVALID")}
		if cur, ok := win[k]; !ok || r.gen.After(cur.gen) {
			win[k] = r
		}
	}
	var out []reading
	for _, r := range win {
		if !strings.HasSuffix(r.nature, "_INVALID") {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].ts.Equal(out[j].ts) {
			return out[i].ts.Before(out[j].ts)
		}
		return out[i].before && !out[j].before
	})
	return out
}

// TestDemoAnomalies checks that the meter changes and the invalidated indexes are there, for
// electricity and gas: a before/after pair at one ts, and an _INVALID record generated after
// the reading it cancels.
func TestDemoAnomalies(t *testing.T) {
	_, archives := generateTestDemo(t, 3, 1)
	for _, kind := range []string{"smartElecIndexes", "cyclicGasIndexes"} {
		type at struct{ pod, ts string }
		before, after := map[at]bool{}, map[at]bool{}
		normal := map[at][]string{} // valid readings' generationTs
		var invalid []struct {
			k   at
			gen string
		}
		for _, a := range archives {
			for _, f := range readArchive(t, a.Data) {
				for _, r := range f.arrays[kind] {
					k := at{r["podId"].(string), r["ts"].(string)}
					if b, ok := r["indexBeforeChange"].(bool); ok {
						if b {
							before[k] = true
						} else {
							after[k] = true
						}
					}
					if strings.HasSuffix(r["nature"].(string), "_INVALID") {
						invalid = append(invalid, struct {
							k   at
							gen string
						}{k, r["generationTs"].(string)})
					} else {
						normal[k] = append(normal[k], r["generationTs"].(string))
					}
				}
			}
		}
		changes := 0
		for k := range before {
			if after[k] {
				changes++
			}
		}
		if changes != 1 || len(before) != 1 || len(after) != 1 {
			t.Errorf("%s: %d meter changes (%d before, %d after), want 1", kind, changes, len(before), len(after))
		}
		if len(invalid) != 1 {
			t.Fatalf("%s: %d invalidations, want 1", kind, len(invalid))
		}
		inv := invalid[0]
		earlier := 0
		for _, g := range normal[inv.k] {
			if g < inv.gen { // Timestamp-Z strings sort as time
				earlier++
			}
		}
		if earlier == 0 {
			t.Errorf("%s: the _INVALID record at %v cancels no earlier reading", kind, inv.k)
		}
	}
}

func TestDemoIsDeterministic(t *testing.T) {
	_, a := generateTestDemo(t, 2, 42)
	_, b := generateTestDemo(t, 2, 42)
	_, c := generateTestDemo(t, 2, 43)
	if len(a) != len(b) {
		t.Fatalf("%d and %d archives", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("archive %d differs between two runs with the same seed", i)
		}
	}
	if bytes.Equal(a[0].Data, c[0].Data) {
		t.Errorf("seeds 42 and 43 give the same archive")
	}
}

// TestDemoCurveShape checks that the curve looks like a household: more energy in January than
// in July for the electrically heated site, and evening usage above the small hours for a
// gas-heated one.
func TestDemoCurveShape(t *testing.T) {
	sites := demoSites(2, 5)
	series, err := generateDemo(sites, demoSpan{FirstYear: 2025, LastYear: 2025, StationID: "07149"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	monthWh := func(s demoSeries, m time.Month) int64 {
		var wh int64
		for _, d := range s.Days {
			if d.Date.Month() == m {
				hc, hp := d.energyWh()
				wh += hc + hp
			}
		}
		return wh
	}
	elec, gas := series[0], series[1]
	if jan, jul := monthWh(elec, time.January), monthWh(elec, time.July); jan < 2*jul {
		t.Errorf("electric heating: January %d Wh, July %d Wh; want a winter peak", jan, jul)
	}
	var evening, night int64
	for _, d := range gas.Days {
		for _, p := range d.Points {
			switch h := p.Begin.Hour(); {
			case h >= 19 && h < 21:
				evening += p.W
			case h >= 3 && h < 5:
				night += p.W
			}
		}
	}
	if evening < 2*night {
		t.Errorf("evening power sum %d W, small hours %d W; want an evening peak", evening, night)
	}
	// Heating follows the station's demo weather: daily energy against daily mean temperature.
	w := newDemoWeatherModel("07149", 2025, 2025, elec.Days[0].Date.Location())
	var xs, ys []float64
	for i, d := range elec.Days {
		hc, hp := d.energyWh()
		xs, ys = append(xs, w.dailyMean[i]), append(ys, float64(hc+hp))
	}
	if r := correlation(xs, ys); r > -0.8 {
		t.Errorf("electric heating: correlation of daily energy with the station's temperature %.2f, want strongly negative", r)
	}
	yearWh := monthWh(elec, time.January)
	for m := time.February; m <= time.December; m++ {
		yearWh += monthWh(elec, m)
	}
	if kwh := yearWh / 1000; kwh < 5000 || kwh > 20000 {
		t.Errorf("electrically heated home uses %d kWh a year; want a plausible 5,000-20,000", kwh)
	}
}

func correlation(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, syy, sxy float64
	for i := range xs {
		sx, sy = sx+xs[i], sy+ys[i]
		sxx, syy, sxy = sxx+xs[i]*xs[i], syy+ys[i]*ys[i], sxy+xs[i]*ys[i]
	}
	return (n*sxy - sx*sy) / math.Sqrt((n*sxx-sx*sx)*(n*syy-sy*sy))
}
