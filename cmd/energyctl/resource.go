package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"energy/schema/registry"
)

// resourceKind is one registry resource (site, tariff, station) as energyctl's put and get
// commands handle it: stored through the registry, read back, printed as the API's JSON.
type resourceKind[T any] struct {
	name  string // command word: site, tariff, station
	title string // in messages: site, tariff, weather station
	put   func(*registry.Store, context.Context, T) error
	get   func(*registry.Store, context.Context, string, string) (T, error)
}

var (
	sites    = resourceKind[registry.Site]{"site", "site", (*registry.Store).PutSite, (*registry.Store).SiteWithContact}
	tariffs  = resourceKind[registry.Tariff]{"tariff", "tariff", (*registry.Store).PutTariff, (*registry.Store).Tariff}
	stations = resourceKind[registry.Station]{"station", "weather station", (*registry.Store).PutStation, (*registry.Store).Station}
)

// save stores v (whose id and tenant are set), then prints the stored resource; a rejected
// value names its field.
func (k resourceKind[T]) save(ctx context.Context, store storeFlags, tenant, id string, v T, stdout io.Writer) error {
	db, err := store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	reg := registry.New(db)
	if err := k.put(reg, ctx, v); err != nil {
		return rejected(k.name, id, err)
	}
	stored, err := k.get(reg, ctx, tenant, id)
	if err != nil {
		return err
	}
	return printResource(stdout, stored)
}

// getCommand runs "energyctl <name> get ID --tenant T".
func (k resourceKind[T]) getCommand(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet(k.name+" get", flag.ContinueOnError)
	var store storeFlags
	store.register(fs)
	tenant := tenantFlag(fs)
	id, err := parseCommand(fs, args, k.name+" id")
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
	v, err := k.get(registry.New(db), ctx, *tenant, id)
	if errors.Is(err, registry.ErrNotFound) {
		return fmt.Errorf("%s %q does not exist in tenant %q", k.title, id, *tenant)
	}
	if err != nil {
		return err
	}
	return printResource(stdout, v)
}
