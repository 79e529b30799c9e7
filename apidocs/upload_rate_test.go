package apidocs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowResult is what a trickling client saw: the status and error body of the answer, or the
// error that stopped it, and when the answer came.
type slowResult struct {
	status  int
	code    string
	desc    string
	elapsed time.Duration
	err     error
}

// trickleUpload starts a multipart archive upload announcing 100,000 bytes, sends the file
// part's header at once, then one byte of the archive every interval until the server answers.
func trickleUpload(addr, token string, interval time.Duration) slowResult {
	const boundary = "trickle"
	start := time.Now()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return slowResult{err: err}
	}
	defer conn.Close()
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: multipart/form-data; boundary=%s\r\nContent-Length: 100000\r\n\r\n"+
		"--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.tar.gz\"\r\nContent-Type: application/octet-stream\r\n\r\n",
		submitPath, addr, token, boundary, boundary)
	if _, err := conn.Write([]byte(head)); err != nil {
		return slowResult{err: err}
	}
	answered := make(chan struct{})
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-answered:
				return
			case <-t.C:
				if _, err := conn.Write([]byte{0x1f}); err != nil {
					return
				}
			}
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	close(answered)
	if err != nil {
		return slowResult{err: err, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	var e struct {
		ErrorCode        string `json:"errorCode"`
		ErrorDescription string `json:"errorDescription"`
	}
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &e)
	return slowResult{status: resp.StatusCode, code: e.ErrorCode, desc: e.ErrorDescription, elapsed: time.Since(start)}
}

// pacedReader yields its bytes in chunks of size, one chunk every interval.
type pacedReader struct {
	data     []byte
	size     int
	interval time.Duration
	sent     int
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	if p.sent > 0 {
		time.Sleep(p.interval)
	}
	n := copy(b[:min(len(b), p.size)], p.data)
	p.data = p.data[n:]
	p.sent += n
	return n, nil
}

// A few hundred clients trickling their uploads at once are each cut off with a 400 naming the
// minimum rate, soon after the grace period and not before; meanwhile the service answers other
// requests at once, and an upload above the minimum rate that lasts longer than the grace
// period is accepted and processed. Nothing of the cut-off uploads is stored.
func TestSlowUploadsAreCutOffWhileOthersAreServed(t *testing.T) {
	const (
		slowClients = 300
		minRate     = 1024
		grace       = 5 * time.Second
	)
	h := newJobsHarnessAPI(t, "", true, nil, Config{UploadRate: UploadRate{MinBytesPerSecond: minRate, Grace: grace}})
	token := h.token("acme", "collect,read")
	addr := strings.TrimPrefix(h.srv.URL, "http://")

	// The token is checked once before: the slow clients then test the intake, not a burst of
	// 300 token lookups in the store.
	if st, b, _ := h.do("GET", jobsPath, token, ""); st != http.StatusOK {
		t.Fatalf("listing: %d %s", st, b)
	}
	results := make([]slowResult, slowClients)
	var wg sync.WaitGroup
	firstAnswer := make(chan struct{}, slowClients)
	for i := range slowClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = trickleUpload(addr, token, 200*time.Millisecond)
			firstAnswer <- struct{}{}
		}()
	}
	time.Sleep(500 * time.Millisecond) // every slow client connected and trickling

	// Served meanwhile: job listings, each at once, while no slow client has been answered.
	listed := 0
	for range 10 {
		began := time.Now()
		st, b, _ := h.do("GET", jobsPath, token, "")
		if st != http.StatusOK {
			t.Fatalf("listing %d during the slow uploads: %d %s", listed, st, b)
		}
		if d := time.Since(began); d > 3*time.Second {
			t.Errorf("listing %d took %s while the slow uploads were open", listed, d)
		}
		if len(firstAnswer) > 0 {
			break
		}
		listed++
	}
	if listed < 5 {
		t.Errorf("only %d listings were answered before the first slow upload was cut off", listed)
	}

	// An upload at twice the minimum rate, lasting longer than the grace period: accepted.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("padding", strings.Repeat("x", 12000))
	fw, _ := mw.CreateFormFile("file", "paced.tar.gz")
	fw.Write(tarGz(t, "paced.json", jobsFile))
	mw.Close()
	size := body.Len()
	began := time.Now()
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+submitPath, &pacedReader{data: body.Bytes(), size: 256, interval: 125 * time.Millisecond})
	req.ContentLength = int64(size)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b := readAll(t, resp)
	resp.Body.Close()
	took := time.Since(began)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("upload of %d bytes at 2 KiB/s: %d %s after %s", size, resp.StatusCode, b, took)
	}
	if took <= grace {
		t.Fatalf("the paced upload took %s, not longer than the grace period: it proves nothing", took)
	}
	var link struct {
		Links struct{ Self struct{ Href string } } `json:"_links"`
	}
	json.Unmarshal(b, &link)
	u, _ := url.Parse(link.Links.Self.Href)
	if j := h.waitFinal(token, jobIDOf(t, u.Path)); j.State.Current != "DONE" || j.Report.Overview.OK != 4 {
		t.Fatalf("paced upload's job: %s, %d OK", j.State.Current, j.Report.Overview.OK)
	}

	wg.Wait()
	var slowest time.Duration
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("slow client %d: no answer: %v (after %s)", i, r.err, r.elapsed)
		}
		if r.status != http.StatusBadRequest || r.code != CodeInvalidParameter || !strings.Contains(r.desc, "minimum transfer rate of 1024 bytes/s") {
			t.Fatalf("slow client %d: %d %s %q", i, r.status, r.code, r.desc)
		}
		if r.elapsed < grace {
			t.Fatalf("slow client %d cut off after %s, before the %s grace period", i, r.elapsed, grace)
		}
		slowest = max(slowest, r.elapsed)
	}
	// Cut off at the grace period plus its header's share of the rate; the rest is the
	// shared machine's scheduling.
	if slowest > grace+7*time.Second {
		t.Errorf("the last slow client was answered after %s", slowest)
	}
	t.Logf("%d slow uploads cut off within %s; paced upload of %d bytes took %s", slowClients, slowest, size, took)

	var jobs uint64
	if err := h.db.Conn.QueryRow(t.Context(), "SELECT count() FROM jobs FINAL").Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if jobs != 1 {
		t.Errorf("%d jobs stored, want only the paced upload's", jobs)
	}
	h.wantSpoolEmpty()
}
