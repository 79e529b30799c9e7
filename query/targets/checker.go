package targets

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"energy/query/consumption"
	"energy/schema/registry"
	"energy/schema/sitedata"
)

// Consumptions computes a site's consumption: the consumption engine, the one source of
// energy and cost figures.
type Consumptions interface {
	Compute(ctx context.Context, site registry.Site, req consumption.Request) (*consumption.ConsumptionResult, error)
}

// Checker turns stored data into notifications in the outbox.
type Checker struct {
	targets      *Store
	outbox       *Outbox
	reg          *registry.Store
	consumptions Consumptions
	wake         func()
	log          *slog.Logger
	now          func() time.Time
}

// NewChecker returns a checker; wake (may be nil) is called after notifications are written.
func NewChecker(targets *Store, outbox *Outbox, reg *registry.Store, consumptions Consumptions, wake func(), log *slog.Logger) *Checker {
	if log == nil {
		log = slog.Default()
	}
	return &Checker{targets: targets, outbox: outbox, reg: reg, consumptions: consumptions, wake: wake, log: log.With("component", "targets"), now: time.Now}
}

// SiteDataStored writes the notifications a job's data triggers: ON_DIST_INDEX_RECEPTION for
// targets whose period holds a new distributor reading, THRESHOLD_OVERRUN for targets whose
// consumption since beginDate now exceeds the prorated targetValue. Notification ids are
// derived from the event, so running it again for the same job writes nothing new.
func (c *Checker) SiteDataStored(ctx context.Context, d sitedata.Stored) error {
	var ns []Notification
	for _, s := range d.Sites {
		ts, err := c.targets.List(ctx, d.TenantID, s.SiteID)
		if err != nil {
			return err
		}
		var site *registry.Site
		for _, t := range ts {
			if len(t.NotificationChannels) == 0 {
				continue
			}
			var subject, body, occurrence string
			switch t.NotificationType {
			case NotifyDistIndex:
				reading, ok := firstWithin(s.NewDistributorReadings, t.Begin, t.End)
				if !ok {
					continue
				}
				occurrence = "job:" + d.JobID
				subject = fmt.Sprintf("%s: new meter reading", targetName(t))
				body = fmt.Sprintf("A new meter reading of site %s was received (read %s).\nYour target: %s %s from %s to %s.",
					t.SiteID, reading.Format(time.RFC3339), formatValue(t.TargetValue), t.Unit, day(t.Begin), day(t.End))
			case NotifyThreshold:
				if site == nil {
					st, err := c.reg.Directory.Site(ctx, d.TenantID, s.SiteID)
					if errors.Is(err, registry.ErrNotFound) {
						break
					} else if err != nil {
						return err
					}
					site = &st
				}
				over, used, prorated, upTo, err := c.overrun(ctx, *site, t)
				if err != nil {
					return err
				}
				if !over {
					continue
				}
				occurrence = "value:" + strconv.FormatUint(t.ValueRevision, 10)
				subject = fmt.Sprintf("%s: consumption above target", targetName(t))
				body = fmt.Sprintf("Since %s site %s has used %s %s, above the %s %s planned up to %s (target %s %s from %s to %s).",
					day(t.Begin), t.SiteID, round2(used), t.Unit, round2(prorated), t.Unit, upTo.Format(time.RFC3339),
					formatValue(t.TargetValue), t.Unit, day(t.Begin), day(t.End))
			default:
				continue
			}
			if occurrence == "" {
				continue
			}
			for _, ch := range t.NotificationChannels {
				ns = append(ns, Notification{TenantID: d.TenantID, SiteID: t.SiteID, TargetID: t.TargetID,
					ID:    notificationID(d.TenantID, t.SiteID, t.TargetID, t.NotificationType, occurrence, ch),
					Event: t.NotificationType, Channel: ch, Occurrence: occurrence, Subject: subject, Body: body})
			}
		}
		if err := c.outbox.add(ctx, ns); err != nil {
			return err
		}
		ns = ns[:0]
	}
	if c.wake != nil {
		c.wake()
	}
	return nil
}

// overrun compares the site's consumption since the target's beginDate (kWh, or EUR with
// the standing charge) with targetValue prorated to now: targetValue × the elapsed share of
// [beginDate, endDate).
func (c *Checker) overrun(ctx context.Context, site registry.Site, t Target) (over bool, used, prorated float64, upTo time.Time, err error) {
	upTo = c.now().UTC().Truncate(time.Second)
	if upTo.After(t.End) {
		upTo = t.End
	}
	if !upTo.After(t.Begin) {
		return false, 0, 0, upTo, nil
	}
	prorated = t.TargetValue * upTo.Sub(t.Begin).Seconds() / t.End.Sub(t.Begin).Seconds()
	// Targets are of type ELEC: the site's electricity, priced as the consumption endpoint does.
	res, err := c.consumptions.Compute(ctx, site, consumption.Request{Fluid: consumption.FluidElec, Start: t.Begin, End: upTo, StepValue: 1,
		IndexStrategy: consumption.StrategySurroundingEstimated})
	if err != nil || len(res.Consumptions) == 0 {
		return false, 0, prorated, upTo, err
	}
	item := res.Consumptions[0]
	switch t.Unit {
	case UnitKWh:
		if item.EnergyMeter.Total == nil {
			return false, 0, prorated, upTo, nil
		}
		used = *item.EnergyMeter.Total / 1000
	case UnitEuro:
		if item.Cost == nil {
			c.log.Warn("EURO target of a site without cost (no tariff): not checked", "site", site.SiteID, "target", t.TargetID)
			return false, 0, prorated, upTo, nil
		}
		used = item.Cost.Total
	}
	return used > prorated, used, prorated, upTo, nil
}

// firstWithin returns the first instant of ts inside [begin, end).
func firstWithin(ts []time.Time, begin, end time.Time) (time.Time, bool) {
	for _, x := range ts {
		if !x.Before(begin) && x.Before(end) {
			return x, true
		}
	}
	return time.Time{}, false
}

func targetName(t Target) string {
	if t.Name != "" {
		return t.Name
	}
	return "Target " + t.TargetID
}

func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

func round2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
