package advices

import (
	"context"
	"encoding/json"
	"fmt"

	"energy/schema"
	"energy/schema/tables"
)

// jobStore reads and writes the advice_jobs table (schema/migrations/0013_advice_jobs.sql).
// Each write is the whole job with a higher version; reads take the latest with FINAL.
type jobStore struct {
	db *schema.DB
	// writer shares inserts between the status changes of jobs that change at the same time,
	// and gives each row its version.
	writer *schema.GroupInsert
}

func newJobStore(db *schema.DB) *jobStore {
	return &jobStore{db: db, writer: schema.NewGroupInsert(db, "INSERT INTO "+tables.AdviceJobs+" ("+adviceJobColumns+", version)", nil)}
}

const adviceJobColumns = "tenant_id, job_id, status, created_ts, updated_ts, inputs, result, error"

// put writes the job as it is now.
func (s *jobStore) put(ctx context.Context, j Job) error {
	inputs, err := json.Marshal(j.Inputs)
	if err != nil {
		return err
	}
	results := []byte("[]")
	if len(j.Results) > 0 {
		if results, err = json.Marshal(j.Results); err != nil {
			return err
		}
	}
	return s.writer.Write(ctx, 0, j.TenantID, j.ID, j.Status, j.CreatedTS.UTC(), j.UpdatedTS.UTC(), string(inputs), string(results), j.Error)
}

// get returns a job of the tenant, or ErrJobNotFound.
func (s *jobStore) get(ctx context.Context, tenantID, jobID string) (Job, error) {
	j, found, err := schema.ScanOne(ctx, s.db, scanAdviceJob,
		"SELECT "+adviceJobColumns+" FROM "+tables.AdviceJobs+" FINAL WHERE tenant_id = ? AND job_id = ?", tenantID, jobID)
	if err == nil && !found {
		err = ErrJobNotFound
	}
	return j, err
}

// unfinished returns every job, of any tenant, still CREATED or IN_PROGRESS, oldest first.
func (s *jobStore) unfinished(ctx context.Context) ([]Job, error) {
	return schema.ScanAll(ctx, s.db, scanAdviceJob, "SELECT "+adviceJobColumns+" FROM (SELECT "+adviceJobColumns+" FROM "+tables.AdviceJobs+" FINAL)"+
		" WHERE status IN (?, ?) ORDER BY created_ts, job_id", StatusCreated, StatusInProgress)
}

func scanAdviceJob(r schema.RowScanner) (Job, error) {
	var (
		j               Job
		inputs, results string
	)
	if err := r.Scan(&j.TenantID, &j.ID, &j.Status, &j.CreatedTS, &j.UpdatedTS, &inputs, &results, &j.Error); err != nil {
		return Job{}, err
	}
	j.CreatedTS, j.UpdatedTS = j.CreatedTS.UTC(), j.UpdatedTS.UTC()
	if err := json.Unmarshal([]byte(inputs), &j.Inputs); err != nil {
		return Job{}, fmt.Errorf("advice job %s: stored inputs: %w", j.ID, err)
	}
	if err := json.Unmarshal([]byte(results), &j.Results); err != nil {
		return Job{}, fmt.Errorf("advice job %s: stored result: %w", j.ID, err)
	}
	return j, nil
}
