package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"energy/apidocs"
	"energy/schema/registry"
)

// energyctl heating put|get: the heating schedule of a site (PUT/GET
// /v1/sites/{siteId}/heating-schedule), through the store. The file holds the API's body.

func init() {
	commands["heating put"] = command{
		summary: "replace the heating schedule of a site (--file JSON as the API's body)",
		run:     func(ctx context.Context, args []string) error { return heatingPut(ctx, args, os.Stdin, os.Stdout) },
	}
	commands["heating get"] = command{
		summary: "print the heating schedule of a site (the default when none is stored)",
		run:     func(ctx context.Context, args []string) error { return heatingGet(ctx, args, os.Stdout) },
	}
}

func heatingPut(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("heating put", flag.ContinueOnError)
	var store storeFlags
	store.register(fs)
	tenant := tenantFlag(fs)
	file := fs.String("file", "", "JSON body of PUT /v1/sites/{siteId}/heating-schedule, bare or wrapped in heatingSchedule (\"-\": standard input)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: energyctl heating put SITE --tenant T --file schedule.json\n\nReplaces the site's heating schedule and prints what was stored.")
		fs.PrintDefaults()
	}
	id, err := parseCommand(fs, args, "site id")
	if err != nil {
		return err
	}
	if err := needTenant(*tenant); err != nil {
		return err
	}
	if *file == "" {
		return errors.New("heating put: --file is required (\"-\" reads standard input)")
	}
	var raw []byte
	if *file == "-" {
		raw, err = io.ReadAll(stdin)
	} else {
		raw, err = os.ReadFile(*file)
	}
	if err != nil {
		return err
	}
	sched, err := apidocs.DecodeHeatingSchedule(raw)
	if err != nil {
		return fmt.Errorf("heating schedule of %s rejected: %s", id, err.(*apidocs.APIError).Description)
	}
	db, err := store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	stored, err := registry.New(db).PutHeatingSchedule(ctx, *tenant, id, sched)
	if errors.Is(err, registry.ErrNotFound) {
		return fmt.Errorf("site %s does not exist in tenant %s", id, *tenant)
	} else if err != nil {
		return rejected("heating schedule of", id, err)
	}
	return printResource(stdout, apidocs.HeatingScheduleAnswer{HeatingSchedule: apidocs.HeatingScheduleJSON(stored)})
}

func heatingGet(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("heating get", flag.ContinueOnError)
	var store storeFlags
	store.register(fs)
	tenant := tenantFlag(fs)
	id, err := parseCommand(fs, args, "site id")
	if err != nil {
		return err
	}
	if err := needTenant(*tenant); err != nil {
		return err
	}
	db, err := store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	reg := registry.New(db)
	if _, err := reg.Site(ctx, *tenant, id); errors.Is(err, registry.ErrNotFound) {
		return fmt.Errorf("site %s does not exist in tenant %s", id, *tenant)
	} else if err != nil {
		return err
	}
	sched, _, err := reg.HeatingSchedule(ctx, *tenant, id)
	if err != nil {
		return err
	}
	return printResource(stdout, apidocs.HeatingScheduleAnswer{HeatingSchedule: apidocs.HeatingScheduleJSON(sched)})
}
