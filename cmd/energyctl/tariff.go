package main

import (
	"context"
	"errors"
	"io"
)

// energyctl tariff put|get: the admin resource PUT/GET /v2/tariffs/{tariffId}, through the
// store. The file holds the same JSON body as the API.

func tariffPut(ctx context.Context, args []string, stdout io.Writer) error {
	p := tariffs.newPut("; required")
	p.usage(`usage: energyctl tariff put ID --tenant T --file tariff.json

The file is the API's body, for example:
  {"option": "HPHC", "dialHeadings": {"1": "HC", "2": "HP"}, "headingGroups": {"HC": "HC", "HP": "HP"},
   "timeOfUse": [{"from": "22:00", "to": "06:00", "heading": "HC"}], "defaultHeading": "HP",
   "prices": [{"validFrom": "2024-02-01", "byHeading": {"HC": 0.2068, "HP": 0.2700}}],
   "standingCharges": [{"validFrom": "2024-02-01", "yearly": {"subscription": 151.20, "cta": 21.35}}],
   "carbonCoefficient": 0.052}

The stored days of the sites using the tariff are rewritten in the daily energy table.`)
	return p.run(ctx, args, stdout, func() error {
		if *p.file == "" {
			return errors.New("--file is required (the tariff's JSON; see energyctl tariff put -h)")
		}
		return nil
	})
}
