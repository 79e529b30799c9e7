package chtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"energy/schema"
	"energy/schema/chdb"
	"energy/schema/tables"
)

// CompatEnv turns on the version-compatibility check: with ENERGY_COMPAT_CHECK=1, every
// database that DB hands out also gets built on ClickHouse 26.x in-process (libchdb), with the
// migrations as Migrate sends them; when the test ends its tables are copied there and every
// read the test issued is replayed on both engines over that identical data. Any difference
// in column names, types or values fails the test with both answers side by side.
const CompatEnv = "ENERGY_COMPAT_CHECK"

// compatOutput is the text format both engines answer in during the replay.
const compatOutput = "TabSeparatedWithNamesAndTypes"

func compatEnabled() bool { return os.Getenv(CompatEnv) == "1" }

var (
	compatOnce    sync.Once
	compatSession *chdb.Session
	compatDir     string
	compatErr     error
)

// compatEngine opens the process's one in-process ClickHouse 26.x session.
func compatEngine() (*chdb.Session, error) {
	compatOnce.Do(func() {
		compatDir, compatErr = os.MkdirTemp("", "chtest-chdb-")
		if compatErr != nil {
			return
		}
		compatSession, compatErr = chdb.Open(compatDir)
	})
	return compatSession, compatErr
}

func closeCompatEngine() {
	if compatSession != nil {
		fmt.Println(compatTally.String())
		compatSession.Close()
	}
	if compatDir != "" {
		os.RemoveAll(compatDir)
	}
}

// compatTally counts the reads compared in this test binary, reported when it ends.
var compatTally tally

type tally struct {
	mu               sync.Mutex
	compared, differ int
}

func (t *tally) add(compared, differ int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.compared += compared
	t.differ += differ
}

func (t *tally) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return fmt.Sprintf("ClickHouse 18.16 vs 26.x: %d distinct reads compared, %d answered differently", t.compared, t.differ)
}

// recorder keeps the distinct read statements a test sent, as SQL text with their arguments.
type recorder struct {
	mu      sync.Mutex
	seen    map[string]bool
	queries []string
	errs    []string
	// inserts, when set (SendInsertsTo26), receives the test's INSERTs.
	inserts *insertCopy
}

// replayable leaves out reads that describe the server rather than the data (system tables,
// the migration lock that exists only while migrating).
var notReplayable = regexp.MustCompile(`(?i)\bsystem\.|` + tables.SchemaMigrationsLock)

func (r *recorder) add(q string, args []any) {
	sql, err := bindPositional(q, args)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.errs = append(r.errs, fmt.Sprintf("%v in: %s", err, q))
		return
	}
	if notReplayable.MatchString(sql) || r.seen[sql] {
		return
	}
	r.seen[sql] = true
	r.queries = append(r.queries, sql)
}

// recordingConn records every read before passing it on unchanged.
type recordingConn struct {
	driver.Conn
	rec *recorder
}

func (c recordingConn) Query(ctx context.Context, q string, args ...any) (driver.Rows, error) {
	c.rec.add(q, args)
	return c.Conn.Query(ctx, q, args...)
}

func (c recordingConn) QueryRow(ctx context.Context, q string, args ...any) driver.Row {
	c.rec.add(q, args)
	return c.Conn.QueryRow(ctx, q, args...)
}

func (c recordingConn) Select(ctx context.Context, dest any, q string, args ...any) error {
	c.rec.add(q, args)
	return c.Conn.Select(ctx, dest, q, args...)
}

// watchCompat builds db's schema on the in-process engine and, when the test ends, compares
// both engines' answers to every read the test made. Call it before the test uses db.
func watchCompat(t testing.TB, db *schema.DB) {
	t.Helper()
	engine, err := compatEngine()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s=1 under CI=true needs libchdb: %v", CompatEnv, err)
		}
		t.Skipf("SKIPPED, %s=1 but no ClickHouse 26.x engine: %v", CompatEnv, err)
	}
	if err := MigrateInProcess(engine, db.Name); err != nil {
		t.Fatalf("ClickHouse 26.x: %v", err)
	}
	rec := &recorder{seen: map[string]bool{}}
	plain := db.Conn
	db.Conn = recordingConn{Conn: plain, rec: rec}
	t.Cleanup(func() {
		defer func() { _, _ = engine.Query("DROP DATABASE IF EXISTS "+db.Name, "TabSeparated") }()
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, e := range rec.errs {
			t.Errorf("a read could not be replayed: %s", e)
		}
		tables, err := tableNames(plain, db.Name)
		if err != nil {
			t.Errorf("list the test's tables: %v", err)
			return
		}
		rows, answers, err := oldAnswers(db.Name, tables, rec.queries)
		if err == nil {
			err = copyRows(engine, db.Name, tables, rows)
		}
		if err != nil {
			t.Errorf("copy the test's data to ClickHouse 26.x: %v", err)
			return
		}
		differ := 0
		for i, q := range rec.queries {
			if d := compareAnswers(engine, db.Name, q, answers[i]); d != "" {
				differ++
				t.Errorf("ClickHouse 18.16 and 26.x answer differently:\n%s", d)
			}
		}
		compatTally.add(len(rec.queries), differ)
	})
}

// MigrateInProcess creates database on the in-process engine and applies the migrations not
// yet recorded there the way Migrate does: the same rendered statements, with the legacy DDL
// settings sent only when the engine's system.settings lists them.
func MigrateInProcess(engine *chdb.Session, database string) error {
	if _, err := engine.Query("CREATE DATABASE IF NOT EXISTS "+database, "TabSeparated"); err != nil {
		return fmt.Errorf("create database %s: %w", database, err)
	}
	if _, err := engine.Query("USE "+database, "TabSeparated"); err != nil {
		return err
	}
	known, err := engine.Query(schema.DDLSettingsQuery, "TabSeparated")
	if err != nil {
		return fmt.Errorf("read system.settings: %w", err)
	}
	settings := schema.DDLSettings(strings.Fields(string(known)))
	send := func(stmt string) error {
		for k, v := range settings {
			if _, err := engine.Query("SET "+k+" = "+strconv.Itoa(v), "TabSeparated"); err != nil {
				return fmt.Errorf("setting %s: %w", k, err)
			}
		}
		if _, err := engine.Query(stmt, "TabSeparated"); err != nil {
			return fmt.Errorf("migration statement refused: %w\n%s", err, stmt)
		}
		return nil
	}
	if err := send(schema.MigrationsTableSQL(database, "")); err != nil {
		return err
	}
	done, err := engine.Query("SELECT DISTINCT version FROM "+tables.SchemaMigrations, "TabSeparated")
	if err != nil {
		return err
	}
	applied := map[string]bool{}
	for _, v := range strings.Fields(string(done)) {
		applied[v] = true
	}
	all, err := schema.Migrations()
	if err != nil {
		return err
	}
	for _, m := range all {
		if applied[strconv.Itoa(m.Version)] {
			continue
		}
		stmts, err := schema.Render(m, database, "")
		if err != nil {
			return err
		}
		for _, s := range stmts {
			if err := send(s); err != nil {
				return err
			}
		}
		record := fmt.Sprintf("INSERT INTO "+tables.SchemaMigrations+" (version, name, applied_ts) VALUES (%d, %s, now())", m.Version, quoteString(m.Name))
		if _, err := engine.Query(record, "TabSeparated"); err != nil {
			return err
		}
	}
	return nil
}

// tableNames lists the tables of database whose rows the replay needs.
func tableNames(conn driver.Conn, database string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := conn.Query(ctx, `SELECT name FROM system.tables WHERE database = ?
		AND engine NOT IN ('View', 'MaterializedView', 'Distributed') AND name != ? ORDER BY name`, database, tables.SchemaMigrationsLock)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		tables = append(tables, n)
	}
	return tables, rows.Err()
}

// oldAnswers reads, in one run of the 18.16 command-line client, every table's rows (as
// TabSeparated, which both versions write and read losslessly) and the answer to every
// query (nil where 18.16 refused it). Each result is preceded by a marker line.
func oldAnswers(database string, tables, queries []string) (rows, answers [][]byte, err error) {
	marker := "chtest-section-" + randomHex(8)
	var script strings.Builder
	section := func(sql, format string) {
		fmt.Fprintf(&script, "SELECT '%s' FORMAT TabSeparated;\n%s FORMAT %s;\n", marker, sql, format)
	}
	for _, t := range tables {
		section("SELECT * FROM "+t, "TabSeparated")
	}
	for _, q := range queries {
		section(q, compatOutput)
	}
	out, _ := client(database, script.String(), "--multiquery", "--ignore-error")
	parts := bytes.Split(out, []byte(marker+"\n"))
	if len(parts) != len(tables)+len(queries)+1 {
		return nil, nil, fmt.Errorf("18.16 client gave %d results for %d statements", len(parts)-1, len(tables)+len(queries))
	}
	parts = parts[1:]
	for i := range parts {
		if i >= len(tables) && len(parts[i]) == 0 { // a successful query prints at least its header lines
			parts[i] = nil
		}
	}
	return parts[:len(tables)], parts[len(tables):], nil
}

// copyRows loads each table's rows, as 18.16 wrote them, into the in-process engine.
func copyRows(engine *chdb.Session, database string, tables []string, rows [][]byte) error {
	dir, err := os.MkdirTemp("", "chtest-copy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// 18.16 keeps every inserted row until a merge; a current release would collapse a
	// ReplacingMergeTree block's duplicates on insert and merge in the background, so neither
	// happens here: both engines then hold the same rows, merged or not.
	if _, err := engine.Query("SET optimize_on_insert = 0", "TabSeparated"); err != nil {
		return err
	}
	// Every table's rows are copied, the materialized views' targets included: views copying
	// them a second time on these inserts would double their rows.
	views, err := engine.Query(fmt.Sprintf("SELECT name FROM system.tables WHERE database = '%s' AND engine = 'MaterializedView'", database), "TabSeparated")
	if err != nil {
		return err
	}
	for _, v := range strings.Fields(string(views)) {
		if _, err := engine.Query(fmt.Sprintf("DROP TABLE %s.%s", database, v), "TabSeparated"); err != nil {
			return fmt.Errorf("drop view %s: %w", v, err)
		}
	}
	for i, table := range tables {
		if _, err := engine.Query(fmt.Sprintf("SYSTEM STOP MERGES %s.%s", database, table), "TabSeparated"); err != nil {
			return fmt.Errorf("stop merges on %s: %w", table, err)
		}
		if len(rows[i]) == 0 {
			continue
		}
		file := filepath.Join(dir, table+".tsv")
		if err := os.WriteFile(file, zeroTimeFields(rows[i]), 0o600); err != nil {
			return err
		}
		if err := loadByPartitions(engine, database, table, file); err != nil {
			return fmt.Errorf("load %s into 26.x: %w", table, err)
		}
	}
	return nil
}

// loadByPartitions inserts a table's rows from a TabSeparated file into the in-process engine,
// one INSERT per group of schema.MaxPartitionsPerInsert partitions as the product sends them:
// 26.x refuses an INSERT that touches more partitions than its limit (ClickHouse 24 and later).
// The rows go through a Memory table of the same columns, which tells which partitions they
// fill. The partition key is the table's own, read from system.tables.
func loadByPartitions(engine *chdb.Session, database, table, file string) error {
	target := database + "." + table
	key, err := engine.Query(fmt.Sprintf("SELECT partition_key FROM system.tables WHERE database = %s AND name = %s",
		quoteString(database), quoteString(table)), "TSVRaw")
	if err != nil {
		return err
	}
	load := fmt.Sprintf("SELECT * FROM file(%s, 'TabSeparated')", quoteString(file))
	partitionKey := strings.TrimSpace(string(key))
	if partitionKey == "" {
		_, err := engine.Query("INSERT INTO "+target+" "+load, "TabSeparated")
		return err
	}
	staging := database + ".`" + table + "__copy`"
	if _, err := engine.Query("CREATE TABLE "+staging+" AS "+target+" ENGINE = Memory", "TabSeparated"); err != nil {
		return err
	}
	defer func() { _, _ = engine.Query("DROP TABLE IF EXISTS "+staging, "TabSeparated") }()
	if _, err := engine.Query("INSERT INTO "+staging+" "+load, "TabSeparated"); err != nil {
		return err
	}
	out, err := engine.Query("SELECT DISTINCT toString("+partitionKey+") AS p FROM "+staging+" ORDER BY p", "TSVRaw")
	if err != nil {
		return err
	}
	parts := strings.Fields(string(out))
	for lo := 0; lo < len(parts); lo += schema.MaxPartitionsPerInsert {
		group := parts[lo:min(lo+schema.MaxPartitionsPerInsert, len(parts))]
		quoted := make([]string, len(group))
		for i, p := range group {
			quoted[i] = quoteString(p)
		}
		if _, err := engine.Query("INSERT INTO "+target+" SELECT * FROM "+staging+" WHERE toString("+partitionKey+") IN ("+
			strings.Join(quoted, ", ")+")", "TabSeparated"); err != nil {
			return err
		}
	}
	return nil
}

// zeroTimeFields rewrites the zero DateTime and Date as 18.16 writes them in text
// (0000-00-00 …) into the form current releases read back as the same value (1970-01-01 …);
// they would otherwise parse them as another date.
func zeroTimeFields(tsv []byte) []byte {
	lines := bytes.Split(tsv, []byte("\n"))
	for i, line := range lines {
		fields := bytes.Split(line, []byte("\t"))
		for j, f := range fields {
			switch string(f) {
			case "0000-00-00 00:00:00":
				fields[j] = []byte("1970-01-01 00:00:00")
			case "0000-00-00":
				fields[j] = []byte("1970-01-01")
			}
		}
		lines[i] = bytes.Join(fields, []byte("\t"))
	}
	return bytes.Join(lines, []byte("\n"))
}

// client runs statements on the shared 18.16 server with its own command-line client.
func client(database, sql string, flags ...string) ([]byte, error) {
	opts, err := clickhouse.ParseDSN(baseDSN)
	if err != nil {
		return nil, err
	}
	host, port, _ := strings.Cut(opts.Addr[0], ":")
	// The statements go through standard input: a test's many reads exceed what one argument
	// may hold (128 KiB on Linux).
	args := append([]string{"--host", host, "--port", port, "--database", database}, flags...)
	if opts.Auth.Username != "" {
		args = append(args, "--user", opts.Auth.Username)
	}
	if opts.Auth.Password != "" {
		args = append(args, "--password", opts.Auth.Password)
	}
	cmd := exec.Command("clickhouse-client", args...)
	cmd.Stdin = strings.NewReader(sql)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// compareAnswers returns "" when 18.16's answer (nil: refused) and 26.x's to sql match, else a
// readable report. Presentation that differs by design is set aside: rows of a query without
// ORDER BY come in any order, and a zero DateTime prints differently as text (same value).
func compareAnswers(engine *chdb.Session, database, sql string, old []byte) string {
	shown := strings.TrimSpace(sql)
	cur, curErr := engine.Query(sql, compatOutput)
	switch {
	case old == nil && curErr != nil:
		return "" // refused by both: nothing to compare
	case old == nil:
		_, oldErr := client(database, sql, "--format", compatOutput)
		return fmt.Sprintf("query:\n  %s\n18.16 error: %v\n26.x answer:\n%s", shown, oldErr, indent(cur))
	case curErr != nil:
		return fmt.Sprintf("query:\n  %s\n26.x error: %v\n18.16 answer:\n%s", shown, curErr, indent(old))
	}
	ordered := orderBy.MatchString(sql)
	a, b := normalise(old, ordered), normalise(cur, ordered)
	if a == b {
		return ""
	}
	return fmt.Sprintf("query:\n  %s\n%s", shown, lineDiff(a, b))
}

var orderBy = regexp.MustCompile(`(?i)\bORDER\s+BY\b`)

var zeroTime = strings.NewReplacer("0000-00-00 00:00:00", "1970-01-01 00:00:00", "0000-00-00", "1970-01-01")

func normalise(out []byte, ordered bool) string {
	lines := strings.Split(strings.TrimSuffix(zeroTime.Replace(string(out)), "\n"), "\n")
	if !ordered && len(lines) > 2 {
		sort.Strings(lines[2:])
	}
	return strings.Join(lines, "\n")
}

func lineDiff(old, cur string) string {
	a, b := strings.Split(old, "\n"), strings.Split(cur, "\n")
	var out strings.Builder
	shown := 0
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x == y {
			continue
		}
		fmt.Fprintf(&out, "line %d (%s):\n  18.16: %q\n  26.x:  %q\n", i+1, lineKind(i), x, y)
		if shown++; shown == 10 {
			fmt.Fprintf(&out, "… (%d lines on 18.16, %d on 26.x)\n", len(a), len(b))
			break
		}
	}
	return out.String()
}

func lineKind(i int) string {
	switch i {
	case 0:
		return "column names"
	case 1:
		return "column types"
	}
	return "row " + strconv.Itoa(i-1)
}

func indent(b []byte) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(string(b), "\n"), "\n", "\n  ")
}
