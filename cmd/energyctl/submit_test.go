package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeCollect is a stand-in for the collection endpoints that follows the contract: bearer
// auth (token "good" has the collect scope, "reader" has not), 413 without a body above
// 2,500,000 bytes, a multipart part "file", and jobs that go SUBMITTED → IN_PROGRESS → final
// one poll at a time. An archive named *error* ends ERROR, *ko* ends DONE with failed
// operations, *slow* stays IN_PROGRESS for ten polls.
type fakeCollect struct {
	mu       sync.Mutex
	received map[string][]byte // job id → archive bytes
	names    map[string]string
	polls    map[string]int
	gets     int
	requests int
}

func newFakeCollect(t *testing.T) (*fakeCollect, *httptest.Server) {
	f := &fakeCollect{received: map[string][]byte{}, names: map[string]string{}, polls: map[string]int{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func writeError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"errorCode": code, "errorDescription": desc})
}

func (f *fakeCollect) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests++
	f.mu.Unlock()
	switch r.Header.Get("Authorization") {
	case "Bearer good":
	case "Bearer reader":
		writeError(w, 403, "ACCESS_DENIED", "the token does not have the collect scope")
		return
	default:
		writeError(w, 401, "INVALID_AUTHORIZATION_HEADER_VALUE", "the Authorization header is invalid")
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v2/indexes-collect-jobs":
		if r.ContentLength > 2_500_000+1000 {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if int64(len(body)) != r.ContentLength {
			writeError(w, 400, "INVALID_PARAMETER", fmt.Sprintf("Content-Length %d but %d bytes", r.ContentLength, len(body)))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		file, hdr, err := r.FormFile("file")
		if err != nil {
			writeError(w, 400, "INVALID_PARAMETER", "no part named file: "+err.Error())
			return
		}
		data, _ := io.ReadAll(file)
		f.mu.Lock()
		id := fmt.Sprintf("job-%d", len(f.received)+1)
		f.received[id] = data
		f.names[id] = hdr.Filename
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"_links":{"self":{"href":"http://%s/v2/indexes-collect-jobs/%s"}}}`, r.Host, id)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v2/indexes-collect-jobs/"):
		id := strings.TrimPrefix(r.URL.Path, "/v2/indexes-collect-jobs/")
		f.mu.Lock()
		name, ok := f.names[id]
		f.polls[id]++
		n := f.polls[id]
		f.gets++
		f.mu.Unlock()
		if !ok {
			writeError(w, 404, "JOB_NOT_FOUND", "no job "+id)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(fakeJob(id, name, n))
	default:
		writeError(w, 404, "NOT_FOUND", "no route")
	}
}

func fakeJob(id, name string, poll int) map[string]any {
	state := "SUBMITTED"
	switch {
	case poll >= 3 && !(strings.Contains(name, "slow") && poll < 10):
		state = "DONE"
		if strings.Contains(name, "error") {
			state = "ERROR"
		}
	case poll >= 2:
		state = "IN_PROGRESS"
	}
	job := map[string]any{"id": id, "archive": name, "state": map[string]any{"current": state, "ts": "2026-01-01T00:00:00Z"},
		"report": map[string]any{"overview": map[string]int{"nbOperationsTotal": 0, "nbOperationsOK": 0, "nbOperationsKO": 0}}}
	if state == "ERROR" {
		job["report"] = map[string]any{"error": map[string]string{"code": "INVALID_ARCHIVE_FORMAT", "message": "the archive is not gzip-compressed"},
			"overview": map[string]int{"nbOperationsTotal": 0, "nbOperationsOK": 0, "nbOperationsKO": 0}}
	}
	if state == "DONE" {
		failed := []map[string]any{}
		ko := 0
		if strings.Contains(name, "ko") {
			ko = 7
			for i := range 7 {
				failed = append(failed, map[string]any{"array": "smartElecIndexes", "index": i,
					"errors": []map[string]string{{"code": "INVALID_FIELD", "field": "ts", "message": "ts must be a Timestamp-Z"}}})
			}
		}
		job["report"] = map[string]any{
			"overview": map[string]int{"nbOperationsTotal": 10, "nbOperationsOK": 10 - ko, "nbOperationsKO": ko},
			"files": []map[string]any{
				{"name": "a.json", "nbOperationsTotal": 10, "nbOperationsOK": 10 - ko, "nbOperationsKO": ko, "failedOperations": failed},
				{"name": "b.txt", "nbOperationsTotal": 0, "nbOperationsOK": 0, "nbOperationsKO": 0, "failedOperations": []any{},
					"error": map[string]string{"code": "INVALID_FILE_FORMAT", "message": "b.txt is not a .json file"}},
			},
		}
	}
	return job
}

func tempArchive(t *testing.T, name string, size int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, bytes.Repeat([]byte{0x1f}, size), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func testClient(t *testing.T, api, token string) *apiClient {
	t.Helper()
	c, err := newAPIClient(api, token)
	if err != nil {
		t.Fatal(err)
	}
	c.poll, c.pollMax = time.Millisecond, 5*time.Millisecond
	return c
}

func plainProgress(w io.Writer) *progress {
	return &progress{w: w, start: time.Now(), lastNote: time.Now()}
}

func TestSubmitWaitsAndPrintsReports(t *testing.T) {
	fake, srv := newFakeCollect(t)
	good := tempArchive(t, "good.tar.gz", 1234)
	ko := tempArchive(t, "with-ko.tar.gz", 99)
	var out, errOut bytes.Buffer
	err := submitAndWait(context.Background(), testClient(t, srv.URL, "good"), []archiveSource{fileSource(good), fileSource(ko)}, true, &out, plainProgress(&errOut))
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	if got := fake.received["job-1"]; len(got) != 1234 || fake.names["job-1"] != "good.tar.gz" {
		t.Errorf("the service got %d bytes named %q, want the 1234-byte good.tar.gz", len(got), fake.names["job-1"])
	}
	o := out.String()
	for _, want := range []string{
		srv.URL + "/v2/indexes-collect-jobs/job-1\n" + srv.URL + "/v2/indexes-collect-jobs/job-2\n",
		"good.tar.gz: DONE in ",
		"10 operations: 10 OK, 0 KO",
		"with-ko.tar.gz: DONE in ",
		"10 operations: 3 OK, 7 KO",
		"smartElecIndexes[4].ts: INVALID_FIELD: ts must be a Timestamp-Z",
		"… and 2 more failed operations",
		"b.txt   0 operations: 0 OK, 0 KO\n    error INVALID_FILE_FORMAT: b.txt is not a .json file",
	} {
		if !strings.Contains(o, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	if strings.Contains(o, "smartElecIndexes[5]") {
		t.Errorf("more than 5 failed operations shown:\n%s", o)
	}
	for _, want := range []string{"good.tar.gz: job job-1 IN_PROGRESS after", "with-ko.tar.gz: job job-2 DONE after"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "\r") {
		t.Errorf("progress redraws in place on a non-terminal:\n%q", errOut.String())
	}
}

func TestSubmitFailsWhenAJobEndsInError(t *testing.T) {
	_, srv := newFakeCollect(t)
	var out bytes.Buffer
	err := submitAndWait(context.Background(), testClient(t, srv.URL, "good"),
		[]archiveSource{fileSource(tempArchive(t, "ok.tar.gz", 10)), {Name: "error.tar.gz", Data: []byte("not gzip")}}, true, &out, plainProgress(io.Discard))
	if err == nil || !strings.Contains(err.Error(), "1 of 2 job(s) did not end DONE: error.tar.gz ended ERROR") {
		t.Fatalf("error %v, want the ERROR job named", err)
	}
	if !strings.Contains(out.String(), "error.tar.gz: ERROR in") || !strings.Contains(out.String(), "error INVALID_ARCHIVE_FORMAT: the archive is not gzip-compressed") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestSubmitNoWaitPrintsLinksOnly(t *testing.T) {
	fake, srv := newFakeCollect(t)
	var out bytes.Buffer
	if err := submitAndWait(context.Background(), testClient(t, srv.URL+"/", "good"), []archiveSource{fileSource(tempArchive(t, "a.tar.gz", 5))}, false, &out, plainProgress(io.Discard)); err != nil {
		t.Fatal(err)
	}
	if out.String() != srv.URL+"/v2/indexes-collect-jobs/job-1\n" || fake.gets != 0 {
		t.Errorf("output %q after %d polls, want the link alone and no poll", out.String(), fake.gets)
	}
}

func TestSubmitExplainsHTTPFailures(t *testing.T) {
	_, srv := newFakeCollect(t)
	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()

	small := fileSource(tempArchive(t, "small.tar.gz", 10))
	for _, tc := range []struct {
		name, api, token string
		src              archiveSource
		want             []string
	}{
		{"no token", srv.URL, "", small, []string{"HTTP 401 INVALID_AUTHORIZATION_HEADER_VALUE", "no token given: pass --token or set ENERGY_TOKEN"}},
		{"bad token", srv.URL, "nope", small, []string{"HTTP 401", "check --token or ENERGY_TOKEN, or create a new token with: energyctl token create --tenant TENANT --scopes collect"}},
		{"missing scope", srv.URL, "reader", small, []string{"HTTP 403 ACCESS_DENIED", "with the collect scope"}},
		{"too large", srv.URL, "good", fileSource(tempArchive(t, "big.tar.gz", 2_600_000)), []string{"big.tar.gz is 2600000 bytes", "at most 2,500,000 bytes (HTTP 413)"}},
		{"service down", closed, "good", small, []string{"cannot reach the service at " + closed, "connection refused — is energyd running there?"}},
		{"wrong base", srv.URL + "/api", "good", small, []string{"HTTP 404 NOT_FOUND", "is " + srv.URL + "/api the base URL of energyd's main API?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := submitAndWait(context.Background(), testClient(t, tc.api, tc.token), []archiveSource{tc.src}, true, &out, plainProgress(&errOut))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error() + "\n" + errOut.String()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message lacks %q:\n%s", w, msg)
				}
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q, want nothing", out.String())
			}
		})
	}
}

func TestSubmitGoesOnAfterARejectedArchive(t *testing.T) {
	fake, srv := newFakeCollect(t)
	var out bytes.Buffer
	err := submitAndWait(context.Background(), testClient(t, srv.URL, "good"),
		[]archiveSource{fileSource(tempArchive(t, "big.tar.gz", 2_600_000)), fileSource(tempArchive(t, "fine.tar.gz", 10))}, true, &out, plainProgress(io.Discard))
	if err == nil || !strings.Contains(err.Error(), "1 of 2 archive(s) not submitted: big.tar.gz") {
		t.Fatalf("error %v", err)
	}
	if len(fake.received) != 1 || !strings.Contains(out.String(), "fine.tar.gz: DONE") {
		t.Errorf("%d archives received; output:\n%s", len(fake.received), out.String())
	}
}

func TestSubmitStopsAtARefusedToken(t *testing.T) {
	fake, srv := newFakeCollect(t)
	files := []archiveSource{fileSource(tempArchive(t, "a.tar.gz", 10)), fileSource(tempArchive(t, "b.tar.gz", 10))}
	err := submitAndWait(context.Background(), testClient(t, srv.URL, "reader"), files, true, io.Discard, plainProgress(io.Discard))
	if err == nil || !strings.Contains(err.Error(), "HTTP 403") || fake.requests != 1 {
		t.Errorf("error %v after %d requests, want the 403 at the first archive and no other request", err, fake.requests)
	}
}

func TestProgressRedrawsInPlaceOnATerminal(t *testing.T) {
	_, srv := newFakeCollect(t)
	var errOut bytes.Buffer
	p := plainProgress(&errOut)
	p.tty = true
	if err := submitAndWait(context.Background(), testClient(t, srv.URL, "good"), []archiveSource{{Name: "slow.tar.gz", Data: []byte{1}}}, true, io.Discard, p); err != nil {
		t.Fatal(err)
	}
	s := errOut.String()
	if !strings.Contains(s, "\r\033[K") || !strings.Contains(s, "slow.tar.gz: job job-1 IN_PROGRESS · ") || strings.Contains(s, "\n") {
		t.Errorf("terminal progress %q: want a spinner line redrawn with \\r and cleared at the end", s)
	}
	if !strings.HasSuffix(s, "\r\033[K") {
		t.Errorf("progress line not cleared at the end: %q", s)
	}
}

func TestSubmitStopsOnCancel(t *testing.T) {
	_, srv := newFakeCollect(t)
	ctx, cancel := context.WithCancel(context.Background())
	c := testClient(t, srv.URL, "good")
	c.poll, c.pollMax = time.Hour, time.Hour // never polled again after the first look
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	err := submitAndWait(ctx, c, []archiveSource{{Name: "slow.tar.gz", Data: []byte{1}}}, true, io.Discard, plainProgress(io.Discard))
	if err == nil || !strings.Contains(err.Error(), "stopped waiting; the jobs go on in the service") {
		t.Fatalf("error %v", err)
	}
}
