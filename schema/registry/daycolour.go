package registry

import (
	"context"
	"fmt"
	"time"

	"energy/schema/tables"
)

// DayColourCalendar is a calendar of colour days (RTE's Tempo: BLUE, WHITE, RED). A colour day
// of date D starts at DayStartsAt local time of D and ends at the same time of D+1.
type DayColourCalendar struct {
	TenantID    string `json:"-"`
	CalendarID  string `json:"calendarId"`
	Name        string `json:"name"`
	DayStartsAt string `json:"dayStartsAt"`
}

// DayColour is the colour of one date of a calendar.
type DayColour struct {
	Date   string `json:"date"`   // yyyy-MM-dd
	Colour string `json:"colour"` // BLUE, WHITE or RED
}

// Colours of colour days.
const (
	ColourBlue  = "BLUE"
	ColourWhite = "WHITE"
	ColourRed   = "RED"
)

// DayColours are the colours a date may have.
var DayColours = []string{ColourBlue, ColourWhite, ColourRed}

// MaxDayColoursPerPut bounds the dates of one PutDayColours.
const MaxDayColoursPerPut = 1500

// Validate checks every field of the calendar and names the first bad one.
func (c DayColourCalendar) Validate() error {
	if err := validID("calendarId", c.CalendarID); err != nil {
		return err
	}
	if err := validText("name", c.Name); err != nil {
		return err
	}
	if m, err := ParseClock(c.DayStartsAt); err != nil || m >= 24*60 {
		return fieldErr("dayStartsAt", "must be a local time HH:MM from 00:00 to 23:59 (got %q)", c.DayStartsAt)
	}
	return nil
}

// PutDayColourCalendar creates or replaces a calendar (its dates are kept).
func (s *Store) PutDayColourCalendar(ctx context.Context, c DayColourCalendar) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := s.ensureTenant(ctx, c.TenantID); err != nil {
		return err
	}
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.DayColourCalendars+" (tenant_id, calendar_id, name, day_starts_at, updated_ts, version)")
	if err != nil {
		return err
	}
	if err := b.Append(c.TenantID, c.CalendarID, c.Name, c.DayStartsAt, s.now().UTC(), s.version()); err != nil {
		return err
	}
	if err := b.Send(); err != nil {
		return err
	}
	// Answers split by the calendar's old day start must not be served again.
	s.Versions.Bump(c.TenantID, "")
	return nil
}

// DayColourCalendar returns a calendar of the tenant, or ErrNotFound.
func (s *Store) DayColourCalendar(ctx context.Context, tenantID, calendarID string) (DayColourCalendar, error) {
	rows, err := s.db.Conn.Query(ctx, "SELECT name, day_starts_at FROM "+tables.DayColourCalendars+" FINAL WHERE tenant_id = ? AND calendar_id = ?", tenantID, calendarID)
	if err != nil {
		return DayColourCalendar{}, err
	}
	defer rows.Close()
	c := DayColourCalendar{TenantID: tenantID, CalendarID: calendarID}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return c, err
		}
		return c, ErrNotFound
	}
	if err := rows.Scan(&c.Name, &c.DayStartsAt); err != nil {
		return c, err
	}
	return c, rows.Err()
}

// ValidateDayColours checks the dates of a PUT and names the first bad element (days[i].field).
func ValidateDayColours(days []DayColour) error {
	if len(days) > MaxDayColoursPerPut {
		return fieldErr("days", "at most %d dates per request (got %d)", MaxDayColoursPerPut, len(days))
	}
	for i, d := range days {
		if _, err := time.Parse(time.DateOnly, d.Date); err != nil {
			return fieldErr(fmt.Sprintf("[%d].date", i), "must be a date yyyy-MM-dd (got %q)", d.Date)
		}
		if err := oneOf(fmt.Sprintf("[%d].colour", i), d.Colour, DayColours...); err != nil {
			return err
		}
	}
	return nil
}

// PutDayColours creates or replaces the colours of the given dates of a calendar (a date given
// twice takes its last colour); other dates are kept. The calendar must exist (ErrNotFound).
func (s *Store) PutDayColours(ctx context.Context, tenantID, calendarID string, days []DayColour) error {
	if err := ValidateDayColours(days); err != nil {
		return err
	}
	if _, err := s.DayColourCalendar(ctx, tenantID, calendarID); err != nil {
		return err
	}
	if len(days) == 0 {
		return nil
	}
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.DayColours+" (tenant_id, calendar_id, date, colour, updated_ts, version)")
	if err != nil {
		return err
	}
	now := s.now().UTC()
	for _, d := range days {
		date, _ := time.Parse(time.DateOnly, d.Date)
		if err := b.Append(tenantID, calendarID, date, d.Colour, now, s.version()); err != nil {
			return err
		}
	}
	if err := b.Send(); err != nil {
		return err
	}
	// Answers split with the old colours must not be served again.
	s.Versions.Bump(tenantID, "")
	return nil
}

// DayColoursBetween returns the calendar's dates in [from, to) (yyyy-MM-dd), in date order.
func (s *Store) DayColoursBetween(ctx context.Context, tenantID, calendarID, from, to string) ([]DayColour, error) {
	rows, err := s.db.Conn.Query(ctx, "SELECT toString(date), colour FROM "+tables.DayColours+" FINAL"+
		" WHERE tenant_id = ? AND calendar_id = ? AND date >= toDate(?) AND date < toDate(?) ORDER BY date", tenantID, calendarID, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []DayColour{}
	for rows.Next() {
		var d DayColour
		if err := rows.Scan(&d.Date, &d.Colour); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// ColourDays is what splitting energy by colour needs of a calendar over a span of dates: when
// a colour day starts, and the colour of each date the calendar holds.
type ColourDays struct {
	StartsAt int            // minutes after local midnight
	byDate   map[int]string // yyyymmdd → colour
}

// Colour is the colour of a date, "" when the calendar lacks it.
func (c *ColourDays) Colour(y int, m time.Month, d int) string {
	return c.byDate[y*10000+int(m)*100+d]
}

// NewColourDays builds the colour days of a calendar starting at startsAt minutes from the
// given dates (tests and callers holding the dates already).
func NewColourDays(startsAt int, days []DayColour) *ColourDays {
	c := &ColourDays{StartsAt: startsAt, byDate: make(map[int]string, len(days))}
	for _, d := range days {
		t, err := time.Parse(time.DateOnly, d.Date)
		if err != nil {
			continue
		}
		c.byDate[t.Year()*10000+int(t.Month())*100+t.Day()] = d.Colour
	}
	return c
}

// ColourDaysBetween reads the calendar's day start and its dates in [from, to) (yyyy-MM-dd).
func (s *Store) ColourDaysBetween(ctx context.Context, tenantID, calendarID, from, to string) (*ColourDays, error) {
	cal, err := s.DayColourCalendar(ctx, tenantID, calendarID)
	if err != nil {
		return nil, err
	}
	days, err := s.DayColoursBetween(ctx, tenantID, calendarID, from, to)
	if err != nil {
		return nil, err
	}
	startsAt, _ := ParseClock(cal.DayStartsAt)
	return NewColourDays(startsAt, days), nil
}
