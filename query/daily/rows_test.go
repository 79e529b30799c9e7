package daily

import (
	"context"
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	"energy/query/consumption"
	"energy/schema"
)

// dayRow is a row of the daily energy table as a test reads it (latest version).
type dayRow struct {
	Day          time.Time
	EnergyWh     *float64
	Headings     []string
	HeadingWh    []float64
	Dials        []string
	DialWh       []float64
	Volume       *float64
	VolumeUnit   string
	Quality      float64
	Status       string
	Nature       string
	ErrorFlags   []string
	IndexNatures []string
}

func readDays(t *testing.T, db *schema.DB, tenantID, siteID, fluid string) map[string]dayRow {
	t.Helper()
	rows, err := schema.ScanAll(context.Background(), db, func(r schema.RowScanner) (dayRow, error) {
		var d dayRow
		err := r.Scan(&d.Day, &d.EnergyWh, &d.Headings, &d.HeadingWh, &d.Dials, &d.DialWh, &d.Volume, &d.VolumeUnit,
			&d.Quality, &d.Status, &d.Nature, &d.ErrorFlags, &d.IndexNatures)
		return d, err
	}, "SELECT day, energy_wh, heading_names, heading_wh, dial_names, dial_wh, volume, volume_unit, quality, status, nature, error_flags, index_natures"+
		" FROM daily_energy FINAL WHERE tenant_id = ? AND site_id = ? AND fluid = ? ORDER BY day", tenantID, siteID, fluid)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]dayRow{}
	for _, r := range rows {
		out[r.Day.Format(time.DateOnly)] = r
	}
	return out
}

// checkDay compares a day's row with the API's item of that day: Wh for Wh (gas: kWh × 1,000),
// by heading, quality, status, nature, error flags and index natures.
func checkDay(t *testing.T, label string, item consumption.Consumption, row dayRow, gas bool) {
	t.Helper()
	scale := 1.0
	if gas {
		scale = 1000
	}
	wh := func(v float64) float64 { return math.Round(v*scale*1000) / 1000 }
	switch {
	case (item.EnergyMeter.Total == nil) != (row.EnergyWh == nil):
		t.Errorf("%s: energy: API %v, table %v", label, item.EnergyMeter.Total, row.EnergyWh)
	case item.EnergyMeter.Total != nil && wh(*item.EnergyMeter.Total) != *row.EnergyWh:
		t.Errorf("%s: energy: API %v Wh, table %v Wh", label, wh(*item.EnergyMeter.Total), *row.EnergyWh)
	}
	headings := map[string]float64{}
	for i, h := range row.Headings {
		headings[h] = row.HeadingWh[i]
	}
	want := map[string]float64{}
	for h, v := range item.EnergyMeter.ByTariffHeading {
		want[h] = wh(v)
	}
	if !maps.Equal(want, headings) {
		t.Errorf("%s: by heading: API %v, table %v", label, want, headings)
	}
	if item.Quality != row.Quality || item.Status != row.Status || item.Nature != row.Nature {
		t.Errorf("%s: quality/status/nature: API %v %s %s, table %v %s %s", label, item.Quality, item.Status, item.Nature,
			row.Quality, row.Status, row.Nature)
	}
	if !slices.Equal(nonNil(item.ErrorFlags), row.ErrorFlags) || !slices.Equal(nonNil(item.IndexNatures), row.IndexNatures) {
		t.Errorf("%s: flags/natures: API %v %v, table %v %v", label, item.ErrorFlags, item.IndexNatures, row.ErrorFlags, row.IndexNatures)
	}
	if item.Volume != nil {
		if row.VolumeUnit != item.Volume.Unit || (item.Volume.Total == nil) != (row.Volume == nil) ||
			(row.Volume != nil && *row.Volume != *item.Volume.Total) {
			t.Errorf("%s: volume: API %+v, table %v %s", label, item.Volume, row.Volume, row.VolumeUnit)
		}
	}
}
