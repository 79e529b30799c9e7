package apidocs

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// weatherFixture: station ST1 of acme with three observations; site PARIS (Europe/Paris) and
// NY (America/New_York) use it, BARE has no station.
func weatherFixture(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	for _, r := range []struct{ path, body string }{
		{"/v1/weather-stations/ST1", `{"name":"Paris-Orly","latitude":48.72,"longitude":2.38}`},
		{"/v2/sites/PARIS", `{"weatherStationId":"ST1"}`},
		{"/v2/sites/NY", `{"weatherStationId":"ST1","timezone":"America/New_York"}`},
		{"/v2/sites/BARE", `{}`},
		{"/v1/weather-stations/ST1/observations", `[
			{"date":"2024-01-01T00:00:00+01:00","temperature":3.2,"wind":12.5,"cloudiness":6,"picto":"P7"},
			{"date":"2024-01-01T00:00:00Z","temperature":4,"wind":10,"cloudiness":0},
			{"date":"2024-01-02T00:00:00+01:00","temperature":5,"wind":0,"cloudiness":8}]`},
	} {
		if st, b, _ := h.do("PUT", r.path, h.admin, r.body); st != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", r.path, st, b)
		}
	}
	return h
}

func decodeWeather(t *testing.T, b []byte) []WeatherItem {
	t.Helper()
	var items []WeatherItem
	if err := json.Unmarshal(b, &items); err != nil {
		t.Fatalf("body %s: %v", b, err)
	}
	return items
}

func TestWeathersFormatAndBoundaries(t *testing.T) {
	h := weatherFixture(t)
	reader := h.token("acme", "read")

	// A '+' left unencoded arrives as a space and is accepted; %2B works too. The range is
	// [1 Jan 00:00, 2 Jan 00:00) Paris time: the 2 January value is the excluded end.
	for _, q := range []string{
		"beginDate=2024-01-01T00:00:00.000+0100&endDate=2024-01-02T00:00:00.000+0100",
		"beginDate=2024-01-01T00:00:00.000%2B0100&endDate=2024-01-01T23:00:00.000-0000",
	} {
		st, b, _ := h.do("GET", "/v1/sites/PARIS/weathers?"+q, reader, "")
		if st != http.StatusOK {
			t.Fatalf("%s: %d %s", q, st, b)
		}
		items := decodeWeather(t, b)
		want := []WeatherItem{
			{Date: "2024-01-01T00:00:00+01:00", Picto: "P7", Temperature: 3.2, Wind: 12.5, Cloudiness: 6},
			{Date: "2024-01-01T01:00:00+01:00", Picto: "P1", Temperature: 4, Wind: 10, Cloudiness: 0}, // 0 okta → P1
		}
		if len(items) != len(want) || items[0] != want[0] || items[1] != want[1] {
			t.Fatalf("%s: got %+v, want %+v", q, items, want)
		}
	}

	// The same instants in New York's offset.
	st, b, _ := h.do("GET", "/v1/sites/NY/weathers?beginDate=2023-12-31T00:00:00.000-0500&endDate=2024-01-02T00:00:00.000-0500", reader, "")
	if st != http.StatusOK {
		t.Fatalf("NY: %d %s", st, b)
	}
	items := decodeWeather(t, b)
	if len(items) != 3 || items[0].Date != "2023-12-31T18:00:00-05:00" || items[2].Date != "2024-01-01T18:00:00-05:00" || items[2].Picto != "P9" {
		t.Fatalf("NY: %+v", items)
	}

	// No station: an empty array, not null.
	st, b, _ = h.do("GET", "/v1/sites/BARE/weathers?beginDate=2024-01-01T00:00:00.000%2B0100&endDate=2024-01-02T00:00:00.000%2B0100", reader, "")
	if st != http.StatusOK || string(b) != "[]\n" && string(b) != "[]" {
		t.Fatalf("BARE: %d %q, want 200 []", st, b)
	}
}

func TestWeathersErrors(t *testing.T) {
	h := weatherFixture(t)
	reader := h.token("acme", "read")
	ok := "beginDate=2024-01-01T00:00:00.000%2B0100&endDate=2024-01-02T00:00:00.000%2B0100"
	cases := []struct {
		path, token string
		status      int
		code        string
		mentions    []string
	}{
		{"/v1/sites/PARIS/weathers?endDate=2024-01-02T00:00:00.000%2B0100", reader, 400, CodeInvalidParameter, []string{"beginDate"}},
		{"/v1/sites/PARIS/weathers?beginDate=2024-01-01T00:00:00.000%2B0100", reader, 400, CodeInvalidParameter, []string{"endDate"}},
		{"/v1/sites/PARIS/weathers?beginDate=2024-01-01T00:00:00%2B01:00&endDate=2024-01-02T00:00:00.000%2B0100", reader, 400, CodeInvalidParameter, []string{"beginDate", "yyyy-MM-dd'T'HH:mm:ss.SSSZ"}},
		{"/v1/sites/PARIS/weathers?beginDate=2024-01-01T00:00:00.000Z&endDate=2024-01-02T00:00:00.000%2B0100", reader, 400, CodeInvalidParameter, []string{"beginDate"}},
		{"/v1/sites/PARIS/weathers?beginDate=2024-01-01T00:00:00.000%2B0100&endDate=2024-01-02", reader, 400, CodeInvalidParameter, []string{"endDate"}},
		{"/v1/sites/PARIS/weathers?beginDate=2024-01-02T00:00:00.000%2B0100&endDate=2024-01-01T00:00:00.000%2B0100", reader, 400, CodeInvalidParameter, []string{"endDate", "after"}},
		{"/v1/sites/NOPE/weathers?" + ok, reader, 404, CodeSiteNotFound, []string{"NOPE"}},
		{"/v1/sites/PARIS/weathers?" + ok, h.token("globex", "read"), 404, CodeSiteNotFound, []string{"PARIS"}},
		{"/v1/sites/PARIS/weathers?" + ok, "", 401, CodeInvalidAuth, nil},
		{"/v1/sites/PARIS/weathers?" + ok, h.token("acme", "collect"), 403, CodeAccessDenied, nil},
	}
	for _, c := range cases {
		st, b, hdr := h.do("GET", c.path, c.token, "")
		t.Logf("GET %s → %d %s", c.path, st, b)
		h.wantError(st, b, hdr, c.status, c.code, c.mentions...)
	}
}

func TestPutObservations(t *testing.T) {
	h := weatherFixture(t)
	reader := h.token("acme", "read")
	put := "/v1/weather-stations/ST1/observations"

	// A second delivery replaces the 1 January 00:00 value and leaves the others.
	st, b, _ := h.do("PUT", put, h.admin, `[{"date":"2023-12-31T23:00:00Z","temperature":-1.5,"wind":3,"cloudiness":7}]`)
	if st != http.StatusOK {
		t.Fatalf("PUT: %d %s", st, b)
	}
	var stored ObservationsStored
	if err := json.Unmarshal(b, &stored); err != nil || stored.Stored != 1 || stored.StationID != "ST1" {
		t.Fatalf("PUT answer %s", b)
	}
	st, b, _ = h.do("GET", "/v1/sites/PARIS/weathers?beginDate=2024-01-01T00:00:00.000%2B0100&endDate=2024-01-03T00:00:00.000%2B0100", reader, "")
	items := decodeWeather(t, b)
	if st != http.StatusOK || len(items) != 3 || items[0] != (WeatherItem{Date: "2024-01-01T00:00:00+01:00", Picto: "P8", Temperature: -1.5, Wind: 3, Cloudiness: 7}) {
		t.Fatalf("after replacement: %d %+v", st, items)
	}
	// The admin read shows the same values in UTC.
	st, b, _ = h.do("GET", put+"?beginDate=2024-01-01T00:00:00.000%2B0100&endDate=2024-01-03T00:00:00.000%2B0100", h.admin, "")
	if items := decodeWeather(t, b); st != http.StatusOK || len(items) != 3 || items[0].Date != "2023-12-31T23:00:00Z" {
		t.Fatalf("admin read: %d %s", st, b)
	}

	good := `{"date":"2024-02-01T00:00:00+01:00","temperature":1,"wind":1,"cloudiness":1}`
	cases := []struct {
		path, token, body string
		status            int
		code              string
		mentions          []string
	}{
		{put, h.admin, `[` + good + `,{"date":"2024-02-01T01:00:00+01:00","temperature":120,"wind":1,"cloudiness":1}]`, 400, CodeInvalidParameter, []string{"body[1].temperature"}},
		{put, h.admin, `[` + good + `,` + good + `,{"date":"2024-02-01T01:00:00.5+01:00","temperature":1,"wind":1,"cloudiness":1}]`, 400, CodeInvalidParameter, []string{"body[2].date", "whole second"}},
		{put, h.admin, `[{"date":"2024-02-01T01:00:00+01:00","temperature":1,"wind":1,"cloudiness":1,"picto":"sunny"}]`, 400, CodeInvalidParameter, []string{"body[0].picto"}},
		{put, h.admin, `[{"date":"2024-02-01T01:00:00+01:00","temperature":1,"wind":1}]`, 400, CodeInvalidParameter, []string{"cloudiness"}},
		{put, h.admin, `[{"date":"2024-02-01T01:00:00+01:00","temperature":1,"wind":1,"cloudiness":1,"humidity":80}]`, 400, CodeInvalidParameter, []string{"humidity"}},
		{put, h.admin, `{"date":"2024-02-01T01:00:00+01:00"}`, 400, CodeInvalidParameter, nil},
		{"/v1/weather-stations/NOPE/observations", h.admin, `[` + good + `]`, 404, CodeNotFound, []string{"NOPE"}},
		{put, h.token("globex", "admin"), `[` + good + `]`, 404, CodeNotFound, []string{"ST1"}},
		{put, reader, `[` + good + `]`, 403, CodeAccessDenied, []string{"admin"}},
	}
	for _, c := range cases {
		st, b, hdr := h.do("PUT", c.path, c.token, c.body)
		t.Logf("PUT %s → %d %s", c.path, st, b)
		h.wantError(st, b, hdr, c.status, c.code, c.mentions...)
	}
	// Nothing of the rejected bodies was stored.
	st, b, _ = h.do("GET", "/v1/sites/PARIS/weathers?beginDate=2024-02-01T00:00:00.000%2B0100&endDate=2024-02-02T00:00:00.000%2B0100", reader, "")
	if st != http.StatusOK || len(decodeWeather(t, b)) != 0 {
		t.Fatalf("rejected bodies stored something: %s", b)
	}
}

func TestPutObservationsBounded(t *testing.T) {
	h := weatherFixture(t)
	// 100,001 items: one over the documented bound.
	item := `{"date":"2024-03-01T00:00:00Z","temperature":1,"wind":1,"cloudiness":1},`
	body := "[" + strings.Repeat(item, 100_000) + item[:len(item)-1] + "]"
	st, b, hdr := h.do("PUT", "/v1/weather-stations/ST1/observations", h.admin, body)
	h.wantError(st, b, hdr, http.StatusBadRequest, CodeInvalidParameter, "100000")
}
