package apidocs

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"energy/schema/registry"
)

func TestHeatingScheduleDefaultPutAndGet(t *testing.T) {
	h := newHarness(t)
	reader := h.token("acme", "read")
	if st, body, _ := h.do("PUT", "/v2/sites/S1", h.admin, `{}`); st != 200 {
		t.Fatalf("site: %d %s", st, body)
	}
	st, body, _ := h.do("GET", "/v1/sites/S1/heating-schedule", reader, "")
	var got HeatingScheduleAnswer
	if st != 200 || json.Unmarshal(body, &got) != nil {
		t.Fatalf("GET default: %d %s", st, body)
	}
	if !reflect.DeepEqual(got.HeatingSchedule, HeatingScheduleJSON(registry.DefaultHeatingSchedule())) || len(got.HeatingSchedule.WeeklyCalendar) != 14 ||
		got.HeatingSchedule.WeeklyCalendar[1] != (ScheduleSwitchBody{Offset: 1320, Temperature: "ECO"}) {
		t.Fatalf("default schedule %s", body)
	}

	// Bare body, FROST_PROTECTION left out: stored with 7 °C.
	st, body, _ = h.do("PUT", "/v1/sites/S1/heating-schedule", h.admin,
		`{"temperatures":{"COMFORT":20,"ECO":17},"weeklyCalendar":[{"offset":420,"temperature":"COMFORT"},{"offset":1380,"temperature":"ECO"}]}`)
	want := `{"heatingSchedule":{"temperatures":{"COMFORT":20,"ECO":17,"FROST_PROTECTION":7},"weeklyCalendar":[{"offset":420,"temperature":"COMFORT"},{"offset":1380,"temperature":"ECO"}]}}`
	if st != 200 || !sameJSON(body, want) {
		t.Fatalf("PUT bare: %d %s", st, body)
	}
	if st, body, _ = h.do("GET", "/v1/sites/S1/heating-schedule", reader, ""); st != 200 || !sameJSON(body, want) {
		t.Fatalf("GET after PUT: %d %s", st, body)
	}
	// Wrapped body.
	wrapped := `{"heatingSchedule":{"temperatures":{"COMFORT":21,"ECO":15,"FROST_PROTECTION":8},"weeklyCalendar":[{"offset":0,"temperature":"FROST_PROTECTION"},{"offset":360,"temperature":"COMFORT"}]}}`
	if st, body, _ = h.do("PUT", "/v1/sites/S1/heating-schedule", h.admin, wrapped); st != 200 || !sameJSON(body, wrapped) {
		t.Fatalf("PUT wrapped: %d %s", st, body)
	}
	if st, body, _ = h.do("GET", "/v1/sites/S1/heating-schedule", reader, ""); st != 200 || !sameJSON(body, wrapped) {
		t.Fatalf("GET after wrapped PUT: %d %s", st, body)
	}

	st, body, hdr := h.do("PUT", "/v1/sites/S1/heating-schedule", reader, wrapped)
	h.wantError(st, body, hdr, http.StatusForbidden, "ACCESS_DENIED")
	st, body, hdr = h.do("GET", "/v1/sites/NOPE/heating-schedule", reader, "")
	h.wantError(st, body, hdr, http.StatusNotFound, "SITE_NOT_FOUND", "NOPE")
	st, body, hdr = h.do("PUT", "/v1/sites/NOPE/heating-schedule", h.admin, wrapped)
	h.wantError(st, body, hdr, http.StatusNotFound, "SITE_NOT_FOUND", "NOPE")
	other := h.token("globex", "admin")
	st, body, hdr = h.do("GET", "/v1/sites/S1/heating-schedule", other, "")
	h.wantError(st, body, hdr, http.StatusNotFound, "SITE_NOT_FOUND")
}

func TestHeatingScheduleRejectsBadBodiesNamingTheField(t *testing.T) {
	h := newHarness(t)
	if st, body, _ := h.do("PUT", "/v2/sites/S1", h.admin, `{}`); st != 200 {
		t.Fatalf("site: %d %s", st, body)
	}
	cal := `"weeklyCalendar":[{"offset":360,"temperature":"COMFORT"},{"offset":1320,"temperature":"ECO"},{"offset":1800,"temperature":"COMFORT"},{"offset":%s,"temperature":"%s"}]`
	body := func(temps, offset, mode string) string {
		return `{"temperatures":` + temps + `,` + sprintf(cal, offset, mode) + `}`
	}
	good := `{"COMFORT":19,"ECO":16}`
	cases := []struct{ name, body, mention string }{
		{"offset past the week", body(good, "10080", "ECO"), "weeklyCalendar[3].offset"},
		{"offset not increasing", body(good, "1800", "ECO"), "weeklyCalendar[3].offset"},
		{"negative offset", body(good, "-5", "ECO"), "weeklyCalendar[3].offset"},
		{"fractional offset", body(good, "2000.5", "ECO"), "weeklyCalendar[3].offset"},
		{"offset a string", body(good, `"2000"`, "ECO"), "weeklyCalendar[3]"},
		{"unknown mode", body(good, "2760", "BOOST"), "weeklyCalendar[3].temperature"},
		{"no comfort", body(`{"ECO":16}`, "2760", "ECO"), "temperatures.COMFORT"},
		{"no eco", body(`{"COMFORT":19}`, "2760", "ECO"), "temperatures.ECO"},
		{"eco above comfort", body(`{"COMFORT":19,"ECO":20}`, "2760", "ECO"), "temperatures.ECO"},
		{"set point too high", body(`{"COMFORT":31,"ECO":16}`, "2760", "ECO"), "temperatures.COMFORT"},
		{"frost too low", body(`{"COMFORT":19,"ECO":16,"FROST_PROTECTION":4}`, "2760", "ECO"), "temperatures.FROST_PROTECTION"},
		{"unknown temperature mode", body(`{"COMFORT":19,"ECO":16,"BOOST":22}`, "2760", "ECO"), "temperatures.BOOST"},
		{"set point not a number", body(`{"COMFORT":"19","ECO":16}`, "2760", "ECO"), "temperatures.COMFORT"},
		{"empty calendar", `{"temperatures":{"COMFORT":19,"ECO":16},"weeklyCalendar":[]}`, "weeklyCalendar"},
		{"missing offset", `{"temperatures":{"COMFORT":19,"ECO":16},"weeklyCalendar":[{"temperature":"ECO"}]}`, "weeklyCalendar[0].offset"},
		{"missing temperature", `{"temperatures":{"COMFORT":19,"ECO":16},"weeklyCalendar":[{"offset":0}]}`, "weeklyCalendar[0].temperature"},
		{"no temperatures", `{"weeklyCalendar":[{"offset":0,"temperature":"ECO"}]}`, "temperatures"},
		{"unknown member", `{"temperatures":{"COMFORT":19,"ECO":16},"weeklyCalendar":[{"offset":0,"temperature":"ECO"}],"mode":"x"}`, "mode"},
		{"not an object", `[1]`, "body"},
		{"wrapper with a sibling", `{"heatingSchedule":{"temperatures":{"COMFORT":19,"ECO":16},"weeklyCalendar":[{"offset":0,"temperature":"ECO"}]},"x":1}`, "heatingSchedule"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h.t = t
			st, b, hdr := h.do("PUT", "/v1/sites/S1/heating-schedule", h.admin, c.body)
			h.wantError(st, b, hdr, http.StatusBadRequest, "INVALID_PARAMETER", c.mention)
		})
	}
	h.t = t
	// Nothing was stored: the default schedule is still served.
	st, b, _ := h.do("GET", "/v1/sites/S1/heating-schedule", h.admin, "")
	def, _ := json.Marshal(HeatingScheduleAnswer{HeatingSchedule: HeatingScheduleJSON(registry.DefaultHeatingSchedule())})
	if st != 200 || !sameJSON(b, string(def)) {
		t.Fatalf("after refused PUTs: %d %s", st, b)
	}
}

func TestGasTariffAndSiteGasTariffThroughTheAPI(t *testing.T) {
	h := newHarness(t)
	gas := `{"option":"GAS","prices":[{"validFrom":"2024-01-01","byHeading":{"BASE":0.1}}],"carbonCoefficient":0.227}`
	st, body, _ := h.do("PUT", "/v2/tariffs/GAS-1", h.admin, gas)
	if st != 200 {
		t.Fatalf("gas tariff: %d %s", st, body)
	}
	if st, body, _ = h.do("PUT", "/v2/sites/S1", h.admin, `{"gasTariffId":"GAS-1","heatingFluid":"GAS"}`); st != 200 || !sameJSON(body,
		`{"siteId":"S1","timezone":"Europe/Paris","gasTariffId":"GAS-1","heatingFluid":"GAS"}`) {
		t.Fatalf("site with gas tariff: %d %s", st, body)
	}
	if st, body, _ = h.do("GET", "/v2/sites/S1", h.admin, ""); st != 200 || !sameJSON(body,
		`{"siteId":"S1","timezone":"Europe/Paris","gasTariffId":"GAS-1","heatingFluid":"GAS"}`) {
		t.Fatalf("site read back: %d %s", st, body)
	}
	st, body, hdr := h.do("PUT", "/v2/sites/S2", h.admin, `{"tariffId":"GAS-1"}`)
	h.wantError(st, body, hdr, http.StatusBadRequest, "INVALID_PARAMETER", "tariffId", "gasTariffId")
	st, body, hdr = h.do("PUT", "/v2/tariffs/GAS-2", h.admin, `{"option":"GAS","prices":[{"validFrom":"2024-01-01","byHeading":{"HP":0.1}}]}`)
	h.wantError(st, body, hdr, http.StatusBadRequest, "INVALID_PARAMETER", "prices[0].byHeading")
}

var sprintf = fmt.Sprintf

// sameJSON tells whether two JSON texts hold the same value.
func sameJSON(got []byte, want string) bool {
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}
