package main

import (
	"context"
	"fmt"
	"log"
	"path/filepath"
	"strings"
	"time"

	"energy/schema"
	"energy/schema/registry"
	"energy/schema/tables"
)

// What the by-site copy of the index readings costs ingest (migration 0024: materialized views
// write every index INSERT's rows into elec_indexes_by_site and gas_indexes_by_site too). A second
// energyd ingests the same archives into a database of its own whose views are dropped, so that
// it writes the raw tables only, as before the copy; the runs alternate between the two.

// copyViews are the materialized views that write the by-site copies.
var copyViews = []string{tables.ElecIndexesBySite + "_writer", tables.GasIndexesBySite + "_writer"}

// withoutCopy is the energyd that ingests without the by-site copy, and its measurements.
type withoutCopy struct {
	api, token string
	db         *schema.DB
	stop       func()
	results    []result // per archive, as run's
}

func startWithoutCopy(ctx context.Context, o options, tmp, dsn string, archives int) (w *withoutCopy, err error) {
	w = &withoutCopy{results: make([]result, archives), stop: func() {}}
	started := w // w is nil once a failure is returned
	defer func() {
		if err != nil {
			started.stop()
		}
	}()
	noCopyDSN, err := schema.WithDatabase(dsn, "energy_without_copy")
	if err != nil {
		return nil, err
	}
	if w.db, err = schema.OpenWithTimeouts(ctx, noCopyDSN, "", loadTimeouts); err != nil {
		return nil, err
	}
	w.stop = func() { w.db.Close() }
	if err := w.db.Migrate(ctx, nil); err != nil {
		return nil, err
	}
	for _, v := range copyViews {
		if err := w.db.Conn.Exec(ctx, "DROP TABLE IF EXISTS "+v); err != nil {
			return nil, fmt.Errorf("drop %s: %w", v, err)
		}
	}
	log.Printf("starting a second energyd, without the by-site copy")
	api, stopEnergyd, err := startEnergyd(ctx, o, filepath.Join(tmp, "energyd-without-copy"), noCopyDSN)
	if err != nil {
		return nil, err
	}
	w.api, w.stop = api, func() { stopEnergyd(); w.db.Close() }
	reg := registry.New(w.db)
	if w.token, _, err = reg.CreateToken(ctx, tenant, []string{"collect", "read"}, 24*time.Hour, "bench-ingest"); err != nil {
		return nil, err
	}
	if err := putSites(ctx, reg); err != nil {
		return nil, err
	}
	if _, err := submitAndWait(ctx, w.api, w.token, warmupArchive()); err != nil {
		return nil, fmt.Errorf("warm-up archive without the copy: %w", err)
	}
	return w, nil
}

// measure ingests archive i once and checks that the raw table got its rows and the by-site one
// none (the views are gone).
func (w *withoutCopy) measure(ctx context.Context, i int, a *benchArchive) error {
	waitForMerges(ctx, w.db)
	before := insertSeconds(w.api)
	j, err := submitAndWait(ctx, w.api, w.token, *a)
	if err != nil {
		return fmt.Errorf("without the by-site copy: %w", err)
	}
	w.results[i].inserts = append(w.results[i].inserts, time.Duration((insertSeconds(w.api)-before)*float64(time.Second)))
	if err := checkStored(ctx, w.db, j, *a); err != nil {
		return err
	}
	if a.Table == tables.ElecIndexes || a.Table == tables.GasIndexes {
		var n uint64
		if err := w.db.Conn.QueryRow(ctx, "SELECT count() FROM "+a.Table+"_by_site WHERE job_id = ?", j.id).Scan(&n); err != nil {
			return err
		}
		if n != 0 {
			return fmt.Errorf("without the by-site copy: job %s wrote %d rows into %s_by_site", j.id, n, a.Table)
		}
	}
	w.results[i].archive = a
	w.results[i].times = append(w.results[i].times, j.elapsed)
	return nil
}

// copyCostMarkdown compares the medians with and without the copy.
func copyCostMarkdown(with, without []result) string {
	var b strings.Builder
	b.WriteString("\n## What the by-site copy of the indexes costs ingest\n\n" +
		"The same archives through a second energyd on a database of its own whose by-site views are dropped (it writes the raw tables only, as before migration 0024), " +
		"the runs alternating between the two (the first of each run changing every run). Medians; the target: the copy costs ingest at most 10 %.\n\n")
	b.WriteString("| archive | POST → DONE with the copy | without | with / without | batch inserts with the copy | without | with / without | ≤ 1.10 |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|:-:|\n")
	for i := range with {
		tw, to := median(with[i].times), median(without[i].times)
		iw, io := median(with[i].inserts), median(without[i].inserts)
		r := tw.Seconds() / max(to.Seconds(), 1e-9)
		fmt.Fprintf(&b, "| %s | %.2f s | %.2f s | %.2f | %.2f s | %.2f s | %.2f | %s |\n", with[i].archive.Name,
			tw.Seconds(), to.Seconds(), r, iw.Seconds(), io.Seconds(), iw.Seconds()/max(io.Seconds(), 1e-9), mark(r <= 1.10))
	}
	b.WriteString("\nAll runs without the copy (s): ")
	for i, r := range without {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: energyd %s (batch inserts %s)", r.archive.Name, seconds(r.times), seconds(r.inserts))
	}
	b.WriteString(".\n")
	return b.String()
}
