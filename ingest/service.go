package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/google/uuid"

	"energy/schema"
	"energy/schema/lease"
	"energy/schema/registry"
	"energy/schema/sitedata"
)

// Defaults of Config.
const (
	DefaultWorkers      = 2
	DefaultDeadline     = 10 * time.Minute
	DefaultPollInterval = time.Second
	DefaultRetryDelay   = 2 * time.Second
)

// Config is what the intake needs.
type Config struct {
	DB       *schema.DB
	Registry *registry.Store // tenant sites (identity resolution) and per-site data versions
	SpoolDir string          // accepted archives until their job is final (one process per directory)
	Keys     openpgp.EntityList
	// Workers bounds the jobs processed at once (each holds at most one decompressed archive,
	// 64 MiB, in memory).
	Workers int
	// DecodeSlots bounds the archives decompressed and the files decoded at once, across the
	// workers (DefaultDecodeSlots when zero: a processor stays free for requests).
	DecodeSlots int
	// Deadline: a job not final this long after its submission ends in TIMEOUT.
	Deadline time.Duration
	// PollInterval is how often idle workers look for work and waiting jobs are checked
	// against the deadline.
	PollInterval time.Duration
	// RetryDelay is the pause before a job that hit a transient failure (storage down) is tried again.
	RetryDelay time.Duration
	Log        *slog.Logger
	// AfterStore, when set, hears what each job stored (after its rows are inserted, before it
	// is recorded DONE); an error makes the job be processed again after RetryDelay (harmless:
	// inserts are idempotent), so what the hook writes is written with the job's outcome.
	AfterStore func(ctx context.Context, d sitedata.Stored) error
	// AfterWrite, when set, hears the spans of index readings each job inserted, per site and
	// fluid (after its rows are inserted, before it is recorded DONE, so that what the hook
	// derives from them is readable once the job is DONE); an error makes the job be processed
	// again after RetryDelay, as for AfterStore. energyd writes the daily energy table there.
	AfterWrite func(ctx context.Context, w sitedata.Written) error
	// Shared: several energyd replicas share the store (a ClickHouse cluster). Accepted
	// archives are kept in the store's archives table, acknowledged by two ClickHouse replicas,
	// instead of the spool (which then only stages uploads), so that any replica can process
	// any job.
	Shared bool
	// Lease (cluster mode): a job whose replica stops renewing its lease for this long is taken
	// over by another replica (DefaultLease when zero; at most MaxLease).
	Lease time.Duration
}

// Service accepts archives, runs their jobs on a bounded worker pool and answers job queries.
//
// Durability: an archive is in the spool (fsynced) before its SUBMITTED row is written, and
// its spool file is deleted only once the job is final. On Start every spool file whose job
// is not final is processed again (a missing job row is written from the file's header), so a
// crash at any point loses no accepted archive; re-processing inserts the same rows again,
// which the tables' keys deduplicate. In cluster mode (Config.Shared) the archives are in the
// store instead, and a job left by a dead replica is taken over once its lease expires.
type Service struct {
	cfg   Config
	jobs  *jobStore
	spool *spool
	// stored keeps the archives in the store when Config.Shared (nil: the spool keeps them).
	stored *storedArchives
	// leases (cluster mode) keep this replica's jobs its own and find the jobs of dead ones.
	leases *lease.Leases
	log    *slog.Logger
	now    func() time.Time

	mu        sync.Mutex
	entries   map[string]*entry // this process's non-final jobs
	order     []string          // entries in submission order
	lastDepth int
	wake      chan struct{}
	cpu       cpuSlots // held while an archive is decompressed or a file decoded

	startOnce, stopOnce sync.Once
	quit                chan struct{}      // closed by Stop: no new job is claimed
	runCtx              context.Context    // cancelled when Stop stops waiting for in-flight jobs
	cancelRun           context.CancelFunc // releases in-flight jobs
	wg                  sync.WaitGroup

	// beforeInsert, when set (tests), runs after validation and before the rows are inserted.
	beforeInsert func(ctx context.Context, j Job)
	// afterInsert, when set (tests), runs after the rows are inserted and before DONE is written.
	afterInsert func(ctx context.Context, j Job)
}

// entry is a non-final job known to this process.
type entry struct {
	job       Job
	deadline  time.Time // submission + Deadline
	claimed   bool      // a worker or the deadline sweeper holds it
	notBefore time.Time // retry pause after a transient failure
	orphan    bool      // no spool file here: only its deadline can end it
	// unrecorded: accepted while the store did not answer; no row of it is stored yet, so
	// reads of the job are answered from here.
	unrecorded bool
	claimedAt  time.Time
}

// New prepares the service; Start recovers unfinished jobs and starts the workers.
func New(cfg Config) (*Service, error) {
	if cfg.DB == nil || cfg.Registry == nil {
		return nil, errors.New("ingest: DB and Registry are required")
	}
	if cfg.SpoolDir == "" {
		return nil, errors.New("ingest: SpoolDir is required")
	}
	cfg.Workers = schema.OrDefault(cfg.Workers, DefaultWorkers)
	cfg.DecodeSlots = schema.OrDefault(cfg.DecodeSlots, DefaultDecodeSlots())
	cfg.Deadline = schema.OrDefault(cfg.Deadline, DefaultDeadline)
	cfg.PollInterval = schema.OrDefault(cfg.PollInterval, DefaultPollInterval)
	cfg.RetryDelay = schema.OrDefault(cfg.RetryDelay, DefaultRetryDelay)
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	sp, err := newSpool(cfg.SpoolDir)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	s := &Service{
		cfg: cfg, jobs: newJobStore(cfg.DB), spool: sp, log: cfg.Log.With("component", "ingest"), now: time.Now,
		entries: map[string]*entry{}, wake: make(chan struct{}, cfg.Workers), cpu: newCPUSlots(cfg.DecodeSlots),
		quit: make(chan struct{}), runCtx: runCtx, cancelRun: cancel,
	}
	if cfg.Shared {
		cfg.Lease = schema.OrDefault(cfg.Lease, DefaultLease)
		if cfg.Lease > MaxLease {
			return nil, fmt.Errorf("ingest: a job lease of %s is longer than %s", cfg.Lease, MaxLease)
		}
		s.cfg.Lease = cfg.Lease
		s.stored = &storedArchives{db: cfg.DB, quorumTimeout: quorumTimeout}
		s.leases = lease.New(cfg.DB, cfg.Lease)
	}
	return s, nil
}

// Deadline is the configured job deadline.
func (s *Service) Deadline() time.Duration { return s.cfg.Deadline }

// Start recovers the jobs a previous run left unfinished, then starts the workers and the
// deadline sweeper. It fails when the job table cannot be read.
func (s *Service) Start(ctx context.Context) error {
	var err error
	s.startOnce.Do(func() {
		if err = s.recover(ctx); err != nil {
			return
		}
		for i := 0; i < s.cfg.Workers; i++ {
			s.wg.Add(1)
			go s.work()
		}
		s.wg.Add(1)
		go s.sweep()
		if s.leases != nil {
			s.wg.Add(1)
			go s.keepLeases()
		}
	})
	return err
}

// Stop claims no new job and waits for the in-flight ones to finish; when ctx ends first it
// releases them (they stay IN_PROGRESS with their archive in the spool and are processed
// again by the next Start).
func (s *Service) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() { close(s.quit) })
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		s.cancelRun()
		return nil
	case <-ctx.Done():
		s.cancelRun()
		<-done
		return fmt.Errorf("ingest: in-flight jobs released at stop: %w", ctx.Err())
	}
}

// Job returns a job of the tenant with its file reports; ErrJobNotFound for an unknown id,
// a malformed one, or another tenant's job.
func (s *Service) Job(ctx context.Context, tenantID, jobID string) (Job, error) {
	if _, err := uuid.Parse(jobID); err != nil || len(jobID) != 36 {
		return Job{}, ErrJobNotFound
	}
	if j, ok := s.unrecordedJob(tenantID, jobID); ok {
		return j, nil
	}
	return s.jobs.get(ctx, tenantID, jobID)
}

// unrecordedJob is a job of the tenant accepted while the store did not answer, whose row is
// not written yet.
func (s *Service) unrecordedJob(tenantID, jobID string) (Job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[jobID]
	if e == nil || !e.unrecorded || e.job.TenantID != tenantID {
		return Job{}, false
	}
	return e.job, true
}

// List returns one page of the tenant's jobs whose state.ts lies in [f.Begin, f.End], newest
// first, and how many jobs match.
func (s *Service) List(ctx context.Context, tenantID string, f ListFilter) ([]Job, int, error) {
	return s.jobs.list(ctx, tenantID, f)
}

// add registers a non-final job and wakes a worker; false when it was already known.
func (s *Service) add(j Job, deadline time.Time, orphan bool) bool {
	return s.register(&entry{job: j, deadline: deadline, orphan: orphan})
}

// addNew registers a job just submitted; unrecorded when its row could not be written.
func (s *Service) addNew(j Job, deadline time.Time, unrecorded bool) {
	s.register(&entry{job: j, deadline: deadline, unrecorded: unrecorded})
}

func (s *Service) register(e *entry) bool {
	j := e.job
	s.mu.Lock()
	_, known := s.entries[j.ID]
	if !known {
		s.entries[j.ID] = e
		s.order = append(s.order, j.ID)
		s.updateDepthLocked()
	}
	s.mu.Unlock()
	s.signal()
	return !known
}

func (s *Service) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// updateDepthLocked publishes the number of jobs waiting for a worker.
func (s *Service) updateDepthLocked() {
	n := 0
	for _, e := range s.entries {
		if !e.claimed && !e.orphan {
			n++
		}
	}
	queueDepth.Add(float64(n - s.lastDepth))
	s.lastDepth = n
}

// forget drops a job that reached a final state.
func (s *Service) forget(id string) {
	s.mu.Lock()
	delete(s.entries, id)
	for i, x := range s.order {
		if x == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.updateDepthLocked()
	s.mu.Unlock()
}

// release gives a claimed job back to the queue, to be tried again after delay.
func (s *Service) release(e *entry, delay time.Duration) {
	s.mu.Lock()
	e.claimed = false
	e.notBefore = s.now().Add(delay)
	s.updateDepthLocked()
	s.mu.Unlock()
}
