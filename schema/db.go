// Package schema is the store every layer builds on: the connection to ClickHouse with its
// deadlines, the numbered migrations and their migrator, row helpers and the reads of a site
// from its own shard on a cluster. The ClickHouse servers themselves are run by schema/server.
package schema

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// DB is an open, instrumented connection pool to one ClickHouse database.
// Queries name tables without a database: the pool's default database is Name.
type DB struct {
	Conn    driver.Conn
	Name    string // database name
	Cluster string // cluster name for ON CLUSTER DDL; empty on a single node
	// Timeouts bound each call made through Conn.
	Timeouts Timeouts
	// shards reads a site from its own shard (cluster only; see ReadSite).
	shards *shardReaders
}

// Open connects to the DSN (clickhouse://host:port/database?...) with DefaultTimeouts,
// creating the database when it does not exist, and checks that the server answers.
func Open(ctx context.Context, dsn string, cluster string) (*DB, error) {
	return OpenWithTimeouts(ctx, dsn, cluster, DefaultTimeouts)
}

// OpenWithTimeouts is Open with the bounds of every call given (zero fields: the defaults).
func OpenWithTimeouts(ctx context.Context, dsn string, cluster string, t Timeouts) (*DB, error) {
	t = t.orDefaults()
	opts, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("invalid ClickHouse DSN: %w", err)
	}
	database := opts.Auth.Database
	if database == "" {
		database = "default"
	}
	tune(opts, t)
	if cluster != "" {
		// An INSERT into a Distributed table returns once the shard holds the rows, not when
		// they are queued on this node: an accepted write is on a shard's replica.
		if opts.Settings == nil {
			opts.Settings = clickhouse.Settings{}
		}
		opts.Settings["insert_distributed_sync"] = 1
	}
	if database != "default" {
		if err := createDatabase(ctx, *opts, database, cluster, t.Migrate); err != nil {
			return nil, err
		}
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, min(5*time.Second, t.Read))
	defer cancel()
	if err := conn.Ping(pctx); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("ClickHouse at %v does not answer: %w", opts.Addr, err)
	}
	db := &DB{Conn: instrument(conn, t), Name: database, Cluster: cluster, Timeouts: t}
	if cluster != "" {
		if db.shards, err = openShardReaders(pctx, db.Conn, *opts, cluster, t); err != nil {
			_ = conn.Close()
			return nil, err
		}
	}
	return db, nil
}

// tune sets pool limits suited to a service: fail fast when ClickHouse is down instead of
// waiting the driver's 30 s dial default, and never wait on a silent connection longer than
// the read bound (the driver's default is 5 minutes); a DSN's own values win.
func tune(opts *clickhouse.Options, t Timeouts) {
	if opts.DialTimeout == 0 || opts.DialTimeout == 30*time.Second {
		opts.DialTimeout = 3 * time.Second
	}
	if opts.ReadTimeout == 0 || opts.ReadTimeout == 300*time.Second {
		opts.ReadTimeout = t.Read
	}
	if opts.MaxOpenConns == 0 {
		opts.MaxOpenConns = 32
	}
	if opts.MaxIdleConns == 0 {
		opts.MaxIdleConns = 16
	}
	if opts.ConnMaxLifetime == 0 {
		opts.ConnMaxLifetime = 10 * time.Minute
	}
}

func createDatabase(ctx context.Context, opts clickhouse.Options, database, cluster string, migrate time.Duration) error {
	opts.Auth.Database = "default"
	conn, err := clickhouse.Open(&opts)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, migrate)
	defer cancel()
	onCluster := ""
	if cluster != "" {
		onCluster = " ON CLUSTER " + quoteIdent(cluster)
	}
	// The database name comes from configuration, never from a request; it is still quoted.
	if err := conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+quoteIdent(database)+onCluster); err != nil {
		return fmt.Errorf("create database %s: %w", database, err)
	}
	return nil
}

// Close releases the pool (and the shards' pools on a cluster).
func (db *DB) Close() error {
	if db.shards != nil {
		db.shards.close()
	}
	return db.Conn.Close()
}

// Ping reports whether ClickHouse answers within the context.
func (db *DB) Ping(ctx context.Context) error { return db.Conn.Ping(ctx) }

func quoteIdent(s string) string {
	out := []byte{'`'}
	for i := 0; i < len(s); i++ {
		if s[i] == '`' || s[i] == '\\' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(append(out, '`'))
}
