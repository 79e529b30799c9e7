package schema

import (
	"context"
	"fmt"

	"energy/schema/tables"
)

// readingsBySite pairs each raw index table with its copy laid out for per-site reads, and the
// columns they share.
var readingsBySite = []struct {
	raw, bySite string
	columns     string
}{
	{tables.ElecIndexes, tables.ElecIndexesBySite, tables.List(tables.TenantID, tables.SiteID, tables.PodID, tables.TS, tables.IndexBeforeChange,
		tables.Nature, tables.GenerationTS, tables.Dial, tables.Value, tables.JobID)},
	{tables.GasIndexes, tables.GasIndexesBySite, tables.List(tables.TenantID, tables.SiteID, tables.PodID, tables.TS, tables.IndexBeforeChange,
		tables.Nature, tables.GenerationTS, tables.Value, tables.Unit, tables.ConversionUnits, tables.ConversionFactors, tables.JobID)},
}

// RebuildReadingsBySite copies every row of the raw index tables (elec_indexes, gas_indexes) into
// their by-site copies (elec_indexes_by_site, gas_indexes_by_site), which the per-site reads use.
// Materialized views keep the copies equal on every insert; this restores them after a loss (a
// table dropped and recreated, rows written around the views). Rows already there are identical
// to the copied ones: readers count them once and merges collapse them, so it is safe while the
// service runs and safe to repeat. On a cluster it reads and writes through the Distributed
// tables (each row lands on its site's shard). It returns the rows copied per by-site table.
func (db *DB) RebuildReadingsBySite(ctx context.Context) (map[string]uint64, error) {
	ctx = WithCallTimeout(ctx, db.Timeouts.orDefaults().Migrate)
	out := map[string]uint64{}
	for _, t := range readingsBySite {
		// Table names are constants; nothing comes from input.
		if err := db.Conn.Exec(ctx, "INSERT INTO "+t.bySite+" ("+t.columns+") SELECT "+t.columns+" FROM "+t.raw); err != nil {
			return out, fmt.Errorf("rebuild %s from %s: %w", t.bySite, t.raw, err)
		}
		var n uint64
		if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+t.raw).Scan(&n); err != nil {
			return out, fmt.Errorf("count %s: %w", t.raw, err)
		}
		out[t.bySite] = n
	}
	return out, nil
}
