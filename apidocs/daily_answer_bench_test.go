package apidocs

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"energy/bench"
	"energy/query/consumption"
	"energy/query/daily"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// BenchmarkDailyPathAnswer is a computed DAYS and MONTHS answer over one benchmark site's year
// as `make bench-pg` asks energyd for it (result cache off, no compression), through the whole
// serving chain: routing, authentication, the daily table's read, pricing each day, the JSON
// encoding. Sites are taken in turn among benchDailySites, all in the daily table. cpu-ns/op is
// this process's CPU per answer (ClickHouse's excluded: it runs in its own process); run with
// -cpuprofile and -memprofile to see where it goes.
func BenchmarkDailyPathAnswer(b *testing.B) {
	const benchDailySites = 20
	ctx := context.Background()
	db := chtest.DB(b)
	reg := registry.New(db)
	if err := bench.Generate(ctx, db, reg, bench.Spec{Sites: benchDailySites, Year: 2024}, nil); err != nil {
		b.Fatal(err)
	}
	engine := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	table := daily.New(db, reg, engine)
	spans, err := table.Spans(ctx, bench.Tenant, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := table.Rebuild(ctx, spans, nil); err != nil {
		b.Fatal(err)
	}
	if err := reg.Directory.Warm(ctx); err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h, _ := NewMain(Config{Registry: reg, Ready: db.Ping, Consumptions: consumption.NewCached(engine, reg.Versions, 0, 0), Logger: log})
	secret, _, err := reg.CreateToken(ctx, bench.Tenant, []string{"read"}, 0, "bench")
	if err != nil {
		b.Fatal(err)
	}
	for _, unit := range []struct {
		name  string
		items int // the answer's consumptions, each with its energy and cost
	}{{"DAYS", 366}, {"MONTHS", 12}} {
		b.Run(unit.name, func(b *testing.B) {
			reqs := make([]*http.Request, benchDailySites)
			for i := range reqs {
				reqs[i], _ = http.NewRequest(http.MethodGet, "/v2/sites/"+bench.SiteID(i)+"/fluids/elec/consumptions?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&stepUnit="+unit.name, nil)
				reqs[i].Header.Set("Authorization", "Bearer "+secret)
			}
			serve := func(i int) *discardResponse {
				w := &discardResponse{header: http.Header{}}
				h.ServeHTTP(w, reqs[i%len(reqs)].Clone(ctx))
				return w
			}
			before := consumption.AnswersComputedFrom(consumption.PathDailyTable)
			for i := range reqs {
				if w := serve(i); w.status != http.StatusOK || w.header.Get("X-Cache") != "MISS" || w.bytes < unit.items*100 {
					b.Fatalf("status %d X-Cache %q, %d bytes", w.status, w.header.Get("X-Cache"), w.bytes)
				}
			}
			if got := consumption.AnswersComputedFrom(consumption.PathDailyTable) - before; got != benchDailySites {
				b.Fatalf("%v of %d answers from the daily table", got, benchDailySites)
			}
			loopWithCPU(b, func(i int) { serve(i) })
		})
	}
}
