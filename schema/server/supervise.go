package server

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"energy/schema"
	"energy/schema/metric"
)

var (
	embeddedRestarts = metric.Counter("energy_clickhouse_restarts_total",
		"Restarts of the embedded ClickHouse after it exited or stopped answering.")
	embeddedUp = metric.Gauge("energy_clickhouse_embedded_up",
		"1 while the embedded ClickHouse process runs, 0 while it is down or being restarted.")
)

// Supervision settings of an embedded server; the zero value of each field takes its default.
type Supervision struct {
	// CheckEvery is how often the server is pinged.
	CheckEvery time.Duration
	// StallLimit: a server that runs but has not answered a ping for this long is killed and
	// restarted (a frozen process never recovers by itself).
	StallLimit time.Duration
	// MinBackoff and MaxBackoff bound the pause between failed restart attempts (doubling).
	MinBackoff, MaxBackoff time.Duration
	// FailedAfter consecutive failed attempts make Health report the store as lost.
	FailedAfter int
}

func (c Supervision) orDefaults() Supervision {
	c.CheckEvery = schema.OrDefault(c.CheckEvery, time.Second)
	c.StallLimit = schema.OrDefault(c.StallLimit, 30*time.Second)
	c.MinBackoff = schema.OrDefault(c.MinBackoff, 250*time.Millisecond)
	c.MaxBackoff = schema.OrDefault(c.MaxBackoff, 30*time.Second)
	c.FailedAfter = schema.OrDefault(c.FailedAfter, 5)
	return c
}

// Supervisor keeps an embedded ClickHouse running: when the process exits or stops answering,
// it is started again in the same directory on the same port, so that open pools reconnect by
// themselves and energyctl finds it through the endpoint file as before.
type Supervisor struct {
	cfg  Supervision
	log  *slog.Logger
	quit chan struct{}
	done chan struct{}

	mu       sync.Mutex
	srv      *LocalServer
	failures int   // consecutive failed restart attempts
	lastErr  error // why the last attempt failed
	restarts int
}

// Supervise watches srv until Stop; log receives one line per restart.
func Supervise(srv *LocalServer, cfg Supervision, log *slog.Logger) *Supervisor {
	if log == nil {
		log = slog.Default()
	}
	s := &Supervisor{cfg: cfg.orDefaults(), log: log, srv: srv, quit: make(chan struct{}), done: make(chan struct{})}
	embeddedUp.Set(1)
	go s.watch()
	return s
}

// Server is the process currently running.
func (s *Supervisor) Server() *LocalServer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.srv
}

// Restarts is how many times the server was started again.
func (s *Supervisor) Restarts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restarts
}

// Health is nil unless the server is down and FailedAfter restart attempts in a row failed:
// then the process cannot do its work and a supervisor above it should act.
func (s *Supervisor) Health() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failures >= s.cfg.FailedAfter {
		return fmt.Errorf("the embedded ClickHouse cannot be restarted (%d attempts failed): %w", s.failures, s.lastErr)
	}
	return nil
}

// Stop ends the supervision, then stops the server.
func (s *Supervisor) Stop() error {
	close(s.quit)
	<-s.done
	embeddedUp.Set(0)
	return s.Server().Stop()
}

func (s *Supervisor) watch() {
	defer close(s.done)
	ticker := time.NewTicker(s.cfg.CheckEvery)
	defer ticker.Stop()
	lastAnswer := time.Now()
	for {
		srv := s.Server()
		select {
		case <-s.quit:
			return
		case <-srv.Exited():
			s.restart(fmt.Sprintf("exited: %s", strings.TrimSpace(lastLines(srv.output.String(), 1))))
			lastAnswer = time.Now()
			continue
		case <-ticker.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.CheckEvery)
		err := srv.ping(ctx)
		cancel()
		if err == nil {
			lastAnswer = time.Now()
			continue
		}
		if stalled := time.Since(lastAnswer); stalled >= s.cfg.StallLimit {
			s.log.Warn("embedded ClickHouse does not answer; killing it", "pid", srv.Pid(), "silentFor", stalled.Round(time.Millisecond).String(), "error", err)
			srv.kill()
		}
	}
}

// restart starts the server again until it runs or Stop is called.
func (s *Supervisor) restart(cause string) {
	embeddedUp.Set(0)
	old := s.Server()
	down := time.Now()
	wait := s.cfg.MinBackoff
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-s.quit:
				cancel()
			case <-ctx.Done():
			}
		}()
		srv, err := startOnPort(ctx, old.bin, old.prefix, old.Dir, old.Port)
		cancel()
		if err == nil {
			s.mu.Lock()
			s.srv, s.failures, s.lastErr = srv, 0, nil
			s.restarts++
			s.mu.Unlock()
			embeddedRestarts.Inc()
			embeddedUp.Set(1)
			s.log.Warn("embedded ClickHouse restarted", "cause", cause, "attempt", attempt,
				"downFor", time.Since(down).Round(time.Millisecond).String(), "pid", srv.Pid(), "addr", srv.Addr())
			return
		}
		s.mu.Lock()
		s.failures, s.lastErr = attempt, err
		s.mu.Unlock()
		s.log.Error("embedded ClickHouse restart failed", "cause", cause, "attempt", attempt, "retryIn", wait.String(), "error", err)
		select {
		case <-s.quit:
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, s.cfg.MaxBackoff)
	}
}
