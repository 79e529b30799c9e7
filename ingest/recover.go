package ingest

import (
	"context"
	"fmt"
	"sort"
)

// recover rebuilds the queue after a restart or a crash:
//   - a spool file whose job is not final is queued again (IN_PROGRESS jobs are processed
//     from the start; their inserts, if any were made, are deduplicated by the tables' keys);
//   - a spool file whose job row is missing (crash between the rename and the row) gets its
//     SUBMITTED row from the file's header;
//   - a spool file whose job is final (crash before the delete) is deleted;
//   - a non-final job with no spool file here (another spool directory, or a lost one) cannot
//     be processed: it ends in TIMEOUT when its deadline passes, unless it is finished elsewhere;
//     in cluster mode its archive is in the store, and it is taken over once its lease expires.
func (s *Service) recover(ctx context.Context) error {
	metas, bad, err := s.spool.scan()
	if err != nil {
		return fmt.Errorf("ingest: read the archive spool: %w", err)
	}
	for _, name := range bad {
		s.log.Error("unreadable spool file left in place", "file", name, "dir", s.spool.dir)
	}
	sort.Slice(metas, func(i, j int) bool { return metas[i].SubmittedTS.Before(metas[j].SubmittedTS) })
	ids := make([]string, len(metas))
	for i, m := range metas {
		ids[i] = m.ID
	}
	stored, err := s.jobs.latestOf(ctx, ids)
	if err != nil {
		return fmt.Errorf("ingest: read the spooled archives' jobs: %w", err)
	}
	requeued, registered := 0, 0
	for _, m := range metas {
		j, found := stored[m.ID]
		if !found || j.TenantID != m.TenantID {
			j = newJob(m)
			if err := s.jobs.put(ctx, j); err != nil {
				return fmt.Errorf("ingest: re-register job %s: %w", m.ID, err)
			}
			registered++
		}
		if Final(j.State) {
			if err := s.spool.remove(m.ID); err != nil {
				s.log.Warn("spool file of a final job not deleted", "job", m.ID, "error", err)
			}
			continue
		}
		if s.add(j, m.SubmittedTS.Add(s.cfg.Deadline), false) {
			requeued++
		}
	}
	if s.leases != nil {
		// Cluster mode: the archives are in the store, and jobs whose lease has expired
		// (this replica's previous run included) are taken over as soon as the workers start.
		if requeued+registered > 0 {
			s.log.Info("unfinished jobs recovered", "requeued", requeued, "reregistered", registered)
		}
		return nil
	}
	unfinished, err := s.jobs.unfinished(ctx)
	if err != nil {
		return fmt.Errorf("ingest: list unfinished jobs: %w", err)
	}
	orphans := 0
	for _, j := range unfinished {
		if s.spool.exists(j.ID) {
			continue
		}
		if s.add(j, j.SubmittedTS.Add(s.cfg.Deadline), true) {
			orphans++
		}
	}
	if requeued+registered+orphans > 0 {
		s.log.Info("unfinished jobs recovered", "requeued", requeued, "reregistered", registered, "withoutArchive", orphans)
	}
	return nil
}
