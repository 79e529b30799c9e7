package ingest

import (
	"context"
	"fmt"
	"testing"
	"time"

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
