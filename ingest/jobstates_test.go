package ingest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"energy/schema/chtest"
)

// Job states written at the same time share inserts, and every one of them is stored.
func TestJobStatesWrittenTogetherShareInserts(t *testing.T) {
	store := newJobStore(chtest.DB(t))
	ctx := context.Background()
	const n = 50
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	inserts := testutil.ToFloat64(jobStateInserts)
	start := make(chan struct{})
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			errs <- store.put(ctx, newJob(spoolMeta{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), TenantID: "acme", Archive: "a.tar.gz", SubmittedTS: t0}))
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if j, err := store.get(ctx, "acme", fmt.Sprintf("00000000-0000-4000-8000-%012d", i)); err != nil || j.State != StateSubmitted {
			t.Fatalf("job %d: %+v, %v", i, j, err)
		}
	}
	// One insert for the first write, one or a few for the rest, which wait for it together.
	if got := testutil.ToFloat64(jobStateInserts) - inserts; got < 1 || got > n/5 {
		t.Fatalf("%d job states written in %.0f inserts, want at most %d", n, got, n/5)
	}
}

// As jobs run, the inserts into the jobs table (each one a part that ClickHouse merges, and
// loads again at each start until the merged-away copy is deleted) stay fewer than the jobs'
// state changes: archives sent together share their SUBMITTED insert, and workers that move
// jobs at the same time share theirs.
func TestJobTableInsertsStayFewerThanStateChanges(t *testing.T) {
	env := newJobEnv(t)
	svc := env.service(func(c *Config) { c.Workers = 4 })
	env.start(svc)
	archive := jobArchive(t, jobFile{"readings.json", readingsFile})
	const n = 60
	inserts, written := testutil.ToFloat64(jobStateInserts), testutil.ToFloat64(jobStatesWritten)
	ids := make(chan string, n)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			for range n / 6 {
				ids <- submitArchive(t, svc, "readings.tar.gz", archive).ID
			}
		})
	}
	wg.Wait()
	close(ids)
	for id := range ids {
		wantHistory(t, waitState(t, svc, "acme", id, StateDone), StateSubmitted, StateInProgress, StateDone)
	}
	env.wantCounts(readingsRows)
	gotInserts, gotWritten := testutil.ToFloat64(jobStateInserts)-inserts, testutil.ToFloat64(jobStatesWritten)-written
	if gotWritten != 3*n {
		t.Fatalf("%.0f job states written, want %d (SUBMITTED, IN_PROGRESS, DONE of %d jobs)", gotWritten, 3*n, n)
	}
	t.Logf("%d jobs: %.0f state changes in %.0f inserts", n, gotWritten, gotInserts)
	if gotInserts > 5*n/2 {
		t.Fatalf("%d jobs: %.0f state changes in %.0f inserts, want at most %d (without sharing: %d)", n, gotWritten, gotInserts, 5*n/2, 3*n)
	}
}
