package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"

	"energy/schema/sitedata"
)

func states(j Job) []string {
	var out []string
	for _, h := range j.History {
		out = append(out, h.State)
	}
	return out
}

func wantHistory(t *testing.T, j Job, want ...string) {
	t.Helper()
	if got := states(j); !reflect.DeepEqual(got, want) {
		t.Fatalf("job %s history %v, want %v", j.ID, got, want)
	}
	if last := j.History[len(j.History)-1]; last.State != j.State || !last.TS.Equal(j.StateTS) {
		t.Fatalf("state %s at %s but last history entry %+v", j.State, j.StateTS, last)
	}
}

func TestSubmittedArchiveEndsDoneWithExactRows(t *testing.T) {
	env := newJobEnv(t)
	svc := env.service(nil)
	archive := jobArchive(t, jobFile{"readings.json", readingsFile}, jobFile{"notes.txt", "not data"})
	before := time.Now().UTC().Truncate(time.Second)
	j := submitArchive(t, svc, "readings.tar.gz", archive)
	if j.State != StateSubmitted || j.Archive != "readings.tar.gz" || j.SubmittedTS.Before(before) {
		t.Fatalf("submitted job %+v", j)
	}
	if got, _ := svc.Job(context.Background(), "acme", j.ID); got.State != StateSubmitted {
		t.Fatalf("stored job before start: %+v", got)
	}
	env.start(svc)
	done := waitState(t, svc, "acme", j.ID, StateDone, StateError, StateTimeout)
	if done.State != StateDone {
		t.Fatalf("job ended %s: %+v", done.State, done.Error)
	}
	wantHistory(t, done, StateSubmitted, StateInProgress, StateDone)
	if done.Overview != (Overview{Total: 5, OK: 4, KO: 1}) || done.Error != nil {
		t.Fatalf("overview %+v error %+v", done.Overview, done.Error)
	}
	if len(done.Files) != 2 {
		t.Fatalf("files %+v", done.Files)
	}
	f := done.Files[0]
	if f.Name != "readings.json" || f.NbOperationsTotal != 5 || f.NbOperationsOK != 4 || f.NbOperationsKO != 1 || f.Error != nil {
		t.Fatalf("file report %+v", f)
	}
	if len(f.FailedOperations) != 1 || f.FailedOperations[0].Array != "maxPowers" || f.FailedOperations[0].Index != 1 ||
		f.FailedOperations[0].Errors[0].Code != CodeUnknownSite || f.FailedOperations[0].Errors[0].Field != "siteId" {
		t.Fatalf("failed operations %+v", f.FailedOperations)
	}
	if g := done.Files[1]; g.Name != "notes.txt" || g.Error == nil || g.Error.Code != CodeInvalidFileFormat || g.NbOperationsTotal != 0 {
		t.Fatalf("non-JSON member report %+v", g)
	}
	env.wantCounts(readingsRows)
	env.wantSpoolEmpty()
	if env.reg.Versions.Get("acme", "S1") == 0 || env.reg.Versions.Get("acme", "S2") == 0 {
		t.Fatal("data versions of the touched sites were not bumped")
	}

	// The same archive again: DONE with the same report, nothing new stored.
	again := waitState(t, svc, "acme", submitArchive(t, svc, "readings.tar.gz", archive).ID, StateDone)
	if again.Overview != done.Overview {
		t.Fatalf("second overview %+v", again.Overview)
	}
	env.wantCounts(readingsRows)
}

// encryptedTo returns archive encrypted (binary OpenPGP) to a new key, and that key.
func encryptedTo(t *testing.T, archive []byte) ([]byte, openpgp.EntityList) {
	t.Helper()
	key, err := openpgp.NewEntity("energy test", "", "test@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := openpgp.Encrypt(&b, openpgp.EntityList{key}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(archive)
	w.Close()
	return b.Bytes(), openpgp.EntityList{key}
}

func TestArchiveErrorsEndInErrorAndStoreNothing(t *testing.T) {
	env := newJobEnv(t)
	valid := jobFile{"readings.json", readingsFile}
	six := []jobFile{valid}
	for i := 0; i < 5; i++ {
		six = append(six, jobFile{fmt.Sprintf("more-%d.json", i), readingsFile})
	}
	encrypted, key := encryptedTo(t, jobArchive(t, valid))
	_, otherKey := encryptedTo(t, nil)

	// A valid file first, then 64 MiB + 1 byte of zeros: the size limit is hit after a valid member.
	var big bytes.Buffer
	zw := newGzipTar(&big)
	zw.add(t, "readings.json", strings.NewReader(readingsFile), int64(len(readingsFile)))
	zw.add(t, "zeros.json", io.LimitReader(zeroBytes{}, MaxArchiveStream+1), MaxArchiveStream+1)
	zw.close(t)

	svc := env.service(func(c *Config) { c.Keys = otherKey })
	env.start(svc)
	cases := []struct {
		name    string
		archive []byte
		code    string
	}{
		{"not-gzip.tar.gz", []byte("this is not an archive"), CodeInvalidArchiveFormat},
		{"six.tar.gz", jobArchive(t, six...), CodeInvalidFileCount},
		{"empty.tar.gz", jobArchive(t), CodeInvalidFileCount},
		{"wrong-key.tar.gz.gpg", encrypted, CodeDecryptionFailed},
		{"bomb.tar.gz", big.Bytes(), CodeArchiveTooLarge},
	}
	for _, c := range cases {
		j := submitArchive(t, svc, c.name, c.archive)
		end := waitState(t, svc, "acme", j.ID, StateDone, StateError, StateTimeout)
		if end.State != StateError || end.Error == nil || end.Error.Code != c.code || end.Error.Message == "" {
			t.Fatalf("%s: state %s error %+v, want ERROR %s", c.name, end.State, end.Error, c.code)
		}
		wantHistory(t, end, StateSubmitted, StateInProgress, StateError)
		if end.Overview != (Overview{}) || len(end.Files) != 0 {
			t.Fatalf("%s: an ERROR job reports %+v %+v", c.name, end.Overview, end.Files)
		}
	}
	env.wantCounts(noRows)
	env.wantSpoolEmpty()

	// With the right key the encrypted archive is processed.
	svc2 := env.service(func(c *Config) { c.Keys = key; c.SpoolDir = t.TempDir() })
	env.start(svc2)
	if end := waitState(t, svc2, "acme", submitArchive(t, svc2, "ok.tar.gz.gpg", encrypted).ID, StateDone, StateError); end.State != StateDone {
		t.Fatalf("encrypted archive: %s %+v", end.State, end.Error)
	}
	env.wantCounts(readingsRows)
}

func TestJobWaitingPastTheDeadlineTimesOut(t *testing.T) {
	env := newJobEnv(t)
	entered, release := make(chan string, 4), make(chan struct{})
	svc := env.service(func(c *Config) { c.Workers = 1; c.Deadline = 1500 * time.Millisecond })
	svc.beforeInsert = func(_ context.Context, j Job) {
		entered <- j.ID
		<-release
	}
	env.start(svc)
	archive := jobArchive(t, jobFile{"readings.json", readingsFile})
	first := submitArchive(t, svc, "first.tar.gz", archive)
	select {
	case <-entered:
	case <-time.After(20 * time.Second):
		t.Fatal("the first job never reached its insert")
	}
	// The only worker is busy: the second job waits and times out.
	second := submitArchive(t, svc, "second.tar.gz", archive)
	timedOut := waitState(t, svc, "acme", second.ID, StateTimeout, StateDone, StateError)
	if timedOut.State != StateTimeout || timedOut.Error == nil || timedOut.Error.Code != CodeTimeout {
		t.Fatalf("second job: %s %+v", timedOut.State, timedOut.Error)
	}
	wantHistory(t, timedOut, StateSubmitted, StateTimeout)
	if cur, _ := svc.Job(context.Background(), "acme", first.ID); cur.State != StateInProgress {
		t.Fatalf("first job is %s while its worker holds it", cur.State)
	}
	env.wantCounts(noRows)

	// The first job was validated before its deadline: its rows are inserted and it is DONE.
	close(release)
	done := waitState(t, svc, "acme", first.ID, StateDone, StateTimeout, StateError)
	if done.State != StateDone {
		t.Fatalf("first job: %s", done.State)
	}
	wantHistory(t, done, StateSubmitted, StateInProgress, StateDone)
	env.wantCounts(readingsRows)
	env.wantSpoolEmpty()
}

// spoolJob writes a spool file for a job as Submit would, without its row.
func spoolJob(t *testing.T, env *jobEnv, meta spoolMeta, archive []byte) {
	t.Helper()
	sp, err := newSpool(env.spool)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sp.stage(meta, bytes.NewReader(archive), MaxArchiveBytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.commit(st); err != nil {
		t.Fatal(err)
	}
}

func TestInterruptedJobPastItsDeadlineTimesOutAtRestart(t *testing.T) {
	env := newJobEnv(t)
	submitted := time.Now().Add(-time.Hour).UTC()
	meta := spoolMeta{ID: "6f1c1a52-0000-4000-8000-000000000001", TenantID: "acme", Archive: "old.tar.gz", SubmittedTS: submitted}
	spoolJob(t, env, meta, jobArchive(t, jobFile{"readings.json", readingsFile}))
	store := newJobStore(env.db)
	j := newJob(meta).to(StateInProgress, stamp(submitted.Add(time.Second)))
	if err := store.put(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	svc := env.service(nil)
	env.start(svc)
	end := waitState(t, svc, "acme", j.ID, StateTimeout, StateDone, StateError)
	if end.State != StateTimeout {
		t.Fatalf("job ended %s", end.State)
	}
	wantHistory(t, end, StateSubmitted, StateInProgress, StateTimeout)
	env.wantCounts(noRows)
	env.wantSpoolEmpty()
}

// writtenHook records the spans AfterWrite is handed, and fails while failing returns true.
type writtenHook struct {
	mu      sync.Mutex
	failing func() bool
	calls   int
	written []sitedata.ReadingSpan
}

func (h *writtenHook) afterWrite(_ context.Context, w sitedata.Written) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	if h.failing != nil && h.failing() {
		return errors.New("daily energy store unavailable")
	}
	h.written = append(h.written, w.Spans...)
	return nil
}

func (h *writtenHook) spans() (int, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, sp := range h.written {
		out = append(out, fmt.Sprintf("%s %s %s %s", sp.SiteID, sp.Fluid, sp.First.UTC().Format(time.RFC3339), sp.Last.UTC().Format(time.RFC3339)))
	}
	slices.Sort(out)
	return h.calls, out
}

// The readings of readingsFile that a job hands AfterWrite: S1's gas and electricity indexes.
var readingsFileSpans = []string{
	"S1 ELEC 2024-02-01T00:00:00Z 2024-02-01T00:00:00Z",
	"S1 GAS 2024-01-31T23:00:00Z 2024-01-31T23:00:00Z",
}

// A job a crash left IN_PROGRESS may have stored its rows: before it is recorded TIMEOUT at
// restart, what its readings change is written, so that the daily energies never stay stale.
func TestInterruptedJobPastItsDeadlineWritesWhatItsReadingsChange(t *testing.T) {
	env := newJobEnv(t)
	submitted := time.Now().Add(-time.Hour).UTC()
	meta := spoolMeta{ID: "6f1c1a52-0000-4000-8000-000000000011", TenantID: "acme", Archive: "old.tar.gz", SubmittedTS: submitted}
	spoolJob(t, env, meta, jobArchive(t, jobFile{"readings.json", readingsFile}))
	j := newJob(meta).to(StateInProgress, stamp(submitted.Add(time.Second)))
	if err := newJobStore(env.db).put(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	hook := &writtenHook{}
	svc := env.service(func(c *Config) { c.AfterWrite = hook.afterWrite })
	env.start(svc)
	end := waitState(t, svc, "acme", j.ID, StateTimeout, StateDone, StateError)
	wantHistory(t, end, StateSubmitted, StateInProgress, StateTimeout)
	if calls, spans := hook.spans(); calls != 1 || !slices.Equal(spans, readingsFileSpans) {
		t.Fatalf("AfterWrite: %d calls, spans %q, want 1 call with %q", calls, spans, readingsFileSpans)
	}
	env.wantSpoolEmpty()
}

// A job whose rows are in but whose hook keeps failing until its deadline passes ends in
// TIMEOUT only once the hook has succeeded.
func TestJobWhoseHookFailsPastTheDeadlineWritesBeforeTimeout(t *testing.T) {
	env := newJobEnv(t)
	start := time.Now()
	hook := &writtenHook{failing: func() bool { return time.Since(start) < 3*time.Second }}
	svc := env.service(func(c *Config) { c.Deadline = 1500 * time.Millisecond; c.AfterWrite = hook.afterWrite })
	env.start(svc)
	j := submitArchive(t, svc, "readings.tar.gz", jobArchive(t, jobFile{"readings.json", readingsFile}))
	end := waitState(t, svc, "acme", j.ID, StateTimeout, StateDone, StateError)
	if end.State != StateTimeout {
		t.Fatalf("job ended %s", end.State)
	}
	calls, spans := hook.spans()
	if calls < 2 || !slices.Equal(spans, readingsFileSpans) {
		t.Fatalf("AfterWrite: %d calls, spans written %q, want failures then %q", calls, spans, readingsFileSpans)
	}
	if end.StateTS.Before(start.Add(3 * time.Second).Truncate(time.Second)) {
		t.Fatalf("TIMEOUT recorded at %s, before the hook could succeed", end.StateTS)
	}
	env.wantCounts(readingsRows)
	env.wantSpoolEmpty()
}
