package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"energy/ingest"
	"energy/schema"
)

// config is energyd's configuration: each flag has an ENERGY_* environment fallback
// (apidocs/README.md, "Services"; names and defaults are fixed, scripts depend on them).
type config struct {
	Listen          string
	AdviceListen    string
	DataDir         string
	ClickHouseDSN   string
	ClickHouseClust string
	ClickHousePort  int // of the embedded ClickHouse, on 127.0.0.1 (0: a free one)
	PublicURL       string
	PGPKeyFiles     []string
	JobDeadline     time.Duration
	JobLease        time.Duration
	Workers         int
	DecodeSlots     int // 0: ingest.DefaultDecodeSlots
	AdviceWorkers   int
	LogLevel        string
	// Consumption result cache and carbon default of the consumption answers.
	CacheEntries      int
	CacheMB           int
	CarbonCoefficient float64
	// GasCarbonCoefficient is the kgCO2e/kWh of gas answers whose gas tariff names none.
	GasCarbonCoefficient float64
	// MemoryHeadroomMB is added to CacheMB for the Go collector's soft memory limit.
	MemoryHeadroomMB int
	// LoadCurveSums answers load-curve steps from ClickHouse's sums per interval instead of the
	// points (slower on 18.16, measured by make bench-sums; for servers where it is faster).
	LoadCurveSums bool
	// Bounds of every ClickHouse call: reads, inserts and other writes, migration statements.
	StoreTimeouts schema.Timeouts
	// Target notifications: SMTP for EMAIL, an HTTP gateway for SMS (its token from the
	// environment only, never a flag visible in ps).
	SMTPURL             string
	SMTPCAFile          string
	SMSGatewayURL       string
	SMSGatewayToken     string
	NotificationBackoff time.Duration
	// UploadMinRate and UploadGrace: the slowest archive upload waited for.
	UploadMinRate int64
	UploadGrace   time.Duration
}

func loadConfig(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("energyd", flag.ContinueOnError)
	str := func(p *string, name, env, def, usage string) {
		fs.StringVar(p, name, envOr(env, def), usage+" (env "+env+")")
	}
	str(&c.Listen, "listen", "ENERGY_LISTEN", ":8080", "address of the main API")
	str(&c.AdviceListen, "advice-listen", "ENERGY_ADVICE_LISTEN", ":8081", "address of the recommendation API; empty disables it; unset: port 8081 on the host of --listen")
	str(&c.DataDir, "data-dir", "ENERGY_DATA_DIR", "./var", "directory of the embedded ClickHouse and the archive spool")
	str(&c.ClickHouseDSN, "clickhouse-dsn", "ENERGY_CLICKHOUSE_DSN", "", "ClickHouse DSN (clickhouse://host:9000/db); empty launches an embedded server under the data dir")
	var chPort string
	str(&chPort, "clickhouse-port", "ENERGY_CLICKHOUSE_PORT", "0", "native protocol port of the embedded ClickHouse on 127.0.0.1; 0: a free port chosen at start")
	str(&c.ClickHouseClust, "clickhouse-cluster", "ENERGY_CLICKHOUSE_CLUSTER", "", "ClickHouse cluster name: migrations use ON CLUSTER, Replicated and Distributed tables")
	str(&c.PublicURL, "public-url", "ENERGY_PUBLIC_URL", "", "base of the links the API returns; default from the request")
	var keys string
	str(&keys, "pgp-key-files", "ENERGY_PGP_KEY_FILES", "", "comma-separated OpenPGP private key files for encrypted archives")
	var deadline string
	str(&deadline, "job-deadline", "ENERGY_JOB_DEADLINE", "10m", "a job not finished this long after submission ends in TIMEOUT")
	var lease string
	str(&lease, "job-lease", "ENERGY_JOB_LEASE", "30s", "with --clickhouse-cluster: a job whose energyd stops renewing its lease this long (at most 1m) is taken over by another energyd")
	var workers string
	str(&workers, "workers", "ENERGY_WORKERS", "2", "archive processing workers")
	var decodeSlots string
	str(&decodeSlots, "decode-slots", "ENERGY_DECODE_SLOTS", "0", "archives decompressed and files decoded at once across the workers; 0: one fewer than the processors (at least 1), so that one stays free for requests")
	var adviceWorkers string
	str(&adviceWorkers, "advice-workers", "ENERGY_ADVICE_WORKERS", "2", "recommendation jobs computed at once")
	str(&c.LogLevel, "log-level", "ENERGY_LOG_LEVEL", "info", "debug, info, warn or error")
	var cacheEntries, cacheMB, carbon, gasCarbon string
	str(&cacheEntries, "cache-entries", "ENERGY_CACHE_ENTRIES", "10000", "most consumption answers kept in the result cache; 0 disables it")
	str(&cacheMB, "cache-mb", "ENERGY_CACHE_MB", "256", "approximate memory bound of the consumption result cache, MiB")
	str(&carbon, "carbon-coefficient", "ENERGY_CARBON_COEFFICIENT", "0.052", "kgCO2e/kWh of sites whose tariff has none (default: ADEME Base Empreinte, French average mix)")
	str(&gasCarbon, "gas-carbon-coefficient", "ENERGY_GAS_CARBON_COEFFICIENT", "0.227", "kgCO2e/kWh of gas for sites whose gas tariff has none (default: ADEME Base Empreinte, natural gas)")
	var headroom, curveSums string
	str(&curveSums, "load-curve-sums", "ENERGY_LOAD_CURVE_SUMS", "false", "true: HOURS and MINUTES steps summed by ClickHouse per interval instead of from the points (same answers; slower on ClickHouse 18.16, measure yours with make bench-sums)")
	str(&headroom, "memory-headroom-mb", "ENERGY_MEMORY_HEADROOM_MB", "128", "MiB beyond --cache-mb in the Go soft memory limit (GOMEMLIMIT, when set, wins)")
	var queryTimeout, insertTimeout, migrationTimeout string
	str(&queryTimeout, "query-timeout", "ENERGY_QUERY_TIMEOUT", "10s", "longest wait for one ClickHouse read; a stalled store answers 503 within it")
	str(&insertTimeout, "insert-timeout", "ENERGY_INSERT_TIMEOUT", "1m", "longest wait for one ClickHouse insert or other write (a failed job insert is retried later)")
	str(&migrationTimeout, "migration-timeout", "ENERGY_MIGRATION_TIMEOUT", "5m", "longest wait for one schema migration statement")
	str(&c.SMTPURL, "smtp-url", "ENERGY_SMTP_URL", "", "SMTP server of EMAIL notifications: smtp://user:pass@host:port?from=addr (STARTTLS when offered; smtps:// for TLS); empty: EMAIL notifications fail")
	str(&c.SMTPCAFile, "smtp-ca-file", "ENERGY_SMTP_CA_FILE", "", "PEM certificates trusted for the SMTP server's TLS besides the system's (an internal CA or a self-signed server certificate)")
	str(&c.SMSGatewayURL, "sms-gateway-url", "ENERGY_SMS_GATEWAY_URL", "", "HTTP gateway of SMS notifications (POST {\"to\", \"text\"}, bearer ENERGY_SMS_GATEWAY_TOKEN); empty: SMS notifications fail")
	var backoff string
	str(&backoff, "notification-backoff", "ENERGY_NOTIFICATION_BACKOFF", "30s", "wait after a notification's first failed attempt, doubled after each further one (8 attempts at most)")
	var uploadRate, uploadGrace string
	str(&uploadRate, "upload-min-rate", "ENERGY_UPLOAD_MIN_RATE", "16384", "bytes/s an archive upload must average once --upload-grace has passed, else it is cut off with a 400")
	str(&uploadGrace, "upload-grace", "ENERGY_UPLOAD_GRACE", "10s", "time an archive upload has before --upload-min-rate applies")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.SMSGatewayToken = os.Getenv("ENERGY_SMS_GATEWAY_TOKEN")
	if d, err := time.ParseDuration(backoff); err != nil || d <= 0 {
		return c, fmt.Errorf("--notification-backoff: %q is not a positive duration (for example 30s)", backoff)
	} else {
		c.NotificationBackoff = d
	}
	if !flagGiven(fs, "advice-listen", "ENERGY_ADVICE_LISTEN") {
		c.AdviceListen = followHost(c.Listen, "8081")
	}
	for _, k := range strings.Split(keys, ",") {
		if k = strings.TrimSpace(k); k != "" {
			c.PGPKeyFiles = append(c.PGPKeyFiles, k)
		}
	}
	var err error
	if c.JobDeadline, err = time.ParseDuration(deadline); err != nil || c.JobDeadline <= 0 {
		return c, fmt.Errorf("--job-deadline: %q is not a positive duration (for example 10m)", deadline)
	}
	if c.JobLease, err = time.ParseDuration(lease); err != nil || c.JobLease <= 0 || c.JobLease > ingest.MaxLease {
		return c, fmt.Errorf("--job-lease: %q is not a duration from 1s to 1m (for example 30s)", lease)
	}
	for _, d := range []struct {
		flag, value string
		into        *time.Duration
	}{
		{"query-timeout", queryTimeout, &c.StoreTimeouts.Read},
		{"insert-timeout", insertTimeout, &c.StoreTimeouts.Write},
		{"migration-timeout", migrationTimeout, &c.StoreTimeouts.Migrate},
	} {
		if *d.into, err = time.ParseDuration(d.value); err != nil || *d.into <= 0 {
			return c, fmt.Errorf("--%s: %q is not a positive duration (for example 10s)", d.flag, d.value)
		}
	}
	if _, err := fmt.Sscan(uploadRate, &c.UploadMinRate); err != nil || c.UploadMinRate < 1 {
		return c, fmt.Errorf("--upload-min-rate: %q is not a number of bytes per second ≥ 1", uploadRate)
	}
	if c.UploadGrace, err = time.ParseDuration(uploadGrace); err != nil || c.UploadGrace <= 0 {
		return c, fmt.Errorf("--upload-grace: %q is not a positive duration (for example 10s)", uploadGrace)
	}
	if _, err := fmt.Sscan(workers, &c.Workers); err != nil || c.Workers < 1 || c.Workers > 64 {
		return c, fmt.Errorf("--workers: %q is not a number from 1 to 64", workers)
	}
	if _, err := fmt.Sscan(decodeSlots, &c.DecodeSlots); err != nil || c.DecodeSlots < 0 || c.DecodeSlots > 64 {
		return c, fmt.Errorf("--decode-slots: %q is not a number from 0 to 64", decodeSlots)
	}
	if _, err := fmt.Sscan(adviceWorkers, &c.AdviceWorkers); err != nil || c.AdviceWorkers < 1 || c.AdviceWorkers > 64 {
		return c, fmt.Errorf("--advice-workers: %q is not a number from 1 to 64", adviceWorkers)
	}
	if _, err := fmt.Sscan(cacheEntries, &c.CacheEntries); err != nil || c.CacheEntries < 0 {
		return c, fmt.Errorf("--cache-entries: %q is not a number ≥ 0", cacheEntries)
	}
	if _, err := fmt.Sscan(cacheMB, &c.CacheMB); err != nil || c.CacheMB < 1 {
		return c, fmt.Errorf("--cache-mb: %q is not a number ≥ 1", cacheMB)
	}
	if _, err := fmt.Sscan(headroom, &c.MemoryHeadroomMB); err != nil || c.MemoryHeadroomMB < 16 {
		return c, fmt.Errorf("--memory-headroom-mb: %q is not a number ≥ 16", headroom)
	}
	if c.LoadCurveSums, err = strconv.ParseBool(curveSums); err != nil {
		return c, fmt.Errorf("--load-curve-sums: %q is not true or false", curveSums)
	}
	if _, err := fmt.Sscan(chPort, &c.ClickHousePort); err != nil || c.ClickHousePort < 0 || c.ClickHousePort > 65535 {
		return c, fmt.Errorf("--clickhouse-port: %q is not a port number from 0 to 65535", chPort)
	}
	if c.ClickHousePort != 0 && c.ClickHouseDSN != "" {
		return c, fmt.Errorf("--clickhouse-port %d: only for the embedded ClickHouse, and --clickhouse-dsn is set (the DSN carries the port)", c.ClickHousePort)
	}
	if _, err := fmt.Sscan(carbon, &c.CarbonCoefficient); err != nil || c.CarbonCoefficient < 0 || c.CarbonCoefficient > 10 {
		return c, fmt.Errorf("--carbon-coefficient: %q is not a number of kgCO2e/kWh from 0 to 10", carbon)
	}
	if _, err := fmt.Sscan(gasCarbon, &c.GasCarbonCoefficient); err != nil || c.GasCarbonCoefficient < 0 || c.GasCarbonCoefficient > 10 {
		return c, fmt.Errorf("--gas-carbon-coefficient: %q is not a number of kgCO2e/kWh from 0 to 10", gasCarbon)
	}
	return c, nil
}

// flagGiven tells whether the flag or its environment variable was set.
func flagGiven(fs *flag.FlagSet, name, env string) bool {
	_, given := os.LookupEnv(env)
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
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

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}
