// Command energyd serves the main API and the recommendation API.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"energy/apidocs"
	"energy/cmd/internal/buildinfo"
	"energy/schema"
	"energy/schema/server"
)

func main() {
	err := run()
	if errors.Is(err, errHelp) {
		return // --help printed the usage
	}
	if err != nil {
		slog.Error("energyd stopped", "error", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := loadConfig(os.Args[1:])
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	slog.SetDefault(log)

	build := buildinfo.Read()
	log.Info("energyd starting", "version", build.Version, "revision", build.Revision, "go", build.GoVersion)
	container := readContainerLimits(cgroupRoot, selfCgroup)
	setGCPercent(setMemoryLimit(cfg.CacheMB, cfg.MemoryHeadroomMB, container, log), log)
	logProcessors(container, log)
	exposeSchedulerMetrics()
	store := exposeServiceMetrics(cfg.DataDir, build)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	// Listeners open at once: /healthz answers while the store is awaited, /readyz says why
	// the service is not ready yet, and an orchestrator sees a live process.
	// From SIGTERM on, /readyz answers 503 while requests are still served (stopping).
	var stopping atomic.Bool
	mainGate := apidocs.NewStartup("the data store is not reachable yet")
	gates := []*apidocs.Startup{mainGate}
	servers := []*http.Server{{Addr: cfg.Listen, Handler: closingWhen(&stopping, mainGate), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: maxHeaderBytes}}
	if cfg.AdviceListen != "" {
		adviceGate := apidocs.NewStartup("the data store is not reachable yet")
		gates = append(gates, adviceGate)
		servers = append(servers, &http.Server{Addr: cfg.AdviceListen, Handler: closingWhen(&stopping, adviceGate), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: maxHeaderBytes})
	}
	waiting := func(reason string) {
		for _, g := range gates {
			g.Wait(reason)
		}
	}
	if cfg.PprofListen != "" {
		profiling, err := startProfiling(cfg.PprofListen, log)
		if err != nil {
			return fmt.Errorf("--pprof-listen: %w", err)
		}
		defer profiling.Close()
	}
	errc := make(chan error, len(servers))
	for _, s := range servers {
		l, err := net.Listen("tcp", s.Addr)
		if err != nil {
			return err
		}
		log.Info("listening", "addr", l.Addr().String())
		go func(s *http.Server) {
			if err := s.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}(s)
	}

	dsn := cfg.ClickHouseDSN
	if dsn != "" {
		creds, err := schema.CredentialsFromEnv(os.Getenv)
		if err != nil {
			return err
		}
		if dsn, err = creds.Apply(dsn); err != nil {
			return err
		}
	}
	live := func(context.Context) error { return nil }
	if dsn == "" {
		waiting("the embedded data store is starting")
		srv, err := server.StartLocalAt(ctx, filepath.Join(cfg.DataDir, "clickhouse"), cfg.ClickHousePort)
		if err != nil {
			return fmt.Errorf("embedded ClickHouse: %w", err)
		}
		if srv.Reclaimed != 0 {
			log.Warn("a ClickHouse left running on the data dir by a previous energyd was killed", "pid", srv.Reclaimed)
		}
		// Restarted when it exits or freezes; /healthz fails once it cannot be restarted.
		sup := server.Supervise(srv, server.Supervision{}, log)
		defer sup.Stop()
		live = func(context.Context) error { return sup.Health() }
		dsn = srv.DSN("energy")
		log.Info("embedded ClickHouse started", "dsn", dsn, "dir", srv.Dir)
	}
	db, err := openAndMigrate(ctx, dsn, cfg.ClickHouseClust, cfg.storeTimeouts(), log, waiting)
	if err != nil {
		return err
	}
	defer db.Close()
	store.watch(db.Ping)
	svc, err := wire(ctx, cfg, db, live, log)
	if err != nil {
		return err
	}
	// From SIGTERM on, /readyz answers 503 while requests are still served.
	svc.api.Ready = func(ctx context.Context) error {
		if stopping.Load() {
			return apidocs.ErrShuttingDown
		}
		return db.Ping(ctx)
	}
	mainHandler, adviceHandler := svc.handlers()
	mainGate.Open(mainHandler)
	if len(gates) > 1 {
		gates[1].Open(adviceHandler)
	}
	log.Info("ready")
	select {
	case <-ctx.Done():
	case err := <-errc:
		return err
	}
	// Readiness fails first and responses ask clients to close their connections, while
	// requests are still served: load balancers and orchestrators take this instance out of
	// rotation before its listeners close. Idle connections stay open until then (closing one
	// under a client about to reuse it would fail that client's request).
	stopping.Store(true)
	log.Info("shutting down: /readyz answers 503; serving requests until the listeners close", "delay", cfg.ShutdownDelay.String())
	select {
	case <-time.After(cfg.ShutdownDelay):
	case err := <-errc:
		return err
	}
	log.Info("shutting down: finishing in-flight requests")
	// The listeners close first, so that no request reaches a job service that is stopping.
	shutdownServers(servers, log)
	// Running jobs finish, or are released to the next start when the grace period ends.
	svc.stopWithin(30*time.Second, log)
	return nil
}

// shutdownServers closes every listener at once, then waits for in-flight requests (30 s at
// most).
func shutdownServers(servers []*http.Server, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func(s *http.Server) {
			defer wg.Done()
			if err := s.Shutdown(sctx); err != nil {
				log.Warn("shutdown", "addr", s.Addr, "error", err)
			}
		}(s)
	}
	wg.Wait()
	log.Info("HTTP servers stopped")
}

// closingWhen answers with "Connection: close" once stopping is set, so that clients open
// their next connection elsewhere.
func closingWhen(stopping *atomic.Bool, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stopping.Load() {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}

// maxHeaderBytes bounds a request's header block (Go's default is 1 MiB): larger ones are
// answered 431 Request Header Fields Too Large by the HTTP server before any handler runs.
const maxHeaderBytes = 64 << 10

// tokenWatchInterval bounds how long a token revoked by another process (energyctl) keeps
// working here.
const tokenWatchInterval = 250 * time.Millisecond

// dataVersionWatchInterval bounds how long an ingest or admin change made through another
// energyd replica (or energyctl) leaves stale cached answers here; the contract is 1 s.
const dataVersionWatchInterval = 250 * time.Millisecond

// openAndMigrate opens the store and applies the migrations, waiting for a ClickHouse that does
// not answer yet (it may be starting beside us, or be down for a while) instead of exiting;
// a bad DSN or a refused migration fails at once. waiting tells the listeners what it waits for.
func openAndMigrate(ctx context.Context, dsn, cluster string, timeouts schema.Timeouts, log *slog.Logger, waiting func(string)) (*schema.DB, error) {
	for wait := time.Second; ; wait = min(2*wait, maxStoreRetry) {
		waiting("the data store is not reachable yet")
		db, err := schema.OpenWithTimeouts(ctx, dsn, cluster, timeouts)
		if err == nil {
			waiting("migrating the schema")
			if err = db.Migrate(ctx, log); err == nil {
				return db, nil
			}
			db.Close()
		}
		if !schema.IsUnavailable(err) || ctx.Err() != nil {
			return nil, err
		}
		log.Warn("ClickHouse does not answer yet; retrying", "retryIn", wait.String(), "error", err)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("stopped while waiting for ClickHouse: %w", err)
		case <-time.After(wait):
		}
	}
}

// maxStoreRetry bounds the wait between two attempts to reach the store, so that the service
// is ready within seconds of its store.
const maxStoreRetry = 5 * time.Second
