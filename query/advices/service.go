package advices

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"energy/schema"
)

// Config tunes the job service.
type Config struct {
	// Workers is the number of jobs computed at once (default 2).
	Workers int
	// Heating fills a missing heating consumption from a site's data (SITE_ID); nil: SITE_ID
	// is refused with a 400 that says so.
	Heating SiteHeating
	// RetryDelay is the pause before a job is tried again after a storage failure (default 2 s).
	RetryDelay time.Duration
	Logger     *slog.Logger
}

// Service stores recommendation jobs in ClickHouse and computes them with a bounded pool of
// workers. Jobs left CREATED or IN_PROGRESS by a stop or a crash are computed again at Start
// (the computation is pure, so doing it twice gives the same result).
type Service struct {
	cfg   Config
	store *jobStore
	log   *slog.Logger

	mu      sync.Mutex
	queue   []Job
	wake    chan struct{}
	quit    chan struct{}
	wg      sync.WaitGroup
	started bool
}

// NewService returns a service on db; Start runs its workers.
func NewService(db *schema.DB, cfg Config) *Service {
	cfg.Workers = schema.OrDefault(cfg.Workers, 2)
	cfg.RetryDelay = schema.OrDefault(cfg.RetryDelay, 2*time.Second)
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Service{cfg: cfg, store: newJobStore(db), log: log, wake: make(chan struct{}, 1), quit: make(chan struct{})}
}

// Start queues the unfinished jobs found in the store and starts the workers.
func (s *Service) Start(ctx context.Context) error {
	pending, err := s.store.unfinished(ctx)
	if err != nil {
		return fmt.Errorf("recover advice jobs: %w", err)
	}
	if len(pending) > 0 {
		s.log.Info("advice jobs recovered", "jobs", len(pending))
	}
	s.mu.Lock()
	s.queue = append(pending, s.queue...)
	queueDepth.Set(float64(len(s.queue)))
	s.started = true
	s.mu.Unlock()
	for range s.cfg.Workers {
		s.wg.Add(1)
		go s.work()
	}
	s.signal()
	return nil
}

// Stop lets running jobs finish (until ctx ends); queued ones wait for the next Start.
func (s *Service) Stop(ctx context.Context) error {
	s.mu.Lock()
	if !s.started {
		s.mu.Unlock()
		return nil
	}
	s.started = false
	s.mu.Unlock()
	close(s.quit)
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("advice jobs still running at shutdown: they run again at the next start")
	}
}

// Submit validates a job's body, fills site data, stores the job CREATED and queues it.
// A bad body is an *InputError and stores nothing.
func (s *Service) Submit(ctx context.Context, tenantID string, body []byte) (Job, error) {
	_, inputs, err := ParseRequest(body)
	if err != nil {
		return Job{}, err
	}
	if inputs, err = s.fillFromSites(ctx, tenantID, inputs); err != nil {
		return Job{}, err
	}
	accepted := time.Now()
	now := accepted.UTC().Truncate(time.Second)
	j := Job{ID: uuid.NewString(), TenantID: tenantID, Status: StatusCreated, CreatedTS: now, UpdatedTS: now, Inputs: inputs, accepted: accepted}
	if err := s.store.put(ctx, j); err != nil {
		return Job{}, err
	}
	jobsSubmitted.Inc()
	s.enqueue(j)
	return j, nil
}

// Get returns a job of the tenant; another tenant's job is ErrJobNotFound, like an unknown one.
func (s *Service) Get(ctx context.Context, tenantID, jobID string) (Job, error) {
	if _, err := uuid.Parse(jobID); err != nil || len(jobID) != 36 {
		return Job{}, ErrJobNotFound
	}
	return s.store.get(ctx, tenantID, jobID)
}

func (s *Service) enqueue(j Job) {
	s.mu.Lock()
	s.queue = append(s.queue, j)
	queueDepth.Set(float64(len(s.queue)))
	s.mu.Unlock()
	s.signal()
}

func (s *Service) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest queued job.
func (s *Service) next() (Job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return Job{}, false
	}
	j := s.queue[0]
	s.queue = s.queue[1:]
	queueDepth.Set(float64(len(s.queue)))
	if len(s.queue) > 0 {
		s.signal() // another worker may take the next one
	}
	return j, true
}

// work is one worker of the pool: it computes queued jobs until Stop.
func (s *Service) work() {
	defer s.wg.Done()
	for {
		select {
		case <-s.quit:
			return
		default:
		}
		if j, ok := s.next(); ok {
			s.process(j)
			continue
		}
		select {
		case <-s.quit:
			return
		case <-s.wake:
		}
	}
}

// process runs one job to DONE or ERROR; a storage failure puts it back in the queue.
func (s *Service) process(j Job) {
	jobsRunning.Inc()
	defer jobsRunning.Dec()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if j.Status == StatusCreated {
		j = j.to(StatusInProgress, time.Now().UTC().Truncate(time.Second))
		if err := s.store.put(ctx, j); err != nil {
			s.retry(j, err)
			return
		}
	}
	final := s.compute(j)
	if err := s.store.put(ctx, final); err != nil {
		s.retry(j, err)
		return
	}
	jobsFinished.WithLabelValues(final.Status).Inc()
	if !final.accepted.IsZero() {
		jobLatency.Observe(time.Since(final.accepted).Seconds())
	}
	if final.Status == StatusDone {
		elementsComputed.Add(float64(len(final.Results)))
	}
}

// compute applies the catalog to every input; a panic (a bug) ends the job in ERROR instead
// of taking the process down.
func (s *Service) compute(j Job) (out Job) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("advice job failed", "jobId", j.ID, "panic", fmt.Sprint(r))
			out = j.to(StatusError, time.Now().UTC().Truncate(time.Second))
			out.Error = "the computation failed (internal error); submit the job again or report job " + j.ID
		}
	}()
	results := make([]Result, len(j.Inputs))
	for i, in := range j.Inputs {
		results[i] = Compute(in)
	}
	out = j.to(StatusDone, time.Now().UTC().Truncate(time.Second))
	out.Results = results
	return out
}

// retry puts a job back in the queue after a pause when the store could not record it.
func (s *Service) retry(j Job, err error) {
	jobRetries.Inc()
	level := slog.LevelWarn
	if !schema.IsUnavailable(err) && !errors.Is(err, context.DeadlineExceeded) {
		level = slog.LevelError
	}
	s.log.Log(context.Background(), level, "advice job not recorded, retrying", "jobId", j.ID, "error", err)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		select {
		case <-s.quit:
		case <-time.After(s.cfg.RetryDelay):
			s.enqueue(j)
		}
	}()
}

// elementPath names an element's key in errors: [3].input.SITE_ID.
func elementPath(i int, k Key) string { return "[" + strconv.Itoa(i) + "].input." + string(k) }
