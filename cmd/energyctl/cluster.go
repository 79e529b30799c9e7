package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"energy/schema/server"
)

// clusterRun launches the local cluster under --dir, writes the node DSNs to DIR/dsn (one a
// line, shard order) once every node answers, and stops everything on SIGTERM or SIGINT.
func clusterRun(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("cluster run", flag.ContinueOnError)
	dir := fs.String("dir", "var/cluster", "directory of the nodes' data and configuration")
	base := fs.Int("base-port", 29000, "node i (1-4) listens on BASE+i (native protocol) and BASE+10+i (interserver); 0: free ports")
	zk := fs.Int("zookeeper-port", 29181, "ZooKeeper client port; 0: a free one")
	database := fs.String("database", "energy", "database named in the printed DSNs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	c, err := server.StartLocalCluster(ctx, *dir, server.ClusterPorts{ZooKeeper: *zk, Base: *base})
	if err != nil {
		return err
	}
	defer c.Stop()
	var dsns []string
	for i := range c.Nodes {
		dsns = append(dsns, c.DSN(i, *database))
	}
	dsnFile := filepath.Join(c.Dir, "dsn")
	if err := os.WriteFile(dsnFile, []byte(strings.Join(dsns, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	defer os.Remove(dsnFile)
	fmt.Fprintf(out, "cluster %s up: ZooKeeper %s, nodes (shard 1: 1-2, shard 2: 3-4):\n%s\n", c.Name, c.ZooKeeper.Addr(), strings.Join(dsns, "\n"))
	fmt.Fprintf(out, "energyd --clickhouse-cluster %s --clickhouse-dsn %s\n", c.Name, dsns[0])
	<-ctx.Done()
	fmt.Fprintln(out, "stopping the cluster")
	return c.Stop()
}
