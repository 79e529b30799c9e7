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

// Filters on state and state.ts must see only the latest version of each job, whether or not
// ClickHouse has merged the versions.
func TestJobStoreListSeesOnlyTheLatestVersion(t *testing.T) {
	store := newJobStore(chtest.DB(t))
	ctx := context.Background()
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	var ids []string
	for i := 0; i < 5; i++ {
		id := fmt.Sprintf("00000000-0000-4000-8000-00000000000%d", i)
		ids = append(ids, id)
		j := newJob(spoolMeta{ID: id, TenantID: "acme", Archive: "a.tar.gz", SubmittedTS: t0.Add(time.Duration(i) * time.Minute)})
		if err := store.put(ctx, j); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 { // jobs 0, 2, 4 finish an hour later
			j = j.to(StateInProgress, j.StateTS).to(StateDone, j.StateTS.Add(time.Hour))
			j.Files = []FileReport{{Name: "a.json", NbOperationsTotal: 1, NbOperationsOK: 1, FailedOperations: []FailedOperation{}}}
			if err := store.put(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
	}
	other := newJob(spoolMeta{ID: "00000000-0000-4000-8000-000000000009", TenantID: "globex", SubmittedTS: t0})
	if err := store.put(ctx, other); err != nil {
		t.Fatal(err)
	}
	list := func(f ListFilter) ([]string, int) {
		t.Helper()
		if f.Size == 0 {
			f.Size = 100
		}
		jobs, total, err := store.list(ctx, "acme", f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, j := range jobs {
			out = append(out, j.ID[len(j.ID)-1:]+":"+j.State)
		}
		return out, total
	}
	day := ListFilter{Begin: t0.Add(-time.Hour), End: t0.Add(24 * time.Hour)}
	if got, total := list(day); fmt.Sprint(got) != "[4:DONE 2:DONE 0:DONE 3:SUBMITTED 1:SUBMITTED]" || total != 5 {
		t.Fatalf("all: %v (%d)", got, total)
	}
	sub := day
	sub.State = StateSubmitted
	if got, total := list(sub); fmt.Sprint(got) != "[3:SUBMITTED 1:SUBMITTED]" || total != 2 {
		t.Fatalf("SUBMITTED: %v (%d)", got, total)
	}
	// state.ts, not submission time: the DONE jobs moved an hour later.
	early := ListFilter{Begin: t0, End: t0.Add(30 * time.Minute)}
	if got, _ := list(early); fmt.Sprint(got) != "[3:SUBMITTED 1:SUBMITTED]" {
		t.Fatalf("first half hour: %v", got)
	}
	// Bounds are inclusive.
	exact := ListFilter{Begin: t0.Add(time.Minute), End: t0.Add(3 * time.Minute)}
	if got, _ := list(exact); fmt.Sprint(got) != "[3:SUBMITTED 1:SUBMITTED]" {
		t.Fatalf("inclusive bounds: %v", got)
	}
	paged := day
	paged.Size, paged.Page = 2, 2
	if got, total := list(paged); fmt.Sprint(got) != "[1:SUBMITTED]" || total != 5 {
		t.Fatalf("page 2 of size 2: %v (%d)", got, total)
	}
	paged.Page = 3
	if got, total := list(paged); len(got) != 0 || total != 5 {
		t.Fatalf("past the last page: %v (%d)", got, total)
	}

	j, err := store.get(ctx, "acme", ids[2])
	if err != nil || j.State != StateDone || len(j.Files) != 1 || len(j.History) != 3 || !j.SubmittedTS.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("get: %+v %v", j, err)
	}
	if _, err := store.get(ctx, "globex", ids[2]); err != ErrJobNotFound {
		t.Fatalf("another tenant's job: %v", err)
	}
	unfinished, err := store.unfinished(ctx)
	if err != nil || len(unfinished) != 3 {
		t.Fatalf("unfinished: %d %v", len(unfinished), err)
	}
}

// A start reads the jobs of every spooled archive in a few queries: more ids than one query
// carries are read in chunks, and each stored job comes back in its latest state.
func TestJobStoreLatestOfReadsManyJobsInChunks(t *testing.T) {
	store := newJobStore(chtest.DB(t))
	ctx := context.Background()
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	const stored = recoveryChunk + 3
	id := func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }
	var wg sync.WaitGroup
	errs := make(chan error, stored)
	for i := range stored {
		wg.Go(func() {
			j := newJob(spoolMeta{ID: id(i), TenantID: "acme", Archive: "a.tar.gz", SubmittedTS: t0})
			if i%2 == 0 {
				j = j.to(StateInProgress, t0.Add(time.Minute))
			}
			errs <- store.put(ctx, j)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ids := []string{id(stored), id(stored + 1)} // never stored
	for i := range stored {
		ids = append(ids, id(i))
	}
	got, err := store.latestOf(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != stored {
		t.Fatalf("%d jobs read, want %d", len(got), stored)
	}
	for i := range stored {
		want, transitions := StateSubmitted, 1
		if i%2 == 0 {
			want, transitions = StateInProgress, 2
		}
		if j := got[id(i)]; j.State != want || j.TenantID != "acme" || len(j.History) != transitions {
			t.Fatalf("job %d: %+v, want %s after %d transitions", i, j, want, transitions)
		}
	}
}

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
