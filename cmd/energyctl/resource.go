package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"energy/query/consumption"
	"energy/query/daily"
	"energy/schema"
	"energy/schema/registry"
)

// resourceKind is one registry resource (site, tariff, station) as energyctl's put and get
// commands handle it: stored through the registry, read back, printed as the API's JSON.
type resourceKind[T any] struct {
	name    string // command word: site, tariff, station
	title   string // in messages: site, tariff, weather station
	idField string // the body's id member: siteId, tariffId, stationId
	path    string // the API's path of the resource, which takes the same JSON body
	put     func(*registry.Store, context.Context, T) error
	get     func(*registry.Store, context.Context, string, string) (T, error)
	ids     func(*T) (id, tenant *string) // the resource's id and tenant fields
	// change names what a stored resource moves in the daily energy table (nil: nothing).
	change func(tenant, id string) registry.ReferenceChange
}

var (
	sites = resourceKind[registry.Site]{"site", "site", "siteId", "/v2/sites/{siteId}", (*registry.Store).PutSite, (*registry.Store).SiteWithContact,
		func(s *registry.Site) (*string, *string) { return &s.SiteID, &s.TenantID },
		func(tenant, id string) registry.ReferenceChange {
			return registry.ReferenceChange{TenantID: tenant, SiteID: id}
		}}
	tariffs = resourceKind[registry.Tariff]{"tariff", "tariff", "tariffId", "/v2/tariffs/{tariffId}", (*registry.Store).PutTariff, (*registry.Store).Tariff,
		func(t *registry.Tariff) (*string, *string) { return &t.TariffID, &t.TenantID },
		func(tenant, id string) registry.ReferenceChange {
			return registry.ReferenceChange{TenantID: tenant, TariffID: id}
		}}
	stations = resourceKind[registry.Station]{"station", "weather station", "stationId", "/v1/weather-stations/{stationId}", (*registry.Store).PutStation, (*registry.Store).Station,
		func(s *registry.Station) (*string, *string) { return &s.StationID, &s.TenantID }, nil}
)

// putCommand is "energyctl <name> put ID": v is read from --file, the API's JSON body, and
// from the command's own flags, bound to v's fields, which win over the file's.
type putCommand[T any] struct {
	*tenantCommand
	kind resourceKind[T]
	file *string
	v    T
}

// newPut starts the put command of k; fileNote completes the help of --file.
func (k resourceKind[T]) newPut(fileNote string) *putCommand[T] {
	c := newTenantCommand(k.name + " put")
	file := c.fs.String("file", "", "JSON body of PUT "+k.path+" (\"-\": standard input)"+fileNote)
	return &putCommand[T]{tenantCommand: c, kind: k, file: file}
}

// run parses args for the id, reads the file (when one is named) into v, lets complete check
// or finish v (nil: nothing to do), then saves v and prints the stored resource.
func (p *putCommand[T]) run(ctx context.Context, args []string, stdout io.Writer, complete func() error) error {
	id, err := p.parseID(args, p.kind.name+" id")
	if err != nil {
		return err
	}
	if err := p.readOver(*p.file, &p.v); err != nil {
		return err
	}
	if complete != nil {
		if err := complete(); err != nil {
			return err
		}
	}
	return p.kind.save(ctx, p.tenantCommand, id, p.v, stdout)
}

// save stores v under id in the command's tenant, then prints the stored resource; an id in
// the body that differs from id, or a rejected value, names its field.
func (k resourceKind[T]) save(ctx context.Context, c *tenantCommand, id string, v T, stdout io.Writer) error {
	bodyID, tenant := k.ids(&v)
	if *bodyID != "" && *bodyID != id {
		return fmt.Errorf("%s %s rejected: field %s: %q differs from the id %q", k.name, id, k.idField, *bodyID, id)
	}
	*bodyID, *tenant = id, *c.tenant
	return c.print(ctx, stdout, func(db *schema.DB) (any, error) {
		reg := registry.New(db)
		if err := k.put(reg, ctx, v); err != nil {
			return nil, rejected(k.name, id, err)
		}
		if k.change != nil {
			// As energyd does after its own writes: the days whose headings or zone the
			// resource moves are rewritten (before the command ends: no process lives on).
			// Energies do not depend on the carbon coefficient: the default one is as good as any.
			table := daily.New(db, reg, consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient))
			if err := table.ReferenceChanged(ctx, k.change(*c.tenant, id)); err != nil {
				return nil, fmt.Errorf("%s %s stored, but its daily energy was not rewritten (run energyctl daily rebuild --tenant %s): %w", k.name, id, *c.tenant, err)
			}
		}
		return k.get(reg, ctx, *c.tenant, id)
	})
}

// getCommand runs "energyctl <name> get ID --tenant T".
func (k resourceKind[T]) getCommand(ctx context.Context, args []string, stdout io.Writer) error {
	c := newTenantCommand(k.name + " get")
	id, err := c.parseID(args, k.name+" id")
	if err != nil {
		return err
	}
	return c.print(ctx, stdout, func(db *schema.DB) (any, error) {
		v, err := k.get(registry.New(db), ctx, *c.tenant, id)
		if errors.Is(err, registry.ErrNotFound) {
			return nil, fmt.Errorf("%s %q does not exist in tenant %q", k.title, id, *c.tenant)
		}
		return v, err
	})
}
