package schema

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"energy/schema/tables"
)

// SiteTable is a table holding rows of sites: it has both a tenant_id and a site_id column.
type SiteTable struct {
	// Name is the table that holds the rows: on a cluster, a sharded table's local table
	// (t_local), whose rows a mutation must reach on every shard.
	Name string
	// Read is the table that sees every row: Name, or on a cluster the Distributed table over
	// a sharded local table.
	Read string
	// Sharded tells whether the table is split by shard (cluster only): its mutations run ON
	// CLUSTER. A table replicated on every node is changed on one replica, which the others copy.
	Sharded bool
}

// SiteTables lists the tables of the database that hold rows of sites, found from the
// database's own description (system.columns), not from a list: a table added by any
// migration is erased with the others as soon as it has the two columns. Views and Distributed
// tables hold no rows of their own and are left out (their tables are listed).
func (db *DB) SiteTables(ctx context.Context) ([]SiteTable, error) {
	rows, err := db.Conn.Query(ctx, `SELECT c.table, t.engine FROM (
			SELECT table FROM system.columns WHERE database = ? AND name IN (?, ?)
			GROUP BY table HAVING count() = 2) AS c
		ANY INNER JOIN (SELECT name AS table, engine FROM system.tables WHERE database = ?) AS t USING table
		ORDER BY c.table`, db.Name, tables.TenantID, tables.SiteID, db.Name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SiteTable
	for rows.Next() {
		var name, engine string
		if err := rows.Scan(&name, &engine); err != nil {
			return nil, err
		}
		if !strings.HasSuffix(engine, "MergeTree") {
			continue
		}
		t := SiteTable{Name: name, Read: name}
		if base, ok := strings.CutSuffix(name, "_local"); ok && db.Cluster != "" {
			t.Read, t.Sharded = base, true
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// CountSiteRows counts the site's rows in t (every version of every row: what an erasure
// must remove).
func (db *DB) CountSiteRows(ctx context.Context, t SiteTable, tenantID, siteID string) (uint64, error) {
	var n uint64
	err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+quoteIdent(t.Read)+" WHERE tenant_id = ? AND site_id = ?", tenantID, siteID).Scan(&n)
	return n, err
}

// DeleteSiteRows removes the site's rows from t and waits until the mutations of t on this
// server are done. On a server that has lightweight deletes (LightweightDeletes, told by its
// version()) it sends DELETE FROM, which hides the rows at once and drops them at the next
// merges; on older ones (18.16) a mutation, ALTER TABLE … DELETE, which rewrites the parts
// holding them. ON CLUSTER for a sharded table either way. A caller checks with CountSiteRows
// that every shard's rows are gone.
func (db *DB) DeleteSiteRows(ctx context.Context, t SiteTable, tenantID, siteID string) error {
	var version string
	if err := db.Conn.QueryRow(ctx, "SELECT version() FROM system.one").Scan(&version); err != nil {
		return err
	}
	wctx := WithCallTimeout(ctx, db.Timeouts.orDefaults().Migrate)
	// The table name comes from system.columns and is quoted; the values are bound.
	if err := db.Conn.Exec(wctx, SiteRowsDeletion(db.Name, db.Cluster, t, LightweightDeletes(version)), tenantID, siteID); err != nil {
		return fmt.Errorf("delete the rows of site %s from %s: %w", siteID, t.Name, err)
	}
	for {
		var pending uint64
		if err := db.Conn.QueryRow(ctx, "SELECT count() FROM system.mutations WHERE database = ? AND table = ? AND is_done = 0", db.Name, t.Name).Scan(&pending); err != nil {
			return err
		}
		if pending == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// SiteRowsDeletion is the statement that removes a tenant's site's rows (two bound values:
// tenant, site) from t in database: a lightweight DELETE FROM, or a mutation.
func SiteRowsDeletion(database, cluster string, t SiteTable, lightweight bool) string {
	onCluster := ""
	if t.Sharded {
		onCluster = " ON CLUSTER " + quoteIdent(cluster)
	}
	table := quoteIdent(database) + "." + quoteIdent(t.Name)
	if lightweight {
		return "DELETE FROM " + table + onCluster + " WHERE tenant_id = ? AND site_id = ?"
	}
	return "ALTER TABLE " + table + onCluster + " DELETE WHERE tenant_id = ? AND site_id = ?"
}

// LightweightDeletes tells whether a server of that version() has DELETE FROM without an
// experimental setting: ClickHouse 23.3 and later.
func LightweightDeletes(version string) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return major > 23 || (major == 23 && minor >= 3)
}
