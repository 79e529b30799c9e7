package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"energy/schema/chtest"
)

// TestClusterArchivesStoredWithQuorum: in cluster mode two services (two energyd replicas)
// accept archives at once; each archive is on both replicas of one shard when Submit returns
// and nowhere else, no spool file is left, every job ends DONE with exact rows and its archive
// is emptied. With a shard's second replica down, an upload fails with ErrNoQuorum and
// writes no job. Between the two, the job of a dead replica is taken over.
func TestClusterArchivesStoredWithQuorum(t *testing.T) {
	c := chtest.NeedCluster(t)
	env := newJobEnv(t)
	shared := func(cfg *Config) { cfg.Shared, cfg.Lease = true, 3*time.Second }
	a := env.service(shared)
	other := &jobEnv{t: t, db: env.db, reg: env.reg, spool: t.TempDir()}
	b := other.service(shared)
	archive := jobArchive(t, jobFile{"readings.json", readingsFile})

	// Six uploads at once, three through each replica: quorum inserts of one table wait for
	// each other (ClickHouse allows one pending at a time), none is refused or duplicated.
	var wg sync.WaitGroup
	jobs := make([]Job, 6)
	errs := make([]error, 6)
	for i := range jobs {
		svc := a
		if i%2 == 1 {
			svc = b
		}
		wg.Go(func() {
			ct, body := multipartOf(t, formPart{field: "file", filename: fmt.Sprintf("r%d.tar.gz", i), data: archive})
			jobs[i], errs[i] = svc.Submit(context.Background(), "acme", ct, bytes.NewReader(body))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	env.wantSpoolEmpty()
	other.wantSpoolEmpty()
	for _, j := range jobs {
		var on []int
		for i, n := range c.Nodes {
			var rows uint64
			q := fmt.Sprintf("SELECT count() FROM remote('127.0.0.1:%d', %s, archives_local) WHERE job_id = ? AND version = 1 AND length(data) = ?", n.Port, env.db.Name)
			if err := env.db.Conn.QueryRow(context.Background(), q, j.ID, uint64(len(archive))).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			for range rows {
				on = append(on, i)
			}
		}
		if len(on) != 2 || on[0]/2 != on[1]/2 {
			t.Fatalf("archive of job %s on nodes %v once accepted, want the two replicas of one shard", j.ID, on)
		}
	}

	env.start(a)
	env.start(b)
	for _, j := range jobs {
		done := waitState(t, a, "acme", j.ID, StateDone, StateError, StateTimeout)
		if done.State != StateDone || done.Overview != (Overview{Total: 5, OK: 4, KO: 1}) {
			t.Fatalf("job %s: %s %+v %+v", j.ID, done.State, done.Overview, done.Error)
		}
	}
	env.wantCounts(readingsRows)
	for _, j := range jobs {
		if _, err := a.stored.read(context.Background(), j); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("archive of DONE job %s: %v, want it removed", j.ID, err)
		}
	}

	jobOfADeadReplicaTakenOver(t, env, a, b)

	// Both shards without their second replica: no upload can reach two replicas.
	for _, n := range []int{1, 3} {
		if err := c.StopNode(n); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := c.StartNode(context.Background(), n); err != nil {
				t.Errorf("restart node %d: %v", n+1, err)
			}
		})
	}
	ct, body := multipartOf(t, formPart{field: "file", filename: "late.tar.gz", data: archive})
	if j, err := a.Submit(context.Background(), "acme", ct, bytes.NewReader(body)); !errors.Is(err, ErrNoQuorum) {
		t.Fatalf("upload with one replica per shard: job %+v, error %v; want ErrNoQuorum", j, err)
	}
	env.wantSpoolEmpty()
	f := ListFilter{Begin: jobs[0].SubmittedTS.Add(-time.Hour), End: time.Now().Add(time.Hour), Size: 100}
	if _, total, err := a.List(context.Background(), "acme", f); err != nil || total != len(jobs)+1 {
		t.Fatalf("jobs after the refused upload: %d (%v), want %d", total, err, len(jobs)+1)
	}
}
