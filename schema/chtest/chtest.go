// Package chtest gives tests a real ClickHouse: one server per test binary (CLICKHOUSE_DSN when
// set, else a launched local binary, else testcontainers-go when Docker answers) and one
// throwaway, migrated database per test, dropped in t.Cleanup.
//
// With ENERGY_TEST_CLUSTER=1 the store is a cluster instead: a launched local cluster (ZooKeeper
// and 2 shards × 2 replicas, see server.StartLocalCluster), or the cluster named by
// CLICKHOUSE_CLUSTER on CLICKHOUSE_DSN. Databases are then created, migrated and dropped
// ON CLUSTER, and tests use node 1.
//
// A test that cannot get a ClickHouse fails under CI=true and is skipped, loudly, elsewhere.
package chtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"energy/schema"
	"energy/schema/server"
)

var (
	once     sync.Once
	baseDSN  string
	startErr error
	local    *server.LocalServer
	cluster  *server.LocalCluster
	clusterN string // cluster name; empty on a single server
	localDir string
	stopper  func()
)

// clusterMode reports whether the tests' store is a cluster (ENERGY_TEST_CLUSTER=1).
func clusterMode() bool { return os.Getenv("ENERGY_TEST_CLUSTER") == "1" }

// sharedServer returns the DSN of the shared server (database part ignored).
func sharedServer() (string, error) {
	once.Do(func() {
		if dsn := os.Getenv("CLICKHOUSE_DSN"); dsn != "" {
			baseDSN = dsn
			if clusterMode() {
				if clusterN = os.Getenv("CLICKHOUSE_CLUSTER"); clusterN == "" {
					startErr = fmt.Errorf("ENERGY_TEST_CLUSTER=1 with CLICKHOUSE_DSN needs CLICKHOUSE_CLUSTER")
				}
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if clusterMode() {
			dir, err := os.MkdirTemp("", "chtest-cluster-")
			if err != nil {
				startErr = err
				return
			}
			c, err := server.StartLocalCluster(ctx, dir, server.ClusterPorts{})
			if err != nil {
				os.RemoveAll(dir)
				startErr = fmt.Errorf("ENERGY_TEST_CLUSTER=1: %w", err)
				return
			}
			cluster, clusterN, localDir, baseDSN = c, c.Name, dir, c.DSN(0, "default")
			return
		}
		if _, _, err := server.FindServerBinary(); err == nil {
			dir, err := os.MkdirTemp("", "chtest-")
			if err != nil {
				startErr = err
				return
			}
			s, err := server.StartLocal(ctx, dir)
			if err != nil {
				os.RemoveAll(dir)
				startErr = err
				return
			}
			local, localDir, baseDSN = s, dir, s.DSN("default")
			return
		}
		dsn, stop, err := startContainer(ctx)
		if err != nil {
			startErr = fmt.Errorf("no CLICKHOUSE_DSN, no clickhouse binary, and Docker failed: %w", err)
			return
		}
		baseDSN, stopper = dsn, stop
	})
	return baseDSN, startErr
}

func startContainer(ctx context.Context) (string, func(), error) {
	req := testcontainers.ContainerRequest{
		Image:        "clickhouse/clickhouse-server:latest",
		ExposedPorts: []string{"9000/tcp"},
		Env:          map[string]string{"CLICKHOUSE_SKIP_USER_SETUP": "1"},
		WaitingFor:   wait.ForListeningPort("9000/tcp").WithStartupTimeout(2 * time.Minute),
	}
	c, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{ContainerRequest: req, Started: true})
	if err != nil {
		return "", nil, err
	}
	host, err := c.Host(ctx)
	if err != nil {
		return "", nil, err
	}
	port, err := c.MappedPort(ctx, "9000/tcp")
	if err != nil {
		return "", nil, err
	}
	stop := func() { _ = c.Terminate(context.Background()) }
	return fmt.Sprintf("clickhouse://%s:%s/default", host, port.Port()), stop, nil
}

// Main runs the package's tests, then stops the shared server. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }
//
// Without it the server still stops when the test binary exits (it gets SIGTERM on our death).
func Main(m *testing.M) int {
	code := m.Run()
	closeCompatEngine()
	if local != nil {
		_ = local.Stop()
		os.RemoveAll(localDir)
	}
	if cluster != nil {
		_ = cluster.Stop()
		os.RemoveAll(localDir)
	}
	if stopper != nil {
		stopper()
	}
	return code
}

// need fails (CI) or skips (elsewhere) the test when no ClickHouse can be had.
func need(t testing.TB) string {
	t.Helper()
	dsn, err := sharedServer()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("ClickHouse is required under CI=true and none could be had: %v", err)
		}
		t.Skipf("SKIPPED, no ClickHouse available (set CLICKHOUSE_DSN or install clickhouse-server): %v", err)
	}
	return dsn
}

// DSN returns a DSN for a fresh, empty database (not migrated), dropped when the test ends.
func DSN(t testing.TB) string {
	t.Helper()
	base := need(t)
	name := "t_" + randomHex(6)
	dsn, err := schema.WithDatabase(base, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropDatabase(base, name) })
	return dsn
}

// DB returns an open connection to a fresh, migrated database, dropped when the test ends.
func DB(t testing.TB) *schema.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := schema.Open(ctx, DSN(t), clusterN)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx, nil); err != nil {
		t.Fatalf("migrate test database: %v", err)
	}
	if compatEnabled() {
		watchCompat(t, db)
	}
	return db
}

// ClusterName is the cluster of the tests' store ("" on a single server); a test that opens
// its own schema.DB on a DSN from this package passes it to schema.Open.
func ClusterName(t testing.TB) string {
	t.Helper()
	need(t)
	return clusterN
}

// Cluster returns the launched local cluster under ENERGY_TEST_CLUSTER=1 (nil otherwise, and
// with an external cluster), for tests that run energyd replicas on different nodes or stop one.
func Cluster(t testing.TB) *server.LocalCluster {
	t.Helper()
	need(t)
	return cluster
}

// NeedCluster returns the launched local cluster, for tests of cluster behaviour. They run under
// ENERGY_TEST_CLUSTER=1 (make test-cluster), where a missing cluster fails them, and are
// skipped in a single-server run, whose store has no second node.
func NeedCluster(t testing.TB) *server.LocalCluster {
	t.Helper()
	if !clusterMode() {
		t.Skip("cluster test: runs under ENERGY_TEST_CLUSTER=1 (make test-cluster)")
	}
	need(t)
	if cluster == nil {
		t.Fatal("ENERGY_TEST_CLUSTER=1 with CLICKHOUSE_DSN: this test needs the launched local cluster (unset CLICKHOUSE_DSN)")
	}
	return cluster
}

// Server returns the launched local server when the tests use one (nil with CLICKHOUSE_DSN or
// a container), for tests that stop and restart ClickHouse.
func Server(t testing.TB) *server.LocalServer {
	t.Helper()
	need(t)
	return local
}

func dropDatabase(base, name string) {
	opts, err := clickhouse.ParseDSN(base)
	if err != nil {
		return
	}
	opts.Auth.Database = "default"
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !strings.HasPrefix(name, "t_") { // only ever drop what we created
		return
	}
	onCluster := ""
	if clusterN != "" {
		onCluster = " ON CLUSTER " + clusterN
	}
	_ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+onCluster)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
