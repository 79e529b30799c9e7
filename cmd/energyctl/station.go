package main

import (
	"context"
	"io"

	"energy/schema/registry"
)

// energyctl station put|get: the admin resource PUT/GET /v1/weather-stations/{stationId},
// through the store. Observations are loaded with energyctl weather import.

func stationPut(ctx context.Context, args []string, stdout io.Writer) error {
	c := newTenantCommand("station put")
	fs := c.fs
	file := fs.String("file", "", "JSON body of PUT /v1/weather-stations/{stationId} (\"-\": standard input)")
	var st registry.Station
	fs.StringVar(&st.Name, "name", "", "station name, for example Paris-Orly")
	fs.Float64Var(&st.Latitude, "lat", 0, "latitude in degrees (-90..90)")
	fs.Float64Var(&st.Longitude, "lon", 0, "longitude in degrees (-180..180)")
	c.usage("usage: energyctl station put ID --tenant T (--name N --lat 48.72 --lon 2.38 | --file station.json)")
	id, err := c.parseID(args, "station id")
	if err != nil {
		return err
	}
	if err := c.readOver(*file, &st); err != nil {
		return err
	}
	return stations.save(ctx, c, id, st, stdout)
}
