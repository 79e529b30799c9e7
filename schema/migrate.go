package schema

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"energy/schema/tables"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migration is one numbered, embedded SQL file; its statements are separated by ";" at a line end.
type Migration struct {
	Version int
	Name    string
	Text    string
}

// Migrations returns the embedded migrations in version order. Numbers are never reused.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number and '_'", e.Name())
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s share number %d", prev, e.Name(), v)
		}
		seen[v] = e.Name()
		b, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: e.Name(), Text: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Render turns a migration into statements for a single node (cluster == "") or a cluster.
// Placeholders: {{onCluster}}, {{table "t"}} (t, or t_local on a cluster),
// {{engine "t" "ReplacingMergeTree(version)"}} (Replicated* on a cluster) and
// {{distributed "t" "shardingKey"}} (a Distributed table over t_local on a cluster, else nothing)
// and {{sharded "t"}} (the table of all shards: t, or the Distributed table t on a cluster).
// On a cluster the tables of ReplicatedOnEveryNode are not sharded: each node holds a replica
// of the whole table under its own name, so reads of the registry stay on the node.
func Render(m Migration, database, cluster string) ([]string, error) {
	funcs := template.FuncMap{
		"onCluster": func() string {
			if cluster == "" {
				return ""
			}
			return "ON CLUSTER " + quoteIdent(cluster)
		},
		"table": func(name string) string {
			if cluster == "" {
				return name
			}
			// Qualified: each node runs ON CLUSTER DDL in its own default database.
			if ReplicatedOnEveryNode[name] {
				return quoteIdent(database) + "." + name
			}
			return quoteIdent(database) + "." + name + "_local"
		},
		"sharded": func(name string) string {
			if cluster == "" {
				return name
			}
			return quoteIdent(database) + "." + name
		},
		"engine": func(table, engine string) string {
			if cluster == "" {
				return engine
			}
			return replicatedEngine(engine, database, table)
		},
		"distributed": func(table, key string) string {
			if cluster == "" || ReplicatedOnEveryNode[table] {
				return ""
			}
			db := quoteIdent(database)
			return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s ON CLUSTER %s AS %s.%s_local ENGINE = Distributed(%s, %s, %s_local, %s)",
				db, table, quoteIdent(cluster), db, table, quoteIdent(cluster), db, table, key)
		},
	}
	t, err := template.New(m.Name).Funcs(funcs).Parse(m.Text)
	if err != nil {
		return nil, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, nil); err != nil {
		return nil, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	var stmts []string
	for _, s := range strings.Split(buf.String(), ";\n") {
		if s = strings.TrimSpace(stripComments(s)); s != "" {
			stmts = append(stmts, alterOnOneReplica(strings.TrimSuffix(s, ";"), database, cluster))
		}
	}
	return stmts, nil
}

// alterOnOneReplica drops ON CLUSTER from an ALTER of a table replicated on every node: its
// replicas share one ZooKeeper path, so the ALTER run on one node reaches all of them. Sent
// ON CLUSTER it would run once per shard on replicas of the same table, and two such ALTERs
// racing on ClickHouse 18.16 can block the cluster's DDL queue.
func alterOnOneReplica(stmt, database, cluster string) string {
	if cluster == "" || !strings.HasPrefix(stmt, "ALTER TABLE ") {
		return stmt
	}
	prefix := "ALTER TABLE " + quoteIdent(database) + "."
	name, rest, ok := strings.Cut(strings.TrimPrefix(stmt, prefix), " ")
	onCluster := "ON CLUSTER " + quoteIdent(cluster) + " "
	if !strings.HasPrefix(stmt, prefix) || !ok || !ReplicatedOnEveryNode[name] || !strings.HasPrefix(rest, onCluster) {
		return stmt
	}
	return prefix + name + " " + strings.TrimPrefix(rest, onCluster)
}

// ReplicatedOnEveryNode names the tables that a cluster keeps whole on every node: the
// registry (small, read on every request, shared by the sites of all shards), the weather
// shared by sites of all shards, the archive and advice jobs that any energyd replica may
// claim or read with the leases on them, the data versions every energyd watches, the audit
// trail of admin changes and the erasures any energyd may resume, and the record of applied
// migrations. The readings are sharded by site instead (and the accepted
// archives by job).
var ReplicatedOnEveryNode = map[string]bool{
	tables.Tenants: true, tables.APITokens: true, tables.Sites: true, tables.Tariffs: true, tables.WeatherStations: true,
	tables.WeatherObservations: true, tables.Jobs: true, tables.AdviceJobs: true, tables.DataVersions: true,
	tables.SchemaMigrations: true, tables.HeatingSchedules: true, tables.JobLeases: true,
	tables.DayColourCalendars: true, tables.DayColours: true,
	tables.AuditEvents: true, tables.SiteErasures: true,
}

// replicatedEngine turns engine (e.g. "ReplacingMergeTree(version)") into its Replicated form.
// A sharded table's replicas share the path of their shard; a table on every node has one
// path for the whole cluster. Replica names ({replica}) are unique in the cluster.
func replicatedEngine(engine, database, table string) string {
	name, args, _ := strings.Cut(engine, "(")
	args = strings.TrimSuffix(args, ")")
	shard := "{shard}"
	if ReplicatedOnEveryNode[table] {
		shard = "all"
	}
	zk := fmt.Sprintf("'/clickhouse/tables/%s/%s/%s', '{replica}'", shard, database, table)
	if args != "" {
		zk += ", " + args
	}
	return "Replicated" + name + "(" + zk + ")"
}

func stripComments(s string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// MigrationsTableSQL creates the table that records applied migrations.
func MigrationsTableSQL(database, cluster string) string {
	table, onCluster, engine := tables.SchemaMigrations, "", "ReplacingMergeTree()"
	if cluster != "" {
		// Every node holds the record, so an energyd on any node sees what another applied.
		table = quoteIdent(database) + "." + table
		onCluster = " ON CLUSTER " + quoteIdent(cluster)
		engine = replicatedEngine(engine, database, tables.SchemaMigrations)
	}
	return "CREATE TABLE IF NOT EXISTS " + table + onCluster +
		" (version UInt32, name String, applied_ts DateTime('UTC')) ENGINE = " + engine + " ORDER BY version"
}

// Migrate applies every migration not yet recorded in schema_migrations, in order, each once.
// Two processes starting together are serialised by a lock table: CREATE TABLE without
// IF NOT EXISTS succeeds for exactly one of them. Statements are idempotent as well, so a
// migration interrupted by a crash is simply applied again. On a cluster the lock is one
// node's: processes on two nodes may apply the same migration together, which the idempotent
// statements and the cluster's queue of ON CLUSTER DDL (run one at a time on each node) make safe.
func (db *DB) Migrate(ctx context.Context, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx = WithCallTimeout(ctx, db.Timeouts.orDefaults().Migrate)
	all, err := Migrations()
	if err != nil {
		return err
	}
	if err := db.Conn.Exec(ctx, MigrationsTableSQL(db.Name, db.Cluster)); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	unlock, err := db.lockMigrations(ctx)
	if err != nil {
		return err
	}
	defer unlock()

	applied := map[int]bool{}
	rows, err := db.Conn.Query(ctx, "SELECT DISTINCT version FROM "+tables.SchemaMigrations)
	if err != nil {
		return err
	}
	for rows.Next() {
		var v uint32
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		applied[int(v)] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	settings, err := db.ddlSettings(ctx)
	if err != nil {
		return err
	}
	sent := clickhouse.Settings{}
	for k, v := range settings {
		sent[k] = v
	}
	for _, m := range all {
		if applied[m.Version] {
			continue
		}
		stmts, err := Render(m, db.Name, db.Cluster)
		if err != nil {
			return err
		}
		for _, s := range stmts {
			sctx := clickhouse.Context(ctx, clickhouse.WithSettings(sent))
			if err := db.Conn.Exec(sctx, s); err != nil && !columnAlreadyAdded(s, err) {
				return fmt.Errorf("migration %s: %w\n%s", m.Name, err, s)
			}
		}
		b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.SchemaMigrations+" (version, name, applied_ts)")
		if err != nil {
			return err
		}
		if err := b.Append(uint32(m.Version), m.Name, time.Now().UTC()); err != nil {
			return err
		}
		if err := b.Send(); err != nil {
			return fmt.Errorf("record migration %s: %w", m.Name, err)
		}
		log.Info("migration applied", "version", m.Version, "name", m.Name)
	}
	return nil
}

// columnAlreadyAdded tells whether err is an ADD COLUMN meeting the column it adds: the
// migration was interrupted after that statement and is applied again (ClickHouse 18.16 has
// no ADD COLUMN IF NOT EXISTS), or on a cluster the ALTER of a replicated table reached a
// node through its replica before that node ran it (code 44, or 15 on current releases).
func columnAlreadyAdded(stmt string, err error) bool {
	const illegalColumn, duplicateColumn = 44, 15
	var ex *clickhouse.Exception
	return strings.HasPrefix(stmt, "ALTER TABLE") && strings.Contains(stmt, "ADD COLUMN") &&
		errors.As(err, &ex) && (ex.Code == illegalColumn || ex.Code == duplicateColumn) &&
		strings.Contains(ex.Message, "already exists")
}

// lockStale is how old a lock must be before another process may break it (its owner died).
const lockStale = 2 * time.Minute

func (db *DB) lockMigrations(ctx context.Context) (func(), error) {
	owner := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	for {
		err := db.Conn.Exec(ctx, "CREATE TABLE "+tables.SchemaMigrationsLock+" (owner String, acquired_ts DateTime('UTC')) ENGINE = TinyLog")
		if err == nil {
			b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.SchemaMigrationsLock+" (owner, acquired_ts)")
			if err == nil {
				if err = b.Append(owner, time.Now().UTC()); err == nil {
					err = b.Send()
				}
			}
			if err != nil {
				_ = db.Conn.Exec(context.Background(), "DROP TABLE IF EXISTS "+tables.SchemaMigrationsLock)
				return nil, fmt.Errorf("record migration lock: %w", err)
			}
			return func() { _ = db.Conn.Exec(context.Background(), "DROP TABLE IF EXISTS "+tables.SchemaMigrationsLock) }, nil
		}
		var ex *clickhouse.Exception
		if !errors.As(err, &ex) || ex.Code != 57 { // 57: TABLE_ALREADY_EXISTS
			return nil, fmt.Errorf("take migration lock: %w", err)
		}
		if db.lockIsStale(ctx) {
			_ = db.Conn.Exec(ctx, "DROP TABLE IF EXISTS "+tables.SchemaMigrationsLock)
			continue
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the migration lock: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (db *DB) lockIsStale(ctx context.Context) bool {
	var ts time.Time
	var n uint64
	row := db.Conn.QueryRow(ctx, "SELECT count(), max(acquired_ts) FROM "+tables.SchemaMigrationsLock)
	if err := row.Scan(&n, &ts); err != nil {
		return false // the table vanished or is being written: look again
	}
	if n == 0 {
		// Created but not yet written: stale only if the owner died in between, which we
		// cannot see; a short grace period covers the normal case.
		time.Sleep(500 * time.Millisecond)
		if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+tables.SchemaMigrationsLock).Scan(&n); err != nil {
			return false
		}
		return n == 0
	}
	return time.Since(ts) > lockStale
}
