// Package daemon runs energyd as a child process for the reliability runs (make chaos, make
// soak): on loopback, on a data dir of its own, with its embedded ClickHouse.
package daemon

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"energy/schema"
	"energy/schema/server"
)

// Process is one run of the energyd binary.
type Process struct {
	cmd     *exec.Cmd
	exited  chan struct{}
	started time.Time
	logFrom int64 // offset of this run's first line in the shared log
}

// Daemon starts and stops energyd runs; every run appends to one log.
type Daemon struct {
	Bin     string
	DataDir string
	API     string // http://127.0.0.1:PORT
	Listen  string
	LogPath string
	Extra   []string // more flags
}

// Startup is how long one start took: to the embedded ClickHouse answering and to /readyz 200.
type Startup struct {
	ClickHouse time.Duration
	Ready      time.Duration
}

// Start launches energyd.
func (d *Daemon) Start() (*Process, error) {
	logf, err := os.OpenFile(d.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	off, _ := logf.Seek(0, io.SeekEnd)
	args := append([]string{"--listen", d.Listen, "--advice-listen", "", "--data-dir", d.DataDir, "--log-level", "info"}, d.Extra...)
	cmd := exec.Command(d.Bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group: a kill -9 reaches energyd alone, as a crash would.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	e := &Process{cmd: cmd, exited: make(chan struct{}), started: time.Now(), logFrom: off}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait(); close(e.exited) }()
	return e, nil
}

// WaitReady polls /readyz until 200 and reads from the log when the embedded ClickHouse
// answered.
func (d *Daemon) WaitReady(ctx context.Context, e *Process, within time.Duration) (Startup, error) {
	deadline := time.Now().Add(within)
	for {
		if Status(ctx, d.API+"/readyz") == http.StatusOK {
			ready := time.Since(e.started)
			return Startup{ClickHouse: d.logged(e, "embedded ClickHouse started"), Ready: ready}, nil
		}
		select {
		case <-e.exited:
			return Startup{}, fmt.Errorf("energyd exited during start (log %s)", d.LogPath)
		case <-ctx.Done():
			return Startup{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return Startup{}, fmt.Errorf("energyd not ready within %s (log %s)", within, d.LogPath)
		}
	}
}

// logged is the time from e's start to its first log line holding msg (0 when none).
func (d *Daemon) logged(e *Process, msg string) time.Duration {
	f, err := os.Open(d.LogPath)
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

// Kill9 kills energyd at once (SIGKILL) and waits for it to be gone.
func (e *Process) Kill9() {
	_ = e.cmd.Process.Signal(syscall.SIGKILL)
	<-e.exited
}

// Stop ends energyd cleanly (SIGTERM), or kills it after a minute.
func (e *Process) Stop() {
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.exited:
	case <-time.After(time.Minute):
		e.Kill9()
	}
}

// ClickHousePid is the pid of the embedded ClickHouse that energyd launched: a child of e.
func (e *Process) ClickHousePid() (int, error) {
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

// Status is the HTTP status of a GET (0 when the request failed or took over 10 s).
func Status(ctx context.Context, url string) int {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
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

// Pid is energyd's process id.
func (e *Process) Pid() int { return e.cmd.Process.Pid }

// Store opens the embedded ClickHouse that energyd runs now, database energy (its port
// changes at each start).
func (d *Daemon) Store(ctx context.Context) (*schema.DB, error) {
	dsn, err := server.RecordedDSN(filepath.Join(d.DataDir, "clickhouse"))
	if err == nil {
		dsn, err = schema.WithDatabase(dsn, "energy")
	}
	if err != nil {
		return nil, err
	}
	return schema.Open(ctx, dsn, "")
}

// Build compiles ./cmd/energyd (run from the repository root) into out.
func Build(ctx context.Context, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/energyd")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/energyd (run from the repository root): %w", err)
	}
	return nil
}

// FreePort is a free loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Setup is what a run asks of its energyd: Name prefixes its temporary directory; Energyd is
// the binary (empty: built from ./cmd/energyd); Port its loopback port (0: a free one); Keep
// leaves the directory (data dir, log) in place; Extra are more flags.
type Setup struct {
	Name    string
	Energyd string
	Port    int
	Keep    bool
	Extra   []string
}

// New prepares a Daemon in a new temporary directory; cleanup removes that directory unless
// Keep is set.
func New(ctx context.Context, s Setup) (d *Daemon, cleanup func(), err error) {
	tmp, err := os.MkdirTemp("", s.Name+"-")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { _ = os.RemoveAll(tmp) }
	if s.Keep {
		log.Printf("temporary files kept in %s", tmp)
		cleanup = func() {}
	}
	fail := func(err error) (*Daemon, func(), error) {
		cleanup()
		return nil, nil, err
	}
	if s.Energyd == "" {
		s.Energyd = filepath.Join(tmp, "energyd")
		log.Printf("building energyd")
		if err := Build(ctx, s.Energyd); err != nil {
			return fail(err)
		}
	}
	if s.Port == 0 {
		if s.Port, err = FreePort(); err != nil {
			return fail(err)
		}
	}
	listen := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	return &Daemon{Bin: s.Energyd, DataDir: filepath.Join(tmp, "data"), API: "http://" + listen, Listen: listen,
		LogPath: filepath.Join(tmp, "energyd.log"), Extra: s.Extra}, cleanup, nil
}

// HourlyIndexArchive is an archive of one pod's smart distributor indexes (dial "1"), one an hour
// from the first hour: index[k] is the value read at first + k hours, generated an hour later.
func HourlyIndexArchive(siteID, podID string, first time.Time, index []int64) []byte {
	type reading struct {
		SiteID       string           `json:"siteId"`
		PodID        string           `json:"podId"`
		Nature       string           `json:"nature"`
		TS           string           `json:"ts"`
		GenerationTS string           `json:"generationTs"`
		Value        map[string]int64 `json:"value"`
	}
	rs := make([]reading, len(index))
	for k, v := range index {
		ts := first.Add(time.Duration(k) * time.Hour)
		rs[k] = reading{SiteID: siteID, PodID: podID, Nature: "MKT_SMART_DISTRIBUTOR", TS: ts.Format(time.RFC3339),
			GenerationTS: ts.Add(time.Hour).Format(time.RFC3339), Value: map[string]int64{"1": v}}
	}
	body, _ := json.Marshal(map[string]any{"smartElecIndexes": rs})
	return Archive("readings.json", body)
}

// Archive is a .tar.gz holding one file.
func Archive(name string, body []byte) []byte {
	var tb, gb bytes.Buffer
	tw := tar.NewWriter(&tb)
	_ = tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))})
	_, _ = tw.Write(body)
	_ = tw.Close()
	zw := gzip.NewWriter(&gb)
	_, _ = zw.Write(tb.Bytes())
	_ = zw.Close()
	return gb.Bytes()
}
