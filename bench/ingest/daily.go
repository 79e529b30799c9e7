package main

import (
	"context"
	"fmt"

	"energy/schema"
	"energy/schema/tables"
)

// What maintaining the daily energy table costs ingest (migration 0027: every job writes the
// days its index readings change before it is DONE). The variant's energyd runs with
// --bench-skip-daily-energy, a benchmark-only flag under which jobs skip that write.

// withoutDaily is the energyd whose jobs do not write the daily energy table.
func withoutDaily() *variant {
	return &variant{name: "without the daily energy table", database: "energy_without_daily",
		flags: []string{"--bench-skip-daily-energy"},
		// The flag did what it says: the table stays empty (the warm-up archive wrote none either).
		check: func(ctx context.Context, db *schema.DB, _ finishedJob, _ *benchArchive) error {
			var n uint64
			if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+tables.DailyEnergy).Scan(&n); err != nil {
				return err
			}
			if n != 0 {
				return fmt.Errorf("%s holds %d rows", tables.DailyEnergy, n)
			}
			return nil
		},
	}
}

// dailyCostMarkdown compares the medians with and without the daily energy table.
func dailyCostMarkdown(with, without []result) string {
	return costMarkdown("What maintaining the daily energy table costs ingest",
		"The same archives through another energyd on a database of its own, started with the benchmark-only `--bench-skip-daily-energy` (its jobs do not write the daily energy table), "+
			"the runs alternating between the energyds (the first of each run changing every run). Medians; the target: the table costs an archive's POST → DONE at most 15 %.",
		"the table", 1.15, with, without)
}

// checkDailyWritten tells that the energyd paying every cost wrote the daily energy table for
// an index archive (its jobs are DONE only once their days are written).
func checkDailyWritten(ctx context.Context, db *schema.DB, a benchArchive) error {
	if a.Table != tables.ElecIndexes && a.Table != tables.GasIndexes {
		return nil
	}
	var n uint64
	if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+tables.DailyEnergy+" FINAL WHERE tenant_id = ?", tenant).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%s: %s is empty once its job is DONE", a.Name, tables.DailyEnergy)
	}
	return nil
}
