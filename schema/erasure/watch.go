package erasure

import (
	"context"
	"time"

	"energy/schema/lease"
)

// dropLookBack is how far behind the newest DONE erasure seen one may appear (a clock behind,
// a replica's lag) and still have its cached answers dropped here.
const dropLookBack = 30 * time.Second

// watch reads the erasures of every energyd every Watch until ctx ends: the cached answers of a
// site erased elsewhere are dropped here, and an unfinished erasure whose lease expired is
// taken over.
func (s *Service) watch(ctx context.Context) {
	defer s.running.Done()
	t := time.NewTicker(s.Watch)
	defer t.Stop()
	since := time.Now().Add(-dropLookBack)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		newest, err := s.dropErased(ctx, since)
		if err != nil {
			s.log.Debug("erasures not read; cached answers of sites erased elsewhere are dropped later", "error", err)
		} else if newest.After(since.Add(dropLookBack)) {
			since = newest.Add(-dropLookBack)
		}
		if err := s.takeOver(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("unfinished erasures not read; none taken over", "error", err)
		}
	}
}

// dropErased tells the registry of every erasure DONE since (registry.DataVersions.Erased:
// the result caches and the directory drop the site) once, and returns the newest state_ts.
func (s *Service) dropErased(ctx context.Context, since time.Time) (time.Time, error) {
	done, err := s.list(ctx, "state = ? AND state_ts >= ?", StateDone, since.UTC().Truncate(time.Second))
	if err != nil {
		return since, err
	}
	newest := since
	for _, e := range done {
		if e.StateTS.After(newest) {
			newest = e.StateTS
		}
		s.mu.Lock()
		_, seen := s.dropped[e.ID]
		s.dropped[e.ID] = e.StateTS
		s.mu.Unlock()
		if !seen {
			s.reg.Versions.Erased(e.TenantID, e.SiteID)
		}
	}
	s.mu.Lock()
	for id, ts := range s.dropped {
		if ts.Before(since.Add(-dropLookBack)) {
			delete(s.dropped, id)
		}
	}
	s.mu.Unlock()
	return newest, nil
}

// takeOver claims the unfinished erasures (SUBMITTED, IN_PROGRESS) that run nowhere: their
// lease expired, or they never got one within a lease of their request. It runs those it won.
func (s *Service) takeOver(ctx context.Context) error {
	pending, err := s.list(ctx, "state IN (?, ?)", StateSubmitted, StateInProgress)
	if err != nil || len(pending) == 0 {
		return err
	}
	ids := make([]string, len(pending))
	for i, e := range pending {
		ids[i] = e.ID
	}
	cur, err := s.leases.Current(ctx, ids)
	if err != nil {
		return err
	}
	now := time.Now()
	var keys []lease.Key
	byID := map[string]Erasure{}
	for _, e := range pending {
		s.mu.Lock()
		running := s.mine[e.ID]
		s.mu.Unlock()
		x, held := cur[e.ID]
		if running || (held && !now.After(x.Expires)) || (!held && !now.After(e.RequestedTS.Add(s.leases.TTL+time.Second))) {
			continue
		}
		keys = append(keys, lease.Key{TenantID: e.TenantID, ID: e.ID})
		byID[e.ID] = e
	}
	if len(keys) == 0 {
		return nil
	}
	won, err := s.leases.Claim(ctx, keys)
	if err != nil {
		return err
	}
	for _, k := range won {
		e := byID[k.ID]
		s.log.Info("resuming the erasure of a site", "erasureId", e.ID, "tenant", e.TenantID, "site", e.SiteID, "state", e.State)
		s.spawn(e)
	}
	return nil
}
