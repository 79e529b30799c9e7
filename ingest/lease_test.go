package ingest

import (
	"context"
	"testing"
	"time"
)

// jobOfADeadReplicaTakenOver: a replica accepts an archive and never works on it (it died
// after the 200); one of the running replicas a and b takes the job over once the dead one's
// lease expires and finishes it with exact rows. Called by TestClusterArchivesStoredWithQuorum (one cluster
// database for both: creating one costs seconds per statement).
func jobOfADeadReplicaTakenOver(t *testing.T, env *jobEnv, a, b *Service) {
	lease := b.cfg.Lease
	dead := env.service(func(cfg *Config) { cfg.Shared, cfg.Lease = true, lease })
	archive := jobArchive(t, jobFile{"readings.json", readingsFile})
	accepted := time.Now()
	j := submitArchive(t, dead, "readings.tar.gz", archive)
	done := waitState(t, b, "acme", j.ID, StateDone, StateError, StateTimeout)
	if took := time.Since(accepted); took < lease {
		t.Fatalf("B took the job over %v after it was accepted, before A's lease of %v expired", took, lease)
	}
	wantHistory(t, done, StateSubmitted, StateInProgress, StateDone)
	if done.Overview != (Overview{Total: 5, OK: 4, KO: 1}) {
		t.Fatalf("overview %+v", done.Overview)
	}
	env.wantCounts(readingsRows)
	cur, err := b.leases.Current(context.Background(), []string{j.ID})
	if owner := cur[j.ID].Owner; err != nil || (owner != a.leases.Owner && owner != b.leases.Owner) {
		t.Fatalf("lease of the job taken over: %+v (%v), want a running replica's", cur[j.ID], err)
	}
}
