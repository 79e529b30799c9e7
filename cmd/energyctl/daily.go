package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"energy/query/consumption"
	"energy/query/daily"
	"energy/schema/registry"
)

// dailyRebuild writes the daily energy table for the index readings already stored (data
// loaded before the table existed, or after a change of the rules), site by site, printing its
// progress. Safe while energyd runs and safe to repeat: each day's row is replaced by a newer
// version of the same answer.
func dailyRebuild(ctx context.Context, args []string, out io.Writer) error {
	fs, store := newStoreFlagSet("daily rebuild")
	tenant := fs.String("tenant", "", "only this tenant's sites (default: every tenant)")
	sites := fs.String("sites", "", "only these sites of --tenant, comma-separated")
	setUsage(fs, "energyctl daily rebuild [flags]: compute, with the consumption engine, every local day of every site's\n"+
		"stored index readings (electricity and gas) and write them to daily_energy.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var siteIDs []string
	if *sites != "" {
		if *tenant == "" {
			return fmt.Errorf("--sites needs --tenant")
		}
		siteIDs = strings.Split(*sites, ",")
	}
	db, err := store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	reg := registry.New(db)
	// Energies do not depend on the carbon coefficient: the default one is as good as any.
	table := daily.New(db, reg, consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient))
	spans, err := table.Spans(ctx, *tenant, siteIDs)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d site fluids to write\n", len(spans))
	start, last := time.Now(), time.Now()
	rows, err := table.Rebuild(ctx, spans, func(done, rows int) {
		if time.Since(last) >= 2*time.Second || done == len(spans) {
			last = time.Now()
			fmt.Fprintf(out, "%d/%d site fluids, %d days written (%s)\n", done, len(spans), rows, time.Since(start).Round(time.Second))
		}
	})
	if err != nil {
		return fmt.Errorf("after %d days written: %w", rows, err)
	}
	return nil
}
