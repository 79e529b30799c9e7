package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"energy/apidocs"
	"energy/ingest"
	"energy/query/advices"
	"energy/query/daily"
	"energy/query/targets"
	"energy/schema"
	"energy/schema/erasure"
	"energy/schema/registry"
)

// services are the running parts behind the APIs of one energyd: what run wires once the store
// is reachable, and what the route test wires the same way.
type services struct {
	api    apidocs.Config
	jobs   *ingest.Service
	sender *targets.Sender
}

// wire starts the registry watches, the intake, the notification sender and (with
// --advice-listen) the recommendation workers, and returns the API configuration over them.
func wire(ctx context.Context, cfg config, db *schema.DB, live func(context.Context) error, log *slog.Logger) (*services, error) {
	reg := registry.New(db)
	go reg.WatchTokens(ctx, tokenWatchInterval)
	go reg.Versions.Watch(ctx, dataVersionWatchInterval, log)
	// Every tenant's sites and tariffs in memory before the first request: no first view of a
	// site waits on the registry. A failure only leaves them to be loaded by the first lookups.
	if err := reg.Directory.Warm(ctx); err != nil {
		log.Warn("loading the sites and tariffs", "error", err)
	}
	engine := cfg.engine(db, reg)
	outbox, targetStore := targets.NewOutbox(db), targets.NewStore(db)
	sender, err := startNotifications(cfg, outbox, reg, log)
	if err != nil {
		return nil, err
	}
	checker := targets.NewChecker(targetStore, outbox, reg, engine, sender.Wake, log)
	// Every job's days are in the daily energy table before the job is DONE; a site or tariff
	// written through this process rewrites the days it moves, in the background.
	days := daily.New(db, reg, engine)
	reg.AfterChange = func(_ context.Context, c registry.ReferenceChange) {
		go func() {
			if err := days.ReferenceChanged(ctx, c); err != nil {
				log.Warn("rewriting the daily energy after a site or tariff change", "tenant", c.TenantID,
					"site", c.SiteID, "tariff", c.TariffID, "error", err)
			}
		}()
	}
	afterWrite := days.Written
	if cfg.BenchSkipDailyEnergy {
		log.Warn("--bench-skip-daily-energy: jobs do not write the daily energy table, which goes stale (benchmarks only)")
		afterWrite = nil
		engine.WithoutDailyTable() // its answers come from the readings, never from the stale table
	}
	jobs, err := startIntake(ctx, cfg, db, reg, checker.SiteDataStored, afterWrite, log)
	if err != nil {
		return nil, err
	}
	budgeter := cfg.budgeter(db, reg, engine)
	// Erasures a stop or a crash interrupted resume now; they stop with ctx (and resume at the
	// next start).
	erasures := erasure.New(db, reg, log)
	erasures.Archives = jobs // an erasure waits until no accepted archive holds the site's readings
	erasures.Lease = cfg.JobLease
	if err := erasures.Start(ctx); err != nil {
		return nil, err
	}
	s := &services{jobs: jobs, sender: sender, api: apidocs.Config{
		Registry: reg, Ready: db.Ping, Live: live, PublicURL: cfg.PublicURL, Logger: log,
		Consumptions: cfg.consumptions(engine, reg), Budgets: cfg.budgets(budgeter, reg),
		Comparisons: cfg.comparisons(engine, db, reg), Jobs: jobs, Targets: targetStore, Outbox: outbox,
		UploadRate:  apidocs.UploadRate{MinBytesPerSecond: cfg.UploadMinRate, Grace: cfg.UploadGrace},
		RateLimiter: apidocs.NewRateLimiter(cfg.rateLimits()), Erasures: erasures,
	}}
	if cfg.AdviceListen != "" {
		// Only a process serving the recommendation API computes its jobs.
		s.api.Advices = advices.NewService(db, advices.Config{Workers: cfg.AdviceWorkers, Logger: log,
			Heating: advices.ModelHeating{Sites: reg, Budgeter: budgeter}})
		if err := s.api.Advices.Start(ctx); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// handlers are the main API and, with --advice-listen, the recommendation API (else nil).
func (s *services) handlers() (main, advice http.Handler) {
	main, _ = apidocs.NewMain(s.api)
	if s.api.Advices != nil {
		advice, _ = apidocs.NewAdvice(s.api)
	}
	return main, advice
}

// stopWithin lets running jobs finish, or releases them to the next start when grace ends,
// then stops the recommendation workers and the notification sender.
func (s *services) stopWithin(grace time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := s.jobs.Stop(ctx); err != nil {
		log.Warn("shutdown", "error", err)
	}
	if s.api.Advices != nil {
		if err := s.api.Advices.Stop(ctx); err != nil {
			log.Warn("shutdown", "error", err)
		}
	}
	if err := s.sender.Stop(ctx); err != nil {
		log.Warn("shutdown: notification sender", "error", err)
	}
}
