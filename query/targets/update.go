package targets

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Update is the body of a target update: nil fields are absent and left unchanged. Only
// TargetValue, NotificationChannels and NotificationType may change; the other fields may be
// sent as long as they equal the stored values.
type Update struct {
	TargetValue          *float64
	NotificationChannels *[]string
	NotificationType     *string

	TargetID           *string
	SiteID             *string
	GenerationTS       *time.Time
	Begin, End         *time.Time
	Type               *string
	Unit               *string
	Name               *string
	DefaultTargetValue *float64
}

// NotUpdatableError names every field of an update that would change a field that may not
// change; nothing of such an update is stored.
type NotUpdatableError struct {
	Fields []string
}

func (e *NotUpdatableError) Error() string {
	return fmt.Sprintf("%s cannot be changed (only targetValue, notificationChannels and notificationType can)", strings.Join(e.Fields, ", "))
}

// validate checks the updatable fields' values.
func (u Update) validate() error {
	if u.TargetValue != nil {
		if err := validValue(*u.TargetValue); err != nil {
			return err
		}
	}
	if u.NotificationChannels != nil {
		if err := validChannels(*u.NotificationChannels); err != nil {
			return err
		}
	}
	if u.NotificationType != nil {
		return validType(*u.NotificationType)
	}
	return nil
}

// frozenChanges lists the JSON names of the non-updatable fields whose value differs from t's.
func (u Update) frozenChanges(t Target) []string {
	var out []string
	diff := func(name string, differs bool) {
		if differs {
			out = append(out, name)
		}
	}
	diff("targetId", u.TargetID != nil && *u.TargetID != t.TargetID)
	diff("generationTs", u.GenerationTS != nil && !u.GenerationTS.Equal(t.GenerationTS))
	diff("beginDate", u.Begin != nil && !u.Begin.Equal(t.Begin))
	diff("endDate", u.End != nil && !u.End.Equal(t.End))
	diff("type", u.Type != nil && *u.Type != t.Type)
	diff("unit", u.Unit != nil && *u.Unit != t.Unit)
	diff("defaultTargetValue", u.DefaultTargetValue != nil &&
		(t.DefaultTargetValue == nil || *u.DefaultTargetValue != *t.DefaultTargetValue))
	diff("siteId", u.SiteID != nil && *u.SiteID != t.SiteID)
	diff("name", u.Name != nil && *u.Name != t.Name)
	return out
}

// changedSettings returns the updatable fields that u changes, as stored settings.
func (u Update) changedSettings(t Target) map[string]string {
	out := map[string]string{}
	if u.TargetValue != nil && *u.TargetValue != t.TargetValue {
		out[settingValue] = formatValue(*u.TargetValue)
	}
	if u.NotificationChannels != nil && !slices.Equal(*u.NotificationChannels, t.NotificationChannels) {
		out[settingChannels] = strings.Join(*u.NotificationChannels, ",")
	}
	if u.NotificationType != nil && *u.NotificationType != t.NotificationType {
		out[settingType] = *u.NotificationType
	}
	return out
}
