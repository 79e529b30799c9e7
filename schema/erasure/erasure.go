// Package erasure removes a site's data on request (DELETE /v2/sites/{siteId}): every row of the
// site in every table that holds sites' rows, the site itself, every accepted archive still
// waiting that holds the site's readings, and every cached answer about it on every energyd. An
// erasure is a job recorded in site_erasures: SUBMITTED, IN_PROGRESS, then DONE with the rows
// removed per table, or ERROR once a step failed MaxFailures times in a row (a new DELETE of the
// site retries it). Each step can be repeated: a failed step is retried, and the energyd holding
// an erasure's lease (schema/lease) runs it; another takes it over when the lease expires (its
// holder died), so two never run one erasure at once.
package erasure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"

	"energy/schema"
	"energy/schema/audit"
	"energy/schema/lease"
	"energy/schema/registry"
	"energy/schema/tables"
)

// States of an erasure.
const (
	StateSubmitted  = "SUBMITTED"
	StateInProgress = "IN_PROGRESS"
	StateDone       = "DONE"
	StateError      = "ERROR"
)

// Defaults of a Service.
const (
	// DefaultMaxFailures: a step that fails this many times in a row (5 s apart) stops the
	// erasure in ERROR, for an operator to look at and an admin to retry.
	DefaultMaxFailures = 5
	// DefaultWatch is how often the erasures of other energyd are read: a DONE one drops the
	// site's cached answers here, an unfinished one whose lease expired is taken over.
	DefaultWatch = time.Second
)

// ErrNotFound: no such erasure in the tenant.
var ErrNotFound = errors.New("erasure not found")

// Erasure is one request to erase a site and where it stands.
type Erasure struct {
	ID          string
	TenantID    string
	SiteID      string
	TokenID     string // who asked
	State       string
	RequestedTS time.Time
	StateTS     time.Time
	// RowsRemoved counts the site's rows removed, by table (the table readers name: on a
	// cluster, the Distributed table over the shards).
	RowsRemoved map[string]uint64
	Error       string // the last failure of a step being retried, or the one that ended it in ERROR
}

// ArchiveScanner finds the accepted archives, not yet processed, that may hold readings of a
// site (ingest.Service: its spool files, or in cluster mode the archives table).
type ArchiveScanner interface {
	ArchivesOfSite(ctx context.Context, tenantID, siteID string) (jobIDs []string, err error)
}

// Service runs erasures in the background of an energyd.
type Service struct {
	db      *schema.DB
	reg     *registry.Store
	log     *slog.Logger
	rowVer  schema.RowVersions
	ctx     context.Context
	running sync.WaitGroup
	leases  *lease.Leases

	// Set before Start:
	// JobPoll is how often the archive jobs and archives the erasure waits for are checked.
	JobPoll time.Duration
	// Archives, when set, is scanned for archives holding the site's readings: the erasure
	// waits until none is left (see run).
	Archives ArchiveScanner
	// Lease is how long an erasure stays with an energyd that stops renewing its lease.
	Lease time.Duration
	// Watch is how often other energyd's erasures are read (DefaultWatch).
	Watch time.Duration
	// MaxFailures and RetryDelay: a step is retried RetryDelay after it failed, until it failed
	// MaxFailures times in a row (then ERROR).
	MaxFailures int
	RetryDelay  time.Duration

	mu      sync.Mutex
	mine    map[string]bool      // erasures running here
	dropped map[string]time.Time // DONE erasures whose cached answers were dropped here, by state_ts

	// afterTable, when set (tests), runs after each table is emptied; an error stops the
	// erasure there as a crash would.
	afterTable func(table string) error
}

// New returns the service; Start must run before Request.
func New(db *schema.DB, reg *registry.Store, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{db: db, reg: reg, log: log, JobPoll: 200 * time.Millisecond, ctx: context.Background(),
		Lease: 30 * time.Second, Watch: DefaultWatch, MaxFailures: DefaultMaxFailures, RetryDelay: 5 * time.Second,
		mine: map[string]bool{}, dropped: map[string]time.Time{}}
}

// Start resumes every erasure that is not finished (a crash or a stop interrupted it) and
// whose lease has expired, then watches the erasures of every energyd (see DefaultWatch), and
// runs later requests under ctx.
func (s *Service) Start(ctx context.Context) error {
	s.ctx = ctx
	s.leases = lease.New(s.db, s.Lease)
	if err := s.takeOver(ctx); err != nil {
		return err
	}
	s.running.Add(1)
	go s.watch(ctx)
	return nil
}

// Wait returns once no erasure runs (after Start's ctx ends, or when all are finished).
func (s *Service) Wait() { s.running.Wait() }

// Request records the erasure of a site of the tenant (which the caller checked exists) and
// starts it; the audit trail gets a site.erase row with the site as it was.
func (s *Service) Request(ctx context.Context, tokenID string, site registry.Site) (Erasure, error) {
	now := time.Now().UTC().Truncate(time.Second)
	e := Erasure{ID: uuid.NewString(), TenantID: site.TenantID, SiteID: site.SiteID, TokenID: tokenID, State: StateSubmitted,
		RequestedTS: now, StateTS: now, RowsRemoved: map[string]uint64{}}
	// The lease first: the erasure is this energyd's as soon as it exists.
	if err := s.leases.Hold(ctx, []lease.Key{{TenantID: e.TenantID, ID: e.ID}}); err != nil {
		return e, err
	}
	if err := s.put(ctx, e); err != nil {
		return e, err
	}
	if err := audit.Record(ctx, s.db, site.TenantID, audit.SiteErase, "sites/"+site.SiteID, site, nil); err != nil {
		return e, err
	}
	s.spawn(e)
	return e, nil
}

// Retry starts again the latest erasure of the site that ended in ERROR (a DELETE of a site
// whose erasure failed); ok is false when there is none.
func (s *Service) Retry(ctx context.Context, tenantID, siteID string) (e Erasure, ok bool, err error) {
	es, err := s.list(ctx, "tenant_id = ? AND erased_site = ?", tenantID, siteID)
	if err != nil || len(es) == 0 {
		return Erasure{}, false, err
	}
	e = es[len(es)-1]
	if e.State != StateError {
		return Erasure{}, false, nil
	}
	// The lease before the state: no other energyd takes over what it then sees unfinished.
	if err := s.leases.Hold(ctx, []lease.Key{{TenantID: e.TenantID, ID: e.ID}}); err != nil {
		return e, false, err
	}
	e.State, e.StateTS = StateSubmitted, time.Now().UTC()
	if err := s.put(ctx, e); err != nil {
		return e, false, err
	}
	s.log.Info("erasure retried", "erasureId", e.ID, "tenant", e.TenantID, "site", e.SiteID, "lastError", e.Error)
	s.spawn(e)
	return e, true, nil
}

// Get returns an erasure of the tenant.
func (s *Service) Get(ctx context.Context, tenantID, id string) (Erasure, error) {
	es, err := s.list(ctx, "tenant_id = ? AND erasure_id = ?", tenantID, id)
	if err != nil {
		return Erasure{}, err
	}
	if len(es) == 0 {
		return Erasure{}, ErrNotFound
	}
	return es[0], nil
}

// spawn runs the erasure here, under a lease renewed while it runs, unless it already runs
// here. A failed step is retried RetryDelay later from what was recorded (the report so far);
// after MaxFailures failures in a row the erasure is ERROR with the last failure.
func (s *Service) spawn(e Erasure) {
	s.mu.Lock()
	if s.mine[e.ID] {
		s.mu.Unlock()
		return
	}
	s.mine[e.ID] = true
	s.mu.Unlock()
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		defer func() { s.mu.Lock(); delete(s.mine, e.ID); s.mu.Unlock() }()
		ctx, stop := context.WithCancel(s.ctx)
		defer stop()
		go s.renew(ctx, lease.Key{TenantID: e.TenantID, ID: e.ID})
		for failures := 1; ; failures++ {
			err := s.run(ctx, e)
			if err == nil {
				return
			}
			if ctx.Err() != nil {
				s.log.Warn("erasure interrupted; it resumes at the next start or on another energyd", "erasureId", e.ID, "error", err)
				return
			}
			e.Error = err.Error()
			if failures >= s.MaxFailures {
				s.log.Error("erasure failed; ERROR until a new DELETE of the site", "erasureId", e.ID, "tenant", e.TenantID, "site", e.SiteID, "failures", failures, "error", err)
				e.State, e.StateTS = StateError, time.Now().UTC()
				if perr := s.put(ctx, e); perr != nil {
					s.log.Error("erasure's ERROR not recorded; it resumes at the next start", "erasureId", e.ID, "error", perr)
				}
				return
			}
			s.log.Error("erasure failed; retrying", "erasureId", e.ID, "tenant", e.TenantID, "site", e.SiteID, "failures", failures, "error", err)
			_ = s.put(ctx, e) // the error is shown with the erasure while it is retried
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.RetryDelay):
			}
			if cur, gerr := s.Get(ctx, e.TenantID, e.ID); gerr == nil {
				cur.Error = e.Error
				e = cur
			}
		}
	}()
}

// renew extends the lease of a running erasure every third of the lease until ctx ends.
func (s *Service) renew(ctx context.Context, k lease.Key) {
	t := time.NewTicker(s.leases.TTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := s.leases.Hold(ctx, []lease.Key{k}); err != nil && ctx.Err() == nil {
			s.log.Warn("erasure lease not renewed; another energyd may take the erasure over", "erasureId", k.ID, "error", err)
		}
	}
}

// run erases the site: the site itself first, so that no archive adds rows of it any more
// (they are refused like an unknown site's) and this energyd drops its cached answers of it;
// then it waits until the tenant's archive jobs submitted before the request are final and no
// accepted archive that holds readings of the site is left (Archives: an archive also holding
// other sites' readings is processed as usual, so theirs land, while the erased site's
// operations in it are refused, and its file is deleted once its job is final); then every
// row of the site in every table; then it checks that every table counts 0 rows of the site,
// drops the cached answers again (one computed meanwhile) and is DONE, which every other
// energyd's watch sees and drops its own.
func (s *Service) run(ctx context.Context, e Erasure) error {
	e.State, e.StateTS = StateInProgress, time.Now().UTC()
	if e.RowsRemoved == nil {
		e.RowsRemoved = map[string]uint64{}
	}
	if err := s.put(ctx, e); err != nil {
		return err
	}
	all, err := s.db.SiteTables(ctx)
	if err != nil {
		return err
	}
	// The site's registry row first: from then on it is an unknown site everywhere.
	sort.SliceStable(all, func(i, j int) bool { return isSites(all[i]) && !isSites(all[j]) })
	for i, t := range all {
		if err := s.empty(ctx, &e, t); err != nil {
			return err
		}
		if i == 0 && isSites(t) {
			s.reg.Versions.Bump(e.TenantID, "")
			s.reg.Versions.Erased(e.TenantID, e.SiteID)
			if err := s.waitForJobs(ctx, e); err != nil {
				return err
			}
			if err := s.waitForArchives(ctx, e); err != nil {
				return err
			}
		}
	}
	// A row written while a table was being emptied (an archive job that had found the site
	// just before it was removed) is caught here.
	for pass := 0; ; pass++ {
		left := 0
		for _, t := range all {
			n, err := s.db.CountSiteRows(ctx, t, e.TenantID, e.SiteID)
			if err != nil {
				return err
			}
			if n > 0 {
				left++
				if err := s.empty(ctx, &e, t); err != nil {
					return err
				}
			}
		}
		if left == 0 {
			break
		}
		if pass == 2 {
			return fmt.Errorf("rows of the site keep appearing in %d tables", left)
		}
	}
	s.reg.Versions.Bump(e.TenantID, "")
	s.reg.Versions.Erased(e.TenantID, e.SiteID)
	e.State, e.StateTS, e.Error = StateDone, time.Now().UTC(), ""
	return s.put(ctx, e)
}

func isSites(t schema.SiteTable) bool { return t.Read == tables.Sites }

// empty removes the site's rows from t, adding them to the report first (recorded before the
// deletion, so that a crash in between counts them once: a resumed erasure keeps the larger
// of the recorded and the remaining count).
func (s *Service) empty(ctx context.Context, e *Erasure, t schema.SiteTable) error {
	n, err := s.db.CountSiteRows(ctx, t, e.TenantID, e.SiteID)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if n > e.RowsRemoved[t.Read] {
		e.RowsRemoved[t.Read] = n
		if err := s.put(ctx, *e); err != nil {
			return err
		}
	}
	if err := s.db.DeleteSiteRows(ctx, t, e.TenantID, e.SiteID); err != nil {
		return err
	}
	if s.afterTable != nil {
		return s.afterTable(t.Read)
	}
	return nil
}

// waitForJobs waits until every archive job of the tenant submitted up to the request is final:
// such a job may hold rows of the site in its archive, and its spool file is removed once it is.
func (s *Service) waitForJobs(ctx context.Context, e Erasure) error {
	for {
		var pending uint64
		err := s.db.Conn.QueryRow(ctx, "SELECT count() FROM (SELECT state, submitted_ts FROM "+tables.Jobs+" FINAL WHERE tenant_id = ?) WHERE state IN (?, ?) AND submitted_ts <= ?",
			e.TenantID, StateSubmitted, StateInProgress, e.RequestedTS).Scan(&pending)
		if err != nil {
			return err
		}
		if pending == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(s.JobPoll):
		}
	}
}

// waitForArchives waits until Archives finds no accepted archive holding readings of the site.
func (s *Service) waitForArchives(ctx context.Context, e Erasure) error {
	if s.Archives == nil {
		return nil
	}
	for {
		ids, err := s.Archives.ArchivesOfSite(ctx, e.TenantID, e.SiteID)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(s.JobPoll):
		}
	}
}

func (s *Service) put(ctx context.Context, e Erasure) error {
	report, err := json.Marshal(e.RowsRemoved)
	if err != nil {
		return err
	}
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.SiteErasures+" (tenant_id, erasure_id, erased_site, token_id, state, requested_ts, state_ts, report, error, version)")
	if err != nil {
		return err
	}
	if err := b.Append(e.TenantID, e.ID, e.SiteID, e.TokenID, e.State, e.RequestedTS, e.StateTS.UTC().Truncate(time.Second), string(report), e.Error, s.rowVer.Next()); err != nil {
		return err
	}
	return b.Send()
}

// list reads the erasures matching where, a fixed condition with bound values.
func (s *Service) list(ctx context.Context, where string, args ...any) ([]Erasure, error) {
	rows, err := s.db.Conn.Query(ctx, "SELECT tenant_id, erasure_id, erased_site, token_id, state, requested_ts, state_ts, report, error FROM (SELECT * FROM "+
		tables.SiteErasures+" FINAL) WHERE "+where+" ORDER BY requested_ts, erasure_id", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Erasure
	for rows.Next() {
		var e Erasure
		var report string
		if err := rows.Scan(&e.TenantID, &e.ID, &e.SiteID, &e.TokenID, &e.State, &e.RequestedTS, &e.StateTS, &report, &e.Error); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(report), &e.RowsRemoved); err != nil {
			return nil, fmt.Errorf("erasure %s: report: %w", e.ID, err)
		}
		e.RequestedTS, e.StateTS = e.RequestedTS.UTC(), e.StateTS.UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}
