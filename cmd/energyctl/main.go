// Command energyctl manages tokens, sites, tariffs and weather data, generates demo data and
// submits archives. Each subcommand lives in its own file; commands lists them all.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"energy/cmd/internal/buildinfo"
	"energy/schema"
	"energy/schema/audit"
	"energy/schema/registry"
	"energy/schema/server"
)

// command is one energyctl subcommand: args excludes the command words.
type command struct {
	summary string
	run     func(ctx context.Context, args []string) error
}

// commands maps "word" or "word sub" to its command (each lives in its own file).
var commands = map[string]command{
	"audit":            {summary: "print the audit trail of admin changes (who, what, when), oldest first", run: toStdout(auditList)},
	"advices":          {summary: "submit a recommendation job from a JSON file, wait for it and print the advices", run: runAdvices},
	"calendar import":  {summary: "load the colours of a day-colour calendar's dates (TEMPO) from a date,colour CSV file", run: toStdout(calendarImport)},
	"cluster run":      {summary: "run a local ClickHouse cluster (ZooKeeper, 2 shards × 2 replicas) in the foreground until interrupted", run: toStdout(clusterRun)},
	"daily rebuild":    {summary: "write the daily energy table (the consumption endpoint's days) for the readings already stored", run: toStdout(dailyRebuild)},
	"demo":             {summary: "create demo sites and load a year of their readings (or write the archives with --out)", run: runDemo},
	"export":           {summary: "write a site's data as an intake archive to stdout (energyctl export SITE > SITE.tar.gz), progress on stderr", run: func(ctx context.Context, args []string) error { return exportSite(ctx, args, os.Stdout, os.Stderr) }},
	"heating get":      {summary: "print the heating schedule of a site (the default when none is stored)", run: toStdout(heatingGet)},
	"heating put":      {summary: "replace the heating schedule of a site (--file JSON as the API's body)", run: func(ctx context.Context, args []string) error { return heatingPut(ctx, args, os.Stdin, os.Stdout) }},
	"notifications":    {summary: "list a target's notifications, newest first", run: toStdout(notificationList)},
	"readings rebuild": {summary: "rebuild the index readings laid out by site (what per-site reads use) from the raw index tables", run: toStdout(readingsRebuild)},
	"simulate":         {summary: "compare tariffs on a site's real data (--tariffs A,B,C), cheapest first", run: toStdout(simulate)},
	"site get":         {summary: "print a site as JSON", run: toStdout(sites.getCommand)},
	"site put":         {summary: "create or replace a site (--file JSON as the API's body, or flags)", run: toStdout(sitePut)},
	"station get":      {summary: "print a weather station as JSON", run: toStdout(stations.getCommand)},
	"station put":      {summary: "create or replace a weather station (--name, --lat, --lon, or --file JSON)", run: toStdout(stationPut)},
	"submit":           {summary: "submit archives for collection, wait for their jobs and print the reports", run: runSubmit},
	"target get":       {summary: "print a target as JSON", run: toStdout(targetGet)},
	"target list":      {summary: "list the tenant's targets (--site S: of one site)", run: toStdout(targetList)},
	"tariff get":       {summary: "print a tariff as JSON", run: toStdout(tariffs.getCommand)},
	"tariff put":       {summary: "create or replace a tariff from a JSON file (the API's body)", run: toStdout(tariffPut)},
	"token create":     {summary: "create a token (and its tenant when new); prints the secret alone on stdout", run: func(ctx context.Context, args []string) error { return tokenCreate(ctx, args, os.Stdout, os.Stderr) }},
	"token list":       {summary: "list tokens (all tenants, or --tenant's); never shows secrets", run: toStdout(tokenList)},
	"token revoke":     {summary: "revoke a token by id", run: func(ctx context.Context, args []string) error { return tokenRevoke(ctx, args, os.Stderr) }},
	"weather demo":     {summary: "generate plausible hourly weather for a station (demo data)", run: runWeatherDemo},
	"weather import":   {summary: "load a station's observations from a CSV or JSON file", run: runWeatherImport},
}

// toStdout makes a command's run of a function that writes its output to out, given standard
// output.
func toStdout(run func(ctx context.Context, args []string, out io.Writer) error) func(ctx context.Context, args []string) error {
	return func(ctx context.Context, args []string) error { return run(ctx, args, os.Stdout) }
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	args := os.Args[1:]
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage()
		return
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Println(buildinfo.Read().String("energyctl"))
		return
	}
	name, rest := args[0], args[1:]
	if len(rest) > 0 {
		if _, ok := commands[name+" "+rest[0]]; ok {
			name, rest = name+" "+rest[0], rest[1:]
		}
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "energyctl: unknown command %q\n\n", strings.Join(args, " "))
		usage()
		os.Exit(2)
	}
	err := cmd.run(audit.WithActor(ctx, commandLineActor()), rest)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "energyctl %s: %v\n", name, err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: energyctl COMMAND [flags]\n\ncommands:")
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-22s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun energyctl COMMAND -h for its flags; energyctl --version prints the build.")
}

// storeFlags are the flags every command that reaches ClickHouse accepts.
type storeFlags struct {
	dsn     string
	dataDir string
	cluster string
}

func (s *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.dsn, "clickhouse-dsn", os.Getenv("ENERGY_CLICKHOUSE_DSN"), "ClickHouse DSN (env ENERGY_CLICKHOUSE_DSN); default: the embedded server of a running energyd under --data-dir")
	dd := os.Getenv("ENERGY_DATA_DIR")
	if dd == "" {
		dd = "./var"
	}
	fs.StringVar(&s.dataDir, "data-dir", dd, "energyd's data directory (env ENERGY_DATA_DIR)")
	fs.StringVar(&s.cluster, "clickhouse-cluster", os.Getenv("ENERGY_CLICKHOUSE_CLUSTER"), "ClickHouse cluster name (env ENERGY_CLICKHOUSE_CLUSTER)")
}

// open connects to the configured store, or to the embedded ClickHouse that a running energyd
// recorded under the data dir, and makes sure the schema is migrated.
func (s *storeFlags) open(ctx context.Context) (*schema.DB, error) {
	dsn := s.dsn
	if dsn == "" {
		rec, err := server.RecordedDSN(filepath.Join(s.dataDir, "clickhouse"))
		if err != nil {
			return nil, fmt.Errorf("no --clickhouse-dsn given and %w", err)
		}
		dsn = strings.Replace(rec, "/default", "/energy", 1)
	} else {
		creds, err := schema.CredentialsFromEnv(os.Getenv)
		if err != nil {
			return nil, err
		}
		if dsn, err = creds.Apply(dsn); err != nil {
			return nil, err
		}
	}
	db, err := schema.Open(ctx, dsn, s.cluster)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, nil); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// tenantFlag registers the --tenant flag of the registry commands.
func tenantFlag(fs *flag.FlagSet) *string {
	return fs.String("tenant", os.Getenv("ENERGY_TENANT"), "tenant (marketer) id (env ENERGY_TENANT)")
}

// needTenant checks the --tenant value.
func needTenant(tenant string) error {
	if tenant == "" {
		return errors.New("--tenant is required")
	}
	if err := registry.ValidID("tenant", tenant); err != nil {
		return fmt.Errorf("--tenant: %s", err.(*registry.FieldError).Message)
	}
	return nil
}

// parseCommand parses args into fs and returns the one positional argument, the resource id.
// Flags may come before or after the id.
func parseCommand(fs *flag.FlagSet, args []string, what string) (string, error) {
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	rest := fs.Args()
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		id := rest[0]
		if err := fs.Parse(rest[1:]); err != nil {
			return "", err
		}
		if fs.NArg() > 0 {
			return "", fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
		return id, nil
	}
	if len(rest) > 0 {
		return "", fmt.Errorf("unexpected argument %q", rest[0])
	}
	return "", fmt.Errorf("missing the %s", what)
}

// readResource reads a JSON resource from a file ("-": standard input) into v, rejecting
// unknown fields and naming the field of a type error.
func readResource(name string, v any) error {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return err
	}
	return decodeStrict(data, v)
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case err == nil:
		if dec.More() {
			return errors.New("invalid JSON: more than one value")
		}
		return nil
	case errors.As(err, &te):
		return fmt.Errorf("field %s: expected %s, got a JSON %s", te.Field, te.Type, te.Value)
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("field %s: unknown field", strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

// printResource writes v as indented JSON.
func printResource(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// rejected explains a registry refusal, naming the field.
func rejected(what, id string, err error) error {
	var fe *registry.FieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s %s rejected: field %s: %s", what, id, fe.Field, fe.Message)
	}
	return err
}
