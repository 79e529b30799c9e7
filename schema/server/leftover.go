package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// reclaimLeftover ends a ClickHouse server that still runs on dir's data although the process
// that launched it is gone. An energyd killed with SIGKILL leaves its server shutting down on
// the SIGTERM its death sends (Pdeathsig), which takes seconds, longer as the store grows, and
// holds the data directory's lock meanwhile: the next energyd waited for it at every start.
// Such an orphan serves nobody, so it is killed at once (MergeTree parts survive a SIGKILL). A
// server whose launcher still runs (another energyd of the same binary on the same directory)
// is left alone; starting then fails on the lock, as it should. It returns the pid it killed.
func reclaimLeftover(dir string) (int, error) {
	status, err := os.ReadFile(filepath.Join(dir, "data", "status"))
	if err != nil {
		return 0, nil // never started here, or stopped cleanly
	}
	pid := statusPid(status)
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return 0, nil
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte("--config-file="+filepath.Join(dir, "config.xml")+"\x00")) {
		return 0, nil // the pid now belongs to another process
	}
	state, ppid := procState(pid)
	if state == "Z" {
		return 0, nil // already dead, waiting to be reaped: it holds no lock
	}
	if ppid != 1 && sameExecutable(ppid) {
		return 0, nil // its launcher still runs
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL) // its process group (Setpgid), then the pid itself
	_ = syscall.Kill(pid, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s, _ := procState(pid); s == "" || s == "Z" {
			return pid, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return pid, fmt.Errorf("the ClickHouse left running on %s (pid %d) did not exit after SIGKILL", dir, pid)
}

// statusPid reads "PID: 1234" from ClickHouse's status file.
func statusPid(status []byte) int {
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "PID:"); ok {
			pid, _ := strconv.Atoi(strings.TrimSpace(v))
			return pid
		}
	}
	return 0
}

// procState is a process's state letter and parent pid from /proc ("" when it is gone).
func procState(pid int) (string, int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return "", 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return f[0], ppid
}

// sameExecutable tells whether pid runs this process's binary.
func sameExecutable(pid int) bool {
	self, err1 := os.Readlink("/proc/self/exe")
	other, err2 := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return err1 == nil && err2 == nil && self == other
}
