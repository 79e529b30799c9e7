package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"energy/schema/audit"
	"energy/schema/tables"
)

// Tariff is a site's contract: how meter dials map to tariff headings, the prices of the
// headings and the yearly standing charge, each with validity dates (local dates of the site;
// a period runs until the next validFrom).
type Tariff struct {
	TenantID          string                 `json:"-"`
	TariffID          string                 `json:"tariffId"`
	Option            string                 `json:"option"`
	DialHeadings      map[string]string      `json:"dialHeadings,omitempty"`
	HeadingGroups     map[string]string      `json:"headingGroups,omitempty"`
	TimeOfUse         []TimeOfUse            `json:"timeOfUse,omitempty"`
	DefaultHeading    string                 `json:"defaultHeading,omitempty"`
	Prices            []PricePeriod          `json:"prices"`
	StandingCharges   []StandingChargePeriod `json:"standingCharges,omitempty"`
	CarbonCoefficient *float64               `json:"carbonCoefficient,omitempty"`
	// SubscribedPowerKva is the power the standing charge buys (1 kVA counts as 1,000 W of
	// daily max power); nil when the tariff does not say.
	SubscribedPowerKva *int `json:"subscribedPowerKva,omitempty"`
	// DayColourCalendarID names the day-colour calendar (TEMPO only) whose colour days select
	// the timeOfUse entries that carry a dayColour.
	DayColourCalendarID string `json:"dayColourCalendarId,omitempty"`
}

// Bounds of a tariff's subscribed power, in kVA.
const (
	MinSubscribedPowerKva = 1
	MaxSubscribedPowerKva = 36
)

// TimeOfUse sends load-curve energy between local times From and To (To may be before From:
// the range crosses midnight) to Heading.
type TimeOfUse struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Heading string `json:"heading"`
	// DayColour, when set, limits the entry to the colour days of that colour (BLUE, WHITE or
	// RED) of the tariff's day-colour calendar.
	DayColour string `json:"dayColour,omitempty"`
}

// PricePeriod gives EUR/kWh per heading from ValidFrom (yyyy-MM-dd) on.
type PricePeriod struct {
	ValidFrom string             `json:"validFrom"`
	ByHeading map[string]float64 `json:"byHeading"`
}

// StandingChargePeriod gives yearly EUR per component from ValidFrom on.
type StandingChargePeriod struct {
	ValidFrom string             `json:"validFrom"`
	Yearly    map[string]float64 `json:"yearly"`
}

// Tariff options (Tariff.Option).
const (
	OptionBase  = "BASE"
	OptionHPHC  = "HPHC"
	OptionTempo = "TEMPO"
	// OptionGas is a gas contract: one heading, BASE, and no meter dials (gas indexes have none).
	OptionGas = "GAS"
)

// GasHeading is the only heading of a gas tariff.
const GasHeading = "BASE"

// Headings returns the tariff's heading names, sorted.
func (t Tariff) Headings() []string {
	set := map[string]bool{}
	for _, h := range t.DialHeadings {
		set[h] = true
	}
	if t.DefaultHeading != "" {
		set[t.DefaultHeading] = true
	}
	if t.Option == OptionGas {
		set[GasHeading] = true
	}
	for _, r := range t.TimeOfUse {
		set[r.Heading] = true
	}
	var out []string
	for h := range set {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

// Group returns the heading group of a heading (the heading itself when none is set).
func (t Tariff) Group(heading string) string {
	if g, ok := t.HeadingGroups[heading]; ok && g != "" {
		return g
	}
	return heading
}

// Normalize sorts periods by date and fills the default heading of single-heading tariffs.
func (t *Tariff) Normalize() {
	sort.SliceStable(t.Prices, func(i, j int) bool { return t.Prices[i].ValidFrom < t.Prices[j].ValidFrom })
	sort.SliceStable(t.StandingCharges, func(i, j int) bool { return t.StandingCharges[i].ValidFrom < t.StandingCharges[j].ValidFrom })
	t.fillDefaultHeading()
}

func (t *Tariff) fillDefaultHeading() {
	if t.DefaultHeading == "" {
		hs := map[string]bool{}
		for _, h := range t.DialHeadings {
			hs[h] = true
		}
		if len(hs) == 1 {
			for h := range hs {
				t.DefaultHeading = h
			}
		}
	}
}

// Validate checks every field and names the first bad one.
func (t Tariff) Validate() error {
	if err := validID("tariffId", t.TariffID); err != nil {
		return err
	}
	if err := oneOf("option", t.Option, OptionBase, OptionHPHC, OptionTempo, OptionGas); err != nil {
		return err
	}
	headings := map[string]bool{}
	if t.Option == OptionGas {
		headings[GasHeading] = true
		for dial, h := range t.DialHeadings {
			if h != GasHeading {
				return fieldErr("dialHeadings."+dial, "a gas tariff has the single heading BASE (got %q)", h)
			}
		}
		if len(t.TimeOfUse) > 0 {
			return fieldErr("timeOfUse", "a gas tariff has no time of use (gas has indexes only)")
		}
	} else if len(t.DialHeadings) == 0 {
		return fieldErr("dialHeadings", "must map at least one meter dial number to a tariff heading")
	}
	for dial, h := range t.DialHeadings {
		if dial == "" || h == "" {
			return fieldErr("dialHeadings", "dial numbers and heading names must not be empty")
		}
		headings[h] = true
	}
	for h, g := range t.HeadingGroups {
		if !headings[h] {
			return fieldErr("headingGroups."+h, "heading %q is not one of dialHeadings' headings", h)
		}
		if g == "" {
			return fieldErr("headingGroups."+h, "group name must not be empty")
		}
	}
	if t.DefaultHeading != "" && !headings[t.DefaultHeading] {
		return fieldErr("defaultHeading", "heading %q is not one of dialHeadings' headings", t.DefaultHeading)
	}
	if len(t.TimeOfUse) > 0 && t.DefaultHeading == "" {
		return fieldErr("defaultHeading", "is required with timeOfUse (time not covered by a range goes to it)")
	}
	for i, r := range t.TimeOfUse {
		f := fmt.Sprintf("timeOfUse[%d]", i)
		if _, err := ParseClock(r.From); err != nil {
			return fieldErr(f+".from", "must be a local time HH:MM (got %q)", r.From)
		}
		if _, err := ParseClock(r.To); err != nil {
			return fieldErr(f+".to", "must be a local time HH:MM (got %q)", r.To)
		}
		if r.From == r.To {
			return fieldErr(f+".to", "must differ from from")
		}
		if !headings[r.Heading] {
			return fieldErr(f+".heading", "heading %q is not one of dialHeadings' headings", r.Heading)
		}
		if r.DayColour != "" {
			if err := oneOf(f+".dayColour", r.DayColour, DayColours...); err != nil {
				return err
			}
			if t.DayColourCalendarID == "" {
				return fieldErr(f+".dayColour", "needs the tariff's dayColourCalendarId (the calendar that gives each date its colour)")
			}
		}
	}
	if kva := t.SubscribedPowerKva; kva != nil {
		if t.Option == OptionGas {
			return fieldErr("subscribedPowerKva", "a gas tariff has no subscribed power")
		}
		if *kva < MinSubscribedPowerKva || *kva > MaxSubscribedPowerKva {
			return fieldErr("subscribedPowerKva", "must be a whole number of kVA from %d to %d (got %d)", MinSubscribedPowerKva, MaxSubscribedPowerKva, *kva)
		}
	}
	if t.DayColourCalendarID != "" {
		if t.Option != OptionTempo {
			return fieldErr("dayColourCalendarId", "only a TEMPO tariff has a day-colour calendar (option is %s)", t.Option)
		}
		if err := validID("dayColourCalendarId", t.DayColourCalendarID); err != nil {
			return err
		}
	}
	if len(t.Prices) == 0 {
		return fieldErr("prices", "at least one price period is required")
	}
	seen := map[string]bool{}
	for i, p := range t.Prices {
		f := fmt.Sprintf("prices[%d]", i)
		if err := checkValidFrom(f, p.ValidFrom, "price", seen); err != nil {
			return err
		}
		for h := range headings {
			if _, ok := p.ByHeading[h]; !ok {
				return fieldErr(f+".byHeading."+h, "price of heading %q is missing", h)
			}
		}
		for h, v := range p.ByHeading {
			if !headings[h] {
				return fieldErr(f+".byHeading."+h, "heading %q is not one of dialHeadings' headings", h)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fieldErr(f+".byHeading."+h, "price must be a finite number of EUR/kWh, not negative (got %v)", v)
			}
		}
	}
	seen = map[string]bool{}
	for i, c := range t.StandingCharges {
		f := fmt.Sprintf("standingCharges[%d]", i)
		if err := checkValidFrom(f, c.ValidFrom, "standing-charge", seen); err != nil {
			return err
		}
		if len(c.Yearly) == 0 {
			return fieldErr(f+".yearly", "must name at least one component (for example subscription)")
		}
		for name, v := range c.Yearly {
			if name == "" {
				return fieldErr(f+".yearly", "component names must not be empty")
			}
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fieldErr(f+".yearly."+name, "must be a finite number of EUR per year, not negative (got %v)", v)
			}
		}
	}
	if c := t.CarbonCoefficient; c != nil && (math.IsNaN(*c) || math.IsInf(*c, 0) || *c < 0) {
		return fieldErr("carbonCoefficient", "must be a finite number of kgCO2e/kWh, not negative (got %v)", *c)
	}
	return nil
}

// checkValidFrom checks the validFrom of the period at field f: a date yyyy-MM-dd that no other
// period of the same kind (seen, filled as it goes) starts on.
func checkValidFrom(f, validFrom, kind string, seen map[string]bool) error {
	if _, err := time.Parse(time.DateOnly, validFrom); err != nil {
		return fieldErr(f+".validFrom", "must be a date yyyy-MM-dd (got %q)", validFrom)
	}
	if seen[validFrom] {
		return fieldErr(f+".validFrom", "overlaps another %s period starting on %s", kind, validFrom)
	}
	seen[validFrom] = true
	return nil
}

// ParseClock parses a local time of day "HH:MM" (00:00..23:59, or 24:00) into minutes.
func ParseClock(s string) (int, error) {
	var h, m int
	if len(s) != 5 || s[2] != ':' {
		return 0, fmt.Errorf("bad time %q", s)
	}
	if _, err := fmt.Sscanf(s, "%02d:%02d", &h, &m); err != nil || h < 0 || m < 0 || m > 59 || h > 24 || (h == 24 && m != 0) {
		return 0, fmt.Errorf("bad time %q", s)
	}
	return h*60 + m, nil
}

// PutTariff creates or replaces a tariff.
func (s *Store) PutTariff(ctx context.Context, t Tariff) error {
	// Validate in the order the client sent, so that prices[i] names the client's element.
	t.fillDefaultHeading()
	if err := t.Validate(); err != nil {
		return err
	}
	if id := t.DayColourCalendarID; id != "" {
		if _, err := s.DayColourCalendar(ctx, t.TenantID, id); errors.Is(err, ErrNotFound) {
			return fieldErr("dayColourCalendarId", "day-colour calendar %q does not exist", id)
		} else if err != nil {
			return err
		}
	}
	t.Normalize()
	def, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if err := s.ensureTenant(ctx, t.TenantID); err != nil {
		return err
	}
	before, err := s.existing(s.Tariff(ctx, t.TenantID, t.TariffID))
	if err != nil {
		return err
	}
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.Tariffs+" (tenant_id, tariff_id, option, carbon_coefficient, definition, updated_ts, version)")
	if err != nil {
		return err
	}
	if err := b.Append(t.TenantID, t.TariffID, t.Option, t.CarbonCoefficient, string(def), s.now().UTC(), s.version()); err != nil {
		return err
	}
	if err := b.Send(); err != nil {
		return err
	}
	// Cached results priced with the old site or tariff must not be served again.
	s.Versions.Bump(t.TenantID, "")
	s.changed(ctx, ReferenceChange{TenantID: t.TenantID, TariffID: t.TariffID})
	return audit.Record(ctx, s.db, t.TenantID, audit.TariffPut, "tariffs/"+t.TariffID, before, t)
}

// Tariff returns a tariff of the tenant or ErrNotFound.
func (s *Store) Tariff(ctx context.Context, tenantID, tariffID string) (Tariff, error) {
	tariffs, corrupt, err := s.queryTariffs(ctx, "tenant_id = ? AND tariff_id = ?", tenantID, tariffID)
	if err != nil {
		return Tariff{}, err
	}
	if err := corrupt[tariffID]; err != nil {
		return Tariff{}, err
	}
	if len(tariffs) == 0 {
		return Tariff{}, ErrNotFound
	}
	return tariffs[0], nil
}

// queryTariffs reads the tariffs matching where, a fixed condition with bound values. A stored
// definition that does not decode is left out and its error given by tariff id.
func (s *Store) queryTariffs(ctx context.Context, where string, args ...any) (tariffs []Tariff, corrupt map[string]error, err error) {
	rows, err := s.db.Conn.Query(ctx, "SELECT tenant_id, tariff_id, definition FROM "+tables.Tariffs+" FINAL WHERE "+where, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var tenantID, tariffID, def string
		if err := rows.Scan(&tenantID, &tariffID, &def); err != nil {
			return nil, nil, err
		}
		var t Tariff
		if err := json.Unmarshal([]byte(def), &t); err != nil {
			if corrupt == nil {
				corrupt = map[string]error{}
			}
			corrupt[tariffID] = fmt.Errorf("stored tariff %s is corrupt: %w", tariffID, err)
			continue
		}
		t.TenantID = tenantID
		tariffs = append(tariffs, t)
	}
	return tariffs, corrupt, rows.Err()
}
