package main

import (
	"context"
	"fmt"
	"io"
	"sort"
)

// readingsRebuild copies the raw index readings into their by-site tables again and prints the
// rows copied per table. Safe while energyd runs and safe to repeat.
func readingsRebuild(ctx context.Context, args []string, out io.Writer) error {
	fs, store := newStoreFlagSet("readings rebuild")
	setUsage(fs, "energyctl readings rebuild [flags]: copy every raw index reading (elec_indexes, gas_indexes) into\n"+
		"elec_indexes_by_site and gas_indexes_by_site, the tables per-site reads use; rows already there are identical and counted once.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	db, err := store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	copied, err := db.RebuildReadingsBySite(ctx)
	if err != nil {
		return err
	}
	return printCopied(out, copied)
}

func printCopied(out io.Writer, copied map[string]uint64) error {
	names := make([]string, 0, len(copied))
	for n := range copied {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, err := fmt.Fprintf(out, "%s: %d rows copied\n", n, copied[n]); err != nil {
			return err
		}
	}
	return nil
}
