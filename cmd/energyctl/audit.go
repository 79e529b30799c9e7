package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/user"
	"text/tabwriter"
	"time"

	"energy/schema/audit"
)

// commandLineActor is who the audit trail names for changes made with energyctl: the
// operating-system user, since energyctl reaches the store without an API token.
func commandLineActor() audit.Actor {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return audit.CommandLine(name)
}

// auditList prints the audit trail: every admin change, oldest first.
func auditList(ctx context.Context, args []string, stdout io.Writer) error {
	fs, store := newStoreFlagSet("audit")
	tenant := fs.String("tenant", os.Getenv("ENERGY_TENANT"), "only this tenant's changes (env ENERGY_TENANT); default all")
	since := fs.String("since", "720h", "changes from this instant on (RFC 3339, 2026-01-31T00:00:00Z) or this long ago (a duration, 24h)")
	limit := fs.Int("limit", 1000, "at most this many changes")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	setUsage(fs, "usage: energyctl audit [--tenant T] [--since 24h|RFC3339] [--limit N] [--json]")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	from, err := parseSince(*since, time.Now())
	if err != nil {
		return fmt.Errorf("--since: %w", err)
	}
	if *limit < 1 {
		return fmt.Errorf("--limit: %d is not a number ≥ 1", *limit)
	}
	db, err := store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	events, err := audit.Events(ctx, db, *tenant, from, *limit)
	if err != nil {
		return err
	}
	if *asJSON {
		if events == nil {
			events = []audit.Event{}
		}
		return printResource(stdout, events)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WHEN\tTENANT\tTOKEN\tACTION\tRESOURCE\tBEFORE\tAFTER")
	for _, e := range events {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.TS.Format(time.RFC3339), e.TenantID, e.TokenID, e.Action, e.Resource,
			short(e.BeforeDigest), short(e.AfterDigest))
	}
	return tw.Flush()
}

// parseSince reads an instant (RFC 3339) or a duration before now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 instant (2026-01-31T00:00:00Z) nor a duration (24h)", s)
}

// short abbreviates a digest for the table (the JSON has it whole); "-": none.
func short(digest string) string {
	if digest == "" {
		return "-"
	}
	return digest[:min(12, len(digest))]
}
