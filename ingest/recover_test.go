package ingest

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

func TestJobInterruptedAfterItsInsertsIsRedoneAtRestart(t *testing.T) {
	env := newJobEnv(t)
	entered := make(chan struct{}, 1)
	first := env.service(nil)
	// The process stops between its inserts and DONE: its worker waits there until Stop, out of
	// time, cancels it. The DONE it then tries to record is refused (its context has ended), so
	// the job is left as a crash leaves it: IN_PROGRESS, its archive in the spool.
	first.afterInsert = func(ctx context.Context, _ Job) {
		entered <- struct{}{}
		<-ctx.Done()
	}
	env.start(first)
	j := submitArchive(t, first, "readings.tar.gz", jobArchive(t, jobFile{"readings.json", readingsFile}))
	select {
	case <-entered:
	case <-time.After(20 * time.Second):
		t.Fatal("the job never reached its inserts")
	}
	env.wantCounts(readingsRows)
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	if err := first.Stop(expired); err == nil {
		t.Fatal("Stop with an expired context should report released jobs")
	}
	if cur, _ := first.Job(context.Background(), "acme", j.ID); cur.State != StateInProgress {
		t.Fatalf("after the crash the job is %s", cur.State)
	}
	if files := env.spoolFiles(); len(files) != 1 {
		t.Fatalf("spool after the crash: %v", files)
	}

	second := env.service(nil)
	env.start(second)
	done := waitState(t, second, "acme", j.ID, StateDone, StateError, StateTimeout)
	if done.State != StateDone || done.Overview != (Overview{Total: 5, OK: 4, KO: 1}) {
		t.Fatalf("after restart: %s %+v", done.State, done.Overview)
	}
	wantHistory(t, done, StateSubmitted, StateInProgress, StateDone)
	env.wantCounts(readingsRows) // inserted twice, counted once
	env.wantSpoolEmpty()
}

func TestSpoolRecoveryAtStart(t *testing.T) {
	env := newJobEnv(t)
	archive := jobArchive(t, jobFile{"readings.json", readingsFile})
	now := time.Now().UTC()

	// Crash between the spool rename and the SUBMITTED row: the job is registered from the file.
	lost := spoolMeta{ID: "6f1c1a52-0000-4000-8000-000000000002", TenantID: "acme", Archive: "lost.tar.gz", SubmittedTS: now}
	spoolJob(t, env, lost, archive)
	// Crash between DONE and the delete: the file goes, the job stays as it is.
	finished := spoolMeta{ID: "6f1c1a52-0000-4000-8000-000000000003", TenantID: "acme", Archive: "done.tar.gz", SubmittedTS: now}
	spoolJob(t, env, finished, archive)
	store := newJobStore(env.db)
	doneJob := newJob(finished).to(StateInProgress, stamp(now)).to(StateDone, stamp(now))
	doneJob.Overview = Overview{Total: 7, OK: 7}
	if err := store.put(context.Background(), doneJob); err != nil {
		t.Fatal(err)
	}
	// An upload interrupted before its 200 was never accepted.
	if err := os.WriteFile(filepath.Join(env.spool, ".upload-123.tmp"), []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}

	svc := env.service(nil)
	env.start(svc)
	j := waitState(t, svc, "acme", lost.ID, StateDone, StateError, StateTimeout)
	if j.State != StateDone || j.Archive != "lost.tar.gz" || !j.SubmittedTS.Equal(stamp(now)) {
		t.Fatalf("re-registered job %+v", j)
	}
	wantHistory(t, j, StateSubmitted, StateInProgress, StateDone)
	if cur, _ := svc.Job(context.Background(), "acme", finished.ID); cur.State != StateDone || cur.Overview.Total != 7 {
		t.Fatalf("finished job changed: %+v", cur)
	}
	env.wantCounts(readingsRows)
	env.wantSpoolEmpty()
}

func TestJobWithoutArchiveHereTimesOutAtItsDeadline(t *testing.T) {
	env := newJobEnv(t)
	store := newJobStore(env.db)
	meta := spoolMeta{ID: "6f1c1a52-0000-4000-8000-000000000004", TenantID: "acme", Archive: "elsewhere.tar.gz", SubmittedTS: time.Now().UTC()}
	if err := store.put(context.Background(), newJob(meta)); err != nil {
		t.Fatal(err)
	}
	svc := env.service(func(c *Config) { c.Deadline = time.Second })
	env.start(svc)
	j := waitState(t, svc, "acme", meta.ID, StateTimeout, StateDone, StateError)
	if j.State != StateTimeout {
		t.Fatalf("orphan job: %s", j.State)
	}
	wantHistory(t, j, StateSubmitted, StateTimeout)
}

// crashChildEnv carries the database and spool of TestProcessKilledMidJobIsRedone to its child.
const crashChildEnv = "INGEST_CRASH_CHILD"

// TestProcessKilledMidJobIsRedone kills (SIGKILL) a process that holds a job IN_PROGRESS with
// its rows inserted, restarts the service on the same database and spool, and checks that the
// job ends DONE with exact row counts.
func TestProcessKilledMidJobIsRedone(t *testing.T) {
	dsn := chtest.DSN(t)
	ctx := context.Background()
	db, err := schema.Open(ctx, dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	reg := registry.New(db)
	for _, s := range []registry.Site{{TenantID: "acme", SiteID: "S1", SiteCustomerID: "C-1", PersonCustomerID: "P-1"}, {TenantID: "acme", SiteID: "S2"}} {
		if err := reg.PutSite(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	env := &jobEnv{t: t, db: db, reg: reg, spool: filepath.Join(t.TempDir(), "spool")}
	j := submitArchive(t, env.service(nil), "readings.tar.gz", jobArchive(t, jobFile{"readings.json", readingsFile}))

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dsn+" "+env.spool)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	inserted := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "CRASH-CHILD-INSERTED") {
				inserted <- true
				return
			}
		}
		inserted <- false
	}()
	select {
	case ok := <-inserted:
		if !ok {
			t.Fatal("the child process ended before inserting")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the child process did not reach its inserts")
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no cleanup of any kind
		t.Fatal(err)
	}
	_ = cmd.Wait()

	env.wantCounts(readingsRows)
	svc := env.service(nil)
	if cur, _ := svc.Job(ctx, "acme", j.ID); cur.State != StateInProgress {
		t.Fatalf("after the kill the job is %s", cur.State)
	}
	env.start(svc)
	done := waitState(t, svc, "acme", j.ID, StateDone, StateError, StateTimeout)
	if done.State != StateDone || done.Overview != (Overview{Total: 5, OK: 4, KO: 1}) {
		t.Fatalf("after restart: %s %+v", done.State, done.Overview)
	}
	env.wantCounts(readingsRows)
	env.wantSpoolEmpty()
}

// TestCrashChild is the process TestProcessKilledMidJobIsRedone kills; alone it does nothing.
func TestCrashChild(t *testing.T) {
	arg := os.Getenv(crashChildEnv)
	if arg == "" {
		t.Skip("helper process of TestProcessKilledMidJobIsRedone")
	}
	dsn, spoolDir, _ := strings.Cut(arg, " ")
	ctx := context.Background()
	db, err := schema.Open(ctx, dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(Config{DB: db, Registry: registry.New(db), SpoolDir: spoolDir, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	svc.afterInsert = func(context.Context, Job) {
		os.Stdout.WriteString("CRASH-CHILD-INSERTED\n")
		time.Sleep(time.Minute)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Minute)
	t.Fatal("not killed")
}
