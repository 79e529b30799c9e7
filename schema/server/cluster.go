package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LocalClusterName is the cluster that a LocalCluster declares, as deploy/clickhouse/ does.
const LocalClusterName = "energy"

// Cluster layout of a LocalCluster: 2 shards of 2 replicas, the smallest cluster that has both
// sharding and replication.
const (
	localShards   = 2
	localReplicas = 2
)

// LocalCluster is a ClickHouse cluster on loopback: one ZooKeeper and four ClickHouse servers
// (2 shards × 2 replicas) configured as deploy/clickhouse/ describes (remote_servers, macros,
// zookeeper, distributed_ddl), each node with its own ports and data directory under Dir.
// Nodes are in shard order: shard 1 replica 1, shard 1 replica 2, shard 2 replica 1, …
type LocalCluster struct {
	Dir       string
	Name      string
	ZooKeeper *ZooKeeper
	Nodes     []*LocalServer

	bin    string
	prefix []string
}

// ClusterPorts fixes the ports of a LocalCluster; zero values pick free ports.
type ClusterPorts struct {
	ZooKeeper int
	// Base: node i (0-based) listens on Base+1+i (native) and Base+11+i (interserver HTTP).
	Base int
}

// StartLocalCluster launches ZooKeeper and the four nodes under dir and waits until every node
// answers. On failure it stops what it started.
//
// Free ports are chosen before the first node starts and every node's configuration names all
// of them, so another process on the machine (parallel test packages start servers of their
// own) can take one in the seconds before its node binds it: then the whole cluster is started
// again on new ports. Ports given by the caller are never changed.
func StartLocalCluster(ctx context.Context, dir string, ports ClusterPorts) (*LocalCluster, error) {
	for attempt := 1; ; attempt++ {
		c, err := startLocalClusterOnce(ctx, dir, ports)
		if err == nil || ports.Base != 0 || attempt == 3 || !strings.Contains(err.Error(), "Address already in use") {
			return c, err
		}
	}
}

func startLocalClusterOnce(ctx context.Context, dir string, ports ClusterPorts) (*LocalCluster, error) {
	bin, prefix, err := FindServerBinary()
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	n := localShards * localReplicas
	tcp, interserver := make([]int, n), make([]int, n)
	for i := range n {
		if ports.Base != 0 {
			tcp[i], interserver[i] = ports.Base+1+i, ports.Base+11+i
			continue
		}
		if tcp[i], err = freePort(); err != nil {
			return nil, err
		}
		if interserver[i], err = freePort(); err != nil {
			return nil, err
		}
	}
	zk, err := StartZooKeeper(ctx, filepath.Join(dir, "zookeeper"), ports.ZooKeeper)
	if err != nil {
		return nil, err
	}
	c := &LocalCluster{Dir: dir, Name: LocalClusterName, ZooKeeper: zk, bin: bin, prefix: prefix}
	for i := range n {
		nodeDir := c.nodeDir(i)
		if err := writeNodeConfig(nodeDir, i, tcp, interserver[i], zk.Port); err != nil {
			_ = c.Stop()
			return nil, err
		}
		s, err := startOnPort(ctx, bin, prefix, nodeDir, tcp[i])
		if err != nil {
			_ = c.Stop()
			return nil, fmt.Errorf("cluster node %d: %w", i+1, err)
		}
		c.Nodes = append(c.Nodes, s)
	}
	return c, nil
}

func (c *LocalCluster) nodeDir(i int) string {
	return filepath.Join(c.Dir, fmt.Sprintf("ch-%d", i+1))
}

// writeNodeConfig writes node i's config.xml and config.d/cluster.xml (read by the server
// from the directory of its config file). load_balancing in_order sends the Distributed reads
// and writes of every node to the first live replica of each shard, so a row written through
// one node is read back through any other without waiting for replication.
func writeNodeConfig(dir string, i int, tcp []int, interserver, zkPort int) error {
	if err := os.MkdirAll(filepath.Join(dir, "config.d"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.xml"), []byte(serverConfig), 0o644); err != nil {
		return err
	}
	var shards strings.Builder
	for s := range localShards {
		shards.WriteString("   <shard><internal_replication>true</internal_replication>\n")
		for r := range localReplicas {
			fmt.Fprintf(&shards, "    <replica><host>127.0.0.1</host><port>%d</port></replica>\n", tcp[s*localReplicas+r])
		}
		shards.WriteString("   </shard>\n")
	}
	cfg := fmt.Sprintf(`<yandex>
 <interserver_http_host>127.0.0.1</interserver_http_host>
 <interserver_http_port>%d</interserver_http_port>
 <zookeeper><node><host>127.0.0.1</host><port>%d</port></node><session_timeout_ms>30000</session_timeout_ms></zookeeper>
 <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>
 <remote_servers>
  <%s>
%s  </%s>
 </remote_servers>
 <macros><shard>%02d</shard><replica>ch-%d</replica></macros>
 <profiles><default><load_balancing>in_order</load_balancing></default></profiles>
</yandex>
`, interserver, zkPort, LocalClusterName, shards.String(), LocalClusterName, i/localReplicas+1, i+1)
	return os.WriteFile(filepath.Join(dir, "config.d", "cluster.xml"), []byte(cfg), 0o644)
}

// DSN returns a DSN for database on node i.
func (c *LocalCluster) DSN(i int, database string) string { return c.Nodes[i].DSN(database) }

// StopNode stops node i (its data stays); StartNode starts it again on the same port.
func (c *LocalCluster) StopNode(i int) error { return c.Nodes[i].Stop() }

// StartNode restarts node i after StopNode.
func (c *LocalCluster) StartNode(ctx context.Context, i int) error {
	s, err := startOnPort(ctx, c.bin, c.prefix, c.nodeDir(i), c.Nodes[i].Port)
	if err != nil {
		return err
	}
	c.Nodes[i] = s
	return nil
}

// Stop stops every node, then ZooKeeper (nodes first, so they do not wait on a lost session).
func (c *LocalCluster) Stop() error {
	var errs []error
	for _, s := range c.Nodes {
		errs = append(errs, s.Stop())
	}
	if c.ZooKeeper != nil {
		errs = append(errs, c.ZooKeeper.Stop())
	}
	return errors.Join(errs...)
}
