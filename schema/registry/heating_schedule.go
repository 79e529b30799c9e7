package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"energy/schema/audit"
	"energy/schema/tables"
)

// Heating modes of a schedule.
const (
	ModeComfort         = "COMFORT"
	ModeEco             = "ECO"
	ModeFrostProtection = "FROST_PROTECTION"
)

// Bounds of a schedule: set points in °C and offsets in minutes after Monday 00:00.
const (
	MinSetpoint        = 5.0
	MaxSetpoint        = 30.0
	DefaultFrostC      = 7.0
	MinutesPerWeek     = 7 * 24 * 60
	minutesPerDay      = 24 * 60
	defaultComfortFrom = 6 * 60
	defaultEcoFrom     = 22 * 60
)

// HeatingSchedule is a site's heating schedule: set points by mode and a weekly calendar of
// mode switches in the site's local time.
type HeatingSchedule struct {
	Temperatures   map[string]float64 `json:"temperatures"`
	WeeklyCalendar []ScheduleSwitch   `json:"weeklyCalendar"`
}

// ScheduleSwitch switches the schedule to mode Temperature at Offset minutes after Monday
// 00:00 local time; it holds until the next switch, the week wrapping around.
type ScheduleSwitch struct {
	Offset      int    `json:"offset"`
	Temperature string `json:"temperature"`
}

// DefaultHeatingSchedule is the schedule of a site that has none: COMFORT 19 °C from 06:00,
// ECO 16 °C from 22:00, every day, and FROST_PROTECTION 7 °C.
func DefaultHeatingSchedule() HeatingSchedule {
	s := HeatingSchedule{Temperatures: map[string]float64{ModeComfort: 19, ModeEco: 16, ModeFrostProtection: DefaultFrostC}}
	for d := 0; d < 7; d++ {
		s.WeeklyCalendar = append(s.WeeklyCalendar,
			ScheduleSwitch{Offset: d*minutesPerDay + defaultComfortFrom, Temperature: ModeComfort},
			ScheduleSwitch{Offset: d*minutesPerDay + defaultEcoFrom, Temperature: ModeEco})
	}
	return s
}

// Normalize fills FROST_PROTECTION (7 °C) when absent.
func (h *HeatingSchedule) Normalize() {
	if h.Temperatures == nil {
		h.Temperatures = map[string]float64{}
	}
	if _, ok := h.Temperatures[ModeFrostProtection]; !ok {
		h.Temperatures[ModeFrostProtection] = DefaultFrostC
	}
}

// Validate checks every field and names the first bad one (temperatures.ECO,
// weeklyCalendar[3].offset, ...). Call it before Normalize: FROST_PROTECTION is optional.
func (h HeatingSchedule) Validate() error {
	for _, m := range []string{ModeComfort, ModeEco} {
		if _, ok := h.Temperatures[m]; !ok {
			return fieldErr("temperatures."+m, "is required (set point in °C)")
		}
	}
	modes := make([]string, 0, len(h.Temperatures))
	for m := range h.Temperatures {
		modes = append(modes, m)
	}
	sort.Strings(modes)
	for _, m := range modes {
		v := h.Temperatures[m]
		switch m {
		case ModeComfort, ModeEco, ModeFrostProtection:
		default:
			return fieldErr("temperatures."+m, "unknown mode %q: modes are COMFORT, ECO and FROST_PROTECTION", m)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < MinSetpoint || v > MaxSetpoint {
			return fieldErr("temperatures."+m, "must be a set point between %v and %v °C (got %v)", MinSetpoint, MaxSetpoint, v)
		}
	}
	if h.Temperatures[ModeEco] > h.Temperatures[ModeComfort] {
		return fieldErr("temperatures.ECO", "must not exceed COMFORT (%v °C; got %v)", h.Temperatures[ModeComfort], h.Temperatures[ModeEco])
	}
	if len(h.WeeklyCalendar) == 0 {
		return fieldErr("weeklyCalendar", "must hold at least one switch {offset, temperature}")
	}
	for i, sw := range h.WeeklyCalendar {
		f := fmt.Sprintf("weeklyCalendar[%d]", i)
		if sw.Offset < 0 || sw.Offset >= MinutesPerWeek {
			return fieldErr(f+".offset", "must be minutes after Monday 00:00 in 0..%d (got %d)", MinutesPerWeek-1, sw.Offset)
		}
		if i > 0 && sw.Offset <= h.WeeklyCalendar[i-1].Offset {
			return fieldErr(f+".offset", "must be greater than the previous switch's offset %d (got %d)", h.WeeklyCalendar[i-1].Offset, sw.Offset)
		}
		if _, ok := h.Temperatures[sw.Temperature]; !ok && sw.Temperature != ModeFrostProtection {
			return fieldErr(f+".temperature", "must name a mode of temperatures (got %q)", sw.Temperature)
		}
	}
	return nil
}

// MeanSetpoint is the schedule's set point averaged over the week, each mode weighted by the
// minutes it holds (the calendar wraps: before the first switch the last one's mode holds).
// temps overrides the schedule's set points by mode (nil: the schedule's own).
func (h HeatingSchedule) MeanSetpoint(temps map[string]float64) float64 {
	cal := h.WeeklyCalendar
	if len(cal) == 0 {
		return 0
	}
	setpoint := func(mode string) float64 {
		if v, ok := temps[mode]; ok {
			return v
		}
		if v, ok := h.Temperatures[mode]; ok {
			return v
		}
		return DefaultFrostC // FROST_PROTECTION left to its default
	}
	var sum float64
	for i, sw := range cal {
		next := MinutesPerWeek + cal[0].Offset
		if i+1 < len(cal) {
			next = cal[i+1].Offset
		}
		sum += setpoint(sw.Temperature) * float64(next-sw.Offset)
	}
	return sum / MinutesPerWeek
}

// PutHeatingSchedule validates and replaces the site's schedule; it returns what was stored.
// The site must exist (ErrNotFound otherwise).
func (s *Store) PutHeatingSchedule(ctx context.Context, tenantID, siteID string, h HeatingSchedule) (HeatingSchedule, error) {
	if err := h.Validate(); err != nil {
		return HeatingSchedule{}, err
	}
	h.Normalize()
	if _, err := s.Site(ctx, tenantID, siteID); err != nil {
		return HeatingSchedule{}, err
	}
	var before any
	if old, stored, err := s.HeatingSchedule(ctx, tenantID, siteID); err != nil {
		return HeatingSchedule{}, err
	} else if stored {
		before = old
	}
	def, err := json.Marshal(h)
	if err != nil {
		return HeatingSchedule{}, err
	}
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.HeatingSchedules+" (tenant_id, site_id, definition, updated_ts, version)")
	if err != nil {
		return HeatingSchedule{}, err
	}
	if err := b.Append(tenantID, siteID, string(def), s.now().UTC(), s.version()); err != nil {
		return HeatingSchedule{}, err
	}
	if err := b.Send(); err != nil {
		return HeatingSchedule{}, err
	}
	// Budgets computed with the old schedule must not be served again.
	s.Versions.Bump(tenantID, siteID)
	return h, audit.Record(ctx, s.db, tenantID, audit.HeatingSchedulePut, "sites/"+siteID+"/heating-schedule", before, h)
}

// HeatingSchedule returns the site's stored schedule, or the default one when none is stored
// (stored reports which). It does not check that the site exists.
func (s *Store) HeatingSchedule(ctx context.Context, tenantID, siteID string) (h HeatingSchedule, stored bool, err error) {
	rows, err := s.db.Conn.Query(ctx, "SELECT definition FROM "+tables.HeatingSchedules+" FINAL WHERE tenant_id = ? AND site_id = ?", tenantID, siteID)
	if err != nil {
		return HeatingSchedule{}, false, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return HeatingSchedule{}, false, err
		}
		return DefaultHeatingSchedule(), false, nil
	}
	var def string
	if err := rows.Scan(&def); err != nil {
		return HeatingSchedule{}, false, err
	}
	if err := json.Unmarshal([]byte(def), &h); err != nil {
		return HeatingSchedule{}, false, fmt.Errorf("stored heating schedule of %s is corrupt: %w", siteID, err)
	}
	h.Normalize()
	return h, true, nil
}
