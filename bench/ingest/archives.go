package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"energy/ingest"
	"energy/schema/tables"
)

// The two largest archives the limits allow (apidocs/README.md, "Archives"): 5 files of 10,000 smart
// indexes, and 5 files of 1,500 load curves of 48 points; plus the same rows as the service
// stores them, as JSONEachRow for clickhouse-client.

const (
	tenant        = "bench-ingest"
	sites         = 20
	filesPerArc   = 5
	indexesPerFil = 10_000
	curvesPerFile = 1_500
	pointsPerDay  = 48
	maxArchive    = 2_500_000
)

// benchSite is the i-th site: its id and customer identifiers.
func benchSite(i int) (siteID, siteCustomerID, personCustomerID string) {
	return fmt.Sprintf("bench-site-%02d", i), fmt.Sprintf("BC-%02d", i), fmt.Sprintf("BP-%02d", i)
}

// benchArchive is an archive and the rows the service should store from it.
type benchArchive struct {
	Name       string
	Data       []byte
	Operations int
	Table      string // the table the rows go to
	Columns    string // JSONEachRow column list
	RowsJSON   []byte // the rows as JSONEachRow
	Rows       int
}

// identity is a record's identity: files of even number use siteId, odd ones the customer
// pair, so both variants (and customer resolution) are measured.
type identity struct {
	SiteID           string `json:"siteId,omitempty"`
	SiteCustomerID   string `json:"siteCustomerId,omitempty"`
	PersonCustomerID string `json:"personCustomerId,omitempty"`
}

func identityOf(file, site int) identity {
	id, sc, pc := benchSite(site)
	if file%2 == 0 {
		return identity{SiteID: id}
	}
	return identity{SiteCustomerID: sc, PersonCustomerID: pc}
}

type smartIndex struct {
	identity
	PodID        string           `json:"podId"`
	TS           string           `json:"ts"`
	GenerationTS string           `json:"generationTs"`
	Nature       string           `json:"nature"`
	Value        map[string]int64 `json:"value"`
}

type loadCurve struct {
	identity
	PodID            string  `json:"podId"`
	MeterReadingDate string  `json:"meterReadingDate"`
	GenerationTS     string  `json:"generationTs"`
	Step             string  `json:"step"`
	Values           []point `json:"values"`
}

type point struct {
	BeginTS     string `json:"beginTs"`
	Value       int64  `json:"value"`
	Reliability int    `json:"reliability"`
}

const (
	layoutZ      = ingest.LayoutZ
	layoutOffset = ingest.LayoutOffset
	layoutRow    = "2006-01-02 15:04:05" // DateTime as JSONEachRow text, UTC
)

// rowWriter appends JSONEachRow lines without reflection (hundreds of thousands of rows).
type rowWriter struct {
	buf  []byte
	rows int
}

// row writes one object; fields alternate name and value, a value being a string (quoted
// as is: the generator's strings need no escaping) or an int64.
func (w *rowWriter) row(fields ...any) {
	w.buf = append(w.buf, '{')
	for i := 0; i < len(fields); i += 2 {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = append(append(append(w.buf, '"'), fields[i].(string)...), '"', ':')
		switch v := fields[i+1].(type) {
		case string:
			w.buf = append(append(append(w.buf, '"'), v...), '"')
		case int64:
			w.buf = strconv.AppendInt(w.buf, v, 10)
		}
	}
	w.buf = append(w.buf, '}', '\n')
	w.rows++
}

// smartIndexArchive: each file holds 100 pods × 100 daily readings (January 1st to April 10th,
// 2025, four monthly partitions) of two dials; pod p belongs to site p % sites.
func smartIndexArchive() (benchArchive, error) {
	const pods, days = 100, indexesPerFil / 100
	a := benchArchive{Name: "bench-smart-indexes-5x10000.tar.gz", Table: tables.ElecIndexes,
		Columns: "tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id"}
	rows := rowWriter{buf: make([]byte, 0, 270*2*filesPerArc*indexesPerFil)}
	files := make([][]byte, filesPerArc)
	r := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2024, 12, 31, 23, 0, 0, 0, time.UTC) // local midnight in Paris
	var tsZ, genZ, tsRow, genRow [days]string
	for d := range days {
		ts := start.AddDate(0, 0, d)
		gen := ts.Add(5*time.Hour + 30*time.Minute)
		tsZ[d], genZ[d], tsRow[d], genRow[d] = ts.Format(layoutZ), gen.Format(layoutZ), ts.Format(layoutRow), gen.Format(layoutRow)
	}
	for f := range files {
		recs := make([]smartIndex, 0, indexesPerFil)
		for p := range pods {
			site := p % sites
			siteID, _, _ := benchSite(site)
			pod := fmt.Sprintf("%014d", 21000000000000+f*1000+p)
			hc, hp := 1_000_000+r.Int64N(9_000_000), 2_000_000+r.Int64N(9_000_000)
			for d := range days {
				recs = append(recs, smartIndex{identity: identityOf(f, site), PodID: pod, TS: tsZ[d], GenerationTS: genZ[d],
					Nature: "MKT_SMART_DISTRIBUTOR", Value: map[string]int64{"1": hc, "2": hp}})
				for dial, v := range [2]int64{hc, hp} {
					rows.row("tenant_id", tenant, "site_id", siteID, "pod_id", pod, "ts", tsRow[d], "index_before_change", int64(0),
						"nature", "MKT_SMART_DISTRIBUTOR", "generation_ts", genRow[d], "dial", strconv.Itoa(dial+1), "value", v, "job_id", "clickhouse-client")
				}
				hc += 3000 + r.Int64N(6000)
				hp += 5000 + r.Int64N(9000)
			}
		}
		if err := a.addFile(files, f, "smartElecIndexes", recs, len(recs)); err != nil {
			return a, err
		}
	}
	err := a.finish(rows, "smart-indexes", files)
	return a, err
}

// loadCurveArchive: each file holds 50 pods × the 30 days of June 2025 (48 points a day, no
// DST change) with beginTs points; values follow a household's daily shape with noise.
func loadCurveArchive() (benchArchive, error) {
	const pods, days = 50, curvesPerFile / 50
	a := benchArchive{Name: "bench-load-curves-5x1500x48.tar.gz", Table: tables.LoadCurvePoints,
		Columns: "tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id"}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		return a, err
	}
	rows := rowWriter{buf: make([]byte, 0, 280*filesPerArc*curvesPerFile*pointsPerDay)}
	files := make([][]byte, filesPerArc)
	r := rand.New(rand.NewPCG(3, 4))
	type dayStrings struct {
		date, gen, genRow       string
		begin, beginRow, endRow [pointsPerDay]string
	}
	var ds [days]dayStrings
	for d := range days {
		day := time.Date(2025, 6, 1+d, 0, 0, 0, 0, paris)
		gen := day.AddDate(0, 0, 1).Add(2 * time.Hour)
		ds[d].date, ds[d].gen, ds[d].genRow = day.Format("2006-01-02"), gen.Format(layoutOffset), gen.UTC().Format(layoutRow)
		for i := range pointsPerDay {
			begin := day.Add(time.Duration(i) * 30 * time.Minute)
			ds[d].begin[i], ds[d].beginRow[i], ds[d].endRow[i] = begin.Format(layoutOffset), begin.UTC().Format(layoutRow), begin.Add(30*time.Minute).UTC().Format(layoutRow)
		}
	}
	for f := range files {
		recs := make([]loadCurve, 0, curvesPerFile)
		for p := range pods {
			site := p % sites
			siteID, _, _ := benchSite(site)
			pod := fmt.Sprintf("%014d", 22000000000000+f*1000+p)
			base := 200 + r.Float64()*300
			for d := range days {
				points := make([]point, pointsPerDay)
				for i := range points {
					h := float64(i)/2 + 0.25
					w := base + 900*bell(h, 7.5, 0.8) + 600*bell(h, 12.7, 1) + 1500*bell(h, 19.7, 1.4)
					v := max(0, 10*int64(math.Round(w*(1+0.15*r.NormFloat64())/10)))
					points[i] = point{BeginTS: ds[d].begin[i], Value: v}
					rows.row("tenant_id", tenant, "site_id", siteID, "pod_id", pod, "begin_ts", ds[d].beginRow[i], "end_ts", ds[d].endRow[i],
						"generation_ts", ds[d].genRow, "value", v, "reliability", int64(0), "meter_reading_date", ds[d].date, "job_id", "clickhouse-client")
				}
				recs = append(recs, loadCurve{identity: identityOf(f, site), PodID: pod, MeterReadingDate: ds[d].date,
					GenerationTS: ds[d].gen, Step: "PT30M", Values: points})
			}
		}
		if err := a.addFile(files, f, "loadCurves", recs, len(recs)); err != nil {
			return a, err
		}
	}
	err = a.finish(rows, "load-curves", files)
	return a, err
}

// addFile encodes archive member f: the records (n operations) under the array key.
func (a *benchArchive) addFile(files [][]byte, f int, key string, records any, n int) error {
	b, err := json.Marshal(map[string]any{key: records})
	if err != nil {
		return err
	}
	files[f] = b
	a.Operations += n
	return nil
}

// finish keeps the rows clickhouse-client loads and packs the files as the archive name.tar.gz.
func (a *benchArchive) finish(rows rowWriter, name string, files [][]byte) error {
	a.RowsJSON, a.Rows = rows.buf, rows.rows
	var err error
	a.Data, err = tarGz(name, files)
	return err
}

func bell(h, c, s float64) float64 {
	x := (h - c) / s
	return math.Exp(-x * x / 2)
}

// tarGz packs files as prefix-N.json with gzip's default compression.
func tarGz(prefix string, files [][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	for i, b := range files {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: prefix + "-" + strconv.Itoa(i+1) + ".json", Mode: 0o644, Size: int64(len(b)),
			ModTime: time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if buf.Len() > maxArchive {
		return nil, fmt.Errorf("%s archive is %d bytes compressed, over the %d-byte limit", prefix, buf.Len(), maxArchive)
	}
	return buf.Bytes(), nil
}
