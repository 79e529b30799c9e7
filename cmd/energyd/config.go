package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"energy/apidocs"
	"energy/cmd/internal/buildinfo"
	"energy/schema"
)

// config is energyd's configuration: typed flags, each with an ENERGY_* environment fallback
// (names and defaults are fixed: manifests and scripts depend on them). A flag's min and max
// tags bound its value; checkRanges refuses one outside them, naming the flag.
type config struct {
	// Listeners.
	Listen string `name:"listen" placeholder:"ADDR" env:"ENERGY_LISTEN" default:":8080" group:"listen" help:"address of the main API"`
	// AdviceListenSet is nil when neither the flag nor its variable is given: AdviceListen then
	// follows the host of --listen.
	AdviceListenSet *string    `name:"advice-listen" placeholder:"ADDR" env:"ENERGY_ADVICE_LISTEN" group:"listen" help:"address of the recommendation API; empty disables it; unset: port 8081 on the host of --listen"`
	PublicURL       string     `name:"public-url" placeholder:"URL" env:"ENERGY_PUBLIC_URL" group:"listen" help:"base of the links the API returns; default from the request"`
	LogLevel        slog.Level `name:"log-level" env:"ENERGY_LOG_LEVEL" default:"info" group:"listen" help:"debug, info, warn or error"`
	// ShutdownDelay: from SIGTERM on, /readyz answers 503 while requests are still served, so
	// that load balancers stop sending new ones before the listeners close.
	ShutdownDelay time.Duration    `name:"shutdown-delay" env:"ENERGY_SHUTDOWN_DELAY" default:"5s" min:"0s" max:"1m" group:"listen" help:"after SIGTERM, how long /readyz answers 503 while requests are still served, before the listeners close and in-flight requests and jobs drain"`
	PprofListen   string           `name:"pprof-listen" placeholder:"ADDR" env:"ENERGY_PPROF_LISTEN" group:"listen" help:"loopback address (127.0.0.1:6060) of a listener serving net/http/pprof under /debug/pprof/; empty: none"`
	Version       kong.VersionFlag `name:"version" group:"listen" help:"print the version and the revision energyd was built from, then exit"`
	// Each API token's bucket of requests, by default and per scope.
	RateLimit       apidocs.RateLimit       `name:"rate-limit" placeholder:"RATE:BURST" env:"ENERGY_RATE_LIMIT" default:"50:100" group:"listen" help:"requests each API token may send: RATE:BURST (per second on average : at once), or off; beyond it 429 RATE_LIMITED with Retry-After"`
	RateLimitScopes apidocs.ScopeRateLimits `name:"rate-limit-scopes" placeholder:"SCOPE=RATE:BURST,…" env:"ENERGY_RATE_LIMIT_SCOPES" group:"listen" help:"per-scope overrides of --rate-limit (for example collect=5:10,admin=off); a token takes the most generous of its scopes' overrides"`

	// The ClickHouse store and the bounds of every call to it.
	DataDir          string        `name:"data-dir" placeholder:"DIR" env:"ENERGY_DATA_DIR" default:"./var" group:"store" help:"directory of the embedded ClickHouse and the archive spool"`
	ClickHouseDSN    string        `name:"clickhouse-dsn" placeholder:"DSN" env:"ENERGY_CLICKHOUSE_DSN" group:"store" help:"ClickHouse DSN (clickhouse://host:9000/db); empty launches an embedded server under the data dir"`
	ClickHousePort   int           `name:"clickhouse-port" env:"ENERGY_CLICKHOUSE_PORT" default:"0" min:"0" max:"65535" group:"store" help:"native protocol port of the embedded ClickHouse on 127.0.0.1; 0: a free port chosen at start"`
	ClickHouseClust  string        `name:"clickhouse-cluster" placeholder:"NAME" env:"ENERGY_CLICKHOUSE_CLUSTER" group:"store" help:"ClickHouse cluster name: migrations use ON CLUSTER, Replicated and Distributed tables"`
	QueryTimeout     time.Duration `name:"query-timeout" env:"ENERGY_QUERY_TIMEOUT" default:"10s" min:"1ms" group:"store" help:"longest wait for one ClickHouse read; a stalled store answers 503 within it"`
	InsertTimeout    time.Duration `name:"insert-timeout" env:"ENERGY_INSERT_TIMEOUT" default:"1m" min:"1ms" group:"store" help:"longest wait for one ClickHouse insert or other write (a failed job insert is retried later)"`
	MigrationTimeout time.Duration `name:"migration-timeout" env:"ENERGY_MIGRATION_TIMEOUT" default:"5m" min:"1ms" group:"store" help:"longest wait for one schema migration statement"`

	// Archive intake and its jobs.
	PGPKeyFiles   []string      `name:"pgp-key-files" placeholder:"FILE" env:"ENERGY_PGP_KEY_FILES" group:"intake" help:"comma-separated OpenPGP private key files for encrypted archives"`
	JobDeadline   time.Duration `name:"job-deadline" env:"ENERGY_JOB_DEADLINE" default:"10m" min:"1ms" group:"intake" help:"a job not finished this long after submission ends in TIMEOUT"`
	JobLease      time.Duration `name:"job-lease" env:"ENERGY_JOB_LEASE" default:"30s" min:"1s" max:"1m" group:"intake" help:"with --clickhouse-cluster: a job whose energyd stops renewing its lease this long is taken over by another energyd; an erasure of a site too (on one node as well)"`
	Workers       int           `name:"workers" env:"ENERGY_WORKERS" default:"2" min:"1" max:"64" group:"intake" help:"archive processing workers"`
	DecodeSlots   int           `name:"decode-slots" env:"ENERGY_DECODE_SLOTS" default:"0" min:"0" max:"64" group:"intake" help:"archives decompressed and files decoded at once across the workers; 0: one fewer than the processors (at least 1), so that one stays free for requests"`
	UploadMinRate int64         `name:"upload-min-rate" env:"ENERGY_UPLOAD_MIN_RATE" default:"16384" min:"1" group:"intake" help:"bytes/s an archive upload must average once --upload-grace has passed, else it is cut off with a 400"`
	UploadGrace   time.Duration `name:"upload-grace" env:"ENERGY_UPLOAD_GRACE" default:"10s" min:"1ms" group:"intake" help:"time an archive upload has before --upload-min-rate applies"`
	// BenchSkipDailyEnergy exists for make bench-ingest only (what maintaining the daily energy
	// table costs a job): jobs then leave the table stale. Hidden from --help.
	BenchSkipDailyEnergy bool `name:"bench-skip-daily-energy" env:"ENERGY_BENCH_SKIP_DAILY_ENERGY" hidden:"" group:"intake" help:"benchmarks only: jobs do not write the daily energy table, which goes stale"`

	// Answers: the result cache, the carbon defaults, the recommendation jobs.
	AdviceWorkers        int     `name:"advice-workers" env:"ENERGY_ADVICE_WORKERS" default:"2" min:"1" max:"64" group:"answers" help:"recommendation jobs computed at once"`
	CacheEntries         int     `name:"cache-entries" env:"ENERGY_CACHE_ENTRIES" default:"10000" min:"0" group:"answers" help:"most consumption answers kept in the result cache; 0 disables it"`
	CacheMB              int     `name:"cache-mb" env:"ENERGY_CACHE_MB" default:"256" min:"1" group:"answers" help:"approximate memory bound of the consumption result cache, MiB"`
	MemoryHeadroomMB     int     `name:"memory-headroom-mb" env:"ENERGY_MEMORY_HEADROOM_MB" default:"128" min:"16" group:"answers" help:"without a container memory limit, MiB beyond --cache-mb in the Go soft memory limit (under one: 90% of it; GOMEMLIMIT, when set, wins)"`
	CarbonCoefficient    float64 `name:"carbon-coefficient" env:"ENERGY_CARBON_COEFFICIENT" default:"0.052" min:"0" max:"10" group:"answers" help:"kgCO2e/kWh of sites whose tariff has none; the default is ADEME Base Empreinte's French average mix"`
	GasCarbonCoefficient float64 `name:"gas-carbon-coefficient" env:"ENERGY_GAS_CARBON_COEFFICIENT" default:"0.227" min:"0" max:"10" group:"answers" help:"kgCO2e/kWh of gas for sites whose gas tariff has none; the default is ADEME Base Empreinte's natural gas"`

	// Target notifications: SMTP for EMAIL, an HTTP gateway for SMS.
	SMTPURL             string        `name:"smtp-url" placeholder:"URL" env:"ENERGY_SMTP_URL" group:"notify" help:"SMTP server of EMAIL notifications: smtp://user:pass@host:port?from=addr (STARTTLS when offered; smtps:// for TLS); empty: EMAIL notifications fail"`
	SMTPCAFile          string        `name:"smtp-ca-file" placeholder:"FILE" env:"ENERGY_SMTP_CA_FILE" group:"notify" help:"PEM certificates trusted for the SMTP server's TLS besides the system's (an internal CA or a self-signed server certificate)"`
	SMSGatewayURL       string        `name:"sms-gateway-url" placeholder:"URL" env:"ENERGY_SMS_GATEWAY_URL" group:"notify" help:"HTTP gateway of SMS notifications (POST {\"to\", \"text\"}, bearer ENERGY_SMS_GATEWAY_TOKEN); empty: SMS notifications fail"`
	NotificationBackoff time.Duration `name:"notification-backoff" env:"ENERGY_NOTIFICATION_BACKOFF" default:"30s" min:"1ms" group:"notify" help:"wait after a notification's first failed attempt, doubled after each further one (8 attempts at most)"`
	// AdviceListen is the recommendation API's address; empty: none.
	AdviceListen string `kong:"-"`
	// SMSGatewayToken comes from the environment only, never from a flag visible in ps.
	SMSGatewayToken string `kong:"-"`
}

// flagGroups titles the groups of --help.
var flagGroups = []kong.Group{
	{Key: "listen", Title: "Listeners:"},
	{Key: "store", Title: "ClickHouse store:"},
	{Key: "intake", Title: "Archive intake and jobs:"},
	{Key: "answers", Title: "Answers (cache, carbon, recommendations):"},
	{Key: "notify", Title: "Target notifications:"},
}

// errHelp is returned once --help has printed the usage (or --version the version): energyd
// then exits at once, with 0.
var errHelp = errors.New("help printed")

func loadConfig(args []string) (config, error) {
	var c config
	helped := false
	parser, err := newParser(&c, func(int) { helped = true })
	if err != nil {
		return c, err
	}
	_, err = parser.Parse(args)
	if helped {
		return c, errHelp
	}
	if err != nil {
		return c, err
	}
	if err := checkRanges(parser.Model); err != nil {
		return c, err
	}
	c.SMSGatewayToken = os.Getenv("ENERGY_SMS_GATEWAY_TOKEN")
	c.AdviceListen = followHost(c.Listen, "8081")
	if c.AdviceListenSet != nil {
		c.AdviceListen = *c.AdviceListenSet
	}
	var keys []string
	for _, k := range c.PGPKeyFiles {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	c.PGPKeyFiles = keys
	if c.PprofListen != "" {
		if err := checkLoopback(c.PprofListen); err != nil {
			return c, fmt.Errorf("--pprof-listen: %w", err)
		}
	}
	if c.ClickHousePort != 0 && c.ClickHouseDSN != "" {
		return c, fmt.Errorf("--clickhouse-port %d: only for the embedded ClickHouse, and --clickhouse-dsn is set (the DSN carries the port)", c.ClickHousePort)
	}
	return c, nil
}

// newParser declares c's flags; exit is called once --help has printed the usage.
func newParser(c *config, exit func(int)) (*kong.Kong, error) {
	return kong.New(c, kong.Name("energyd"),
		kong.Description("energyd serves the main API and the recommendation API over ClickHouse. Every flag falls back to the environment variable shown."),
		kong.ExplicitGroups(flagGroups), kong.ValueFormatter(helpWithBounds), kong.Exit(exit),
		kong.Vars{"version": buildinfo.Read().String("energyd")})
}

// rateLimits are the sizes of the API tokens' buckets.
func (c config) rateLimits() apidocs.RateLimits {
	return apidocs.RateLimits{Default: c.RateLimit, ByScope: c.RateLimitScopes}
}

// storeTimeouts are the bounds of every ClickHouse call.
func (c config) storeTimeouts() schema.Timeouts {
	return schema.Timeouts{Read: c.QueryTimeout, Write: c.InsertTimeout, Migrate: c.MigrationTimeout}
}

// checkRanges refuses a flag's value outside its min and max tags, naming the flag: kong checks
// the type, this the bounds.
func checkRanges(app *kong.Application) error {
	for _, f := range app.Flags {
		lo, hi := f.Tag.Get("min"), f.Tag.Get("max")
		if lo == "" && hi == "" {
			continue
		}
		in, err := within(f.Target.Interface(), lo, hi)
		if err != nil {
			return fmt.Errorf("--%s: bad bound in its declaration: %w", f.Name, err)
		}
		if !in {
			return fmt.Errorf("--%s: %v is not %s", f.Name, f.Target.Interface(), bounds(lo, hi))
		}
	}
	return nil
}

// within tells whether v lies in [lo, hi], either bound empty meaning none.
func within(v any, lo, hi string) (bool, error) {
	var parse func(string) (float64, error)
	var x float64
	switch v := v.(type) {
	case time.Duration:
		x, parse = float64(v), func(s string) (float64, error) { d, err := time.ParseDuration(s); return float64(d), err }
	case int:
		x, parse = float64(v), func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	case int64:
		x, parse = float64(v), func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	case float64:
		x, parse = v, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	default:
		return false, fmt.Errorf("min/max on a %T", v)
	}
	for _, b := range []struct {
		s    string
		fits func(float64) bool
	}{{lo, func(b float64) bool { return x >= b }}, {hi, func(b float64) bool { return x <= b }}} {
		if b.s == "" {
			continue
		}
		bound, err := parse(b.s)
		if err != nil {
			return false, err
		}
		if !b.fits(bound) {
			return false, nil
		}
	}
	return true, nil
}

func bounds(lo, hi string) string {
	switch {
	case hi == "":
		return "≥ " + lo
	case lo == "":
		return "≤ " + hi
	}
	return "from " + lo + " to " + hi
}

// helpWithBounds is a flag's help line: its text, then its default, bounds and variable.
func helpWithBounds(v *kong.Value) string {
	var notes []string
	if v.Default != "" {
		notes = append(notes, "default "+v.Default)
	}
	if lo, hi := v.Tag.Get("min"), v.Tag.Get("max"); lo != "" || hi != "" {
		notes = append(notes, bounds(lo, hi))
	}
	for _, env := range v.Tag.Envs {
		notes = append(notes, "$"+env)
	}
	if len(notes) == 0 {
		return v.Help
	}
	return v.Help + " (" + strings.Join(notes, "; ") + ")"
}

// followHost is port on the host of addr: a main API restricted to one interface keeps the
// recommendation API on that interface too, rather than exposing it on every one.
func followHost(addr, port string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ":" + port
	}
	return net.JoinHostPort(host, port)
}
