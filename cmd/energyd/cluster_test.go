package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// replicaClient talks to one energyd replica with one token.
type replicaClient struct {
	t     *testing.T
	d     *daemon
	token string
}

func (c replicaClient) do(method, path, contentType string, body []byte) (int, http.Header, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, "http://"+c.d.addr+path, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// submit posts a one-file archive and returns the job path.
func (c replicaClient) submit(name, content string) string {
	c.t.Helper()
	return c.submitArchive(tarGz(map[string]string{name: content}))
}

// submitArchive posts an archive and returns the job path.
func (c replicaClient) submitArchive(archive []byte) string {
	c.t.Helper()
	st, b := c.post(archive)
	if st != http.StatusOK {
		c.t.Fatalf("submit through %s: %d %s", c.d.addr, st, b)
	}
	return jobPath(c.t, b)
}

// tarGz is a .tar.gz of the files (name → content), in name order.
func tarGz(files map[string]string) []byte {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		_ = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg})
		_, _ = tw.Write([]byte(files[name]))
	}
	_ = tw.Close()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(tb.Bytes())
	_ = zw.Close()
	return gz.Bytes()
}

// post sends an archive and returns the status and body.
func (c replicaClient) post(archive []byte) (int, []byte) {
	c.t.Helper()
	ct, body := uploadOf(archive)
	st, _, b := c.do("POST", "/v2/indexes-collect-jobs", ct, body)
	return st, b
}

// jobPath reads the job link of a submission's answer.
func jobPath(t *testing.T, b []byte) string {
	t.Helper()
	var links struct {
		Links struct{ Self struct{ Href string } } `json:"_links"`
	}
	if err := json.Unmarshal(b, &links); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(links.Links.Self.Href)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

// waitJob polls the job until it is final and returns its state and OK operation count.
func (c replicaClient) waitJob(path string) (string, int) {
	c.t.Helper()
	return c.waitJobWithin(path, 60*time.Second)
}

// waitJobWithin is waitJob with its own time limit.
func (c replicaClient) waitJobWithin(path string, within time.Duration) (string, int) {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		st, _, b := c.do("GET", path, "", nil)
		var j struct {
			State  struct{ Current string }
			Report struct {
				Overview struct {
					OK int `json:"nbOperationsOK"`
				}
			}
		}
		if st == http.StatusOK {
			if err := json.Unmarshal(b, &j); err != nil {
				c.t.Fatal(err)
			}
			if s := j.State.Current; s == "DONE" || s == "ERROR" || s == "TIMEOUT" {
				return s, j.Report.Overview.OK
			}
		} else if st != http.StatusNotFound { // not replicated to this node yet
			c.t.Fatalf("job %s through %s: %d %s", path, c.d.addr, st, b)
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("job %s through %s not final within %v; its last log lines:\n%s", path, c.d.addr, within, c.d.recentLines())
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// counter returns the value of an unlabelled series on the replica's /metrics (0 if absent).
func (c replicaClient) counter(name string) float64 {
	c.t.Helper()
	_, _, b := c.do("GET", "/metrics", "", nil)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				c.t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	return 0
}

// dailyWh returns the energy total of each step (-1 for a step without data) and X-Cache.
func (c replicaClient) dailyWh(path string) ([]float64, string) {
	c.t.Helper()
	st, h, b := c.do("GET", path, "", nil)
	if st != http.StatusOK {
		c.t.Fatalf("consumption through %s: %d %s", c.d.addr, st, b)
	}
	var body struct {
		Consumptions []struct {
			EnergyMeter struct{ Total *float64 } `json:"energyMeter"`
		}
	}
	if err := json.Unmarshal(b, &body); err != nil {
		c.t.Fatal(err)
	}
	var out []float64
	for _, it := range body.Consumptions {
		if it.EnergyMeter.Total == nil {
			out = append(out, -1)
			continue
		}
		out = append(out, *it.EnergyMeter.Total)
	}
	return out, h.Get("X-Cache")
}

func smartElecIndexes(site string, readings ...[3]any) string {
	var items []string
	for _, r := range readings {
		items = append(items, fmt.Sprintf(`{"siteId":%q,"podId":"PDL-%s","ts":%q,"generationTs":"2024-02-01T00:00:00Z","nature":"MKT_SMART_DISTRIBUTOR","value":{"1":%d,"2":%d}}`,
			site, site, r[0], r[1], r[2]))
	}
	return `{"smartElecIndexes":[` + strings.Join(items, ",") + `]}`
}

// TestReplicasShareOneClusterStore runs two energyd replicas on different nodes of the local
// cluster (A on shard 1's second replica, B on shard 2's second replica): an archive ingested
// through A is read back through B with the exact Wh; B's cached answer is dropped within 1 s
// of A finishing a further ingest; with the site shard's first replica stopped, B still
// answers the same figures from the second.
func TestReplicasShareOneClusterStore(t *testing.T) {
	c := chtest.NeedCluster(t)
	u, err := url.Parse(chtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	bin := buildEnergyd(t)
	// A short lease, so that the job of the replica killed below is taken over within seconds.
	a := startEnergydWith(t, bin, "--clickhouse-dsn", c.DSN(1, name), "--clickhouse-cluster", c.Name, "--data-dir", t.TempDir(), "--job-lease", "3s")
	b := startEnergydWith(t, bin, "--clickhouse-dsn", c.DSN(3, name), "--clickhouse-cluster", c.Name, "--data-dir", t.TempDir(), "--job-lease", "3s")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	db, err := schema.Open(ctx, c.DSN(1, name), c.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	secret, _, err := registry.New(db).CreateToken(ctx, "acme", []string{"admin"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := replicaClient{t, a, secret}, replicaClient{t, b, secret}
	if st, _, body := ra.do("PUT", "/v2/sites/S1", "application/json", []byte(`{}`)); st != http.StatusOK {
		t.Fatalf("PUT site through A: %d %s", st, body)
	}

	// Local midnights of Jan 1-4 2024 in Paris: day 1 HC 500 + HP 1000 Wh, day 2 700 + 1500 Wh.
	job := ra.submit("readings.json", smartElecIndexes("S1",
		[3]any{"2023-12-31T23:00:00Z", 1000, 5000}, [3]any{"2024-01-01T23:00:00Z", 1500, 6000}, [3]any{"2024-01-02T23:00:00Z", 2200, 7500}))
	if st, ok := rb.waitJob(job); st != "DONE" || ok != 3 {
		t.Fatalf("job through B: %s with %d operations OK, want DONE with 3", st, ok)
	}
	path := "/v2/sites/S1/fluids/elec/consumptions?startTs=2024-01-01T00:00:00&endTs=2024-01-04T00:00:00&stepUnit=DAYS"
	got, cache := rb.dailyWh(path)
	if fmt.Sprint(got) != "[1500 2200 -1]" || cache != "MISS" {
		t.Fatalf("through B: daily Wh %v (X-Cache %s), want [1500 2200 -1] computed", got, cache)
	}
	// B may see the job DONE before the data version A recorded for it reaches B's node; when
	// it arrives, B drops the answer it just cached (one needless recomputation, never a stale
	// answer). Within a few watch intervals B must serve the answer from its cache.
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		got, cache = rb.dailyWh(path)
		if fmt.Sprint(got) != "[1500 2200 -1]" {
			t.Fatalf("through B again: daily Wh %v (X-Cache %s), want [1500 2200 -1]", got, cache)
		}
		if cache == "HIT" {
			break
		}
		if time.Since(start) > 3*time.Second {
			t.Fatalf("through B: still X-Cache %s 3 s after the first answer, want HIT", cache)
		}
	}

	// Day 3: HC 400 + HP 500 Wh, ingested through A; B must drop its cached answer within 1 s.
	job = ra.submit("more.json", smartElecIndexes("S1", [3]any{"2024-01-03T23:00:00Z", 2600, 8000}))
	if st, ok := ra.waitJob(job); st != "DONE" || ok != 1 {
		t.Fatalf("second job through A: %s with %d operations OK", st, ok)
	}
	done := time.Now()
	for {
		got, cache = rb.dailyWh(path)
		if fmt.Sprint(got) == "[1500 2200 900]" {
			break
		}
		if time.Since(done) > time.Second {
			t.Fatalf("1 s after A's ingest B still answers %v (X-Cache %s), want [1500 2200 900]", got, cache)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("B answered A's ingest %v after the job was DONE on A", time.Since(done).Round(time.Millisecond))
	// B had that answer polled: once its watcher read A's version, it computed it again in the
	// background; the poll after that is a hit, with day 3.
	for rb.counter("energy_consumption_cache_refreshes_total") < 1 {
		if time.Since(done) > 2*time.Second {
			t.Fatal("B did not refresh its polled answer within 2 s of A's ingest")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got, cache = rb.dailyWh(path); fmt.Sprint(got) != "[1500 2200 900]" || cache != "HIT" {
		t.Fatalf("through B after its refresh: daily Wh %v (X-Cache %s), want [1500 2200 900] from the cache", got, cache)
	}

	// Sites through B's directory: S2, created through A, is found by B within 1 s (once B's
	// node holds the replicated row: B's misses are read again every time, never remembered as
	// absent); an edit of S2 through A (moved to London, UTC+0 in winter) is used by B within 1 s.
	pathS2 := strings.Replace(path, "/S1/", "/S2/", 1)
	if st, _, body := ra.do("PUT", "/v2/sites/S2", "application/json", []byte(`{}`)); st != http.StatusOK {
		t.Fatalf("PUT site S2 through A: %d %s", st, body)
	}
	created := time.Now()
	for {
		st, _, body := rb.do("GET", pathS2, "", nil)
		if st == http.StatusOK && strings.Contains(string(body), `"startTime":"2024-01-01T00:00:00+01:00"`) {
			break
		}
		if st != http.StatusNotFound || time.Since(created) > time.Second {
			t.Fatalf("site S2 created through A, read through B after %v: %d %s, want 200 in Paris time within 1 s", time.Since(created).Round(time.Millisecond), st, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("B found S2 %v after its creation through A", time.Since(created).Round(time.Millisecond))
	if st, _, body := ra.do("PUT", "/v2/sites/S2", "application/json", []byte(`{"timezone":"Europe/London"}`)); st != http.StatusOK {
		t.Fatalf("PUT site S2 through A: %d %s", st, body)
	}
	edited := time.Now()
	for {
		st, _, body := rb.do("GET", pathS2, "", nil)
		if st == http.StatusOK && !strings.Contains(string(body), `"startTime":"2024-01-01T00:00:00+01:00"`) {
			break
		}
		if time.Since(edited) > time.Second {
			t.Fatalf("1 s after A's edit of S2 B still answers in Paris time: %d %s", st, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("B answered in S2's new time zone %v after the edit through A", time.Since(edited).Round(time.Millisecond))

	// Stop the first replica of the site's shard (where every node reads it first).
	var shard uint64
	if err := db.Conn.QueryRow(ctx, "SELECT toUInt64(cityHash64('acme', 'S1') % 2)").Scan(&shard); err != nil {
		t.Fatal(err)
	}
	first := int(shard) * 2
	if err := c.StopNode(first); err != nil {
		t.Fatal(err)
	}
	// A request neither replica has cached: computed from the shard's second replica.
	later := "/v2/sites/S1/fluids/elec/consumptions?startTs=2024-01-02T00:00:00&endTs=2024-01-04T00:00:00&stepUnit=DAYS"
	for _, r := range []replicaClient{ra, rb} {
		if got, cache := r.dailyWh(later); fmt.Sprint(got) != "[2200 900]" || cache != "MISS" {
			t.Errorf("with node %d stopped, through %s: %v (X-Cache %s), want [2200 900] computed", first+1, r.d.addr, got, cache)
		}
	}

	// The other shard's first replica too: every shard has one replica left, so no archive can
	// be acknowledged by two; the upload is refused with 503, never answered 200 without quorum.
	other := 2 - first
	if err := c.StopNode(other); err != nil {
		t.Fatal(err)
	}
	ct, up := uploadOf(tarGz(map[string]string{"r.json": smartElecIndexes("S1", [3]any{"2024-01-05T23:00:00Z", 3000, 9000})}))
	st, h, body := ra.do("POST", "/v2/indexes-collect-jobs", ct, up)
	var e struct{ ErrorCode, ErrorDescription string }
	_ = json.Unmarshal(body, &e)
	if st != http.StatusServiceUnavailable || e.ErrorCode != "STORAGE_UNAVAILABLE" || h.Get("Retry-After") == "" || !strings.Contains(e.ErrorDescription, "two replicas") {
		t.Errorf("upload with one replica per shard: %d %s (Retry-After %q), want 503 STORAGE_UNAVAILABLE naming the replicas", st, body, h.Get("Retry-After"))
	}
	for _, n := range []int{first, other} {
		if err := c.StartNode(context.Background(), n); err != nil {
			t.Fatalf("restart node %d: %v", n+1, err)
		}
	}

	killMidJob(t, c, name, ra, rb)
}

// uploadOf is the content type and multipart body of an archive upload.
func uploadOf(archive []byte) (string, []byte) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "readings.tar.gz")
	_, _ = fw.Write(archive)
	_ = mw.Close()
	return mw.FormDataContentType(), body.Bytes()
}
