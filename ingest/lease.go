package ingest

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"energy/schema"
	"energy/schema/tables"
)

// Leases, in cluster mode (Config.Shared): each energyd replica holds a lease on every job it
// has queued or is working on, and renews it while it holds the job; a job whose lease has
// expired (its replica died) is taken over by another replica. Reprocessing a job is harmless
// (inserts are idempotent), so two replicas briefly working on one job is acceptable; the
// claim below only makes it rare.

// DefaultLease is how long a job stays with a replica that stops renewing its lease.
const (
	DefaultLease = 30 * time.Second
	MaxLease     = time.Minute
)

// leases reads and writes the job_leases table for one replica (owner).
type leases struct {
	db     *schema.DB
	owner  string
	ttl    time.Duration
	rowVer schema.RowVersions
}

func newLeases(db *schema.DB, ttl time.Duration) *leases {
	return &leases{db: db, owner: uuid.NewString(), ttl: ttl}
}

// hold writes this replica's lease, expiring ttl from now, on each job.
func (l *leases) hold(ctx context.Context, jobs []Job) error {
	if len(jobs) == 0 {
		return nil
	}
	b, err := l.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.JobLeases+" (tenant_id, job_id, owner, expires_ts, version)")
	if err != nil {
		return err
	}
	// Rounded up: a lease never expires before ttl has passed.
	expires := time.Now().UTC().Add(l.ttl + time.Second).Truncate(time.Second)
	first := l.rowVer.Reserve(len(jobs))
	for i, j := range jobs {
		if err := b.Append(j.TenantID, j.ID, l.owner, expires, first+uint64(i)); err != nil {
			_ = b.Abort()
			return err
		}
	}
	return b.Send()
}

// lease is the latest lease written on a job.
type lease struct {
	owner   string
	expires time.Time
}

// current returns the latest lease of each of the jobs that has one.
func (l *leases) current(ctx context.Context, ids []string) (map[string]lease, error) {
	out := map[string]lease{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := l.db.Conn.Query(ctx, "SELECT job_id, argMax(owner, version), argMax(expires_ts, version) FROM "+tables.JobLeases+" WHERE has(?, job_id) GROUP BY job_id", ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var x lease
		if err := rows.Scan(&id, &x.owner, &x.expires); err != nil {
			return nil, err
		}
		out[id] = x
	}
	return out, rows.Err()
}

// claimSettle is how long a claim waits for a concurrent claim by another replica to be
// replicated before it reads which one won (the later write).
func (l *leases) claimSettle() time.Duration { return min(time.Second, l.ttl/3) }

// keepLeases renews the leases of this replica's jobs and takes over the jobs whose lease has
// expired, every third of the lease, until Stop.
func (s *Service) keepLeases() {
	defer s.wg.Done()
	ticker := time.NewTicker(s.leases.ttl / 3)
	defer ticker.Stop()
	for {
		s.renewLeases()
		s.takeOver()
		select {
		case <-s.quit:
			return
		case <-ticker.C:
		}
	}
}

// renewLeases extends the lease of every job this replica holds.
func (s *Service) renewLeases() {
	s.mu.Lock()
	held := make([]Job, 0, len(s.entries))
	for _, e := range s.entries {
		held = append(held, e.job)
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.runCtx, s.leases.ttl/3)
	defer cancel()
	if err := s.leases.hold(ctx, held); err != nil {
		s.log.Warn("job leases not renewed; another replica may take the jobs over", "jobs", len(held), "error", err)
	}
}

// takeOver claims the unfinished jobs whose lease has expired (or that never got one within a
// lease of their submission) and queues them here.
func (s *Service) takeOver() {
	ctx, cancel := context.WithTimeout(s.runCtx, s.leases.ttl/3+s.leases.claimSettle())
	defer cancel()
	unfinished, err := s.jobs.unfinished(ctx)
	if err != nil {
		s.log.Warn("unfinished jobs not read; no job taken over", "error", err)
		return
	}
	now := time.Now()
	var ids []string
	for _, j := range unfinished {
		ids = append(ids, j.ID)
	}
	cur, err := s.leases.current(ctx, ids)
	if err != nil {
		s.log.Warn("job leases not read; no job taken over", "error", err)
		return
	}
	var expired []Job
	s.mu.Lock()
	for _, j := range unfinished {
		if s.entries[j.ID] != nil {
			continue
		}
		x, ok := cur[j.ID]
		if (ok && now.After(x.expires)) || (!ok && now.After(j.SubmittedTS.Add(s.leases.ttl+time.Second))) {
			expired = append(expired, j)
		}
	}
	s.mu.Unlock()
	if len(expired) == 0 {
		return
	}
	if err := s.leases.hold(ctx, expired); err != nil {
		s.log.Warn("expired job leases not claimed", "jobs", len(expired), "error", err)
		return
	}
	select {
	case <-ctx.Done():
		return
	case <-time.After(s.leases.claimSettle()):
	}
	ids = ids[:0]
	for _, j := range expired {
		ids = append(ids, j.ID)
	}
	if cur, err = s.leases.current(ctx, ids); err != nil {
		s.log.Warn("claimed job leases not read back", "error", err)
		return
	}
	for _, j := range expired {
		if cur[j.ID].owner != s.leases.owner {
			continue // another replica claimed it later
		}
		j.Files = nil
		if s.add(j, j.SubmittedTS.Add(s.cfg.Deadline), false) {
			jobsTakenOver.Inc()
			s.log.Info("job taken over from a replica whose lease expired", "job", j.ID, "state", j.State)
		}
	}
}

// errJobFinishedElsewhere: another replica finished the job this one holds.
var errJobFinishedElsewhere = errors.New("the job was finished by another replica")

// refresh re-reads a job held in cluster mode before it is processed, since another replica
// may have worked on it meanwhile; errJobFinishedElsewhere when it is final.
func (s *Service) refresh(ctx context.Context, e *entry) (Job, error) {
	cur, err := s.jobs.get(ctx, e.job.TenantID, e.job.ID)
	if err != nil {
		return Job{}, err
	}
	if Final(cur.State) {
		return cur, errJobFinishedElsewhere
	}
	cur.Files = nil
	s.mu.Lock()
	e.job = cur
	s.mu.Unlock()
	return cur, nil
}
