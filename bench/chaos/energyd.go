package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// energyd is one run of the energyd binary on the chaos data dir, on loopback.
type energyd struct {
	cmd     *exec.Cmd
	exited  chan struct{}
	started time.Time
	logFrom int64 // offset of this run's first line in the shared log
}

// daemon starts and stops energyd runs; every run appends to one log.
type daemon struct {
	bin     string
	dataDir string
	api     string // http://127.0.0.1:PORT
	listen  string
	logPath string
	extra   []string
}

// startup is how long one start took: to the embedded ClickHouse answering and to /readyz 200.
type startup struct {
	clickhouse time.Duration
	ready      time.Duration
}

func (d *daemon) start() (*energyd, error) {
	logf, err := os.OpenFile(d.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	off, _ := logf.Seek(0, io.SeekEnd)
	args := append([]string{"--listen", d.listen, "--advice-listen", "", "--data-dir", d.dataDir, "--log-level", "info"}, d.extra...)
	cmd := exec.Command(d.bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group: a kill -9 reaches energyd alone, as a crash would.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	e := &energyd{cmd: cmd, exited: make(chan struct{}), started: time.Now(), logFrom: off}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait(); close(e.exited) }()
	return e, nil
}

// waitReady polls /readyz until 200 and reads from the log when the embedded ClickHouse
// answered.
func (d *daemon) waitReady(ctx context.Context, e *energyd, within time.Duration) (startup, error) {
	deadline := time.Now().Add(within)
	for {
		if status(ctx, d.api+"/readyz") == http.StatusOK {
			ready := time.Since(e.started)
			return startup{clickhouse: d.logged(e, "embedded ClickHouse started"), ready: ready}, nil
		}
		select {
		case <-e.exited:
			return startup{}, fmt.Errorf("energyd exited during start (log %s)", d.logPath)
		case <-ctx.Done():
			return startup{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return startup{}, fmt.Errorf("energyd not ready within %s (log %s)", within, d.logPath)
		}
	}
}

// logged is the time from e's start to its first log line holding msg (0 when none).
func (d *daemon) logged(e *energyd, msg string) time.Duration {
	f, err := os.Open(d.logPath)
	if err != nil {
		return 0
	}
	defer f.Close()
	if _, err := f.Seek(e.logFrom, io.SeekStart); err != nil {
		return 0
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Time time.Time `json:"time"`
			Msg  string    `json:"msg"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == msg {
			return line.Time.Sub(e.started)
		}
	}
	return 0
}

// kill9 kills energyd at once and waits for it to be gone.
func (e *energyd) kill9() {
	_ = e.cmd.Process.Signal(syscall.SIGKILL)
	<-e.exited
}

// stop ends energyd cleanly (SIGTERM), or kills it after a minute.
func (e *energyd) stop() {
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.exited:
	case <-time.After(time.Minute):
		e.kill9()
	}
}

// clickhousePid is the pid of the embedded ClickHouse that energyd launched: a child of e.
func (e *energyd) clickhousePid() (int, error) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", e.cmd.Process.Pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
			if strings.HasPrefix(strings.TrimSpace(string(comm)), "clickhouse") {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("no ClickHouse child of energyd %d", e.cmd.Process.Pid)
}

// status is the HTTP status of a GET (0 when the request failed).
func status(ctx context.Context, url string) int {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
