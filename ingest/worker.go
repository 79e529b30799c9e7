package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"energy/schema/sitedata"
)

// work is one worker: it claims the oldest waiting job, processes it, and repeats until Stop.
func (s *Service) work() {
	defer s.wg.Done()
	timer := time.NewTimer(s.cfg.PollInterval)
	defer timer.Stop()
	for {
		select {
		case <-s.quit:
			return
		default:
		}
		if e := s.claim(); e != nil {
			s.process(e)
			continue
		}
		timer.Reset(s.cfg.PollInterval)
		select {
		case <-s.quit:
			return
		case <-s.wake:
		case <-timer.C:
		}
	}
}

// claim takes the oldest job that waits for a worker and is not pausing after a failure.
func (s *Service) claim() *entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for _, id := range s.order {
		e := s.entries[id]
		if e == nil || e.claimed || e.orphan || now.Before(e.notBefore) {
			continue
		}
		e.claimed, e.claimedAt = true, now
		s.updateDepthLocked()
		return e
	}
	return nil
}

// sweep ends in TIMEOUT the jobs that wait past their deadline (a worker times out the job it
// holds itself), so that state.ts is the moment the deadline passed even when every worker is busy.
func (s *Service) sweep() {
	defer s.wg.Done()
	ticker := time.NewTicker(s.cfg.PollInterval)
	defer ticker.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-ticker.C:
		}
		s.mu.Lock()
		now := s.now()
		var due []*entry
		for _, id := range s.order {
			if e := s.entries[id]; e != nil && !e.claimed && !now.Before(e.deadline) {
				e.claimed, e.claimedAt = true, now
				due = append(due, e)
			}
		}
		if len(due) > 0 {
			s.updateDepthLocked()
		}
		s.mu.Unlock()
		for _, e := range due {
			s.timeout(e)
		}
	}
}

// process runs one claimed job to a final state, or releases it on a transient failure.
func (s *Service) process(e *entry) {
	jobsRunning.Inc()
	defer jobsRunning.Dec()
	if !s.now().Before(e.deadline) {
		s.timeout(e)
		return
	}
	ctx, cancel := context.WithDeadline(s.runCtx, e.deadline)
	defer cancel()

	if s.leases != nil {
		if _, err := s.refresh(ctx, e); errors.Is(err, errJobFinishedElsewhere) {
			s.forget(e.job.ID)
			return
		} else if err != nil {
			s.fail(e, "read the job", err)
			return
		}
	}
	job := e.job
	if job.State == StateSubmitted {
		job = job.to(StateInProgress, stamp(s.now()))
		if err := s.jobs.put(ctx, job); err != nil {
			s.fail(e, "record IN_PROGRESS", err)
			return
		}
		s.mu.Lock()
		e.job, e.unrecorded = job, false
		s.mu.Unlock()
	}

	data, err := s.archive(ctx, job)
	if err != nil {
		s.fail(e, "read the archive", err)
		return
	}
	if err := s.cpu.take(ctx); err != nil {
		s.fail(e, "wait to read the archive", err)
		return
	}
	members, err := ReadArchive(data, s.cfg.Keys)
	s.cpu.give()
	data = nil
	if err != nil {
		var aerr *ArchiveError
		if !errors.As(err, &aerr) {
			aerr = &ArchiveError{Code: CodeInvalidArchiveFormat, Message: "the archive cannot be read: " + err.Error()}
		}
		failed := job.to(StateError, stamp(s.now()))
		failed.Error = &ErrorInfo{Code: aerr.Code, Message: aerr.Message}
		s.finalize(e, failed)
		return
	}

	// The whole archive is read and validated before anything is inserted.
	sites, err := loadTenantSites(ctx, s.cfg.Registry, job.TenantID)
	if err != nil {
		s.fail(e, "load the tenant's sites", err)
		return
	}
	fileRows, files, err := decodeFiles(ctx, s.cpu, members, sites)
	if err != nil {
		s.fail(e, "decode the files", err)
		return
	}
	var ov Overview
	for _, rep := range files {
		ov.Total += rep.NbOperationsTotal
		ov.OK += rep.NbOperationsOK
		ov.KO += rep.NbOperationsKO
	}
	if ctx.Err() != nil {
		s.fail(e, "validate the archive", ctx.Err())
		return
	}
	if s.beforeInsert != nil {
		s.beforeInsert(ctx, job)
	}

	// Once validated, the rows are inserted even if the deadline passes meanwhile: a job never
	// ends in TIMEOUT with part of its rows stored because of the deadline alone.
	ictx, icancel := context.WithTimeout(s.runCtx, insertTimeout)
	defer icancel()
	var stored sitedata.Stored
	if s.cfg.AfterStore != nil {
		// What is new is looked up before this job's rows are in.
		if stored, err = storedData(ictx, s.cfg.DB, job.TenantID, job.ID, fileRows); err != nil {
			s.fail(e, "look up the new readings", err)
			return
		}
	}
	if err := insertRows(ictx, s.cfg.DB, job.TenantID, job.ID, fileRows, job.SubmittedTS); err != nil {
		s.fail(e, "insert the rows", err)
		return
	}
	// The sites' versions move once what their readings change (the daily energy table) is
	// written too, failed or not: an answer computed, or refreshed ahead, under a new version
	// reads both.
	bump := func() {
		for _, site := range sitesOf(fileRows) {
			s.cfg.Registry.Versions.Bump(job.TenantID, site)
		}
	}
	if s.afterInsert != nil {
		s.afterInsert(ictx, job)
	}
	if spans := readingSpans(fileRows); s.cfg.AfterWrite != nil && len(spans) > 0 {
		if err := s.afterWrite(ictx, job, spans); err != nil {
			bump()
			s.fail(e, "write what the job's readings change", err)
			return
		}
	}
	bump()
	if s.cfg.AfterStore != nil {
		if err := s.cfg.AfterStore(ictx, stored); err != nil {
			s.fail(e, "record the job's events", err)
			return
		}
	}
	done := job.to(StateDone, stamp(s.now()))
	done.Overview, done.Files = ov, files
	s.finalize(e, done)
}

// decodeFiles decodes the archive's files, several at once (one per free slot), and returns
// their rows and reports in archive order; err is the first resolver (storage) failure, or
// ctx's end while waiting for a slot.
func decodeFiles(ctx context.Context, slots cpuSlots, members []Member, sites SiteResolver) ([]Rows, []FileReport, error) {
	rows := make([]Rows, len(members))
	reps := make([]FileReport, len(members))
	errs := make([]error, len(members))
	next := make(chan int, len(members))
	for i := range members {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(len(members), cap(slots)) {
		wg.Go(func() {
			for i := range next {
				if errs[i] = slots.take(ctx); errs[i] != nil {
					continue
				}
				rows[i], reps[i], errs[i] = DecodeFile(ctx, members[i], sites)
				slots.give()
				members[i].Data = nil // let the decoded file's bytes go
				if reps[i].FailedOperations == nil {
					reps[i].FailedOperations = []FailedOperation{}
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	return rows, reps, nil
}

// insertTimeout bounds one job's inserts (the largest archives take about a second).
const insertTimeout = 5 * time.Minute

// finalize records a final state, then deletes the archive from the spool.
func (s *Service) finalize(e *entry, j Job) {
	ctx, cancel := context.WithTimeout(s.runCtx, 30*time.Second)
	defer cancel()
	if err := s.jobs.put(ctx, j); err != nil {
		s.fail(e, "record "+j.State, err)
		return
	}
	if !e.orphan {
		s.dropArchive(j)
	}
	s.forget(j.ID)
	jobsFinished.WithLabelValues(j.State).Inc()
	now := s.now()
	if !e.claimedAt.IsZero() {
		processingDuration.WithLabelValues(j.State).Observe(now.Sub(e.claimedAt).Seconds())
	}
	jobLatency.WithLabelValues(j.State).Observe(now.Sub(j.SubmittedTS).Seconds())
	if j.State == StateDone {
		operationsTotal.WithLabelValues("ok").Add(float64(j.Overview.OK))
		operationsTotal.WithLabelValues("ko").Add(float64(j.Overview.KO))
	}
	s.log.Info("job finished", "job", j.ID, "tenant", j.TenantID, "state", j.State,
		"operations", j.Overview.Total, "ko", j.Overview.KO)
}

// fail handles a failure that says nothing about the archive (storage unavailable, I/O):
// past the deadline the job times out; while stopping it is released as it is; otherwise it
// is tried again after RetryDelay.
func (s *Service) fail(e *entry, what string, err error) {
	switch {
	case s.runCtx.Err() != nil:
		s.log.Info("job released at stop", "job", e.job.ID, "state", e.job.State)
		s.release(e, 0)
	case !s.now().Before(e.deadline):
		s.timeout(e)
	default:
		s.log.Warn("job failed, will retry", "job", e.job.ID, "step", what, "error", err)
		jobRetries.Inc()
		s.release(e, s.cfg.RetryDelay)
	}
}

// afterWrite hands AfterWrite the spans of the job's readings. What they change is computed in
// Go (the daily energies): CPU work like decoding, so it holds a decode slot and leaves a
// processor to requests.
func (s *Service) afterWrite(ctx context.Context, j Job, spans []sitedata.ReadingSpan) error {
	if err := s.cpu.take(ctx); err != nil {
		return err
	}
	defer s.cpu.give()
	return s.cfg.AfterWrite(ctx, sitedata.Written{TenantID: j.TenantID, JobID: j.ID, Spans: spans})
}

// writeBeforeTimeout hands AfterWrite the spans of a job that may have stored rows (it is
// IN_PROGRESS: a crash interrupted it, or its hook kept failing until the deadline), so that
// what its readings change (the daily energy table, which answers the API) is never left stale
// behind a TIMEOUT. The archive is decoded again for that; one that cannot be read, or is not
// here, stored nothing that this process can know of.
func (s *Service) writeBeforeTimeout(ctx context.Context, e *entry, j Job) error {
	if s.cfg.AfterWrite == nil || j.State != StateInProgress || (e.orphan && s.stored == nil) {
		return nil
	}
	data, err := s.archive(ctx, j)
	if err != nil {
		return nil
	}
	members, err := ReadArchive(data, s.cfg.Keys)
	if err != nil {
		return nil
	}
	sites, err := loadTenantSites(ctx, s.cfg.Registry, j.TenantID)
	if err != nil {
		return err
	}
	fileRows, _, err := decodeFiles(ctx, s.cpu, members, sites)
	if err != nil {
		return err
	}
	spans := readingSpans(fileRows)
	if len(spans) == 0 {
		return nil
	}
	if err := s.afterWrite(ctx, j, spans); err != nil {
		return err
	}
	// An answer computed since the sites' last version move may have read what was there before.
	for _, site := range sitesOf(fileRows) {
		s.cfg.Registry.Versions.Bump(j.TenantID, site)
	}
	return nil
}

// timeout ends a claimed job in TIMEOUT. An orphan (a job of this database with no spool file
// here) is re-read first: if someone else finished it, it is left alone.
func (s *Service) timeout(e *entry) {
	j := e.job
	if e.orphan {
		ctx, cancel := context.WithTimeout(s.runCtx, 30*time.Second)
		cur, err := s.jobs.get(ctx, j.TenantID, j.ID)
		cancel()
		if err == nil && Final(cur.State) {
			s.forget(j.ID)
			return
		}
		if err == nil {
			j = cur
		}
	}
	t := j.to(StateTimeout, stamp(s.now()))
	t.Error = &ErrorInfo{Code: CodeTimeout, Message: fmt.Sprintf("the job was not finished within %s of its submission", s.cfg.Deadline)}
	ctx, cancel := context.WithTimeout(s.runCtx, 30*time.Second)
	defer cancel()
	if err := s.writeBeforeTimeout(ctx, e, j); err != nil {
		s.log.Warn("what a timed-out job's readings change not written, will retry", "job", j.ID, "error", err)
		s.release(e, 0)
		return
	}
	if err := s.jobs.put(ctx, t); err != nil {
		// Storage is down: the sweeper tries again on its next tick.
		s.log.Warn("TIMEOUT not recorded, will retry", "job", j.ID, "error", err)
		s.release(e, 0)
		return
	}
	if !e.orphan {
		s.dropArchive(j)
	}
	s.forget(j.ID)
	jobsFinished.WithLabelValues(StateTimeout).Inc()
	jobLatency.WithLabelValues(StateTimeout).Observe(s.now().Sub(j.SubmittedTS).Seconds())
	s.log.Info("job timed out", "job", j.ID, "tenant", j.TenantID, "deadline", s.cfg.Deadline)
}
