package server

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// childProcess is a server launched as a child process (ClickHouse, ZooKeeper): in its own
// process group, sent SIGTERM when this process dies so that a crashed parent never leaks it,
// its console output kept for error messages.
type childProcess struct {
	name   string        // in messages: "clickhouse server", "zookeeper"
	grace  time.Duration // how long stop waits after SIGTERM before SIGKILL
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has ended
	output *lockedBuffer
}

// startChild starts cmd as a childProcess.
func startChild(cmd *exec.Cmd, name string, grace time.Duration) (childProcess, error) {
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return childProcess{}, err
	}
	p := childProcess{name: name, grace: grace, cmd: cmd, exited: make(chan struct{}), output: out}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// waitReady calls ready every poll until it succeeds. It fails, with the last lines of the
// console, when the process exits first or does not get ready within 60 s (then it is
// stopped); it stops the process when ctx ends.
func (p childProcess) waitReady(ctx context.Context, poll time.Duration, ready func() error) error {
	deadline := time.Now().Add(60 * time.Second)
	for ready() != nil {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited during start: %s", p.name, lastLines(p.output.String(), 5))
		case <-ctx.Done():
			_ = p.stop()
			return ctx.Err()
		case <-time.After(poll):
		}
		if time.Now().After(deadline) {
			_ = p.stop()
			return fmt.Errorf("%s did not answer within 60 s: %s", p.name, lastLines(p.output.String(), 5))
		}
	}
	return nil
}

// stop sends SIGTERM to the process group and waits for the process to exit, SIGKILL after
// its grace.
func (p childProcess) stop() error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
		return nil
	case <-time.After(p.grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
		return fmt.Errorf("%s ignored SIGTERM for %d s and was killed", p.name, int(p.grace.Seconds()))
	}
}

// kill ends the process at once (SIGKILL to its process group) and waits for it.
func (p childProcess) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// lockedBuffer collects the server's console output for error messages.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 1<<20 {
		b.buf.Reset()
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
