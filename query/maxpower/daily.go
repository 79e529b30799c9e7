package maxpower

import (
	"context"
	"fmt"
	"time"

	"energy/query/consumption"
	"energy/schema"
	"energy/schema/tables"
)

// Daily is the max power of one local date of the site.
type Daily struct {
	Date  time.Time // local midnight of the date
	Watts int64
}

// DateString is the date as yyyy-MM-dd.
func (d Daily) DateString() string { return d.Date.Format(time.DateOnly) }

// readingsSQL reads the site's max-power readings in [from, to): for equal ts the reading of
// the latest generationTs wins (a re-sent or corrected reading replaces the earlier one). The
// table is the argument: the site's reader names it (schema.SiteReader.Table).
func readingsSQL(table string) string {
	return "SELECT " + tables.TS + ", argMax(" + tables.Value + ", " + tables.GenerationTS + ") FROM " + table +
		" WHERE " + tables.TenantID + " = ? AND " + tables.SiteID + " = ? AND " + tables.TS + " >= ? AND " + tables.TS + " < ?" +
		" GROUP BY " + tables.TS + " ORDER BY " + tables.TS
}

// ReadDaily returns the daily max powers of the site's local dates whose midnight lies in
// [from, to), in date order: the highest reading of each date (a reading belongs to the local
// date of its ts in loc). Dates without a reading are absent.
func ReadDaily(ctx context.Context, db *schema.DB, tenantID, siteID string, loc *time.Location, from, to time.Time) ([]Daily, error) {
	first, end := NextMidnight(from, loc), NextMidnight(to, loc)
	site := db.ReadSite(tenantID, siteID)
	rows, err := site.Conn.Query(ctx, readingsSQL(site.Table(tables.MaxPowers)), tenantID, siteID, first.UTC(), end.UTC())
	if err != nil {
		return nil, fmt.Errorf("read max powers: %w", err)
	}
	defer rows.Close()
	var out []Daily
	for rows.Next() {
		var ts time.Time
		var w int64
		if err := rows.Scan(&ts, &w); err != nil {
			return nil, fmt.Errorf("read max powers: %w", err)
		}
		day := Midnight(ts, loc)
		if n := len(out); n > 0 && out[n-1].Date.Equal(day) {
			out[n-1].Watts = max(out[n-1].Watts, w)
			continue
		}
		out = append(out, Daily{Date: day, Watts: w})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read max powers: %w", err)
	}
	return out, nil
}

// Midnight is the local midnight starting the date of t in loc.
func Midnight(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return consumption.WallClock(y, m, d, 0, 0, 0, 0, loc)
}

// NextMidnight is the first local midnight at or after t.
func NextMidnight(t time.Time, loc *time.Location) time.Time {
	m := Midnight(t, loc)
	if m.Before(t) {
		y, mo, d := m.In(loc).Date()
		m = consumption.WallClock(y, mo, d+1, 0, 0, 0, 0, loc)
	}
	return m
}

// Peak is the highest daily max power of days with the first date that reached it; nil when
// days is empty.
func Peak(days []Daily) *Daily {
	var p *Daily
	for i := range days {
		if p == nil || days[i].Watts > p.Watts {
			p = &days[i]
		}
	}
	return p
}

// Overruns counts the days whose max power exceeds kva × 1,000 W (a kVA counts as 1,000 W of
// the meter's apparent power).
func Overruns(days []Daily, kva int) int {
	limit := int64(kva) * 1000
	n := 0
	for _, d := range days {
		if d.Watts > limit {
			n++
		}
	}
	return n
}
