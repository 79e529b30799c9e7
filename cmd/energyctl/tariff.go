package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"energy/schema/registry"
)

// energyctl tariff put|get: the admin resource PUT/GET /v2/tariffs/{tariffId}, through the
// store. The file holds the same JSON body as the API.

func init() {
	commands["tariff put"] = command{
		summary: "create or replace a tariff from a JSON file (the API's body)",
		run:     func(ctx context.Context, args []string) error { return tariffPut(ctx, args, os.Stdout) },
	}
	commands["tariff get"] = command{
		summary: "print a tariff as JSON",
		run:     func(ctx context.Context, args []string) error { return tariffs.getCommand(ctx, args, os.Stdout) },
	}
}

func tariffPut(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("tariff put", flag.ContinueOnError)
	var store storeFlags
	store.register(fs)
	tenant := tenantFlag(fs)
	file := fs.String("file", "", "JSON body of PUT /v2/tariffs/{tariffId} (\"-\": standard input); required")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: energyctl tariff put ID --tenant T --file tariff.json

The file is the API's body, for example:
  {"option": "HPHC", "dialHeadings": {"1": "HC", "2": "HP"}, "headingGroups": {"HC": "HC", "HP": "HP"},
   "timeOfUse": [{"from": "22:00", "to": "06:00", "heading": "HC"}], "defaultHeading": "HP",
   "prices": [{"validFrom": "2024-02-01", "byHeading": {"HC": 0.2068, "HP": 0.2700}}],
   "standingCharges": [{"validFrom": "2024-02-01", "yearly": {"subscription": 151.20, "cta": 21.35}}],
   "carbonCoefficient": 0.052}`)
		fs.PrintDefaults()
	}
	id, err := parseCommand(fs, args, "tariff id")
	if err != nil {
		return err
	}
	if err := needTenant(*tenant); err != nil {
		return err
	}
	if *file == "" {
		return errors.New("--file is required (the tariff's JSON; see energyctl tariff put -h)")
	}
	var t registry.Tariff
	if err := readResource(*file, &t); err != nil {
		return fmt.Errorf("%s: %w", *file, err)
	}
	if t.TariffID != "" && t.TariffID != id {
		return fmt.Errorf("tariff %s rejected: field tariffId: %q differs from the id %q", id, t.TariffID, id)
	}
	t.TariffID, t.TenantID = id, *tenant
	return tariffs.save(ctx, store, *tenant, id, t, stdout)
}
