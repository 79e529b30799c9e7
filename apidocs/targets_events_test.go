package apidocs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"energy/ingest"
	"energy/query/consumption"
	"energy/query/targets"
)

// withTargetEvents wires the intake's stored-data reports to a targets checker, as energyd does.
func withTargetEvents(cfg *ingest.Config) {
	checker := targets.NewChecker(targets.NewStore(cfg.DB), targets.NewOutbox(cfg.DB), cfg.Registry,
		consumption.NewEngine(cfg.DB, cfg.Registry, 0.052), nil, nil)
	cfg.AfterStore = checker.SiteDataStored
}

// smartIndex is one MKT_SMART_DISTRIBUTOR reading of site S1 (one dial, Wh).
func smartIndex(ts time.Time, wh int) string {
	return fmt.Sprintf(`{"siteId":"S1","podId":"PDL-1","ts":%q,"generationTs":%q,"nature":"MKT_SMART_DISTRIBUTOR","value":{"1":%d}}`,
		ts.UTC().Format("2006-01-02T15:04:05Z"), ts.UTC().Format("2006-01-02T15:04:05Z"), wh)
}

func distReadings(items ...string) string {
	return `{"smartElecIndexes":[` + strings.Join(items, ",") + `]}`
}

// eventCounts lists a target's notifications as "EVENT/CHANNEL" → count, all PENDING here.
func eventCounts(t *testing.T, h *jobsHarness, item string) map[string]int {
	t.Helper()
	st, b, _ := h.do("GET", item+"/notifications", h.admin, "")
	if st != http.StatusOK {
		t.Fatalf("notifications: %d %s", st, b)
	}
	var ns []NotificationBody
	if err := json.Unmarshal(b, &ns); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, n := range ns {
		if n.State != "PENDING" || n.Attempts != 0 || n.CreatedTS == "" {
			t.Errorf("notification %+v: want PENDING, no attempt (no sender runs here)", n)
		}
		out[n.Event+"/"+n.Channel]++
	}
	return out
}

func wantCounts(t *testing.T, step string, got map[string]int, want map[string]int) {
	t.Helper()
	var g, w []string
	for k, v := range got {
		g = append(g, fmt.Sprintf("%s=%d", k, v))
	}
	for k, v := range want {
		w = append(w, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(g)
	sort.Strings(w)
	if strings.Join(g, " ") != strings.Join(w, " ") {
		t.Errorf("%s: notifications %v, want %v", step, g, w)
	}
}

// Both events through the real intake: a new distributor reading notifies each channel once
// per job, a re-sent archive notifies nothing, the overrun fires once per targetValue.
func TestTargetEventsFromIngestedArchives(t *testing.T) {
	h := newJobsHarness(t, "", true, withTargetEvents)
	if st, b, _ := h.do("PUT", "/v2/sites/S1", h.admin, `{"siteCustomerId": "C-1", "personCustomerId": "P-1", "contact": {"email": "a@example.org", "phone": "+33612345678"}}`); st != http.StatusOK {
		t.Fatalf("%d %s", st, b)
	}
	// A 365-day target period that started 10 days ago: 10/365 of the yearly value is due now.
	now := time.Now().UTC().Truncate(time.Second)
	begin, end := now.Add(-10*24*time.Hour), now.Add(355*24*time.Hour)
	period := fmt.Sprintf(`"beginDate": %q, "endDate": %q, "type": "ELEC", "unit": "KWH"`, begin.Format("2006-01-02T15:04:05Z"), end.Format("2006-01-02T15:04:05Z"))
	dist := "/v2/sites/S1/targets/" + createTarget(t, h.harness, "/v2/sites/S1/targets", h.admin,
		`{`+period+`, "targetValue": 1000000, "notificationChannels": ["EMAIL", "SMS"], "notificationType": "ON_DIST_INDEX_RECEPTION"}`)
	// 100 kWh used in the 9 first days: above 1000 kWh × 10/365 = 27.4 kWh.
	thr := "/v2/sites/S1/targets/" + createTarget(t, h.harness, "/v2/sites/S1/targets", h.admin,
		`{`+period+`, "targetValue": 1000, "notificationChannels": ["EMAIL"], "notificationType": "THRESHOLD_OVERRUN"}`)
	quiet := "/v2/sites/S1/targets/" + createTarget(t, h.harness, "/v2/sites/S1/targets", h.admin,
		`{`+period+`, "targetValue": 1, "notificationChannels": ["EMAIL"], "notificationType": "NONE"}`)

	first := distReadings(smartIndex(begin, 0), smartIndex(now.Add(-24*time.Hour), 100000))
	h.ingestArchive(h.admin, first)
	wantCounts(t, "first archive", eventCounts(t, h, dist), map[string]int{"ON_DIST_INDEX_RECEPTION/EMAIL": 1, "ON_DIST_INDEX_RECEPTION/SMS": 1})
	wantCounts(t, "first archive", eventCounts(t, h, thr), map[string]int{"THRESHOLD_OVERRUN/EMAIL": 1})

	// The same records again store nothing new: nothing is notified.
	h.ingestArchive(h.admin, first)
	wantCounts(t, "re-sent archive", eventCounts(t, h, dist), map[string]int{"ON_DIST_INDEX_RECEPTION/EMAIL": 1, "ON_DIST_INDEX_RECEPTION/SMS": 1})
	wantCounts(t, "re-sent archive", eventCounts(t, h, thr), map[string]int{"THRESHOLD_OVERRUN/EMAIL": 1})

	// A new reading outside the target period: no reception event; the overrun already fired.
	h.ingestArchive(h.admin, distReadings(smartIndex(begin.Add(-5*24*time.Hour), 0)))
	wantCounts(t, "reading before the period", eventCounts(t, h, dist), map[string]int{"ON_DIST_INDEX_RECEPTION/EMAIL": 1, "ON_DIST_INDEX_RECEPTION/SMS": 1})
	wantCounts(t, "reading before the period", eventCounts(t, h, thr), map[string]int{"THRESHOLD_OVERRUN/EMAIL": 1})

	// A new targetValue re-arms the overrun: the next ingest fires it again, once.
	if st, b, _ := h.do("PUT", thr, h.admin, `{"targetValue": 900}`); st != http.StatusOK {
		t.Fatalf("%d %s", st, b)
	}
	h.ingestArchive(h.admin, distReadings(smartIndex(now.Add(-12*time.Hour), 110000)))
	wantCounts(t, "new reading", eventCounts(t, h, dist), map[string]int{"ON_DIST_INDEX_RECEPTION/EMAIL": 2, "ON_DIST_INDEX_RECEPTION/SMS": 2})
	wantCounts(t, "after targetValue changed", eventCounts(t, h, thr), map[string]int{"THRESHOLD_OVERRUN/EMAIL": 2})
	h.ingestArchive(h.admin, distReadings(smartIndex(now.Add(-6*time.Hour), 111000)))
	wantCounts(t, "same targetValue", eventCounts(t, h, thr), map[string]int{"THRESHOLD_OVERRUN/EMAIL": 2})

	// Under the prorated value (111 kWh < 100000 × 10/365 kWh): no overrun.
	if st, b, _ := h.do("PUT", thr, h.admin, `{"targetValue": 100000}`); st != http.StatusOK {
		t.Fatalf("%d %s", st, b)
	}
	h.ingestArchive(h.admin, distReadings(smartIndex(now.Add(-3*time.Hour), 111500)))
	wantCounts(t, "under the target", eventCounts(t, h, thr), map[string]int{"THRESHOLD_OVERRUN/EMAIL": 2})
	wantCounts(t, "NONE", eventCounts(t, h, quiet), map[string]int{})

	// The messages say what happened, with the figures. Both overruns can be stamped in the same
	// second, so the listing's order does not tell which is which: each is looked for.
	bodies := messageBodies(t, h, thr, 2)
	for _, want := range []string{"has used 100.00 KWH, above the 27.40 KWH planned", "has used 110.00 KWH, above the 24.66 KWH planned"} {
		if !strings.Contains(bodies[0], want) && !strings.Contains(bodies[1], want) {
			t.Errorf("no overrun body says %q: %q", want, bodies)
		}
	}
}

// messageBodies returns the bodies of the n notifications of a target (its path), newest first.
func messageBodies(t *testing.T, h *jobsHarness, item string, n int) []string {
	t.Helper()
	ns, err := targets.NewOutbox(h.db).List(context.Background(), "acme", "S1", strings.TrimPrefix(item, "/v2/sites/S1/targets/"))
	if err != nil || len(ns) != n {
		t.Fatalf("notifications of %s: %v, %d, want %d", item, err, len(ns), n)
	}
	out := make([]string, n)
	for i, x := range ns {
		out[i] = x.Body
	}
	return out
}

// A EURO target is checked on the cost the consumption engine computes, standing charge
// included: 100 kWh at 0.25 EUR (25.00) plus 10 days of a 36.50 EUR/year subscription (1.00)
// make 26.00 EUR. 930 EUR a year prorated to 10 days is 25.48 EUR: the energy alone (25.00)
// would stay under it, the cost with the standing charge is above. 1000 EUR (27.40) is not
// overrun.
func TestThresholdOverrunInEurosCountsTheStandingCharge(t *testing.T) {
	h := newJobsHarness(t, "", true, withTargetEvents)
	for _, put := range [][2]string{
		{"/v2/tariffs/T1", `{"option":"BASE","dialHeadings":{"1":"BASE"},"prices":[{"validFrom":"2020-01-01","byHeading":{"BASE":0.25}}],"standingCharges":[{"validFrom":"2020-01-01","yearly":{"subscription":36.5}}]}`},
		{"/v2/sites/S1", `{"siteCustomerId": "C-1", "personCustomerId": "P-1", "tariffId": "T1", "contact": {"email": "a@example.org"}}`},
	} {
		if st, b, _ := h.do("PUT", put[0], h.admin, put[1]); st != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", put[0], st, b)
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	begin, end := now.Add(-10*24*time.Hour), now.Add(355*24*time.Hour)
	target := func(value int) string {
		return "/v2/sites/S1/targets/" + createTarget(t, h.harness, "/v2/sites/S1/targets", h.admin, fmt.Sprintf(
			`{"beginDate": %q, "endDate": %q, "type": "ELEC", "unit": "EURO", "targetValue": %d, "notificationChannels": ["EMAIL"], "notificationType": "THRESHOLD_OVERRUN"}`,
			begin.Format(time.RFC3339), end.Format(time.RFC3339), value))
	}
	over, under := target(930), target(1000)
	h.ingestArchive(h.admin, distReadings(smartIndex(begin, 0), smartIndex(now.Add(-24*time.Hour), 100000)))
	wantCounts(t, "930 EUR", eventCounts(t, h, over), map[string]int{"THRESHOLD_OVERRUN/EMAIL": 1})
	wantCounts(t, "1000 EUR", eventCounts(t, h, under), map[string]int{})
	if body, want := messageBodies(t, h, over, 1)[0], "has used 26.00 EURO, above the 25.48 EURO planned"; !strings.Contains(body, want) {
		t.Errorf("overrun body %q does not say %q", body, want)
	}
}
