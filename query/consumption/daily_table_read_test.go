package consumption

import (
	"context"
	"slices"
	"testing"
	"time"

	"energy/schema/chtest"
	"energy/schema/registry"
	"energy/schema/tables"
)

// TestReadDayRows writes rows into the daily table's per-site copy as the ingest does and
// checks what the daily path reads back from ClickHouse: the latest version of each day (an
// older one not merged away is skipped), dial names with any character and their Wh, the
// conditions and bit sets worked out as the rows are read, and days the path cannot take (Wh not
// whole, an unknown flag and nature; another zone, no energy, fewer Wh than dials).
func TestReadDayRows(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.DailyEnergyBySite+" (tenant_id, site_id, fluid, day, time_zone, start_ts, end_ts, energy_wh,"+
		" heading_names, heading_wh, dial_names, dial_wh, volume, volume_unit, quality, status, nature, error_flags, index_natures, aggregated, computed_ts, version)")
	if err != nil {
		t.Fatal(err)
	}
	row := func(site, day, zone string, energy *float64, dials []string, wh []float64, quality float64, status, nature string, flags, natures []string, version uint64) {
		t.Helper()
		d, _ := time.Parse(time.DateOnly, day)
		if err := b.Append("acme", site, FluidElec, d, zone, d, d.AddDate(0, 0, 1), energy, []string{}, []float64{}, dials, wh, nil, "", quality, status, nature,
			flags, natures, uint8(0), d, version); err != nil {
			t.Fatal(err)
		}
	}
	e := func(v float64) *float64 { return &v }
	paris := "Europe/Paris"
	odd := []string{"a:1;", "HP"}
	row("S1", "2024-01-01", paris, e(3500), odd, []float64{1500, 2000}, 100, StatusComplete, NatureReal, []string{}, []string{"MKT_SMART_DISTRIBUTOR"}, 1)
	row("S1", "2024-01-02", paris, e(3500), []string{"HC"}, []float64{999}, 100, StatusComplete, NatureReal, []string{}, []string{}, 1)
	row("S1", "2024-01-02", paris, e(1200), []string{"HC", "HP"}, []float64{-200, 1400}, 100, StatusComplete, NatureReal,
		[]string{FlagNegativeConsumption, FlagMeterChange}, []string{"MKT_ESTIMATION", "MKT_CUSTOMER"}, 2)
	row("S1", "2024-01-03", paris, e(2.5), []string{"HC"}, []float64{2.5}, 100, StatusComplete, NatureReal, []string{"OTHER_FLAG"}, []string{"SOMETHING"}, 1)
	row("S1", "2024-01-04", "UTC", nil, []string{"HC", "HP"}, []float64{10}, 80, StatusComplete, NatureReal, []string{}, []string{}, 1)
	row("S2", "2024-01-01", paris, e(7), []string{"X"}, []float64{7}, 100, StatusComplete, NatureReal, []string{}, []string{}, 1)
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}

	rows, err := readDayRows(ctx, db, registry.Site{TenantID: "acme", SiteID: "S1"}, FluidElec, paris, "2024-01-01", "2024-01-05", 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4 (one per day, the latest)", len(rows))
	}
	want := []struct {
		date       string
		dials      []string
		wh         []float64
		plain      uint8
		flags      uint64
		natureBits uint64
		exact      bool
	}{
		{"2024-01-01", odd, []float64{1500, 2000}, 1, 0, 1 << 1, true},
		{"2024-01-02", []string{"HC", "HP"}, []float64{-200, 1400}, 1, 1<<1 | 1<<2, 1<<4 | 1<<5, true},
		{"2024-01-03", []string{"HC"}, []float64{2.5}, 1, 1, 1, false},
		{"2024-01-04", []string{"HC", "HP"}, []float64{10}, 0, 0, 0, false},
	}
	for i, w := range want {
		r := &rows[i]
		if got := r.day.Format(time.DateOnly); got != w.date || !slices.Equal(r.dials, w.dials) || !slices.Equal(r.dialWh, w.wh) ||
			r.plain != w.plain || r.flagBits != w.flags || r.natureBits != w.natureBits {
			t.Errorf("day %d: %s %q %v plain %d flags %b natures %b; want %+v", i, got, r.dials, r.dialWh, r.plain, r.flagBits, r.natureBits, w)
		}
		if r.exact() != w.exact {
			t.Errorf("%s: exact %v, want %v", w.date, !w.exact, w.exact)
		}
	}
	if r := rows[1]; !r.negative || !r.meterStart || r.natures.names()[0] != "MKT_CUSTOMER" || len(r.natures.names()) != 2 {
		t.Errorf("2024-01-02: negative %v meter change %v natures %v", r.negative, r.meterStart, r.natures.names())
	}
}
