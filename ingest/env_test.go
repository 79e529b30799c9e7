package ingest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"os"
	"path/filepath"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// jobEnv is a throwaway database with tenant "acme" (sites S1, with customer ids C-1/P-1, and
// S2) and a spool directory, for services that run real jobs.
type jobEnv struct {
	t     *testing.T
	db    *schema.DB
	reg   *registry.Store
	spool string
}

func newJobEnv(t *testing.T) *jobEnv {
	t.Helper()
	db := chtest.DB(t)
	reg := registry.New(db)
	ctx := context.Background()
	for _, s := range []registry.Site{
		{TenantID: "acme", SiteID: "S1", SiteCustomerID: "C-1", PersonCustomerID: "P-1"},
		{TenantID: "acme", SiteID: "S2"},
	} {
		if err := reg.PutSite(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	return &jobEnv{t: t, db: db, reg: reg, spool: filepath.Join(t.TempDir(), "spool")}
}

// service returns a service over the env with fast polling; edit adjusts its config. It is
// stopped at the end of the test. It is not started.
func (e *jobEnv) service(edit func(*Config)) *Service {
	e.t.Helper()
	cfg := Config{DB: e.db, Registry: e.reg, SpoolDir: e.spool, Workers: 2,
		PollInterval: 10 * time.Millisecond, RetryDelay: 20 * time.Millisecond}
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Stop(ctx)
	})
	return s
}

func (e *jobEnv) start(s *Service) {
	e.t.Helper()
	if err := s.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

// jobFile is one member of a test archive.
type jobFile struct{ name, body string }

// jobArchive builds a .tar.gz of regular files.
func jobArchive(t testing.TB, files ...jobFile) []byte {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var gb bytes.Buffer
	zw := gzip.NewWriter(&gb)
	zw.Write(tb.Bytes())
	zw.Close()
	return gb.Bytes()
}

// formPart is one part of a multipart body: a file part when filename is set.
type formPart struct {
	field, filename string
	data            []byte
}

func multipartOf(t testing.TB, parts ...formPart) (contentType string, body []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		var pw interface{ Write([]byte) (int, error) }
		var err error
		if p.filename != "" {
			pw, err = w.CreateFormFile(p.field, p.filename)
		} else {
			pw, err = w.CreateFormField(p.field)
		}
		if err != nil {
			t.Fatal(err)
		}
		pw.Write(p.data)
	}
	w.Close()
	return w.FormDataContentType(), b.Bytes()
}

// submitArchive submits archive as the "file" part of tenant acme.
func submitArchive(t testing.TB, s *Service, name string, archive []byte) Job {
	t.Helper()
	ct, body := multipartOf(t, formPart{field: "file", filename: name, data: archive})
	j, err := s.Submit(context.Background(), "acme", ct, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// waitState polls the job until it is in one of states (20 s at most).
func waitState(t testing.TB, s *Service, tenant, id string, states ...string) Job {
	t.Helper()
	return waitStateWithin(t, 20*time.Second, s, tenant, id, states...)
}

// waitStateWithin is waitState for a job that may take up to within.
func waitStateWithin(t testing.TB, within time.Duration, s *Service, tenant, id string, states ...string) Job {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		j, err := s.Job(context.Background(), tenant, id)
		if err != nil && !errors.Is(err, ErrJobNotFound) {
			t.Fatal(err)
		}
		for _, st := range states {
			if err == nil && j.State == st {
				return j
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %s, want one of %v", id, j.State, states)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// counts returns the rows of tenant acme in each reading table and pods, read with FINAL.
func (e *jobEnv) counts() map[string]uint64 {
	e.t.Helper()
	out := map[string]uint64{}
	for _, table := range []string{"elec_indexes", "gas_indexes", "max_powers", "load_curve_points", "pods"} {
		var n uint64
		if err := e.db.Conn.QueryRow(context.Background(), "SELECT count() FROM "+table+" FINAL WHERE tenant_id = ?", "acme").Scan(&n); err != nil {
			e.t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

func (e *jobEnv) wantCounts(want map[string]uint64) {
	e.t.Helper()
	got := e.counts()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		e.t.Fatalf("rows (FINAL) %v, want %v", got, want)
	}
}

var noRows = map[string]uint64{"elec_indexes": 0, "gas_indexes": 0, "max_powers": 0, "load_curve_points": 0, "pods": 0}

// spoolFiles lists the committed and temporary files in the spool.
func (e *jobEnv) spoolFiles() []string {
	e.t.Helper()
	entries, err := os.ReadDir(e.spool)
	if err != nil && !os.IsNotExist(err) {
		e.t.Fatal(err)
	}
	var out []string
	for _, x := range entries {
		out = append(out, x.Name())
	}
	return out
}

// wantSpoolEmpty waits (5 s at most) for the spool to be empty: a job's archive is deleted
// just after its final state is recorded.
func (e *jobEnv) wantSpoolEmpty() {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(e.spoolFiles()) != 0 {
		if time.Now().After(deadline) {
			e.t.Fatalf("spool files left: %v", e.spoolFiles())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// readingsFile holds one valid operation of every kind, with both identity variants, and one
// KO operation (an unknown site): 5 operations, 4 OK; rows: 2 elec (two dials), 1 gas,
// 1 max power, 3 load-curve points; pods GAS-1 (S1), PDL-1 (S1), PDL-2 (S2).
const readingsFile = `{
  "cyclicGasIndexes": [
    {"siteId": "S1", "podId": "GAS-1", "nature": "MKT_CYCLIC_DISTRIBUTOR", "ts": "2024-01-31T23:00:00Z",
     "generationTs": "2024-02-01T06:00:00Z", "value": 12345, "unit": "m3", "conversionFactors": {"kWh": 11.2}}
  ],
  "smartElecIndexes": [
    {"siteCustomerId": "C-1", "personCustomerId": "P-1", "podId": "PDL-1", "nature": "MKT_SMART_DISTRIBUTOR",
     "ts": "2024-02-01T00:00:00Z", "generationTs": "2024-02-01T04:00:00Z", "value": {"1": 100000, "2": 200000}}
  ],
  "maxPowers": [
    {"siteId": "S2", "podId": "PDL-2", "ts": "2024-02-01T00:00:00Z", "generationTs": "2024-02-02T00:00:00Z", "value": 6000},
    {"siteId": "S9", "podId": "PDL-9", "ts": "2024-02-01T00:00:00Z", "generationTs": "2024-02-02T00:00:00Z", "value": 6000}
  ],
  "loadCurves": [
    {"siteId": "S1", "podId": "PDL-1", "meterReadingDate": "2024-02-01", "generationTs": "2024-02-02T02:00:00+01:00",
     "step": "PT30M", "values": [
       {"beginTs": "2024-02-01T00:00:00+01:00", "value": 500, "reliability": 0},
       {"beginTs": "2024-02-01T00:30:00+01:00", "value": 700, "reliability": 1},
       {"endTs": "2024-02-01T01:30:00+01:00", "value": 650, "reliability": 0}
     ]}
  ]
}`

var readingsRows = map[string]uint64{"elec_indexes": 2, "gas_indexes": 1, "max_powers": 1, "load_curve_points": 3, "pods": 3}

// gzipTar streams a .tar.gz whose members are read from readers (large members cost no memory).
type gzipTar struct {
	zw *gzip.Writer
	tw *tar.Writer
}

func newGzipTar(w io.Writer) *gzipTar {
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	return &gzipTar{zw: zw, tw: tar.NewWriter(zw)}
}

func (g *gzipTar) add(t testing.TB, name string, r io.Reader, size int64) {
	t.Helper()
	if err := g.tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(g.tw, r, size); err != nil {
		t.Fatal(err)
	}
}

func (g *gzipTar) close(t testing.TB) {
	t.Helper()
	if err := g.tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// zeroBytes reads as an endless run of zero bytes.
type zeroBytes struct{}

func (zeroBytes) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
