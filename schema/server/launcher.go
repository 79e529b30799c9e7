// Package server runs ClickHouse servers as child processes: the embedded one energyd launches
// when no DSN is given, with its supervisor that restarts it, and the local cluster (with its
// ZooKeeper) of make cluster and the cluster tests.
package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// LocalServer is a ClickHouse server launched as a child process with its data under Dir.
// energyd uses it when no DSN is configured; tests share one per test binary.
type LocalServer struct {
	Dir  string // holds config.xml, data/ and the endpoint file
	Port int    // native protocol port on 127.0.0.1
	// Reclaimed is the pid of a server left running on Dir by a launcher that died, killed
	// before this one started (0: none).
	Reclaimed int

	bin    string
	prefix []string
	childProcess
}

// endpointFile is where a running launcher records its DSN so that energyctl can find it.
const endpointFile = "endpoint"

// serverConfig is the smallest configuration both 18.16 and current releases accept.
// poll_interval=1 keeps SIGTERM from waiting 10 s on idle pooled connections.
// old_parts_lifetime, cleanup_delay_period: parts merged away are deleted 15 s after the merge,
// looked for every 5 s (defaults 480 s and 30 s), because a server loads every part on disk,
// merged away or not, when it starts (see partsync.go).
const serverConfig = `<yandex>
 <logger><console>1</console><level>warning</level></logger>
 <listen_host>127.0.0.1</listen_host>
 <mark_cache_size>67108864</mark_cache_size>
 <timezone>UTC</timezone>
 <merge_tree><old_parts_lifetime>15</old_parts_lifetime><cleanup_delay_period>5</cleanup_delay_period></merge_tree>
 <users_config>config.xml</users_config>
 <profiles><default><poll_interval>1</poll_interval></default></profiles>
 <users><default><password/><networks><ip>::/0</ip></networks><profile>default</profile><quota>default</quota></default></users>
 <quotas><default/></quotas>
</yandex>
`

// FindServerBinary returns the command that starts a ClickHouse server: Debian's
// clickhouse-server (18.16) or a current single clickhouse binary run as "clickhouse server".
// ENERGY_CLICKHOUSE_BINARY overrides the search.
func FindServerBinary() (path string, prefix []string, err error) {
	if p := os.Getenv("ENERGY_CLICKHOUSE_BINARY"); p != "" {
		if strings.HasSuffix(filepath.Base(p), "clickhouse") {
			return p, []string{"server"}, nil
		}
		return p, nil, nil
	}
	for _, name := range []string{"clickhouse-server", "/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil, nil
		}
	}
	for _, name := range []string{"clickhouse", "/usr/bin/clickhouse", "/usr/local/bin/clickhouse"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, []string{"server"}, nil
		}
	}
	return "", nil, errors.New("no ClickHouse server binary found: install Debian's clickhouse-server package or a clickhouse binary, or set a DSN")
}

// StartLocal launches a server with its data in dir on a free loopback port and waits until
// it answers. A port taken between choosing and binding is retried with another port.
func StartLocal(ctx context.Context, dir string) (*LocalServer, error) {
	return StartLocalAt(ctx, dir, 0)
}

// StartLocalAt is StartLocal on a chosen loopback port (0: a free one, retried when taken).
func StartLocalAt(ctx context.Context, dir string, port int) (*LocalServer, error) {
	bin, prefix, err := FindServerBinary()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.xml"), []byte(serverConfig), 0o644); err != nil {
		return nil, err
	}
	reclaimed, err := reclaimLeftover(dir)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		s, err := startOnce(ctx, bin, prefix, dir, port)
		if err == nil {
			s.Reclaimed = reclaimed
			return s, nil
		}
		lastErr = err
		msg := err.Error()
		if !strings.Contains(msg, "Address already in use") && !strings.Contains(msg, "Cannot lock file") {
			break
		}
		// Another server may still be releasing the directory: wait a little and retry.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 300 * time.Millisecond):
		}
	}
	return nil, lastErr
}

func startOnce(ctx context.Context, bin string, prefix []string, dir string, port int) (*LocalServer, error) {
	if port == 0 {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		port = p
	}
	return startOnPort(ctx, bin, prefix, dir, port)
}

// startOnPort starts the server of dir (config.xml, and config.d/ when present) on port.
func startOnPort(ctx context.Context, bin string, prefix []string, dir string, port int) (*LocalServer, error) {
	args := append(append([]string{}, prefix...),
		"--config-file="+filepath.Join(dir, "config.xml"), "--",
		"--path="+filepath.Join(dir, "data")+"/", "--tcp_port="+strconv.Itoa(port))
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	proc, err := startChild(cmd, "clickhouse server", 20*time.Second)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &LocalServer{Dir: dir, Port: port, bin: bin, prefix: prefix, childProcess: proc}
	if err := proc.waitReady(ctx, 50*time.Millisecond, func() error { return s.ping(ctx) }); err != nil {
		return nil, err
	}
	go syncWhileRunning(filepath.Join(dir, "data"), proc.exited)
	if err := os.WriteFile(filepath.Join(dir, endpointFile), []byte(s.DSN("default")+"\n"), 0o644); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *LocalServer) ping(ctx context.Context) error {
	conn, err := clickhouse.Open(&clickhouse.Options{
		Addr:        []string{s.Addr()},
		DialTimeout: time.Second,
	})
	if err != nil {
		return err
	}
	defer conn.Close()
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return conn.Ping(pctx)
}

// Addr is host:port of the native protocol.
func (s *LocalServer) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// DSN returns a clickhouse:// DSN for database on this server.
func (s *LocalServer) DSN(database string) string {
	return fmt.Sprintf("clickhouse://%s/%s", s.Addr(), database)
}

// Stop sends SIGTERM and waits for the server to exit (SIGKILL after 20 s).
func (s *LocalServer) Stop() error {
	_ = os.Remove(filepath.Join(s.Dir, endpointFile))
	return s.stop()
}

// Pid is the server's process id (its process group id too).
func (s *LocalServer) Pid() int { return s.cmd.Process.Pid }

// Exited is closed when the server process has ended.
func (s *LocalServer) Exited() <-chan struct{} { return s.exited }

// DSNOrLocal is the ClickHouse to use: dsn when it is given (server nil), else a local server
// started under dir (StartLocal), reached at database. The caller stops the server it gets.
func DSNOrLocal(ctx context.Context, dsn, dir, database string) (string, *LocalServer, error) {
	if dsn != "" {
		return dsn, nil, nil
	}
	srv, err := StartLocal(ctx, dir)
	if err != nil {
		return "", nil, err
	}
	return srv.DSN(database), srv, nil
}

// RecordedDSN reads the DSN that a running launcher wrote under dir (energyd's embedded server).
func RecordedDSN(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, endpointFile))
	if err != nil {
		return "", fmt.Errorf("no running embedded ClickHouse recorded under %s (is energyd running?): %w", dir, err)
	}
	return strings.TrimSpace(string(b)), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
