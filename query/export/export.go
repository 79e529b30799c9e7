// Package export writes a site's data as a .tar.gz in the archive intake format itself (GDPR
// article 20): the latest generation of each reading of both fluids, the max powers and the
// load curves, in files that POST /v2/indexes-collect-jobs accepts as they are, plus the site's
// registry description (site.json, which the intake ignores: it has none of the record arrays).
// Submitted to another tenant that has the site, the archive reproduces the same answers.
package export

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"energy/schema"
	"energy/schema/tables"
)

// Bounds of one file, under the intake's (10,000 indexes, 1,500 load curves per file), so that
// every file of an export is accepted as it is.
const (
	maxIndexesPerFile = 5000
	maxCurvesPerFile  = 1000
)

// Period bounds the readings exported: [From, To) on the reading's instant (a load curve
// point's begin); zero values mean unbounded.
type Period struct{ From, To time.Time }

// where is the condition on the instant column and its bound values.
func (p Period) where(column string) (string, []any) {
	cond, args := "", []any{}
	if !p.From.IsZero() {
		cond += " AND " + column + " >= ?"
		args = append(args, p.From.UTC())
	}
	if !p.To.IsZero() {
		cond += " AND " + column + " < ?"
		args = append(args, p.To.UTC())
	}
	return cond, args
}

// Write writes the archive of the site's data to w: site.json (description, any JSON value),
// then readings-N.json files.
func Write(ctx context.Context, db *schema.DB, tenantID, siteID string, description any, p Period, w io.Writer) error {
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	now := time.Now().UTC()
	put := func(name string, v any) error {
		b, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), ModTime: now, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	}
	if err := put("site.json", map[string]any{"site": description}); err != nil {
		return err
	}
	r := reader{db: db, tenantID: tenantID, siteID: siteID, period: p}
	f, err := r.read(ctx)
	if err != nil {
		return err
	}
	for i, file := range f.split() {
		if err := put(fmt.Sprintf("readings-%04d.json", i+1), file); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// file is one intake file: the four record arrays.
type file struct {
	SmartElecIndexes []elecIndex `json:"smartElecIndexes,omitempty"`
	CyclicGasIndexes []gasIndex  `json:"cyclicGasIndexes,omitempty"`
	MaxPowers        []maxPower  `json:"maxPowers,omitempty"`
	LoadCurves       []loadCurve `json:"loadCurves,omitempty"`
}

type elecIndex struct {
	SiteID            string           `json:"siteId"`
	PodID             string           `json:"podId"`
	Nature            string           `json:"nature"`
	TS                string           `json:"ts"`
	GenerationTS      string           `json:"generationTs"`
	IndexBeforeChange bool             `json:"indexBeforeChange,omitempty"`
	Value             map[string]int64 `json:"value"`
}

type gasIndex struct {
	SiteID            string             `json:"siteId"`
	PodID             string             `json:"podId"`
	Nature            string             `json:"nature"`
	TS                string             `json:"ts"`
	GenerationTS      string             `json:"generationTs"`
	IndexBeforeChange bool               `json:"indexBeforeChange,omitempty"`
	Value             int64              `json:"value"`
	Unit              string             `json:"unit,omitempty"`
	ConversionFactors map[string]float64 `json:"conversionFactors,omitempty"`
}

type maxPower struct {
	SiteID       string `json:"siteId"`
	PodID        string `json:"podId"`
	TS           string `json:"ts"`
	GenerationTS string `json:"generationTs"`
	Value        int64  `json:"value"`
}

type loadCurve struct {
	SiteID           string  `json:"siteId"`
	PodID            string  `json:"podId"`
	MeterReadingDate string  `json:"meterReadingDate"`
	GenerationTS     string  `json:"generationTs"`
	Step             string  `json:"step"`
	Values           []point `json:"values"`
}

type point struct {
	BeginTS     string `json:"beginTs"`
	Value       int64  `json:"value"`
	Reliability uint8  `json:"reliability"`
}

// split cuts f into files within the per-file bounds.
func (f file) split() []file {
	var out []file
	for len(f.SmartElecIndexes)+len(f.CyclicGasIndexes)+len(f.MaxPowers)+len(f.LoadCurves) > 0 || len(out) == 0 {
		var part file
		room := maxIndexesPerFile
		n := min(room, len(f.SmartElecIndexes))
		part.SmartElecIndexes, f.SmartElecIndexes = f.SmartElecIndexes[:n], f.SmartElecIndexes[n:]
		room -= n
		n = min(room, len(f.CyclicGasIndexes))
		part.CyclicGasIndexes, f.CyclicGasIndexes = f.CyclicGasIndexes[:n], f.CyclicGasIndexes[n:]
		room -= n
		n = min(room, len(f.MaxPowers))
		part.MaxPowers, f.MaxPowers = f.MaxPowers[:n], f.MaxPowers[n:]
		n = min(maxCurvesPerFile, len(f.LoadCurves))
		part.LoadCurves, f.LoadCurves = f.LoadCurves[:n], f.LoadCurves[n:]
		out = append(out, part)
		if len(part.SmartElecIndexes)+len(part.CyclicGasIndexes)+len(part.MaxPowers)+len(part.LoadCurves) == 0 {
			break
		}
	}
	return out
}

// reader reads one site's rows, the latest generation of each reading. Table and column
// names are constants; the tenant, site and period are bound.
type reader struct {
	db               *schema.DB
	tenantID, siteID string
	period           Period
}

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func (r reader) read(ctx context.Context) (file, error) {
	var f file
	site := tables.TenantID + " = ? AND " + tables.SiteID + " = ?"
	at, atArgs := r.period.where(tables.TS)
	begin, beginArgs := r.period.where(tables.BeginTS)
	args := func(bounds []any) []any { return append([]any{r.tenantID, r.siteID}, bounds...) }
	// Electricity: per (pod, ts, meter change, nature, dial) the latest generation; the dials of
	// one reading and generation make one record.
	rows, err := r.db.Conn.Query(ctx, `SELECT pod_id, ts, index_before_change, nature, latest, groupArray(dial), groupArray(latest_value)
		FROM (SELECT pod_id, ts, index_before_change, nature, dial, max(generation_ts) AS latest, argMax(value, generation_ts) AS latest_value
			FROM `+tables.ElecIndexes+` WHERE `+site+at+`
			GROUP BY pod_id, ts, index_before_change, nature, dial)
		GROUP BY pod_id, ts, index_before_change, nature, latest
		ORDER BY pod_id, ts, index_before_change DESC, nature, latest`, args(atArgs)...)
	if err != nil {
		return f, err
	}
	for rows.Next() {
		var (
			pod, nature string
			at, gen     time.Time
			ibc         uint8
			dials       []string
			values      []int64
		)
		if err := rows.Scan(&pod, &at, &ibc, &nature, &gen, &dials, &values); err != nil {
			rows.Close()
			return f, err
		}
		v := make(map[string]int64, len(dials))
		for i, d := range dials {
			v[d] = values[i]
		}
		f.SmartElecIndexes = append(f.SmartElecIndexes, elecIndex{SiteID: r.siteID, PodID: pod, Nature: nature, TS: ts(at), GenerationTS: ts(gen), IndexBeforeChange: ibc == 1, Value: v})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return f, err
	}

	rows, err = r.db.Conn.Query(ctx, `SELECT pod_id, ts, index_before_change, nature, max(generation_ts), argMax(value, generation_ts),
			argMax(unit, generation_ts), argMax(conversion_units, generation_ts), argMax(conversion_factors, generation_ts)
		FROM `+tables.GasIndexes+` WHERE `+site+at+`
		GROUP BY pod_id, ts, index_before_change, nature
		ORDER BY pod_id, ts, index_before_change DESC, nature`, args(atArgs)...)
	if err != nil {
		return f, err
	}
	for rows.Next() {
		var (
			g       gasIndex
			at, gen time.Time
			ibc     uint8
			units   []string
			factors []float64
		)
		if err := rows.Scan(&g.PodID, &at, &ibc, &g.Nature, &gen, &g.Value, &g.Unit, &units, &factors); err != nil {
			rows.Close()
			return f, err
		}
		g.SiteID, g.TS, g.GenerationTS, g.IndexBeforeChange = r.siteID, ts(at), ts(gen), ibc == 1
		if len(units) > 0 {
			g.ConversionFactors = make(map[string]float64, len(units))
			for i, u := range units {
				g.ConversionFactors[u] = factors[i]
			}
		}
		f.CyclicGasIndexes = append(f.CyclicGasIndexes, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return f, err
	}

	rows, err = r.db.Conn.Query(ctx, `SELECT pod_id, ts, max(generation_ts), argMax(value, generation_ts)
		FROM `+tables.MaxPowers+` WHERE `+site+at+`
		GROUP BY pod_id, ts ORDER BY pod_id, ts`, args(atArgs)...)
	if err != nil {
		return f, err
	}
	for rows.Next() {
		var m maxPower
		var at, gen time.Time
		if err := rows.Scan(&m.PodID, &at, &gen, &m.Value); err != nil {
			rows.Close()
			return f, err
		}
		m.SiteID, m.TS, m.GenerationTS = r.siteID, ts(at), ts(gen)
		f.MaxPowers = append(f.MaxPowers, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return f, err
	}

	// Load curves: per (pod, begin, end) the latest generation; the points of one meter reading
	// day, generation and step make one curve.
	rows, err = r.db.Conn.Query(ctx, `SELECT pod_id, latest_day, latest, toInt64(end_ts) - toInt64(begin_ts) AS step,
			groupArray(begin_ts), groupArray(latest_value), groupArray(latest_reliability)
		FROM (SELECT pod_id, begin_ts, end_ts, max(generation_ts) AS latest, argMax(value, generation_ts) AS latest_value,
				argMax(reliability, generation_ts) AS latest_reliability, argMax(meter_reading_date, generation_ts) AS latest_day
			FROM `+tables.LoadCurvePoints+` WHERE `+site+begin+`
			GROUP BY pod_id, begin_ts, end_ts ORDER BY pod_id, begin_ts)
		GROUP BY pod_id, latest_day, latest, step
		ORDER BY pod_id, latest_day, latest, step`, args(beginArgs)...)
	if err != nil {
		return f, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			c           loadCurve
			day, gen    time.Time
			step        int64
			begins      []time.Time
			values      []int64
			reliability []uint8
		)
		if err := rows.Scan(&c.PodID, &day, &gen, &step, &begins, &values, &reliability); err != nil {
			return f, err
		}
		c.SiteID, c.MeterReadingDate, c.GenerationTS, c.Step = r.siteID, day.Format("2006-01-02"), ts(gen), isoStep(step)
		for i, b := range begins {
			c.Values = append(c.Values, point{BeginTS: ts(b), Value: values[i], Reliability: reliability[i]})
		}
		f.LoadCurves = append(f.LoadCurves, c)
	}
	return f, rows.Err()
}

// isoStep writes a step of seconds as the intake reads it (PT30M, PT10S).
func isoStep(seconds int64) string {
	if seconds%60 == 0 {
		return fmt.Sprintf("PT%dM", seconds/60)
	}
	return fmt.Sprintf("PT%dS", seconds)
}
