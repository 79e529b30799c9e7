// Package targets stores a site's yearly objectives (targets), decides which events they
// notify (a distributor reading received, the objective overrun), and delivers the
// notifications from a durable outbox by email and SMS.
package targets

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"energy/schema/registry"
)

// Target types, units, channels and notification types.
const (
	TypeElec = "ELEC"

	UnitEuro = "EURO"
	UnitKWh  = "KWH"

	ChannelEmail = "EMAIL"
	ChannelSMS   = "SMS"

	NotifyNone      = "NONE"
	NotifyDistIndex = "ON_DIST_INDEX_RECEPTION"
	NotifyThreshold = "THRESHOLD_OVERRUN"
)

// ErrNotFound is an unknown target, or one of another tenant or site.
var ErrNotFound = errors.New("target not found")

// Target is a yearly consumption (kWh) or cost (EUR) objective of a site.
type Target struct {
	TenantID     string    `json:"-"`
	SiteID       string    `json:"siteId"`
	TargetID     string    `json:"targetId"`
	GenerationTS time.Time `json:"generationTs"` // set by the service at creation
	Begin        time.Time `json:"beginDate"`    // the target period is [Begin, End)
	End          time.Time `json:"endDate"`
	Type         string    `json:"type"`
	Unit         string    `json:"unit"`
	Name         string    `json:"name,omitempty"`
	// DefaultTargetValue is the reference value; nil when not given.
	DefaultTargetValue *float64 `json:"defaultTargetValue,omitempty"`

	// The updatable fields.
	TargetValue          float64  `json:"targetValue"`
	NotificationChannels []string `json:"notificationChannels"`
	NotificationType     string   `json:"notificationType"`
	// ValueRevision changes whenever TargetValue changes: a THRESHOLD_OVERRUN fires once per revision.
	ValueRevision uint64 `json:"-"`
}

// Validate checks a target before it is created; errors name the JSON field.
func (t *Target) Validate() error {
	if t.Begin.IsZero() {
		return fieldErr("beginDate", "is required (Timestamp-Z, for example 2025-01-01T00:00:00Z)")
	}
	if t.End.IsZero() {
		return fieldErr("endDate", "is required (Timestamp-Z, for example 2026-01-01T00:00:00Z)")
	}
	if !t.End.After(t.Begin) {
		return fieldErr("endDate", "must be after beginDate")
	}
	if t.Type != TypeElec {
		return fieldErr("type", "must be ELEC, the only supported type (got %q)", t.Type)
	}
	if t.Unit != UnitEuro && t.Unit != UnitKWh {
		return fieldErr("unit", "must be EURO or KWH (got %q)", t.Unit)
	}
	if len(t.Name) > 256 || strings.ContainsRune(t.Name, 0) {
		return fieldErr("name", "must be at most 256 characters, without NUL")
	}
	if v := t.DefaultTargetValue; v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0) {
		return fieldErr("defaultTargetValue", "must be a finite number ≥ 0")
	}
	if err := validValue(t.TargetValue); err != nil {
		return err
	}
	if err := validChannels(t.NotificationChannels); err != nil {
		return err
	}
	return validType(t.NotificationType)
}

func validValue(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fieldErr("targetValue", "must be a finite number ≥ 0")
	}
	return nil
}

func validChannels(channels []string) error {
	for i, c := range channels {
		if c != ChannelEmail && c != ChannelSMS {
			return fieldErr(fmt.Sprintf("notificationChannels[%d]", i), "must be EMAIL or SMS (got %q)", c)
		}
		if slices.Index(channels, c) != i {
			return fieldErr(fmt.Sprintf("notificationChannels[%d]", i), "%s is given twice", c)
		}
	}
	return nil
}

func validType(t string) error {
	switch t {
	case NotifyNone, NotifyDistIndex, NotifyThreshold:
		return nil
	}
	return fieldErr("notificationType", "must be NONE, ON_DIST_INDEX_RECEPTION or THRESHOLD_OVERRUN (got %q)", t)
}

func fieldErr(field, format string, args ...any) error {
	return &registry.FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}
