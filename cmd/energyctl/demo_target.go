package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"energy/bench/synth"
)

// The demo's target: its first site gets a yearly objective for the last demo year below what
// its readings add up to, notified by EMAIL and SMS on overrun, so that loading the readings
// writes THRESHOLD_OVERRUN notifications (delivered when energyd has --smtp-url and
// --sms-gateway-url, else FAILED saying which setting is missing).

// demoTargetName names the demo's target: running the demo again finds it instead of adding
// another.
const demoTargetName = "demo objective"

// demoContact receives the demo target's notifications: an address of the domain reserved for
// examples, a number of the French range reserved for fiction.
var demoContact = map[string]string{"email": "demo@example.org", "phone": "+33639980001"}

// demoTargetShare is the objective's share of the site's generated energy of the year.
const demoTargetShare = 0.8

// demoTargetKWh is the objective: demoTargetShare of the site's load-curve energy in year,
// rounded down to 100 kWh.
func demoTargetKWh(s demoSeries, year int) float64 {
	var wh int64
	for _, d := range s.Days {
		if d.Date.Year() == year {
			hc, hp := d.energyWh()
			wh += hc + hp
		}
	}
	return math.Floor(float64(wh)/1000*demoTargetShare/100) * 100
}

// putDemoTarget creates the demo target of site s unless it exists, and returns its id.
func putDemoTarget(ctx context.Context, c *apiClient, o demoOptions, s demoSeries) (string, error) {
	existing, err := c.api.ListTargetsWithResponse(ctx, s.Site.SiteID)
	if err := c.outcome(ctx, existing, err, "read"); err != nil {
		return "", fmt.Errorf("list the targets of %s: %w", s.Site.SiteID, err)
	}
	if existing.JSON200 == nil {
		return "", fmt.Errorf("list the targets of %s: no targets in the answer (HTTP %d)", s.Site.SiteID, existing.StatusCode())
	}
	for _, t := range *existing.JSON200 {
		if t.Name != nil && *t.Name == demoTargetName {
			return t.TargetId, nil
		}
	}
	loc, err := time.LoadLocation(synth.Timezone)
	if err != nil {
		return "", err
	}
	// The site's calendar year, as Timestamp-Z.
	body, err := json.Marshal(map[string]any{
		"beginDate": tsZ(time.Date(o.year, 1, 1, 0, 0, 0, 0, loc)), "endDate": tsZ(time.Date(o.year+1, 1, 1, 0, 0, 0, 0, loc)),
		"type": "ELEC", "unit": "KWH", "targetValue": demoTargetKWh(s, o.year), "notificationChannels": []string{"EMAIL", "SMS"},
		"notificationType": "THRESHOLD_OVERRUN", "name": demoTargetName,
	})
	if err != nil {
		return "", err
	}
	created, err := c.api.CreateTargetWithBodyWithResponse(ctx, s.Site.SiteID, "application/json", bytes.NewReader(body))
	if err := c.outcome(ctx, created, err, "targets"); err != nil {
		return "", fmt.Errorf("create the demo target of %s: %w", s.Site.SiteID, err)
	}
	if created.JSON201 == nil {
		return "", fmt.Errorf("create the demo target of %s: no targetId in the answer (HTTP %d)", s.Site.SiteID, created.StatusCode())
	}
	return created.JSON201.TargetId, nil
}
