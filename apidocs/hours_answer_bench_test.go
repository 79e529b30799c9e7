package apidocs

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"testing"

	"energy/bench"
	"energy/query/consumption"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// BenchmarkHoursAnswerComputed is a computed HOURS answer (the 1,200-hour window of one
// benchmark site, 2,400 points of 30 minutes) through the whole HTTP handler with the result
// cache off, as make bench-pg asks energyd for it: authentication, parameters, the site, the
// load curve read from ClickHouse and decoded, the items with cost, and the JSON body. The
// socket is not in it. cpu-ns/op is the process's CPU per answer (the test's ClickHouse runs
// in another process); run with -cpuprofile and -memprofile to see where it goes.
func BenchmarkHoursAnswerComputed(b *testing.B) {
	ctx := context.Background()
	db := chtest.DB(b)
	reg := registry.New(db)
	if err := bench.Generate(ctx, db, reg, bench.Spec{Sites: 1, Year: 2024}, nil); err != nil {
		b.Fatal(err)
	}
	engine := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	h, _ := NewMain(Config{
		Registry: reg, Ready: db.Ping, Consumptions: consumption.NewCached(engine, reg.Versions, 0, 0),
		Logger: slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	secret, _, err := reg.CreateToken(ctx, bench.Tenant, []string{"read"}, 0, "bench")
	if err != nil {
		b.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "/v2/sites/"+bench.SiteID(0)+"/fluids/elec/consumptions?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&stepUnit=HOURS", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	serve := func() *discardResponse {
		w := &discardResponse{header: http.Header{}}
		h.ServeHTTP(w, req.Clone(ctx))
		return w
	}
	// About 500 KiB of JSON, computed each time (the cache holds nothing).
	if w := serve(); w.status != http.StatusOK || w.header.Get("X-Cache") != "MISS" || w.bytes < 400<<10 {
		b.Fatalf("status %d X-Cache %q, %d bytes", w.status, w.header.Get("X-Cache"), w.bytes)
	}
	// The collector paced as energyd paces it under its memory limit (cmd/energyd, GOGC 400):
	// at Go's default 100 the answer's garbage costs more here than in the service.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	loopWithCPU(b, func(int) { serve() })
}
