package apidocs

import (
	"context"
	"net/http"
	"testing"
	"time"

	"energy/schema/audit"
)

// Every admin change of the test is in the audit trail, with the token that made it and the
// digests of the resource before and after: token creation and revocation (by energyctl's
// actor), station, tariff, site (twice: the second change's "before" is the first one's
// "after"), heating schedule, target creation and update.
func TestAuditTrailRecordsEveryAdminChange(t *testing.T) {
	h := newHarness(t)
	ctx := audit.WithActor(context.Background(), audit.CommandLine("operator"))
	secret, admin, err := h.reg.CreateToken(ctx, "audited", []string{"admin"}, 0, "audit test")
	if err != nil {
		t.Fatal(err)
	}
	_, spare, err := h.reg.CreateToken(ctx, "audited", []string{"read"}, 0, "to revoke")
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []struct{ method, path, body string }{
		{"PUT", "/v1/weather-stations/W1", `{"name": "Paris", "latitude": 48.8, "longitude": 2.3}`},
		{"PUT", "/v2/tariffs/HPHC-2024", hphcTariffJSON},
		{"PUT", "/v2/sites/S1", `{"tariffId": "HPHC-2024", "weatherStationId": "W1"}`},
		{"PUT", "/v2/sites/S1", `{"tariffId": "HPHC-2024", "weatherStationId": "W1", "timezone": "Europe/Berlin"}`},
		{"PUT", "/v1/sites/S1/heating-schedule", `{"temperatures":{"COMFORT":20,"ECO":17},"weeklyCalendar":[{"offset":420,"temperature":"COMFORT"}]}`},
	} {
		if st, body, _ := h.do(req.method, req.path, secret, req.body); st != http.StatusOK {
			t.Fatalf("%s %s: %d %s", req.method, req.path, st, body)
		}
	}
	target := createTarget(t, h, "/v2/sites/S1/targets", secret, newTarget)
	if st, body, _ := h.do("PUT", "/v2/sites/S1/targets/"+target, secret, `{"targetValue": 5000}`); st != http.StatusOK {
		t.Fatalf("update target: %d %s", st, body)
	}
	if _, err := h.reg.RevokeToken(ctx, spare.TokenID); err != nil {
		t.Fatal(err)
	}
	// A refused change (an unknown tariff) changes nothing and is not in the trail.
	if st, _, _ := h.do("PUT", "/v2/sites/S2", secret, `{"tariffId": "NOPE"}`); st != http.StatusBadRequest {
		t.Fatalf("site with an unknown tariff: %d, want 400", st)
	}

	events, err := audit.Events(context.Background(), h.db, "audited", time.Now().Add(-time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ token, action, resource string }{
		{"energyctl:operator", audit.TokenCreate, "tokens/" + admin.TokenID},
		{"energyctl:operator", audit.TokenCreate, "tokens/" + spare.TokenID},
		{admin.TokenID, audit.StationPut, "weather-stations/W1"},
		{admin.TokenID, audit.TariffPut, "tariffs/HPHC-2024"},
		{admin.TokenID, audit.SitePut, "sites/S1"},
		{admin.TokenID, audit.SitePut, "sites/S1"},
		{admin.TokenID, audit.HeatingSchedulePut, "sites/S1/heating-schedule"},
		{admin.TokenID, audit.TargetCreate, "sites/S1/targets/" + target},
		{admin.TokenID, audit.TargetUpdate, "sites/S1/targets/" + target},
		{"energyctl:operator", audit.TokenRevoke, "tokens/" + spare.TokenID},
	}
	if len(events) != len(want) {
		for _, e := range events {
			t.Logf("%+v", e)
		}
		t.Fatalf("%d audit events, want %d", len(events), len(want))
	}
	// Events are in the order they were made (event_ts, then a time-ordered event_id).
	found := events
	for i, w := range want {
		if e := events[i]; e.TokenID != w.token || e.Action != w.action || e.Resource != w.resource || e.TenantID != "audited" {
			t.Fatalf("audit event %d: %+v, want %+v of tenant audited", i, e, w)
		}
	}
	for i, w := range want {
		e := found[i]
		creation := w.action == audit.TokenCreate || w.action == audit.TargetCreate || i == 2 || i == 3 || i == 4 || i == 6
		if creation != (e.BeforeDigest == "") || len(e.AfterDigest) != 64 {
			t.Errorf("%s %s: before %q after %q (a creation has no before; every change has an after)", w.action, w.resource, e.BeforeDigest, e.AfterDigest)
		}
		if e.BeforeDigest == e.AfterDigest {
			t.Errorf("%s %s: the same digest before and after a change", w.action, w.resource)
		}
	}
	if found[5].BeforeDigest != found[4].AfterDigest {
		t.Errorf("second site change: before %s, want the first change's after %s", found[5].BeforeDigest, found[4].AfterDigest)
	}
}
