package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"energy/apidocs"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// energyctl export writes the site's archive whole to stdout (site.json and the readings, the
// maximum power at 6000 VA among them), says on stderr how many bytes it wrote, and names the
// service's error for an unknown site.
func TestExportWritesTheArchive(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	handler, _ := apidocs.NewMain(apidocs.Config{Registry: reg, Logger: quiet, Ready: func(context.Context) error { return nil }})
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	token, _, err := reg.CreateToken(ctx, "acme", []string{"admin"}, time.Hour, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: "S1", SiteCustomerID: "C-1", PersonCustomerID: "P-1"}); err != nil {
		t.Fatal(err)
	}
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO max_powers (tenant_id, site_id, pod_id, ts, generation_ts, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)
	if err := b.Append("acme", "S1", "PDL-1", day, day, int64(6000), "j"); err != nil {
		t.Fatal(err)
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}

	var out, errOut bytes.Buffer
	if err := exportSite(ctx, []string{"--api", srv.URL, "--token", token, "S1"}, &out, &errOut); err != nil {
		t.Fatalf("export: %v (%s)", err, errOut.String())
	}
	files := map[string]string{}
	zr, err := gzip.NewReader(&out)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		files[h.Name] = string(body)
	}
	if !strings.Contains(files["site.json"], `"siteCustomerId": "C-1"`) || !strings.Contains(files["readings-0001.json"], `"value": 6000`) {
		t.Fatalf("archive files %v", files)
	}
	if !strings.Contains(errOut.String(), "exported site S1: ") {
		t.Errorf("stderr %q does not report the export", errOut.String())
	}
	err = exportSite(ctx, []string{"--api", srv.URL, "--token", token, "NOPE"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "SITE_NOT_FOUND") {
		t.Fatalf("export of an unknown site: %v, want SITE_NOT_FOUND", err)
	}
}
