package ingest

import (
	"context"
	"errors"
	"time"

	"energy/schema/lease"
)

// Leases (schema/lease), in cluster mode (Config.Shared): each energyd replica holds a lease on every job it
// has queued or is working on, and renews it while it holds the job; a job whose lease has
// expired (its replica died) is taken over by another replica. Reprocessing a job is harmless
// (inserts are idempotent), so two replicas briefly working on one job is acceptable; the
// claim below only makes it rare.

// DefaultLease is how long a job stays with a replica that stops renewing its lease.
const (
	DefaultLease = 30 * time.Second
	MaxLease     = time.Minute
)

// jobKeys are the lease keys of jobs.
func jobKeys(jobs []Job) []lease.Key {
	keys := make([]lease.Key, len(jobs))
	for i, j := range jobs {
		keys[i] = lease.Key{TenantID: j.TenantID, ID: j.ID}
	}
	return keys
}

// keepLeases renews the leases of this replica's jobs and takes over the jobs whose lease has
// expired, every third of the lease, until Stop.
func (s *Service) keepLeases() {
	defer s.wg.Done()
	ticker := time.NewTicker(s.leases.TTL / 3)
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
	ctx, cancel := context.WithTimeout(s.runCtx, s.leases.TTL/3)
	defer cancel()
	if err := s.leases.Hold(ctx, jobKeys(held)); err != nil {
		s.log.Warn("job leases not renewed; another replica may take the jobs over", "jobs", len(held), "error", err)
	}
}

// takeOver claims the unfinished jobs whose lease has expired (or that never got one within a
// lease of their submission) and queues them here.
func (s *Service) takeOver() {
	ctx, cancel := context.WithTimeout(s.runCtx, s.leases.TTL/3+s.leases.ClaimSettle())
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
	cur, err := s.leases.Current(ctx, ids)
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
		if (ok && now.After(x.Expires)) || (!ok && now.After(j.SubmittedTS.Add(s.leases.TTL+time.Second))) {
			expired = append(expired, j)
		}
	}
	s.mu.Unlock()
	if len(expired) == 0 {
		return
	}
	won, err := s.leases.Claim(ctx, jobKeys(expired))
	if err != nil {
		s.log.Warn("expired job leases not claimed", "jobs", len(expired), "error", err)
		return
	}
	owned := map[string]bool{}
	for _, k := range won {
		owned[k.ID] = true
	}
	for _, j := range expired {
		if !owned[j.ID] {
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
