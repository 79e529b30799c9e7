package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"energy/schema/registry"
)

// energyctl station put|get: the admin resource PUT/GET /v1/weather-stations/{stationId},
// through the store. Observations are loaded with energyctl weather import.

func init() {
	stations.register("create or replace a weather station (--name, --lat, --lon, or --file JSON)",
		"print a weather station as JSON", stationPut)
}

func stationPut(ctx context.Context, args []string, stdout io.Writer) error {
	c := newTenantCommand("station put")
	fs := c.fs
	file := fs.String("file", "", "JSON body of PUT /v1/weather-stations/{stationId} (\"-\": standard input)")
	var flags registry.Station
	fs.StringVar(&flags.Name, "name", "", "station name, for example Paris-Orly")
	fs.Float64Var(&flags.Latitude, "lat", 0, "latitude in degrees (-90..90)")
	fs.Float64Var(&flags.Longitude, "lon", 0, "longitude in degrees (-180..180)")
	c.usage("usage: energyctl station put ID --tenant T (--name N --lat 48.72 --lon 2.38 | --file station.json)")
	id, err := c.parseID(args, "station id")
	if err != nil {
		return err
	}
	st := flags
	if *file != "" {
		st = registry.Station{}
		if err := readResource(*file, &st); err != nil {
			return fmt.Errorf("%s: %w", *file, err)
		}
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "name":
				st.Name = flags.Name
			case "lat":
				st.Latitude = flags.Latitude
			case "lon":
				st.Longitude = flags.Longitude
			}
		})
	}
	if st.StationID != "" && st.StationID != id {
		return fmt.Errorf("station %s rejected: field stationId: %q differs from the id %q", id, st.StationID, id)
	}
	st.StationID, st.TenantID = id, *c.tenant
	return stations.save(ctx, c, id, st, stdout)
}
