package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgPorts are the loopback ports the throwaway PostgreSQL may take (the first free one).
var pgPorts = []int{25432, 25433, 25434, 25435, 25436, 25437, 25438, 25439}

// pgSettings are what a competent user sets for this work on a 2-core machine with memory to
// spare: WAL skipped for tables created in the loading transaction (wal_level minimal), room for
// the index builds, a planner told the data sits on SSD and in the OS cache. Durability stays
// on (fsync, synchronous_commit): ClickHouse is not asked to give it up either.
var pgSettings = []string{
	"listen_addresses=127.0.0.1",
	"shared_buffers=1GB",
	"effective_cache_size=8GB",
	"work_mem=64MB",
	"maintenance_work_mem=1GB",
	"max_parallel_maintenance_workers=2",
	"max_parallel_workers_per_gather=2",
	"random_page_cost=1.1",
	"wal_level=minimal",
	"max_wal_senders=0",
	"max_wal_size=8GB",
	"checkpoint_timeout=30min",
}

// pgServer is a PostgreSQL cluster made for one run in a temporary directory.
type pgServer struct {
	dir     string // removed by stop
	port    int
	version string
	cmd     *exec.Cmd
	exited  chan struct{}
	log     *os.File
}

// pgBinDir is the bin directory of the newest PostgreSQL installed by Debian's packages.
func pgBinDir() (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(found) == 0 {
		return "", errors.New("PostgreSQL is not installed (apt-get install -y postgresql; make bench-pg does it)")
	}
	slices.SortFunc(found, func(a, b string) int { return pgMajor(a) - pgMajor(b) })
	return filepath.Dir(found[len(found)-1]), nil
}

func pgMajor(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// startPostgres runs initdb in a new temporary directory and starts the server on a free port
// of pgPorts. As root, both run as the unprivileged user postgres (PostgreSQL refuses root).
func startPostgres(ctx context.Context) (s *pgServer, err error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "consbench-pg-")
	if err != nil {
		return nil, err
	}
	s = &pgServer{dir: dir, exited: make(chan struct{})}
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs the user postgres (made by Debian's postgresql package): %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust",
		"--encoding=UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, lastLine(string(out)))
	}
	if s.port, err = freePGPort(); err != nil {
		return nil, err
	}
	if s.log, err = os.Create(filepath.Join(dir, "postgres.log")); err != nil {
		return nil, err
	}
	args := []string{"-D", data, "-c", "port=" + strconv.Itoa(s.port), "-c", "unix_socket_directories=" + dir}
	for _, set := range pgSettings {
		args = append(args, "-c", set)
	}
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), args...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	// Own process group, and SIGTERM when we die, so that a crashed benchmark leaks no server.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM, Credential: cred}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("postgres exited during start: %s", s.logTail())
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		conn, err := pgx.Connect(ctx, s.url())
		if err == nil {
			err = conn.QueryRow(ctx, "SHOW server_version").Scan(&s.version)
			_ = conn.Close(ctx)
			if err == nil {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("postgres did not answer within 60 s: %v; %s", err, s.logTail())
		}
	}
}

// url is the connection string of database postgres over TCP loopback.
func (s *pgServer) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// stop shuts the server down (fast shutdown, SIGKILL after 30 s) and removes its directory.
func (s *pgServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGINT)
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.exited
		}
	}
	if s.log != nil {
		_ = s.log.Close()
	}
	if err := os.RemoveAll(s.dir); err != nil {
		logf("remove %s: %v", s.dir, err)
	}
}

func (s *pgServer) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], " | ")
}

func freePGPort() (int, error) {
	for _, p := range pgPorts {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err == nil {
			_ = l.Close()
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free port among %v", pgPorts)
}
