package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"energy/apidocs"
	"energy/schema"
	"energy/schema/registry"
)

// energyctl heating put|get: the heating schedule of a site (PUT/GET
// /v1/sites/{siteId}/heating-schedule), through the store. The file holds the API's body.

func heatingPut(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	c := newTenantCommand("heating put")
	fs := c.fs
	file := fs.String("file", "", "JSON body of PUT /v1/sites/{siteId}/heating-schedule, bare or wrapped in heatingSchedule (\"-\": standard input)")
	c.usage("usage: energyctl heating put SITE --tenant T --file schedule.json\n\nReplaces the site's heating schedule and prints what was stored.")
	id, err := c.parseID(args, "site id")
	if err != nil {
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
	return c.print(ctx, stdout, func(db *schema.DB) (any, error) {
		stored, err := registry.New(db).PutHeatingSchedule(ctx, *c.tenant, id, sched)
		if errors.Is(err, registry.ErrNotFound) {
			return nil, siteNotFound(id, *c.tenant)
		} else if err != nil {
			return nil, rejected("heating schedule of", id, err)
		}
		return apidocs.HeatingScheduleAnswer{HeatingSchedule: apidocs.HeatingScheduleJSON(stored)}, nil
	})
}

func heatingGet(ctx context.Context, args []string, stdout io.Writer) error {
	c := newTenantCommand("heating get")
	id, err := c.parseID(args, "site id")
	if err != nil {
		return err
	}
	return c.print(ctx, stdout, func(db *schema.DB) (any, error) {
		reg := registry.New(db)
		if _, err := reg.Site(ctx, *c.tenant, id); errors.Is(err, registry.ErrNotFound) {
			return nil, siteNotFound(id, *c.tenant)
		} else if err != nil {
			return nil, err
		}
		sched, _, err := reg.HeatingSchedule(ctx, *c.tenant, id)
		if err != nil {
			return nil, err
		}
		return apidocs.HeatingScheduleAnswer{HeatingSchedule: apidocs.HeatingScheduleJSON(sched)}, nil
	})
}

func siteNotFound(id, tenant string) error {
	return fmt.Errorf("site %s does not exist in tenant %s", id, tenant)
}
