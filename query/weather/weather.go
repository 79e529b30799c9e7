// Package weather validates, stores and reads weather stations' observations, and sums them
// into heating degree days (cached daily means) for the comparison and the heating model.
package weather

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"

	"energy/schema"
	"energy/schema/tables"
)

// Observation is one weather value of a station at an instant. Forecasts and measures share
// one series: for one station and date the latest received value wins.
type Observation struct {
	Date        time.Time // whole seconds
	Temperature float64   // °C
	Wind        float64   // km/h
	Cloudiness  float64   // okta, 0..8
	Picto       string    // P1..P9 (see PictoFromCloudiness); derived when empty
}

// ObservationError names the first bad observation of a list: its 0-based index and field.
type ObservationError struct {
	Index   int
	Field   string
	Message string
}

func (e *ObservationError) Error() string {
	return fmt.Sprintf("[%d].%s: %s", e.Index, e.Field, e.Message)
}

// Plausibility bounds of observations; values outside are typing mistakes, not weather.
const (
	minTemperature = -90.0
	maxTemperature = 70.0
	maxWind        = 500.0
	maxCloudiness  = 8.0
)

// earliestDate and latestDate bound dates to what a DateTime column holds.
var (
	earliestDate = time.Date(1971, 1, 1, 0, 0, 0, 0, time.UTC)
	latestDate   = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

var pictoPattern = regexp.MustCompile(`^P[0-9]{1,3}$`)

// PictoFromCloudiness is the pictogram of an observation sent without one: the sky cover in
// okta, rounded, plus one. P1 clear sky (0 okta), P2 (1), P3 (2), P4 (3), P5 partly cloudy
// (4), P6 (5), P7 (6), P8 mostly cloudy (7), P9 overcast (8).
func PictoFromCloudiness(okta float64) string {
	n := int(math.Round(math.Max(0, math.Min(maxCloudiness, okta))))
	return "P" + strconv.Itoa(n+1)
}

// ValidateObservations checks every observation and derives missing pictos in place; it
// returns the first bad one as an *ObservationError.
func ValidateObservations(obs []Observation) error {
	for i := range obs {
		o := &obs[i]
		bad := func(field, format string, args ...any) error {
			return &ObservationError{Index: i, Field: field, Message: fmt.Sprintf(format, args...)}
		}
		switch {
		case o.Date.IsZero():
			return bad("date", "is required (RFC 3339 with offset, for example 2024-01-01T12:00:00+01:00)")
		case o.Date.Nanosecond() != 0:
			return bad("date", "must be a whole second (got %s)", o.Date.Format(time.RFC3339Nano))
		case o.Date.Before(earliestDate) || !o.Date.Before(latestDate):
			return bad("date", "must be in 1971..2099 (got %s)", o.Date.Format(time.RFC3339))
		case !finite(o.Temperature) || o.Temperature < minTemperature || o.Temperature > maxTemperature:
			return bad("temperature", "must be a number of °C between %v and %v (got %v)", minTemperature, maxTemperature, o.Temperature)
		case !finite(o.Wind) || o.Wind < 0 || o.Wind > maxWind:
			return bad("wind", "must be a speed in km/h between 0 and %v (got %v)", maxWind, o.Wind)
		case !finite(o.Cloudiness) || o.Cloudiness < 0 || o.Cloudiness > maxCloudiness:
			return bad("cloudiness", "must be a sky cover in okta between 0 and 8 (got %v)", o.Cloudiness)
		case o.Picto != "" && !pictoPattern.MatchString(o.Picto):
			return bad("picto", "must be a pictogram code such as P7 (got %q)", o.Picto)
		}
		if o.Picto == "" {
			o.Picto = PictoFromCloudiness(o.Cloudiness)
		}
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Weather stores and reads weather observations.
type Store struct {
	db *schema.DB
}

// NewStore returns the weather store over db.
func NewStore(db *schema.DB) *Store { return &Store{db: db} }

// weatherVersions orders observation writes: the latest received value of a date wins.
var weatherVersions schema.RowVersions

// Put stores observations of a station: each replaces what the station had at its date, other
// dates are untouched. Within obs, a later item wins over an earlier one of the same date. The
// observations go in one insert, or one per group of schema.MaxPartitionsPerInsert months
// when they span more (the table is partitioned by month); each keeps the version of its
// place in obs, so a retried Put stores the same. Call ValidateObservations first.
func (w *Store) Put(ctx context.Context, tenantID, stationID string, obs []Observation) error {
	if len(obs) == 0 {
		return nil
	}
	v := weatherVersions.Reserve(len(obs))
	rows := make([]versioned, len(obs))
	for i := range obs {
		rows[i] = versioned{Observation: &obs[i], version: v + uint64(i)}
	}
	for _, group := range schema.ByPartitions([][]versioned{rows}, func(r *versioned) int { return schema.Month(r.Date) }) {
		b, err := w.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.WeatherObservations+" (tenant_id, station_id, date, temperature, wind, cloudiness, picto, version)")
		if err != nil {
			return err
		}
		for _, run := range group {
			for i := range run {
				o := run[i]
				picto := o.Picto
				if picto == "" {
					picto = PictoFromCloudiness(o.Cloudiness)
				}
				if err := b.Append(tenantID, stationID, o.Date.UTC(), o.Temperature, o.Wind, o.Cloudiness, picto, o.version); err != nil {
					_ = b.Abort()
					return err
				}
			}
		}
		if err := b.Send(); err != nil {
			return err
		}
	}
	return nil
}

// versioned is an observation with the row version of its place in a Put.
type versioned struct {
	*Observation
	version uint64
}

// Observations returns a station's observations with date in [begin, end), oldest first,
// dates in UTC.
func (w *Store) Observations(ctx context.Context, tenantID, stationID string, begin, end time.Time) ([]Observation, error) {
	begin, end = clampToColumn(begin), clampToColumn(end)
	if !begin.Before(end) {
		return []Observation{}, nil
	}
	rows, err := w.db.Conn.Query(ctx, `SELECT date, temperature, wind, cloudiness, picto
		FROM `+tables.WeatherObservations+` FINAL
		WHERE tenant_id = ? AND station_id = ? AND date >= ? AND date < ?
		ORDER BY date`, tenantID, stationID, begin.UTC(), end.UTC())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Observation{}
	for rows.Next() {
		var o Observation
		if err := rows.Scan(&o.Date, &o.Temperature, &o.Wind, &o.Cloudiness, &o.Picto); err != nil {
			return nil, err
		}
		o.Date = o.Date.UTC()
		out = append(out, o)
	}
	return out, rows.Err()
}

// clampToColumn keeps a bound within what a DateTime column can compare with (no observation
// lies outside [earliestDate, latestDate) anyway).
func clampToColumn(t time.Time) time.Time {
	switch {
	case t.Before(earliestDate):
		return earliestDate
	case t.After(latestDate):
		return latestDate
	}
	return t.UTC()
}
