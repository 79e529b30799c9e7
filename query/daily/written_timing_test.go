package daily

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"energy/query/consumption"
	"energy/schema/chtest"
	"energy/schema/registry"
	"energy/schema/sitedata"
	"energy/schema/tables"
)

// BenchmarkWrittenSmartIndexes times the ingest hook on the data of bench-ingest's smart index
// archive: 5 sites, 100 points of delivery each, 100 days of 2 dials (100,000 readings), the
// whole span of every site written by the job.
func BenchmarkWrittenSmartIndexes(b *testing.B) {
	ctx := context.Background()
	db := chtest.DB(b)
	reg := registry.New(db)
	start := time.Date(2024, 12, 31, 23, 0, 0, 0, time.UTC)
	const sites, pods, days = 5, 100, 100
	batch, err := db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.ElecIndexes+
		" (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)")
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var w sitedata.Written
	w.TenantID, w.JobID = "acme", "job"
	for s := range sites {
		site := fmt.Sprintf("S%d", s)
		if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: site, Timezone: "Europe/Paris"}); err != nil {
			b.Fatal(err)
		}
		w.Spans = append(w.Spans, sitedata.ReadingSpan{SiteID: site, Fluid: registry.HeatingElec, First: start, Last: start.AddDate(0, 0, days-1)})
		for p := range pods {
			pod := fmt.Sprintf("%014d", s*1000+p)
			v := [2]int64{1_000_000 + r.Int64N(9_000_000), 2_000_000 + r.Int64N(9_000_000)}
			for d := range days {
				ts := start.AddDate(0, 0, d)
				for dial := range v {
					if err := batch.Append("acme", site, pod, ts, uint8(0), "MKT_SMART_DISTRIBUTOR", ts.Add(5*time.Hour), fmt.Sprint(dial+1), v[dial], "job"); err != nil {
						b.Fatal(err)
					}
					v[dial] += 3000 + r.Int64N(6000)
				}
			}
		}
	}
	if err := batch.Send(); err != nil {
		b.Fatal(err)
	}
	table := New(db, reg, consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient))
	b.ResetTimer()
	for range b.N {
		if err := table.Written(ctx, w); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var n uint64
	if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+tables.DailyEnergy+" FINAL").Scan(&n); err != nil {
		b.Fatal(err)
	}
	if n != sites*days { // the last reading's day included (interpolated to nothing past it)
		b.Fatalf("%d daily rows, want %d", n, sites*days)
	}
}
