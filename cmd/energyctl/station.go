package main

import (
	"context"
	"io"
)

// energyctl station put|get: the admin resource PUT/GET /v1/weather-stations/{stationId},
// through the store. Observations are loaded with energyctl weather import.

func stationPut(ctx context.Context, args []string, stdout io.Writer) error {
	p := stations.newPut("")
	p.fs.StringVar(&p.v.Name, "name", "", "station name, for example Paris-Orly")
	p.fs.Float64Var(&p.v.Latitude, "lat", 0, "latitude in degrees (-90..90)")
	p.fs.Float64Var(&p.v.Longitude, "lon", 0, "longitude in degrees (-180..180)")
	p.usage("usage: energyctl station put ID --tenant T (--name N --lat 48.72 --lon 2.38 | --file station.json)")
	return p.run(ctx, args, stdout, nil)
}
