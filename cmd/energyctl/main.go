// Command energyctl manages tokens, sites, tariffs and weather data, generates demo data and
// submits archives. Each subcommand lives in its own file and registers itself in commands.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"energy/schema"
)

// command is one energyctl subcommand: args excludes the command words.
type command struct {
	summary string
	run     func(ctx context.Context, args []string) error
}

// commands maps "word" or "word sub" to its command; files add theirs in init.
var commands = map[string]command{}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	args := os.Args[1:]
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage()
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
	if err := cmd.run(ctx, rest); err != nil {
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
	fmt.Fprintln(os.Stderr, "\nRun energyctl COMMAND -h for its flags.")
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
		rec, err := schema.RecordedDSN(filepath.Join(s.dataDir, "clickhouse"))
		if err != nil {
			return nil, fmt.Errorf("no --clickhouse-dsn given and %w", err)
		}
		dsn = strings.Replace(rec, "/default", "/energy", 1)
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
