package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"energy/bench/synth"
	"energy/schema"
	"energy/schema/registry"
)

// energyctl demo loads demo data into a running energyd: through its admin API a tariff, a
// weather station and sites, then (through the store) two years of the station's weather, then
// archives of readings submitted like any client's, waiting for their jobs. --out writes the
// archives to a directory instead.

// demoOptions are the demo's settings.
type demoOptions struct {
	tenant    string
	sites     int
	year      int
	years     int
	seed      uint64
	station   string
	tariff    string
	out       string
	noWeather bool
}

func runDemo(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	var af apiFlags
	af.register(fs)
	var store storeFlags
	store.register(fs)
	var o demoOptions
	fs.StringVar(&o.tenant, "tenant", cmp.Or(os.Getenv("ENERGY_TENANT"), "demo"), "tenant (marketer) of the demo data (env ENERGY_TENANT); without --token an admin token of this tenant is made through the store")
	fs.IntVar(&o.sites, "sites", 3, "number of demo sites (site i is electrically heated when i%3 == 1, gas-heated otherwise)")
	fs.IntVar(&o.year, "year", 2025, "last year of readings")
	fs.IntVar(&o.years, "years", 1, "number of years of readings, ending with --year (2 gives the yearly comparison a previous year)")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed: the same seed gives the same archives")
	fs.StringVar(&o.station, "station", "07149", "weather station id of the demo sites")
	fs.StringVar(&o.tariff, "tariff", "demo-hphc", "tariff id of the demo sites (an HPHC contract)")
	fs.StringVar(&o.out, "out", "", "write the archives into this directory instead of submitting them (nothing else is done)")
	fs.BoolVar(&o.noWeather, "no-weather", false, "do not load the station's demo weather")
	setUsage(fs, "usage: energyctl demo [--tenant T] [--api URL] [--token T] [--sites N] [--year Y] [--out DIR] [flags]")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case o.sites < 1 || o.sites > 1000:
		return fmt.Errorf("--sites %d: give 1 to 1000", o.sites)
	case o.years < 1 || o.years > 10:
		return fmt.Errorf("--years %d: give 1 to 10", o.years)
	case o.year < 2000 || o.year > 2100:
		return fmt.Errorf("--year %d: give a year from 2000 to 2100", o.year)
	}
	for _, id := range []struct{ flag, v string }{{"--tenant", o.tenant}, {"--station", o.station}, {"--tariff", o.tariff}} {
		if err := registry.ValidID(id.flag, id.v); err != nil {
			return err
		}
	}

	sites := demoSites(o.sites, o.seed)
	series, err := generateDemo(sites, demoSpan{FirstYear: o.year - o.years + 1, LastYear: o.year, StationID: o.station}, o.seed)
	if err != nil {
		return err
	}
	archives, err := buildDemoArchives(series, o.year)
	if err != nil {
		return err
	}
	if o.out != "" {
		return writeDemoArchives(o.out, archives, sites, os.Stdout)
	}
	db, token, err := connectDemo(ctx, af, &store, o)
	if err != nil {
		return err
	}
	if db != nil {
		defer db.Close()
	}
	c, err := newAPIClient(af.api, token)
	if err != nil {
		return err
	}
	return loadDemo(ctx, c, db, o, series, archives, os.Stdout, newProgress(os.Stderr))
}

// writeDemoArchives writes the archives into dir and lists them with the sites they need.
func writeDemoArchives(dir string, archives []demoArchive, sites []demoSite, out io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, a := range archives {
		p := filepath.Join(dir, a.Name)
		if err := os.WriteFile(p, a.Data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s\t%d files, %d operations, %d bytes\n", p, len(a.Files), a.Operations, len(a.Data))
	}
	fmt.Fprintf(os.Stderr, "the archives name these sites (create them before submitting):\n")
	for _, s := range sites {
		gas := ""
		if s.GasPod != "" {
			gas = ", gas pod " + s.GasPod
		}
		fmt.Fprintf(os.Stderr, "  %s  siteCustomerId %s, personCustomerId %s, heating %s, elec pod %s%s\n",
			s.SiteID, s.SiteCustomerID, s.PersonCustomerID, s.HeatingFluid, s.ElecPod, gas)
	}
	return nil
}

// connectDemo finds the store (for the weather, and for a token when none is given) and the
// token. A remote energyd without a reachable store still gets everything but the weather.
func connectDemo(ctx context.Context, af apiFlags, store *storeFlags, o demoOptions) (db *schema.DB, token string, err error) {
	token = af.token
	if token != "" && o.noWeather {
		return nil, token, nil
	}
	db, err = store.open(ctx)
	if err != nil {
		if token == "" {
			return nil, "", fmt.Errorf("no --token (or ENERGY_TOKEN) given, and no store to make one: %w", err)
		}
		fmt.Fprintf(os.Stderr, "warning: the store is unreachable (%v); the weather will not be loaded\n", err)
		return nil, token, nil
	}
	reg := registry.New(db)
	if token == "" {
		secret, _, err := reg.CreateToken(ctx, o.tenant, []string{string(registry.ScopeAdmin)}, 24*time.Hour, "energyctl demo")
		if err != nil {
			db.Close()
			return nil, "", fmt.Errorf("create a demo token: %w", err)
		}
		fmt.Fprintf(os.Stderr, "no --token given: using a new admin token of tenant %s (valid 24 h)\n", o.tenant)
		return db, secret, nil
	}
	if tok, err := reg.Authenticate(ctx, token); err == nil && tok.TenantID != o.tenant {
		db.Close()
		return nil, "", fmt.Errorf("the token belongs to tenant %q, not --tenant %q: pass the token's tenant", tok.TenantID, o.tenant)
	}
	return db, token, nil
}

// loadDemo creates the reference data and the demo target through the API, loads the weather
// through the store (when db is set) and submits the archives of series, waiting for their jobs.
func loadDemo(ctx context.Context, c *apiClient, db *schema.DB, o demoOptions, series []demoSeries, archives []demoArchive, out io.Writer, prog *progress) error {
	sites := make([]demoSite, len(series))
	for i, s := range series {
		sites[i] = s.Site
	}
	if err := putDemoReferences(ctx, c, o, sites); err != nil {
		return err
	}
	prog.println(fmt.Sprintf("created tariff %s, weather station %s and %d sites in tenant %s", o.tariff, o.station, len(sites), o.tenant))
	targetID, err := putDemoTarget(ctx, c, o, series[0])
	if err != nil {
		return err
	}
	prog.println(fmt.Sprintf("target %s of %s: at most %g kWh in %d, EMAIL and SMS to %s, %s on overrun",
		targetID, sites[0].SiteID, demoTargetKWh(series[0], o.year), o.year, demoContact["email"], demoContact["phone"]))

	if db != nil && !o.noWeather {
		loc, err := time.LoadLocation(synth.Timezone)
		if err != nil {
			return err
		}
		from := time.Date(o.year-max(o.years, 2)+1, 1, 1, 0, 0, 0, 0, loc)
		to := time.Date(o.year+1, 1, 1, 0, 0, 0, 0, loc)
		if err := demoWeather(ctx, db, o.tenant, o.station, from, to); err != nil {
			return err
		}
		prog.println(fmt.Sprintf("loaded hourly weather of station %s from %s to %s", o.station, from.Format(time.DateOnly), to.Format(time.DateOnly)))
	}

	var sources []archiveSource
	ops := 0
	for _, a := range archives {
		sources = append(sources, archiveSource{Name: a.Name, Data: a.Data})
		ops += a.Operations
	}
	prog.println(fmt.Sprintf("submitting %d archives (%d operations)", len(sources), ops))
	if err := submitAndWait(ctx, c, sources, true, out, prog); err != nil {
		return err
	}
	s := sites[0]
	prog.println(fmt.Sprintf("\ndemo loaded. With a read token of tenant %s in $TOKEN (energyctl token create --tenant %s --scopes read):\n"+
		"  curl -H \"Authorization: Bearer $TOKEN\" '%s/v2/sites/%s/fluids/elec/consumptions?startTs=%d-01-01T00:00:00&endTs=%d-01-01T00:00:00&stepUnit=MONTHS'",
		o.tenant, o.tenant, c.base, s.SiteID, o.year, o.year+1))
	for _, g := range sites {
		if g.GasPod != "" {
			prog.println(fmt.Sprintf("  curl -H \"Authorization: Bearer $TOKEN\" '%s/v1/sites/%s/budget/matrix'", c.base, g.SiteID))
			break
		}
	}
	prog.println(fmt.Sprintf("  curl -H \"Authorization: Bearer $TOKEN\" '%s/v2/sites/%s/targets/%s/notifications'", c.base, s.SiteID, targetID))
	return nil
}

// demoTariff is the demo contract: HPHC with the HC hours of the load curve split
// (22:00-06:00), prices changing on February 1st as French regulated tariffs do.
func demoTariff(id string, year int) map[string]any {
	return map[string]any{
		"option":         "HPHC",
		"dialHeadings":   map[string]string{synth.DialHC: "HC", synth.DialHP: "HP"},
		"headingGroups":  map[string]string{"HC": "HC", "HP": "HP"},
		"timeOfUse":      []map[string]string{{"from": fmt.Sprintf("%02d:00", synth.HCFrom), "to": fmt.Sprintf("%02d:00", synth.HCTo), "heading": "HC"}},
		"defaultHeading": "HP",
		"prices": []map[string]any{
			{"validFrom": fmt.Sprintf("%d-02-01", year-10), "byHeading": map[string]float64{"HC": 0.2068, "HP": 0.2700}},
			{"validFrom": fmt.Sprintf("%d-02-01", year), "byHeading": map[string]float64{"HC": 0.2088, "HP": 0.2712}},
		},
		"standingCharges": []map[string]any{
			{"validFrom": fmt.Sprintf("%d-02-01", year-10), "yearly": map[string]float64{"subscription": 151.20, "cta": 21.35}},
			{"validFrom": fmt.Sprintf("%d-02-01", year), "yearly": map[string]float64{"subscription": 155.88, "cta": 21.35}},
		},
		"carbonCoefficient":  0.052,
		"subscribedPowerKva": 9,
	}
}

// demoGasTariffID names the gas contract of the gas-heated demo sites.
func demoGasTariffID(o demoOptions) string { return o.tariff + "-gas" }

// demoGasTariff is the demo gas contract: one BASE price per kWh, changing on July 1st as the
// French benchmark gas price does, and a yearly subscription.
func demoGasTariff(year int) map[string]any {
	return map[string]any{
		"option": "GAS",
		"prices": []map[string]any{
			{"validFrom": fmt.Sprintf("%d-07-01", year-10), "byHeading": map[string]float64{"BASE": 0.1050}},
			{"validFrom": fmt.Sprintf("%d-07-01", year), "byHeading": map[string]float64{"BASE": 0.1121}},
		},
		"standingCharges":   []map[string]any{{"validFrom": fmt.Sprintf("%d-07-01", year-10), "yearly": map[string]float64{"subscription": 268.56}}},
		"carbonCoefficient": 0.227,
	}
}

// putDemoReferences creates (or replaces) the tariff, the station and the sites.
func putDemoReferences(ctx context.Context, c *apiClient, o demoOptions, sites []demoSite) error {
	put := func(id string, body any, call func(id string, body io.Reader) (answer, error)) error {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		a, err := call(id, bytes.NewReader(b))
		return c.adminOutcome(ctx, a, err)
	}
	tariff := func(id string, body io.Reader) (answer, error) {
		return c.api.PutTariffWithBodyWithResponse(ctx, id, "application/json", body)
	}
	if err := put(o.tariff, demoTariff(o.tariff, o.year), tariff); err != nil {
		return fmt.Errorf("create tariff %s: %w", o.tariff, err)
	}
	if err := put(demoGasTariffID(o), demoGasTariff(o.year), tariff); err != nil {
		return fmt.Errorf("create gas tariff %s: %w", demoGasTariffID(o), err)
	}
	if err := putDemoContracts(ctx, c, o.year-o.years+1, o.year); err != nil {
		return err
	}
	station := map[string]any{"name": "Paris-Orly (demo)", "latitude": 48.7167, "longitude": 2.3844}
	if err := put(o.station, station, func(id string, body io.Reader) (answer, error) {
		return c.api.PutWeatherStationWithBodyWithResponse(ctx, id, "application/json", body)
	}); err != nil {
		return fmt.Errorf("create weather station %s: %w", o.station, err)
	}
	for i, s := range sites {
		body := map[string]any{"siteCustomerId": s.SiteCustomerID, "personCustomerId": s.PersonCustomerID,
			"timezone": synth.Timezone, "weatherStationId": o.station, "tariffId": o.tariff, "heatingFluid": s.HeatingFluid}
		if i == 0 { // the site of the demo target
			body["contact"] = demoContact
		}
		if s.GasPod != "" {
			body["gasTariffId"] = demoGasTariffID(o)
		}
		if err := put(s.SiteID, body, func(id string, body io.Reader) (answer, error) {
			return c.api.PutSiteWithBodyWithResponse(ctx, id, "application/json", body)
		}); err != nil {
			return fmt.Errorf("create site %s: %w", s.SiteID, err)
		}
	}
	return nil
}

// adminOutcome is outcome for the demo's admin resources, whose 403 says why it needs admin.
func (c *apiClient) adminOutcome(ctx context.Context, a answer, err error) error {
	err = c.outcome(ctx, a, err, "admin")
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusForbidden {
		ae.Advice = "the demo creates sites, a tariff and a station: it needs a token with the admin scope"
	}
	return err
}
