package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"energy/query/targets"
	"energy/schema/registry"
)

func TestTargetListGetAndNotifications(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	if err := c.reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: "S1", Contact: &registry.Contact{Email: "a@example.org"}}); err != nil {
		t.Fatal(err)
	}
	tg, err := targets.NewStore(c.reg.DB()).Create(ctx, targets.Target{TenantID: "acme", SiteID: "S1",
		Begin: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Type: "ELEC", Unit: "KWH", TargetValue: 4200, NotificationChannels: []string{"EMAIL"}, NotificationType: "ON_DIST_INDEX_RECEPTION", Name: "home"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := targetList(ctx, c.args("--tenant", "acme"), &out); err != nil {
		t.Fatal(err)
	}
	if fields := strings.Fields(out.String()); strings.Join(fields[7:], " ") != tg.TargetID+" S1 2025-01-01..2026-01-01 4200 KWH ON_DIST_INDEX_RECEPTION EMAIL home" {
		t.Errorf("target list:\n%s", out.String())
	}
	out.Reset()
	if err := targetList(ctx, c.args("--tenant", "other"), &out); err != nil || strings.Contains(out.String(), tg.TargetID) {
		t.Errorf("another tenant lists the target: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := targetGet(ctx, c.args(tg.TargetID, "--tenant", "acme"), &out); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got["targetValue"] != 4200.0 || got["siteId"] != "S1" || got["beginDate"] != "2025-01-01T00:00:00Z" {
		t.Errorf("target get: %v\n%s", err, out.String())
	}
	if err := targetGet(ctx, c.args("nope", "--tenant", "acme"), &out); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("unknown target: %v", err)
	}
	out.Reset()
	if err := notificationList(ctx, c.args(tg.TargetID, "--tenant", "acme"), &out); err != nil || !strings.HasPrefix(out.String(), "CREATED") {
		t.Errorf("notifications: %v\n%s", err, out.String())
	}
}
