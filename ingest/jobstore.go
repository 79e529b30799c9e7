package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"energy/schema"
	"energy/schema/tables"
)

// jobStore reads and writes the jobs table (schema/migrations/0010_jobs.sql). Each write is
// the whole job with a higher version; reads take the latest version with FINAL and filter
// non-key columns only outside the FINAL subquery.
type jobStore struct {
	db *schema.DB
	// writer shares inserts between the state changes of jobs that change at the same time,
	// and gives each row its version.
	writer *schema.GroupInsert
}

const jobColumns = "tenant_id, job_id, archive, state, state_ts, submitted_ts, history_states, history_ts, " +
	"nb_operations_total, nb_operations_ok, nb_operations_ko, error_code, error_message"

// jobInsert writes whole job rows: jobColumns, then the file reports and the row version.
const jobInsert = "INSERT INTO " + tables.Jobs + " (" + jobColumns + ", files, version)"

func newJobStore(db *schema.DB) *jobStore {
	return &jobStore{db: db, writer: schema.NewGroupInsert(db, jobInsert, func(rows int) {
		jobStateInserts.Inc()
		jobStatesWritten.Add(float64(rows))
	})}
}

// put writes the job's current state and returns once it is stored (within the store's
// write bound).
func (s *jobStore) put(ctx context.Context, j Job) error {
	return s.putWithin(ctx, s.db.Timeouts.Write, j)
}

// putWithin is put with the insert bounded by within (a client waiting for the row).
func (s *jobStore) putWithin(ctx context.Context, within time.Duration, j Job) error {
	files := []byte("[]")
	if len(j.Files) > 0 {
		var err error
		if files, err = json.Marshal(j.Files); err != nil {
			return err
		}
	}
	states := make([]string, len(j.History))
	stamps := make([]time.Time, len(j.History))
	for i, h := range j.History {
		states[i], stamps[i] = h.State, stamp(h.TS)
	}
	var code, msg string
	if j.Error != nil {
		code, msg = j.Error.Code, j.Error.Message
	}
	return s.writer.Write(ctx, within, j.TenantID, j.ID, j.Archive, j.State, stamp(j.StateTS), stamp(j.SubmittedTS), states, stamps,
		uint64(j.Overview.Total), uint64(j.Overview.OK), uint64(j.Overview.KO), code, msg, string(files))
}

// get returns a job of the tenant with its file reports, or ErrJobNotFound.
func (s *jobStore) get(ctx context.Context, tenantID, jobID string) (Job, error) {
	var files string
	j, found, err := schema.ScanOne(ctx, s.db, func(r schema.RowScanner) (Job, error) { return scanJob(r, &files) },
		"SELECT "+jobColumns+", files FROM "+tables.Jobs+" FINAL WHERE tenant_id = ? AND job_id = ?", tenantID, jobID)
	if err != nil {
		return Job{}, err
	}
	if !found {
		return Job{}, ErrJobNotFound
	}
	if err := json.Unmarshal([]byte(files), &j.Files); err != nil {
		return Job{}, fmt.Errorf("job %s: stored report: %w", jobID, err)
	}
	return j, nil
}

// latestOf returns the jobs among ids (without their file reports), by id; ids not stored are
// absent. One read per recoveryChunk ids instead of one per job: a start recovers every queued
// job this way.
func (s *jobStore) latestOf(ctx context.Context, ids []string) (map[string]Job, error) {
	out := make(map[string]Job, len(ids))
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), recoveryChunk)]
		ids = ids[len(chunk):]
		jobs, err := schema.ScanAll(ctx, s.db, scanListedJob,
			"SELECT "+jobColumns+" FROM (SELECT "+jobColumns+" FROM "+tables.Jobs+" FINAL WHERE has(?, job_id))", chunk)
		if err != nil {
			return nil, err
		}
		for _, j := range jobs {
			out[j.ID] = j
		}
	}
	return out, nil
}

// recoveryChunk bounds the ids bound into one query (their text counts in max_query_size).
const recoveryChunk = 1000

// ListFilter selects a page of a tenant's jobs whose state.ts lies in [Begin, End].
type ListFilter struct {
	State      string // empty: every state
	Begin, End time.Time
	Page, Size int
}

// list returns one page of the tenant's jobs (without file reports), newest state.ts first,
// and the number of jobs matching the filter.
func (s *jobStore) list(ctx context.Context, tenantID string, f ListFilter) ([]Job, int, error) {
	where := "state_ts >= ? AND state_ts <= ?"
	args := []any{tenantID, stamp(f.Begin), stamp(f.End)}
	if f.State != "" {
		where += " AND state = ?"
		args = append(args, f.State)
	}
	latest := "(SELECT " + jobColumns + ", version FROM " + tables.Jobs + " FINAL WHERE tenant_id = ?)"
	var total uint64
	if err := s.db.Conn.QueryRow(ctx, "SELECT count() FROM "+latest+" WHERE "+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total == 0 || int64(f.Page)*int64(f.Size) >= int64(total) {
		return nil, int(total), nil
	}
	// version breaks ties between jobs that changed state within one second: the later write first.
	q := "SELECT " + jobColumns + " FROM " + latest + " WHERE " + where +
		" ORDER BY state_ts DESC, version DESC, job_id LIMIT ?, ?"
	out, err := schema.ScanAll(ctx, s.db, scanListedJob, q, append(args, int64(f.Page)*int64(f.Size), f.Size)...)
	if err != nil {
		return nil, 0, err
	}
	return out, int(total), nil
}

// unfinished returns every job, of any tenant, that is not in a final state.
func (s *jobStore) unfinished(ctx context.Context) ([]Job, error) {
	return schema.ScanAll(ctx, s.db, scanListedJob, "SELECT "+jobColumns+" FROM (SELECT "+jobColumns+" FROM "+tables.Jobs+" FINAL) WHERE state IN (?, ?)",
		StateSubmitted, StateInProgress)
}

// scanListedJob reads jobColumns: a job without its file reports.
func scanListedJob(r schema.RowScanner) (Job, error) { return scanJob(r, nil) }

// scanJob reads jobColumns, then files when files is not nil.
func scanJob(r schema.RowScanner, files *string) (Job, error) {
	var (
		j               Job
		states          []string
		stamps          []time.Time
		total, ok, ko   uint64
		errCode, errMsg string
	)
	dest := []any{&j.TenantID, &j.ID, &j.Archive, &j.State, &j.StateTS, &j.SubmittedTS, &states, &stamps,
		&total, &ok, &ko, &errCode, &errMsg}
	if files != nil {
		dest = append(dest, files)
	}
	if err := r.Scan(dest...); err != nil {
		return Job{}, err
	}
	j.StateTS, j.SubmittedTS = j.StateTS.UTC(), j.SubmittedTS.UTC()
	for i := range states {
		if i < len(stamps) {
			j.History = append(j.History, Transition{State: states[i], TS: stamps[i].UTC()})
		}
	}
	j.Overview = Overview{Total: int(total), OK: int(ok), KO: int(ko)}
	if errCode != "" {
		j.Error = &ErrorInfo{Code: errCode, Message: errMsg}
	}
	return j, nil
}
