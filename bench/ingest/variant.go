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
)

// variant is a second energyd that ingests the same archives into a database of its own with
// one cost of ingest taken away (bysite.go, daily.go), and its measurements; the runs
// alternate between it and the energyd that pays every cost.
type variant struct {
	name     string // "without …", as the logs and errors say
	database string
	// prepare changes the migrated database (nil: nothing); flags go to its energyd.
	prepare func(context.Context, *schema.DB) error
	flags   []string
	// check tells a job ingested as the variant should be (nil: nothing beyond its rows).
	check func(context.Context, *schema.DB, finishedJob, *benchArchive) error

	api, token string
	db         *schema.DB
	stop       func()
	results    []result // per archive, as run's
}

// start migrates the variant's database, prepares it, launches its energyd and sends it the
// warm-up archive.
func (v *variant) start(ctx context.Context, o options, tmp, dsn string, archives int) (err error) {
	v.results, v.stop = make([]result, archives), func() {}
	defer func() {
		if err != nil {
			v.stop()
		}
	}()
	vdsn, err := schema.WithDatabase(dsn, v.database)
	if err != nil {
		return err
	}
	if v.db, err = schema.OpenWithTimeouts(ctx, vdsn, "", loadTimeouts); err != nil {
		return err
	}
	v.stop = func() { v.db.Close() }
	if err := v.db.Migrate(ctx, nil); err != nil {
		return err
	}
	if v.prepare != nil {
		if err := v.prepare(ctx, v.db); err != nil {
			return err
		}
	}
	log.Printf("starting another energyd, %s", v.name)
	api, stopEnergyd, err := startEnergyd(ctx, o, filepath.Join(tmp, "energyd-"+v.database), vdsn, v.flags...)
	if err != nil {
		return err
	}
	v.api, v.stop = api, func() { stopEnergyd(); v.db.Close() }
	reg := registry.New(v.db)
	if v.token, _, err = reg.CreateToken(ctx, tenant, []string{"collect", "read"}, 24*time.Hour, "bench-ingest"); err != nil {
		return err
	}
	if err := putSites(ctx, reg); err != nil {
		return err
	}
	if _, err := submitAndWait(ctx, v.api, v.token, warmupArchive()); err != nil {
		return fmt.Errorf("warm-up archive %s: %w", v.name, err)
	}
	return nil
}

// measure ingests archive i once and checks what the variant stored.
func (v *variant) measure(ctx context.Context, i int, a *benchArchive) error {
	clearIndexReadings(ctx, v.db)
	before := insertSeconds(v.api)
	j, err := submitAndWait(ctx, v.api, v.token, *a)
	if err != nil {
		return fmt.Errorf("%s: %w", v.name, err)
	}
	v.results[i].inserts = append(v.results[i].inserts, time.Duration((insertSeconds(v.api)-before)*float64(time.Second)))
	if err := checkStored(ctx, v.db, j, *a); err != nil {
		return err
	}
	if v.check != nil {
		if err := v.check(ctx, v.db, j, a); err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
	}
	v.results[i].archive = a
	v.results[i].times = append(v.results[i].times, j.elapsed)
	return nil
}

// costMarkdown compares the medians of the energyd paying every cost (with) and of a variant
// (without): title and intro head the section, what names the cost in the columns, bound is
// the target of with / without end to end.
func costMarkdown(title, intro, what string, bound float64, with, without []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", title, intro)
	fmt.Fprintf(&b, "| archive | POST → DONE with %s | without | with / without | batch inserts with %s | without | with / without | ≤ %.2f |\n", what, what, bound)
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|:-:|\n")
	for i := range with {
		tw, to := median(with[i].times), median(without[i].times)
		iw, io := median(with[i].inserts), median(without[i].inserts)
		r := tw.Seconds() / max(to.Seconds(), 1e-9)
		fmt.Fprintf(&b, "| %s | %.2f s | %.2f s | %.2f | %.2f s | %.2f s | %.2f | %s |\n", with[i].archive.Name,
			tw.Seconds(), to.Seconds(), r, iw.Seconds(), io.Seconds(), iw.Seconds()/max(io.Seconds(), 1e-9), mark(r <= bound))
	}
	fmt.Fprintf(&b, "\nAll runs without %s (s): ", what)
	for i, r := range without {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: energyd %s (batch inserts %s)", r.archive.Name, seconds(r.times), seconds(r.inserts))
	}
	b.WriteString(".\n")
	return b.String()
}
