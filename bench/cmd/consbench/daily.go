package main

import (
	"context"
	"time"

	"energy/bench"
	"energy/query/consumption"
	"energy/query/daily"
	"energy/schema"
	"energy/schema/registry"
	"energy/schema/tables"
)

// ensureDailyTable writes the daily energy table of the data set when it has none of its rows,
// as `energyctl daily rebuild` does after an upgrade: energyd answers whole-day DAYS, MONTHS and
// YEARS requests from it (energy_consumption_answers_total{path="daily_table"}), and the
// benchmark measures what energyd serves.
func ensureDailyTable(ctx context.Context, db *schema.DB, reg *registry.Store) error {
	var n uint64
	if err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+tables.DailyEnergy+" WHERE tenant_id = ?", bench.Tenant).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	table := daily.New(db, reg, consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient))
	spans, err := table.Spans(ctx, bench.Tenant, nil)
	if err != nil {
		return err
	}
	logf("writing the daily energy table of %d sites...", len(spans))
	start := time.Now()
	every := max(1, len(spans)/10)
	rows, err := table.Rebuild(ctx, spans, func(done, rows int) {
		if done%every == 0 || done == len(spans) {
			logf("  %d sites, %d days (%.0f s)", done, rows, time.Since(start).Seconds())
		}
	})
	if err != nil {
		return err
	}
	logf("daily energy table written: %d days in %.1f s", rows, time.Since(start).Seconds())
	return nil
}

// logAnswerPaths logs how many consumption answers this process computed from the daily table
// and from the readings (energy_consumption_answers_total), which shows the table was used.
func logAnswerPaths() {
	for _, path := range []string{consumption.PathDailyTable, consumption.PathReadings} {
		logf("consumption answers computed from the %s: %.0f", path, consumption.AnswersComputedFrom(path))
	}
}
