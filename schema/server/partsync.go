package server

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// A ClickHouse server loads every part directory on disk when it starts, including the parts
// already merged into bigger ones: with the default old_parts_lifetime (480 s) every small
// insert of the last 8 minutes (one per job state change, per data version bump, per archive's
// readings) was loaded again at each restart, and a server killed every few seconds never got
// to delete them: 1,100 part directories of the jobs table after 300 jobs, 3 of them active.
//
// ClickHouse keeps merged-away parts that long because it does not fsync a merged part (18.16
// has no setting for it): should the machine lose power before the kernel writes the new part
// back (up to ~35 s with the default dirty page expiry), the old parts are still there. The
// servers launched here keep them 15 s (serverConfig) and, in exchange, flush their data
// directory's file system every partSyncInterval, so that a merged part is on disk well before
// the parts it replaces are deleted.
const partSyncInterval = 5 * time.Second

// syncWhileRunning flushes the file system holding dir every partSyncInterval until exited
// is closed.
func syncWhileRunning(dir string, exited <-chan struct{}) {
	t := time.NewTicker(partSyncInterval)
	defer t.Stop()
	for {
		select {
		case <-exited:
			return
		case <-t.C:
			syncFileSystem(dir)
		}
	}
}

// syncFileSystem writes back the dirty pages of the file system holding dir (syncfs(2)).
func syncFileSystem(dir string) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	defer f.Close()
	_ = unix.Syncfs(int(f.Fd()))
}
