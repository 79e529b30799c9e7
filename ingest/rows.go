// Package ingest takes archives in: multipart upload → durable spool → job → decrypt → untar
// → decode and validate each JSON file → resolve identities → batch insert → job report.
package ingest

import "time"

// The row types below are what one validated archive operation becomes, one per table
// (see schema/migrations/0002_readings.sql). Times are UTC.

// ElecIndexRow is one dial of one smart electricity index (value in Wh).
type ElecIndexRow struct {
	SiteID, PodID     string
	TS                time.Time
	IndexBeforeChange bool
	Nature            string
	GenerationTS      time.Time
	Dial              string
	Value             int64
}

// GasIndexRow is one cyclic gas index with its conversion factors (parallel slices).
type GasIndexRow struct {
	SiteID, PodID     string
	TS                time.Time
	IndexBeforeChange bool
	Nature            string
	GenerationTS      time.Time
	Value             int64
	Unit              string
	ConversionUnits   []string
	ConversionFactors []float64
}

// MaxPowerRow is the day's max power in W.
type MaxPowerRow struct {
	SiteID, PodID    string
	TS, GenerationTS time.Time
	Value            int64
}

// LoadCurvePointRow is one load-curve point: average power Value (W) over [BeginTS, EndTS).
type LoadCurvePointRow struct {
	SiteID, PodID    string
	BeginTS, EndTS   time.Time
	GenerationTS     time.Time
	Value            int64
	Reliability      uint8
	MeterReadingDate time.Time // the date at UTC midnight
}

// Rows are the rows decoded from one file or archive.
type Rows struct {
	Elec            []ElecIndexRow
	Gas             []GasIndexRow
	MaxPowers       []MaxPowerRow
	LoadCurvePoints []LoadCurvePointRow
}

// Sites returns the distinct site ids the rows touch (their cached results must be dropped).
func (r *Rows) Sites() []string { return sitesOf([]Rows{*r}) }

// sitesOf returns the distinct site ids of the files' rows.
func sitesOf(files []Rows) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, r := range files {
		for _, x := range r.Elec {
			add(x.SiteID)
		}
		for _, x := range r.Gas {
			add(x.SiteID)
		}
		for _, x := range r.MaxPowers {
			add(x.SiteID)
		}
		for _, x := range r.LoadCurvePoints {
			add(x.SiteID)
		}
	}
	return out
}
