package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"energy/schema/chtest"
	"energy/schema/registry"
)

// BenchmarkProcessArchive runs the two largest archives the limits allow (as bench/ingest
// builds them: 5 files of 10,000 smart indexes of 2 dials; 5 files of 1,500 load curves of 48
// points; even files name sites by id, odd ones by customer pair) from Submit to DONE through
// a service on the shared test ClickHouse; with -cpuprofile it shows where a job's time goes.
func BenchmarkProcessArchive(b *testing.B) {
	const sites = 20
	db := chtest.DB(b)
	reg := registry.New(db)
	ctx := context.Background()
	for i := range sites {
		s := registry.Site{TenantID: "acme", SiteID: fmt.Sprintf("bench-site-%02d", i),
			SiteCustomerID: fmt.Sprintf("BC-%02d", i), PersonCustomerID: fmt.Sprintf("BP-%02d", i)}
		if err := reg.PutSite(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	identity := func(file, site int) string {
		if file%2 == 0 {
			return fmt.Sprintf(`"siteId":"bench-site-%02d"`, site)
		}
		return fmt.Sprintf(`"siteCustomerId":"BC-%02d","personCustomerId":"BP-%02d"`, site, site)
	}
	var smart, curves []jobFile
	for f := range 5 {
		var sb strings.Builder
		sb.WriteString(`{"smartElecIndexes":[`)
		for p := range 100 {
			for d := range 100 {
				if p+d > 0 {
					sb.WriteByte(',')
				}
				ts := time.Date(2024, 12, 31, 23, 0, 0, 0, time.UTC).AddDate(0, 0, d)
				fmt.Fprintf(&sb, `{%s,"podId":"%014d","ts":"%s","generationTs":"%s","nature":"MKT_SMART_DISTRIBUTOR","value":{"1":%d,"2":%d}}`,
					identity(f, p%sites), 21000000000000+f*1000+p, ts.Format(time.RFC3339), ts.Add(5*time.Hour).Format(time.RFC3339), 1000000+d*4000, 2000000+d*7000)
			}
		}
		sb.WriteString("]}")
		smart = append(smart, jobFile{fmt.Sprintf("smart-%d.json", f+1), sb.String()})

		var cb strings.Builder
		cb.WriteString(`{"loadCurves":[`)
		for p := range 50 {
			for d := range 30 {
				if p+d > 0 {
					cb.WriteByte(',')
				}
				fmt.Fprintf(&cb, `{%s,"podId":"%014d","meterReadingDate":"2025-06-%02d","generationTs":"2025-06-%02dT02:00:00+02:00","step":"PT30M","values":[`,
					identity(f, p%sites), 22000000000000+f*1000+p, d+1, d+1)
				for i := range 48 {
					if i > 0 {
						cb.WriteByte(',')
					}
					fmt.Fprintf(&cb, `{"beginTs":"2025-06-%02dT%02d:%02d:00+02:00","value":%d,"reliability":0}`, d+1, i/2, i%2*30, 200+(p*7+d*13+i*31)%1900)
				}
				cb.WriteString("]}")
			}
		}
		cb.WriteString("]}")
		curves = append(curves, jobFile{fmt.Sprintf("curves-%d.json", f+1), cb.String()})
	}

	svc, err := New(Config{DB: db, Registry: reg, SpoolDir: filepath.Join(b.TempDir(), "spool"), Workers: 2,
		PollInterval: 10 * time.Millisecond, RetryDelay: 20 * time.Millisecond, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = svc.Stop(sctx)
	})
	for _, c := range []struct {
		name  string
		files []jobFile
		ops   int
	}{{"5x10000 smart indexes", smart, 50000}, {"5x1500x48 load curves", curves, 7500}} {
		archive := jobArchive(b, c.files...)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				j := submitArchive(b, svc, "bench.tar.gz", archive)
				j = waitState(b, svc, "acme", j.ID, StateDone, StateError, StateTimeout)
				if j.State != StateDone || j.Overview.OK != c.ops {
					b.Fatalf("job %s with %d/%d operations OK, want DONE with %d", j.State, j.Overview.OK, j.Overview.Total, c.ops)
				}
			}
		})
	}
}
