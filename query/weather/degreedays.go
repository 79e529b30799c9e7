package weather

import (
	"context"
	"math"
	"time"

	"energy/schema/tables"
)

// DegreeDayBase is the base temperature of heating degree days, °C.
const DegreeDayBase = 18.0

// DegreeDays is the heating degree-day sum of a station over the local days of a period:
// each day counts max(0, 18 − its mean temperature), the mean being the average of the
// day's observations (local midnight to midnight, 23 or 25 hours on DST days).
type DegreeDays struct {
	Total   float64 // °C·day over the days that have observations
	Days    int     // local days in the period
	Missing int     // days without any observation
}

// Complete tells whether every day of the period has observations. The comparison states a
// weather impact only then: a missing day would bias the sum.
func (d DegreeDays) Complete() bool { return d.Days > 0 && d.Missing == 0 }

// DegreeDays sums the heating degree days of a station over the local days in [from, to) of
// loc; from and to are local midnights (any instant is taken to its local date).
func (w *Store) DegreeDays(ctx context.Context, tenantID, stationID string, loc *time.Location, from, to time.Time) (DegreeDays, error) {
	first, end := localMidnight(from, loc), localMidnight(to, loc)
	if !first.Before(end) {
		return DegreeDays{}, nil
	}
	means, err := w.DailyMeans(ctx, tenantID, stationID, loc, first, end)
	if err != nil {
		return DegreeDays{}, err
	}
	return SumDegreeDays(means, loc, first, end), nil
}

// SumDegreeDays sums the heating degree days of the local days in [from, to) of loc from
// daily means keyed by yyyymmdd (DailyMeans read over a span that holds the period, so that
// several periods share one read); days are added in order.
func SumDegreeDays(means map[uint32]float64, loc *time.Location, from, to time.Time) DegreeDays {
	var dd DegreeDays
	for d := localMidnight(from, loc); d.Before(localMidnight(to, loc)); d = d.AddDate(0, 0, 1) {
		dd.Days++
		y, m, day := d.Date()
		mean, ok := means[uint32(y*10000+int(m)*100+day)]
		if !ok {
			dd.Missing++
			continue
		}
		dd.Total += math.Max(0, DegreeDayBase-mean)
	}
	return dd
}

// DailyMeans returns the station's daily mean temperatures (°C) over the local days of loc in
// [from, to) that have observations, keyed by yyyymmdd: the mean of the observations whose
// date falls in the local day (23 or 25 hours on DST days).
//
// The mean does not depend on the order in which the server adds the day's values, so every
// ClickHouse release gives the same bits: SQL sums the temperatures as whole nanodegrees
// (meanScale) with exact integers and counts them, and Go divides once. A float avg would add
// in whatever order the server's threads and release read the rows, and the last bits of the
// mean would change with it.
//
// The latest received value of a date is its row of highest version, chosen by argMax rather
// than FINAL: on 18.16 FINAL made this read 2–6× slower (two years of hourly observations,
// measured interleaved on a loaded 2-core machine).
func (w *Store) DailyMeans(ctx context.Context, tenantID, stationID string, loc *time.Location, from, to time.Time) (map[uint32]float64, error) {
	// The zone name is an IANA name validated with the site; it is bound, never formatted in.
	// floor(x + 0.5) rounds half up by plain IEEE arithmetic: round() itself rounds halves away
	// from zero on 18.16 and to even on current releases.
	rows, err := w.db.Conn.Query(ctx, `SELECT toYYYYMMDD(date, ?) AS day,
			sum(toInt64(floor(latest * ? + 0.5))) AS scaled, count() AS n
		FROM (SELECT date, argMax(temperature, version) AS latest
			FROM `+tables.WeatherObservations+`
			WHERE tenant_id = ? AND station_id = ? AND date >= ? AND date < ?
			GROUP BY date)
		GROUP BY day
		ORDER BY day`, loc.String(), meanScale, tenantID, stationID, clampToColumn(from), clampToColumn(to))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[uint32]float64{}
	for rows.Next() {
		var day uint32
		var scaled int64
		var n uint64
		if err := rows.Scan(&day, &scaled, &n); err != nil {
			return nil, err
		}
		out[day] = scaledMean(scaled, n)
	}
	return out, rows.Err()
}

// meanScale is the fixed point of daily means: a temperature counts as a whole number of
// nanodegrees (°C × 10⁹), rounded half up. That is exact for every temperature given with up
// to 9 decimals (finer digits are rounded off, far below any thermometer's resolution), and
// small enough that a day's sum stays an exact float64: at most 90,000 dated values (one a
// second over a 25-hour day) of at most 90 °C make 8.1 × 10¹⁵ < 2⁵³.
const meanScale = 1_000_000_000

// scaledMean is the mean of n temperatures whose sum in nanodegrees is scaled: both operands
// are exact in float64, so the one division rounds the true mean of those values correctly.
func scaledMean(scaled int64, n uint64) float64 {
	return float64(scaled) / float64(n*meanScale)
}

// localMidnight is the start of t's local date in loc.
func localMidnight(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}
