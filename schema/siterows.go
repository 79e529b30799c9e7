package schema

import (
	"context"
	"fmt"
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

// DeleteSiteRows removes the site's rows from t with a mutation (ALTER TABLE … DELETE, which
// ClickHouse 18.16 has and later releases keep; ON CLUSTER for a sharded table) and waits
// until the mutations of t on this server are done. A caller checks with CountSiteRows that
// every shard's rows are gone.
func (db *DB) DeleteSiteRows(ctx context.Context, t SiteTable, tenantID, siteID string) error {
	onCluster := ""
	if t.Sharded {
		onCluster = " ON CLUSTER " + quoteIdent(db.Cluster)
	}
	wctx := WithCallTimeout(ctx, db.Timeouts.orDefaults().Migrate)
	// The table name comes from system.columns and is quoted; the values are bound.
	if err := db.Conn.Exec(wctx, "ALTER TABLE "+quoteIdent(db.Name)+"."+quoteIdent(t.Name)+onCluster+" DELETE WHERE tenant_id = ? AND site_id = ?", tenantID, siteID); err != nil {
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
