package apidocs

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// targetSite creates site SITE-T of tenant acme with a contact and returns its targets path.
func targetSite(t *testing.T, h *harness) string {
	t.Helper()
	st, body, _ := h.do("PUT", "/v2/sites/SITE-T", h.admin, `{"contact": {"email": "a@example.org", "phone": "+33612345678"}}`)
	if st != http.StatusOK {
		t.Fatalf("put site: %d %s", st, body)
	}
	return "/v2/sites/SITE-T/targets"
}

const newTarget = `{"beginDate": "2025-01-01T00:00:00Z", "endDate": "2026-01-01T00:00:00Z", "type": "ELEC", "unit": "KWH",
  "targetValue": 4200, "defaultTargetValue": 4800, "notificationChannels": ["EMAIL"], "notificationType": "THRESHOLD_OVERRUN",
  "name": "Objective 2025", "generationTs": "2000-01-01T00:00:00Z"}`

func createTarget(t *testing.T, h *harness, path, token, body string) string {
	t.Helper()
	st, b, _ := h.do("POST", path, token, body)
	if st != http.StatusCreated {
		t.Fatalf("create target: %d %s", st, b)
	}
	var out struct{ TargetID string }
	if err := json.Unmarshal(b, &out); err != nil || out.TargetID == "" {
		t.Fatalf("create answer %s: %v", b, err)
	}
	return out.TargetID
}

func getTarget(t *testing.T, h *harness, path string) map[string]any {
	t.Helper()
	st, b, _ := h.do("GET", path, h.admin, "")
	if st != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, st, b)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTargetCreateReadUpdate(t *testing.T) {
	h := newHarness(t)
	path := targetSite(t, h)
	writer := h.token("acme", "targets")
	id := createTarget(t, h, path, writer, newTarget)
	item := path + "/" + id

	got := getTarget(t, h, item)
	want := map[string]any{"targetId": id, "beginDate": "2025-01-01T00:00:00Z", "endDate": "2026-01-01T00:00:00Z", "type": "ELEC",
		"unit": "KWH", "targetValue": 4200.0, "defaultTargetValue": 4800.0, "siteId": "SITE-T", "notificationType": "THRESHOLD_OVERRUN",
		"name": "Objective 2025"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if got["generationTs"] == "2000-01-01T00:00:00Z" || got["generationTs"] == "" {
		t.Errorf("generationTs %v: the service sets it, a sent one is ignored", got["generationTs"])
	}
	if fmt.Sprint(got["notificationChannels"]) != "[EMAIL]" {
		t.Errorf("notificationChannels %v", got["notificationChannels"])
	}

	// Absent fields stay; the fixed fields may be sent unchanged.
	st, b, _ := h.do("PUT", item, writer, fmt.Sprintf(`{"targetValue": 3900.5, "type": "ELEC", "siteId": "SITE-T", "targetId": %q,
		"beginDate": "2025-01-01T00:00:00Z", "generationTs": %q, "defaultTargetValue": 4800, "name": "Objective 2025"}`, id, got["generationTs"]))
	if st != http.StatusOK || string(b) != fmt.Sprintf(`{"targetId":%q}`, id) && string(b) != fmt.Sprintf("{\"targetId\":%q}\n", id) {
		t.Fatalf("PUT: %d %s", st, b)
	}
	got = getTarget(t, h, item)
	if got["targetValue"] != 3900.5 || got["notificationType"] != "THRESHOLD_OVERRUN" || fmt.Sprint(got["notificationChannels"]) != "[EMAIL]" {
		t.Errorf("after PUT targetValue: %v", got)
	}
	st, b, _ = h.do("PUT", item, writer, `{"notificationChannels": ["SMS", "EMAIL"], "notificationType": "ON_DIST_INDEX_RECEPTION"}`)
	if st != http.StatusOK {
		t.Fatalf("PUT: %d %s", st, b)
	}
	got = getTarget(t, h, item)
	if got["targetValue"] != 3900.5 || got["notificationType"] != "ON_DIST_INDEX_RECEPTION" || fmt.Sprint(got["notificationChannels"]) != "[SMS EMAIL]" {
		t.Errorf("after PUT channels: %v", got)
	}

	// The collection lists it; a second target comes after it.
	second := createTarget(t, h, path, h.admin, `{"beginDate": "2025-06-01T00:00:00Z", "endDate": "2025-07-01T00:00:00Z", "type": "ELEC", "unit": "EURO", "targetValue": 0}`)
	st, b, _ = h.do("GET", path, h.token("acme", "read"), "")
	var list []map[string]any
	if st != http.StatusOK || json.Unmarshal(b, &list) != nil || len(list) != 2 {
		t.Fatalf("list: %d %s", st, b)
	}
	if list[0]["targetId"] != id || list[1]["targetId"] != second || list[1]["notificationType"] != "NONE" || fmt.Sprint(list[1]["notificationChannels"]) != "[]" {
		t.Errorf("list: %s", b)
	}
	if _, ok := list[1]["defaultTargetValue"]; ok {
		t.Errorf("defaultTargetValue not given, yet listed: %s", b)
	}
}

func TestTargetUpdateOfFixedFieldsIs422NamingEach(t *testing.T) {
	h := newHarness(t)
	path := targetSite(t, h)
	id := createTarget(t, h, path, h.admin, newTarget)
	item := path + "/" + id
	before := getTarget(t, h, item)

	st, b, hdr := h.do("PUT", item, h.admin, `{"targetValue": 1, "unit": "EURO", "endDate": "2026-06-01T00:00:00Z", "name": "other", "type": "ELEC"}`)
	h.wantError(st, b, hdr, http.StatusUnprocessableEntity, "TARGET_FIELD_NOT_UPDATABLE", "unit", "endDate", "name")
	for _, f := range []string{"generationTs", "beginDate", "defaultTargetValue", "targetId", "siteId"} {
		body := map[string]string{"generationTs": `"2025-01-01T00:00:00Z"`, "beginDate": `"2025-01-02T00:00:00Z"`, "defaultTargetValue": "1",
			"targetId": `"other"`, "siteId": `"SITE-U"`}[f]
		st, b, hdr = h.do("PUT", item, h.admin, fmt.Sprintf(`{"notificationType": "NONE", %q: %s}`, f, body))
		h.wantError(st, b, hdr, http.StatusUnprocessableEntity, "TARGET_FIELD_NOT_UPDATABLE", f)
	}
	if after := getTarget(t, h, item); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("a refused update changed the target:\n%v\n%v", before, after)
	}
}

func TestTargetBadValuesAre400NamingTheField(t *testing.T) {
	h := newHarness(t)
	path := targetSite(t, h)
	id := createTarget(t, h, path, h.admin, newTarget)
	item := path + "/" + id
	before := getTarget(t, h, item)
	for _, c := range []struct{ body, field string }{
		{`{"targetValue": -1}`, "targetValue"},
		{`{"targetValue": "12"}`, "targetValue"},
		{`{"notificationChannels": ["EMAIL", "EMAIL"]}`, "notificationChannels"},
		{`{"notificationChannels": ["FAX"]}`, "notificationChannels"},
		{`{"notificationType": "ALWAYS"}`, "notificationType"},
		{`{"colour": "red"}`, "colour"},
		{`{"beginDate": "2025-01-01"}`, "beginDate"},
	} {
		st, b, hdr := h.do("PUT", item, h.admin, c.body)
		h.wantError(st, b, hdr, http.StatusBadRequest, "INVALID_PARAMETER", c.field)
	}
	if after := getTarget(t, h, item); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("a refused update changed the target:\n%v\n%v", before, after)
	}
	for _, c := range []struct{ body, field string }{
		{`{"endDate": "2026-01-01T00:00:00Z", "type": "ELEC", "unit": "KWH", "targetValue": 1}`, "beginDate"},
		{`{"beginDate": "2026-01-01T00:00:00Z", "endDate": "2025-01-01T00:00:00Z", "type": "ELEC", "unit": "KWH", "targetValue": 1}`, "endDate"},
		{`{"beginDate": "2025-01-01T00:00:00Z", "endDate": "2026-01-01T00:00:00Z", "type": "GAS", "unit": "KWH", "targetValue": 1}`, "type"},
		{`{"beginDate": "2025-01-01T00:00:00Z", "endDate": "2026-01-01T00:00:00Z", "type": "ELEC", "unit": "MWH", "targetValue": 1}`, "unit"},
		{`{"beginDate": "2025-01-01T00:00:00Z", "endDate": "2026-01-01T00:00:00Z", "type": "ELEC", "unit": "KWH"}`, "targetValue"},
		{`{"targetId": "mine", "beginDate": "2025-01-01T00:00:00Z", "endDate": "2026-01-01T00:00:00Z", "type": "ELEC", "unit": "KWH", "targetValue": 1}`, "targetId"},
		{`{"siteId": "SITE-U", "beginDate": "2025-01-01T00:00:00Z", "endDate": "2026-01-01T00:00:00Z", "type": "ELEC", "unit": "KWH", "targetValue": 1}`, "siteId"},
	} {
		st, b, hdr := h.do("POST", path, h.admin, c.body)
		h.wantError(st, b, hdr, http.StatusBadRequest, "INVALID_PARAMETER", c.field)
	}
	st, b, _ := h.do("GET", path, h.admin, "")
	if st != http.StatusOK || len(b) < 2 {
		t.Fatalf("list: %d %s", st, b)
	}
	var list []any
	if json.Unmarshal(b, &list); len(list) != 1 {
		t.Errorf("refused creations stored targets: %s", b)
	}
}

func TestTargetNotFoundScopesAndTenants(t *testing.T) {
	h := newHarness(t)
	path := targetSite(t, h)
	id := createTarget(t, h, path, h.admin, newTarget)
	item := path + "/" + id

	st, b, hdr := h.do("GET", path+"/no-such-target", h.admin, "")
	h.wantError(st, b, hdr, http.StatusNotFound, "TARGET_NOT_FOUND", "no-such-target")
	st, b, hdr = h.do("PUT", path+"/no-such-target", h.admin, `{"targetValue": 1}`)
	h.wantError(st, b, hdr, http.StatusNotFound, "TARGET_NOT_FOUND", "no-such-target")
	st, b, hdr = h.do("PUT", "/v2/sites/NOPE/targets/"+id, h.admin, `{"targetValue": 1}`)
	h.wantError(st, b, hdr, http.StatusNotFound, "SITE_NOT_FOUND", "NOPE")
	st, b, hdr = h.do("POST", "/v2/sites/NOPE/targets", h.admin, newTarget)
	h.wantError(st, b, hdr, http.StatusNotFound, "SITE_NOT_FOUND", "NOPE")

	// Another tenant sees neither the site nor the target, even with its own site of that id.
	other := h.token("globex", "admin")
	for _, m := range []string{"GET", "PUT"} {
		st, b, hdr = h.do(m, item, other, map[string]string{"PUT": `{"targetValue": 1}`}[m])
		h.wantError(st, b, hdr, http.StatusNotFound, "SITE_NOT_FOUND", "SITE-T")
	}
	if st, b, _ = h.do("PUT", "/v2/sites/SITE-T", other, `{}`); st != http.StatusOK {
		t.Fatalf("%d %s", st, b)
	}
	st, b, hdr = h.do("GET", item, other, "")
	h.wantError(st, b, hdr, http.StatusNotFound, "TARGET_NOT_FOUND", id)
	st, b, hdr = h.do("PUT", item, other, `{"targetValue": 1}`)
	h.wantError(st, b, hdr, http.StatusNotFound, "TARGET_NOT_FOUND", id)
	if got := getTarget(t, h, item); got["targetValue"] != 4200.0 {
		t.Errorf("another tenant changed the target: %v", got)
	}

	// Scopes: read may read, not write; collect may do neither; no token is 401.
	reader, collector := h.token("acme", "read"), h.token("acme", "collect")
	if st, b, _ = h.do("GET", item+"/notifications", reader, ""); st != http.StatusOK || string(b) != "[]" && string(b) != "[]\n" {
		t.Errorf("notifications of a fresh target: %d %s", st, b)
	}
	st, b, hdr = h.do("PUT", item, reader, `{"targetValue": 1}`)
	h.wantError(st, b, hdr, http.StatusForbidden, "ACCESS_DENIED", "targets")
	st, b, hdr = h.do("POST", path, reader, newTarget)
	h.wantError(st, b, hdr, http.StatusForbidden, "ACCESS_DENIED", "targets")
	st, b, hdr = h.do("GET", item, collector, "")
	h.wantError(st, b, hdr, http.StatusForbidden, "ACCESS_DENIED")
	st, b, hdr = h.do("PUT", item, "", `{"targetValue": 1}`)
	h.wantError(st, b, hdr, http.StatusUnauthorized, "INVALID_AUTHORIZATION_HEADER_VALUE")
}

// Updates of different fields at the same time all stay: none is lost to another's write.
func TestTargetConcurrentUpdatesKeepEveryField(t *testing.T) {
	h := newHarness(t)
	path := targetSite(t, h)
	id := createTarget(t, h, path, h.admin, newTarget)
	item := path + "/" + id
	for round := range 5 {
		value := float64(1000 + round)
		channels := [][]string{{"SMS"}, {"EMAIL", "SMS"}}[round%2]
		ntype := []string{"NONE", "ON_DIST_INDEX_RECEPTION"}[round%2]
		bodies := []string{fmt.Sprintf(`{"targetValue": %v}`, value), fmt.Sprintf(`{"notificationChannels": %s}`, mustJSON(t, channels)),
			fmt.Sprintf(`{"notificationType": %q}`, ntype)}
		var wg sync.WaitGroup
		for _, body := range bodies {
			wg.Go(func() {
				if st, b, _ := h.do("PUT", item, h.admin, body); st != http.StatusOK {
					t.Errorf("PUT %s: %d %s", body, st, b)
				}
			})
		}
		wg.Wait()
		got := getTarget(t, h, item)
		if got["targetValue"] != value || fmt.Sprint(got["notificationChannels"]) != fmt.Sprint(channels) || got["notificationType"] != ntype {
			t.Fatalf("round %d: %v, want targetValue %v, channels %v, type %v", round, got, value, channels, ntype)
		}
	}
}

func TestSiteContactIsValidatedAndStored(t *testing.T) {
	h := newHarness(t)
	targetSite(t, h)
	st, b, _ := h.do("GET", "/v2/sites/SITE-T", h.admin, "")
	var site struct{ Contact struct{ Email, Phone string } }
	if st != http.StatusOK || json.Unmarshal(b, &site) != nil || site.Contact.Email != "a@example.org" || site.Contact.Phone != "+33612345678" {
		t.Fatalf("site with contact: %d %s", st, b)
	}
	for _, c := range []struct{ body, field string }{
		{`{"contact": {"email": "not an address"}}`, "contact.email"},
		{`{"contact": {"email": "Ann <a@example.org>"}}`, "contact.email"},
		{`{"contact": {"phone": "0612345678"}}`, "contact.phone"},
		{`{"contact": {"phone": "+33 6 12 34 56 78"}}`, "contact.phone"},
		{`{"contact": {"fax": "+33612345678"}}`, "fax"},
	} {
		st, b, hdr := h.do("PUT", "/v2/sites/SITE-T", h.admin, c.body)
		h.wantError(st, b, hdr, http.StatusBadRequest, "INVALID_PARAMETER", c.field)
	}
	// A PUT without contact replaces the site whole: the contact is gone.
	if st, b, _ = h.do("PUT", "/v2/sites/SITE-T", h.admin, `{}`); st != http.StatusOK {
		t.Fatalf("%d %s", st, b)
	}
	if st, b, _ = h.do("GET", "/v2/sites/SITE-T", h.admin, ""); st != http.StatusOK || strings.Contains(string(b), "contact") {
		t.Errorf("contact kept after a PUT without it: %s", b)
	}
}
