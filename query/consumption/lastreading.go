package consumption

import (
	"context"
	"fmt"
	"time"

	"energy/schema"
	"energy/schema/registry"
	"energy/schema/tables"
)

// lastReadingSQL is the instant of the latest (pod, ts, indexBeforeChange) at which the site's
// index records of the natures in ? resolve to a reading, and how many such instants there are:
// the rule of resolveRecords reduced to what the existence of a reading needs. Within a nature
// family the record of highest rank (generationTs × 2, + 1 for an _INVALID record, so that an
// invalidation wins a tie) decides; a reading exists there when some family's decider is valid.
// Which family wins (priority) and dials do not matter to whether one exists.
//
// One aggregation over the site's records (a narrow range of the by-site table) that returns one
// row, where resolving in Go would fetch the site's whole history.
func lastReadingSQL(table string) string {
	invalid := "endsWith(" + tables.Nature + ", ?)"
	return "SELECT max(" + tables.TS + "), count() FROM (" +
		"SELECT " + tables.TS + ", max(toUInt64(" + tables.GenerationTS + ") * 2 + " + invalid + ") AS decider" +
		" FROM " + table +
		" WHERE " + tables.TenantID + " = ? AND " + tables.SiteID + " = ? AND has(?, " + tables.Nature + ")" +
		" GROUP BY " + tables.List(tables.PodID, tables.TS, tables.IndexBeforeChange, "replaceOne("+tables.Nature+", ?, '')") +
		") WHERE decider % 2 = 0"
}

// LastReading is the instant of the site's last resolved reading of fluid (FluidElec or
// FluidGas) under the index rules of the consumption endpoint (every nature, latest
// generationTs, _INVALID records), whatever its date; ok is false when the site has none.
// Analyses anchored on the site's data (the heating model's fit period) start from it.
func LastReading(ctx context.Context, db *schema.DB, site registry.Site, fluid string) (last time.Time, ok bool, err error) {
	fl, err := fluidOf(fluid)
	if err != nil {
		return time.Time{}, false, err
	}
	reader := db.ReadSite(site.TenantID, site.SiteID)
	var n uint64
	row := reader.Conn.QueryRow(ctx, lastReadingSQL(reader.Table(fl.table)),
		invalidSuffix, site.TenantID, site.SiteID, allowedNatures(nil), invalidSuffix)
	if err := row.Scan(&last, &n); err != nil {
		return time.Time{}, false, fmt.Errorf("last %s reading of site %s: %w", fl.name, site.SiteID, err)
	}
	if n == 0 {
		return time.Time{}, false, nil
	}
	return last.UTC(), true, nil
}
