package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"energy/query/consumption"
	"energy/query/contract"
	"energy/schema/registry"
)

// energyctl simulate: the tariff simulation of GET
// /v2/sites/{site-id}/fluids/elec/tariff-simulations, computed on the store, printed as a table.

func simulate(ctx context.Context, args []string, stdout io.Writer) error {
	c := newTenantCommand("simulate")
	list := c.fs.String("tariffs", "", "comma-separated candidate tariff ids, 1 to 20 (required); the site's own tariff is always simulated")
	from := c.fs.String("from", "", "first local date yyyy-MM-dd (default: a year before --to)")
	to := c.fs.String("to", "", "local date yyyy-MM-dd ending the period, excluded (default: today)")
	asJSON := c.fs.Bool("json", false, "print the API's JSON instead of the table")
	c.usage(`usage: energyctl simulate SITE --tenant T --tariffs A,B,C [--from yyyy-MM-dd] [--to yyyy-MM-dd] [--json]

Prices the site's real energy over the period under each candidate tariff and under its own
(the reference), checks each candidate's subscribed power against the site's daily max powers,
and prints them cheapest first.

flags:`)
	site, err := c.parseID(args, "site id")
	if err != nil {
		return err
	}
	ids, err := contract.SplitTariffIDs(*list)
	if err != nil {
		return fmt.Errorf("--tariffs: %s", err.(*contract.RequestError).Message)
	}
	db, err := c.store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	reg := registry.New(db)
	s, err := reg.Site(ctx, *c.tenant, site)
	if errors.Is(err, registry.ErrNotFound) {
		return fmt.Errorf("site %q does not exist in tenant %q", site, *c.tenant)
	}
	if err != nil {
		return err
	}
	loc := s.Location()
	start, end, err := simulationPeriod(*from, *to, loc, time.Now())
	if err != nil {
		return err
	}
	req, err := contract.NewRequest(ctx, reg.Tariff, *c.tenant, loc, start, end, ids)
	if err != nil {
		return err
	}
	engine := contract.NewEngine(db, reg, consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient))
	res, err := engine.Compute(ctx, s, req)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return printSimulations(stdout, site, res)
}

// simulationPeriod reads --from and --to as local dates (defaults: the year up to today).
func simulationPeriod(from, to string, loc *time.Location, now time.Time) (start, end time.Time, err error) {
	date := func(flag, v string) (time.Time, error) {
		d, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return d, fmt.Errorf("--%s: want a date yyyy-MM-dd (got %q)", flag, v)
		}
		return consumption.WallClock(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc), nil
	}
	if to == "" {
		y, m, d := now.In(loc).Date()
		end = consumption.WallClock(y, m, d, 0, 0, 0, 0, loc)
	} else if end, err = date("to", to); err != nil {
		return
	}
	if from == "" {
		start = consumption.AddSteps(end, loc, consumption.UnitYears, -1)
	} else if start, err = date("from", from); err != nil {
		return
	}
	return start, end, nil
}

// printSimulations writes the answer as a table, cheapest first.
func printSimulations(w io.Writer, site string, res *contract.Simulations) error {
	ref := "none"
	if res.Reference != nil {
		ref = *res.Reference
	}
	fmt.Fprintf(w, "Site %s, %s to %s: energy from %s (quality %.2f %%), reference tariff %s\n", site,
		res.Period.StartTime.Format(time.DateOnly), res.Period.EndTime.Format(time.DateOnly), res.EnergySource, res.Quality, ref)
	if res.MaxPower != nil {
		fmt.Fprintf(w, "Highest daily max power: %d W on %s\n", res.MaxPower.Value, res.MaxPower.Date)
	} else {
		fmt.Fprintln(w, "No max-power readings: subscribed powers not checked")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tariff\toption\tkVA\tstatus\tkWh\tcost EUR\tvs reference EUR\t%\toverrun days\t")
	for _, s := range res.Simulations {
		name := s.TariffID
		if s.Cheapest {
			name = "* " + name
		}
		if res.Reference != nil && s.TariffID == *res.Reference {
			name += " (ref)"
		}
		cost, diff, rate := "-", "-", "-"
		if s.Cost != nil {
			cost = strconv.FormatFloat(s.Cost.Total, 'f', 2, 64)
		}
		if d := s.DifferenceVsReference; d != nil {
			diff = fmt.Sprintf("%+.2f", d.Cost)
			if d.Rate != nil {
				rate = fmt.Sprintf("%+.2f", *d.Rate)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s\t%s\t\n", name, s.Option, optInt(s.SubscribedPowerKva), s.Status,
			s.EnergyMeter.Total/1000, cost, diff, rate, optInt(s.OverrunDays))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range res.Simulations {
		if s.Reason != "" {
			fmt.Fprintf(w, "%s not computable: %s\n", s.TariffID, s.Reason)
		}
	}
	_, err := fmt.Fprintln(w, "\n* cheapest tariff whose subscribed power the site's peaks allow")
	return err
}

func optInt(v *int) string {
	if v == nil {
		return "-"
	}
	return strconv.Itoa(*v)
}
