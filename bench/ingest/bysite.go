package main

import (
	"context"
	"fmt"

	"energy/schema"
	"energy/schema/tables"
)

// What the by-site copy of the index readings costs ingest (migration 0024: materialized views
// write every index INSERT's rows into elec_indexes_by_site and gas_indexes_by_site too). The
// variant's database has the views dropped, so that its energyd writes the raw tables only, as
// before the copy. Neither that energyd nor the one it is compared with writes the daily energy
// table (--bench-skip-daily-energy): the table's days are computed from the by-site copy, so
// without it they would cost nothing, and the comparison would weigh the table too.

// copyViews are the materialized views that write the by-site copies.
var copyViews = []string{tables.ElecIndexesBySite + "_writer", tables.GasIndexesBySite + "_writer"}

// withoutCopy is the energyd that ingests without the by-site copy.
func withoutCopy() *variant {
	return &variant{name: "without the by-site copy", database: "energy_without_copy",
		flags: []string{"--bench-skip-daily-energy"},
		prepare: func(ctx context.Context, db *schema.DB) error {
			for _, v := range copyViews {
				if err := db.Conn.Exec(ctx, "DROP TABLE IF EXISTS "+v); err != nil {
					return fmt.Errorf("drop %s: %w", v, err)
				}
			}
			return nil
		},
		// The raw table got the job's rows (checkStored) and the by-site one none.
		check: func(ctx context.Context, db *schema.DB, j finishedJob, a *benchArchive) error {
			if a.Table != tables.ElecIndexes && a.Table != tables.GasIndexes {
				return nil
			}
			var n uint64
			if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+a.Table+"_by_site WHERE job_id = ?", j.id).Scan(&n); err != nil {
				return err
			}
			if n != 0 {
				return fmt.Errorf("job %s wrote %d rows into %s_by_site", j.id, n, a.Table)
			}
			return nil
		},
	}
}

// copyCostMarkdown compares the medians with and without the copy, both without the daily
// energy table.
func copyCostMarkdown(with, without []result) string {
	return costMarkdown("What the by-site copy of the indexes costs ingest",
		"The same archives through an energyd on a database of its own whose by-site views are dropped (it writes the raw tables only, as before migration 0024), "+
			"against the energyd of the previous section, whose jobs do not write the daily energy table either (the table's days are computed from the copy: without it they would cost nothing), "+
			"the runs alternating between the energyds (the first of each run changing every run). Medians; the target: the copy costs ingest at most 10 %.",
		"the copy", 1.10, with, without)
}
