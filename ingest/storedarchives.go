package ingest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"energy/schema"
	"energy/schema/tables"
)

// storedArchives keeps accepted archives in the store's archives table instead of a local
// spool, for energyd replicas sharing a cluster: any replica can process any job, and an
// archive is acknowledged by two ClickHouse replicas (insert_quorum = 2) before its upload is
// answered, so no single disk holds the only copy.
type storedArchives struct {
	db *schema.DB
	// mu lets one quorum insert of this process run at a time: ClickHouse refuses a second
	// quorum insert into a table while the first waits for its quorum.
	mu sync.Mutex
	// quorumTimeout bounds the wait for the second replica (insert_quorum_timeout).
	quorumTimeout time.Duration
}

// archiveQuorum is the number of replicas that hold an archive before its upload is answered.
const archiveQuorum = 2

// Versions of an archive's rows: the bytes, then the empty row that replaces them once the
// job is final.
const (
	archiveKept    = 1
	archiveRemoved = 2
)

// ClickHouse errors of a quorum insert. 285: fewer live replicas than the quorum (fails at
// once). 286 and 319: another quorum insert into the table is pending, or the quorum was not
// reached in time and the rows may or may not be written: the same block is sent again, which
// the replicated table deduplicates.
const (
	codeTooFewLiveReplicas        = 285
	codeQuorumForPreviousWrite    = 286
	codeUnknownStatusOfInsert     = 319
	quorumRetryFirst, quorumRetry = 20 * time.Millisecond, 500 * time.Millisecond
)

// ErrNoQuorum is returned when an archive could not be acknowledged by two replicas.
var ErrNoQuorum = errors.New("the archive could not be stored on two ClickHouse replicas")

// put stores the staged archive with quorum, retrying the identical block while another
// quorum insert is pending or the outcome is unknown, until ctx ends.
func (a *storedArchives) put(ctx context.Context, st *staged) error {
	b, err := os.ReadFile(st.path)
	if err != nil {
		return err
	}
	_, data, err := parseSpool(b)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	qctx := clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{
		"insert_quorum": archiveQuorum, "insert_quorum_timeout": int(a.quorumTimeout.Milliseconds()),
	}))
	wait := quorumRetryFirst
	for {
		err := a.insert(qctx, st.meta, data, archiveKept)
		var ex *clickhouse.Exception
		if err == nil || !errors.As(err, &ex) || (ex.Code != codeQuorumForPreviousWrite && ex.Code != codeUnknownStatusOfInsert) {
			if errors.As(err, &ex) && ex.Code == codeTooFewLiveReplicas {
				return fmt.Errorf("%w: %w", ErrNoQuorum, err)
			}
			return err
		}
		quorumRetries.Inc()
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrNoQuorum, err)
		case <-time.After(wait):
		}
		wait = min(2*wait, quorumRetry)
	}
}

func (a *storedArchives) insert(ctx context.Context, m spoolMeta, data []byte, version uint64) error {
	b, err := a.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.Archives+" (tenant_id, job_id, archive, submitted_ts, data, version)")
	if err != nil {
		return err
	}
	if err := b.Append(m.TenantID, m.ID, m.Archive, stamp(m.SubmittedTS), data, version); err != nil {
		_ = b.Abort()
		return err
	}
	return b.Send()
}

// read returns a job's archive bytes; os.ErrNotExist when it is not stored (or was removed).
func (a *storedArchives) read(ctx context.Context, j Job) ([]byte, error) {
	var data string
	var version uint64
	err := a.db.Conn.QueryRow(ctx, "SELECT data, version FROM "+tables.Archives+" WHERE tenant_id = ? AND job_id = ? ORDER BY version DESC LIMIT 1",
		j.TenantID, j.ID).Scan(&data, &version)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, os.ErrNotExist
	}
	if err != nil {
		return nil, err
	}
	if version != archiveKept {
		return nil, os.ErrNotExist
	}
	return []byte(data), nil
}

// remove replaces a final job's archive by an empty row (on the archive's shard, since both
// rows share the sharding key); the bytes go at the shard's next merge.
func (a *storedArchives) remove(ctx context.Context, j Job) error {
	m := spoolMeta{ID: j.ID, TenantID: j.TenantID, Archive: j.Archive, SubmittedTS: j.SubmittedTS}
	return a.insert(ctx, m, nil, archiveRemoved)
}

// Bounds of an upload in cluster mode: the wait for the second replica of one attempt, and
// the whole store of the archive with its retries.
const (
	quorumTimeout      = 10 * time.Second
	storeArchiveBudget = 30 * time.Second
)

// acceptStored stores a staged archive in the store with quorum, then writes its SUBMITTED
// job: the archive is accepted only when both are written (a failure is the client's to retry).
func (s *Service) acceptStored(ctx context.Context, st *staged) (Job, error) {
	defer s.spool.discard(st)
	actx, cancel := context.WithTimeout(ctx, storeArchiveBudget)
	defer cancel()
	if err := s.stored.put(actx, st); err != nil {
		return Job{}, fmt.Errorf("store the archive: %w", err)
	}
	j := newJob(st.meta)
	// The lease first: no other replica takes the job while this one queues it.
	if err := s.leases.Hold(schema.WithCallTimeout(ctx, s.cfg.DB.Timeouts.Read), jobKeys([]Job{j})); err != nil {
		s.dropArchive(j)
		return Job{}, err
	}
	if err := s.jobs.putWithin(ctx, s.cfg.DB.Timeouts.Read, j); err != nil {
		s.dropArchive(j)
		return Job{}, err
	}
	jobsSubmitted.Inc()
	s.addNew(j, st.meta.SubmittedTS.Add(s.cfg.Deadline), false)
	return j, nil
}

// archive returns a job's archive bytes: from the spool, or from the store in cluster mode
// (where the spool keeps only archives accepted before the switch to a cluster).
func (s *Service) archive(ctx context.Context, j Job) ([]byte, error) {
	if s.stored == nil || s.spool.exists(j.ID) {
		_, data, err := s.spool.read(j.ID)
		return data, err
	}
	return s.stored.read(ctx, j)
}

// dropArchive deletes a final job's archive; a failure only leaves the bytes in place.
func (s *Service) dropArchive(j Job) {
	var err error
	if s.stored == nil || s.spool.exists(j.ID) {
		err = s.spool.remove(j.ID)
	} else {
		ctx, cancel := context.WithTimeout(s.runCtx, 30*time.Second)
		err = s.stored.remove(ctx, j)
		cancel()
	}
	if err != nil {
		s.log.Warn("archive of a final job not deleted", "job", j.ID, "error", err)
	}
}
