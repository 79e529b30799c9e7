package apidocs

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"energy/query/consumption"
)

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"": false, "gzip": true, "GZIP": true, "x-gzip": true, "gzip, deflate, br": true, "br;q=1.0, gzip;q=0.8": true,
		"gzip;q=0": false, "gzip; q=0.000": false, "identity": false, "br": false, "deflate": false,
		"*": true, "*;q=0": false, "gzip;q=0, *": false, "*;q=0, gzip;q=0.1": true, "gzip;q=x": false, "gzip;q=2": false,
	} {
		var values []string
		if header != "" {
			values = []string{header}
		}
		if got := acceptsGzip(values); got != want {
			t.Errorf("Accept-Encoding %q: accepts gzip %v, want %v", header, got, want)
		}
	}
	if !acceptsGzip([]string{"br", "gzip"}) {
		t.Error("gzip in a second Accept-Encoding line is not seen")
	}
}

// rawGet sends GET path with the Accept-Encoding value (none when empty) through a transport
// that neither asks for nor undoes compression: the bytes as sent.
func rawGet(t *testing.T, base, path, token, acceptEncoding string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, readAll(t, resp), resp.Header
}

func gunzipBody(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("gzip stream: %v", err)
	}
	return out
}

// wantGzipOf checks a gzip-encoded answer whose plain form is plain.
func wantGzipOf(t *testing.T, what string, st int, body []byte, hdr http.Header, plain []byte, wantCache string) {
	t.Helper()
	if st != http.StatusOK || hdr.Get("Content-Encoding") != "gzip" || hdr.Get("Vary") != "Accept-Encoding" || hdr.Get("X-Cache") != wantCache {
		t.Fatalf("%s: %d Content-Encoding %q Vary %q X-Cache %q, want 200 gzip Accept-Encoding %s",
			what, st, hdr.Get("Content-Encoding"), hdr.Get("Vary"), hdr.Get("X-Cache"), wantCache)
	}
	if !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		t.Errorf("%s: Content-Type %q", what, hdr.Get("Content-Type"))
	}
	if got := gunzipBody(t, body); !bytes.Equal(got, plain) {
		t.Errorf("%s: decompressed answer (%d bytes) differs from the plain one (%d bytes)", what, len(got), len(plain))
	}
	if len(body) > len(plain)/5 {
		t.Errorf("%s: %d bytes compressed for %d plain", what, len(body), len(plain))
	}
}

// wantPlain checks an answer sent as it is.
func wantPlain(t *testing.T, what string, st int, body []byte, hdr http.Header, plain []byte) {
	t.Helper()
	if st != http.StatusOK || hdr.Get("Content-Encoding") != "" || !bytes.Equal(body, plain) {
		t.Errorf("%s: %d Content-Encoding %q, body equal to the plain answer: %v", what, st, hdr.Get("Content-Encoding"), bytes.Equal(body, plain))
	}
}

// A year of DAYS (about 170 KiB of JSON), computed and cached, with and without
// Accept-Encoding: gzip: the same answer, compressed only when the client accepts it.
func TestConsumptionAnswersGzip(t *testing.T) {
	h := newJobsHarness(t, "", true, nil)
	collector, reader := h.token("acme", "collect"), h.token("acme", "read")
	var readings []string
	day := time.Date(2023, 12, 31, 23, 0, 0, 0, time.UTC)
	for i := 0; i <= 366; i++ {
		readings = append(readings, fmt.Sprintf("%s %d %d", day.AddDate(0, 0, i).Format(time.RFC3339), 1000+i*500, 5000+i*800))
	}
	h.ingestArchive(collector, smartIndexes("S1", readings...))
	base := h.srv.URL
	days := consPath + "?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&stepUnit=DAYS"

	// Without Accept-Encoding: today's answer and headers.
	st, plain, hdr := rawGet(t, base, days, reader, "")
	if st != http.StatusOK || hdr.Get("X-Cache") != "MISS" || hdr.Get("Content-Encoding") != "" || hdr.Get("Vary") != "" || len(plain) < 100<<10 {
		t.Fatalf("plain DAYS year: %d X-Cache %q Content-Encoding %q Vary %q, %d bytes", st, hdr.Get("X-Cache"), hdr.Get("Content-Encoding"), hdr.Get("Vary"), len(plain))
	}
	// Cached, gzip: the compressed form kept beside the answer, with its length.
	st, gz, hdr := rawGet(t, base, days, reader, "gzip")
	wantGzipOf(t, "cached DAYS", st, gz, hdr, plain, "HIT")
	if hdr.Get("Content-Length") != fmt.Sprint(len(gz)) {
		t.Errorf("cached gzip answer: Content-Length %q for %d bytes", hdr.Get("Content-Length"), len(gz))
	}
	st, gz2, hdr := rawGet(t, base, days, reader, "gzip, deflate")
	wantGzipOf(t, "cached DAYS again", st, gz2, hdr, plain, "HIT")
	if !bytes.Equal(gz, gz2) {
		t.Error("two cached gzip answers differ")
	}
	st, b, hdr := rawGet(t, base, days, reader, "")
	wantPlain(t, "cached DAYS without Accept-Encoding", st, b, hdr, plain)
	for _, ae := range []string{"gzip;q=0", "identity", "br", "*;q=0", "gzip;q=0, *"} {
		st, b, hdr := rawGet(t, base, days, reader, ae)
		wantPlain(t, "Accept-Encoding "+ae, st, b, hdr, plain)
	}
	for _, ae := range []string{"*", "br;q=1, gzip;q=0.5", "x-gzip"} {
		st, b, hdr := rawGet(t, base, days, reader, ae)
		wantGzipOf(t, "Accept-Encoding "+ae, st, b, hdr, plain, "HIT")
	}

	// Computed, gzip first: compressed on its way into the cache, then the same for plain.
	global := days + "&options=withGlobalConsumption"
	st, gz, hdr = rawGet(t, base, global, reader, "gzip")
	st2, plainGlobal, hdr2 := rawGet(t, base, global, reader, "")
	if hdr2.Get("X-Cache") != "HIT" || st2 != http.StatusOK {
		t.Fatalf("plain after gzip: %d X-Cache %q", st2, hdr2.Get("X-Cache"))
	}
	wantGzipOf(t, "computed DAYS", st, gz, hdr, plainGlobal, "MISS")

	// A server without result cache compresses each answer as it writes it.
	nocache, _ := NewMain(Config{Registry: h.reg, Ready: h.db.Ping,
		Consumptions: consumption.NewCached(consumption.NewEngine(h.db, h.reg, consumption.DefaultCarbonCoefficient), h.reg.Versions, 0, 0)})
	srv := httptest.NewServer(nocache)
	defer srv.Close()
	st, gz, hdr = rawGet(t, srv.URL, days, reader, "gzip")
	wantGzipOf(t, "uncached DAYS", st, gz, hdr, plain, "MISS")
	st, b, hdr = rawGet(t, srv.URL, days, reader, "")
	wantPlain(t, "uncached DAYS without Accept-Encoding", st, b, hdr, plain)

	// Small answers and errors stay plain.
	st, b, hdr = rawGet(t, base, consPath+"?startTs=2024-01-01T00:00:00&endTs=2024-02-01T00:00:00&stepUnit=MONTHS&options=withoutCost", reader, "gzip")
	if st != http.StatusOK || len(b) >= minGzipBytes || hdr.Get("Content-Encoding") != "" || hdr.Get("Vary") != "Accept-Encoding" || !bytes.HasPrefix(b, []byte("{")) {
		t.Errorf("small answer: %d, %d bytes, Content-Encoding %q Vary %q", st, len(b), hdr.Get("Content-Encoding"), hdr.Get("Vary"))
	}
	st, b, hdr = rawGet(t, base, days+"&stepValue=0", reader, "gzip")
	h.wantError(st, b, hdr, http.StatusBadRequest, "INVALID_PARAMETER", "stepValue")
	if hdr.Get("Content-Encoding") != "" {
		t.Errorf("error answer: Content-Encoding %q", hdr.Get("Content-Encoding"))
	}

	// /metrics keeps its own encoding: compressed once.
	st, b, hdr = rawGet(t, base, "/metrics", "", "gzip")
	if st != http.StatusOK || hdr.Get("Content-Encoding") != "gzip" || !bytes.Contains(gunzipBody(t, b), []byte("# HELP ")) {
		t.Errorf("/metrics with gzip: %d Content-Encoding %q", st, hdr.Get("Content-Encoding"))
	}
}
