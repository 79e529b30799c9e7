// Package erasure removes a site's data on request (DELETE /v2/sites/{siteId}): every row of the
// site in every table that holds sites' rows, the site itself, and every cached answer about it on
// every energyd. An erasure is a job recorded in site_erasures: SUBMITTED, IN_PROGRESS, then DONE
// with the rows removed per table. Each step can be repeated: a failed step is retried, and an
// energyd that starts resumes the erasures a crash interrupted.
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
	"energy/schema/registry"
	"energy/schema/tables"
)

// States of an erasure.
const (
	StateSubmitted  = "SUBMITTED"
	StateInProgress = "IN_PROGRESS"
	StateDone       = "DONE"
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
	Error       string // the last failure of a step being retried
}

// Service runs erasures in the background of an energyd.
type Service struct {
	db      *schema.DB
	reg     *registry.Store
	log     *slog.Logger
	rowVer  schema.RowVersions
	ctx     context.Context
	running sync.WaitGroup
	// JobPoll is how often the archive jobs the erasure waits for are checked.
	JobPoll time.Duration
	// afterTable, when set (tests), runs after each table is emptied; an error stops the
	// erasure there as a crash would.
	afterTable func(table string) error
}

// New returns the service; Start must run before Request.
func New(db *schema.DB, reg *registry.Store, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{db: db, reg: reg, log: log, JobPoll: 200 * time.Millisecond, ctx: context.Background()}
}

// Start resumes every erasure that is not finished (a crash or a stop interrupted it) and
// runs later requests under ctx.
func (s *Service) Start(ctx context.Context) error {
	s.ctx = ctx
	pending, err := s.list(ctx, "state IN (?, ?)", StateSubmitted, StateInProgress)
	if err != nil {
		return err
	}
	for _, e := range pending {
		s.log.Info("resuming the erasure of a site", "erasureId", e.ID, "tenant", e.TenantID, "site", e.SiteID, "state", e.State)
		s.spawn(e)
	}
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
	if err := s.put(ctx, e); err != nil {
		return e, err
	}
	if err := audit.Record(ctx, s.db, site.TenantID, audit.SiteErase, "sites/"+site.SiteID, site, nil); err != nil {
		return e, err
	}
	s.spawn(e)
	return e, nil
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

// retryDelay is the wait before an erasure that failed (the store unreachable, a mutation
// refused) is tried again: it never ends half done while its energyd runs.
const retryDelay = 5 * time.Second

func (s *Service) spawn(e Erasure) {
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		for {
			err := s.run(s.ctx, e)
			if err == nil {
				return
			}
			if s.ctx.Err() != nil {
				s.log.Warn("erasure interrupted; it resumes at the next start", "erasureId", e.ID, "error", err)
				return
			}
			s.log.Error("erasure failed; retrying", "erasureId", e.ID, "tenant", e.TenantID, "site", e.SiteID, "error", err)
			e.Error = err.Error() // shown with the erasure until it ends
			_ = s.put(s.ctx, e)
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(retryDelay):
			}
			// Resume from what was recorded (the report so far).
			if cur, gerr := s.Get(s.ctx, e.TenantID, e.ID); gerr == nil {
				e = cur
			}
		}
	}()
}

// run erases the site: the site itself first, so that no archive adds rows of it any more
// (they are refused like an unknown site's); then, once the tenant's archive jobs submitted
// before the request are final (their spool files removed with them), every row of the site
// in every table; then it checks that every table counts 0 rows of the site, and changes the
// tenant's reference version so that every energyd drops its cached answers about the site.
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
			if err := s.waitForJobs(ctx, e); err != nil {
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
