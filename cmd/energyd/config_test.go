package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"energy/apidocs"
	"energy/ingest"
	"energy/schema/registry"
)

// The names and defaults of the flags (apidocs/README.md, "Services") are fixed: scripts and clients depend on them.
func TestConfigDefaultsEnvAndFlags(t *testing.T) {
	for _, env := range []string{"ENERGY_LISTEN", "ENERGY_ADVICE_LISTEN", "ENERGY_DATA_DIR", "ENERGY_CLICKHOUSE_DSN",
		"ENERGY_CLICKHOUSE_CLUSTER", "ENERGY_PUBLIC_URL", "ENERGY_PGP_KEY_FILES", "ENERGY_JOB_DEADLINE", "ENERGY_WORKERS", "ENERGY_LOG_LEVEL"} {
		unsetenv(t, env)
	}
	c, err := loadConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != ":8080" || c.AdviceListen != ":8081" || c.DataDir != "./var" || c.ClickHouseDSN != "" || c.PublicURL != "" ||
		len(c.PGPKeyFiles) != 0 || c.JobDeadline != 10*time.Minute || c.Workers != 2 || c.LogLevel != slog.LevelInfo {
		t.Fatalf("defaults: %+v", c)
	}

	t.Setenv("ENERGY_LISTEN", "127.0.0.1:9090")
	t.Setenv("ENERGY_ADVICE_LISTEN", "") // empty disables the recommendation listener
	t.Setenv("ENERGY_PGP_KEY_FILES", "a.asc, b.gpg")
	t.Setenv("ENERGY_CLICKHOUSE_DSN", "clickhouse://ch:9000/energy")
	c, err = loadConfig([]string{"--listen", ":7070", "--public-url", "https://energy.example"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != ":7070" || c.AdviceListen != "" || strings.Join(c.PGPKeyFiles, "|") != "a.asc|b.gpg" ||
		c.ClickHouseDSN != "clickhouse://ch:9000/energy" || c.PublicURL != "https://energy.example" {
		t.Fatalf("flags over env over defaults: %+v", c)
	}

	if c.UploadMinRate != 16384 || c.UploadGrace != 10*time.Second {
		t.Fatalf("upload rate defaults: %d bytes/s after %s", c.UploadMinRate, c.UploadGrace)
	}
	if c, err = loadConfig([]string{"--upload-min-rate", "1000", "--upload-grace", "2s"}); err != nil || c.UploadMinRate != 1000 || c.UploadGrace != 2*time.Second {
		t.Fatalf("upload rate flags: %d bytes/s after %s (%v)", c.UploadMinRate, c.UploadGrace, err)
	}

	if c.DecodeSlots != 0 { // 0: the ingest service leaves a processor to requests
		t.Fatalf("decode slots default: %d", c.DecodeSlots)
	}
	if c, err = loadConfig([]string{"--decode-slots", "3"}); err != nil || c.DecodeSlots != 3 {
		t.Fatalf("--decode-slots 3: %d (%v)", c.DecodeSlots, err)
	}

	if c, err = loadConfig([]string{"--job-lease", ingest.MaxLease.String()}); err != nil || c.JobLease != ingest.MaxLease {
		t.Fatalf("--job-lease at its bound ingest.MaxLease: %s (%v)", c.JobLease, err)
	}

	// Every malformed or out-of-range value is refused with an error naming its flag.
	for _, bad := range [][]string{{"--job-deadline", "soon"}, {"--job-lease", (ingest.MaxLease + time.Second).String()}, {"--job-lease", "0s"},
		{"--workers", "0"}, {"--workers", "x"}, {"--workers", "2x"}, {"--workers", "65"},
		{"--decode-slots", "-1"}, {"--decode-slots=-1"}, {"--decode-slots", "65"}, {"--decode-slots", "all"},
		{"--upload-min-rate", "0"}, {"--upload-min-rate", "fast"}, {"--upload-grace", "-1s"}, {"--upload-grace=-1s"},
		{"--cache-mb", "0"}, {"--memory-headroom-mb", "15"}, {"--carbon-coefficient", "10.5"}, {"--gas-carbon-coefficient", "-0.1"},
		{"--notification-backoff", "0s"}, {"--query-timeout", "10"}, {"--log-level", "loud"}} {
		_, err := loadConfig(bad)
		if name, _, _ := strings.Cut(bad[0], "="); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("loadConfig(%q): %v, want an error naming %s", bad, err, name)
		}
	}
	if _, err := loadConfig([]string{"--nope"}); err == nil || !strings.Contains(err.Error(), "--nope") {
		t.Errorf("unknown flag: %v", err)
	}
}

// A malformed value in an ENERGY_* variable is refused naming both the flag and the variable.
func TestConfigRefusesABadEnvironmentValue(t *testing.T) {
	t.Setenv("ENERGY_WORKERS", "2x")
	if _, err := loadConfig(nil); err == nil || !strings.Contains(err.Error(), "--workers") || !strings.Contains(err.Error(), "ENERGY_WORKERS") {
		t.Fatalf("ENERGY_WORKERS=2x: %v", err)
	}
	t.Setenv("ENERGY_WORKERS", "65")
	if _, err := loadConfig(nil); err == nil || !strings.Contains(err.Error(), "--workers: 65 is not from 1 to 64") {
		t.Fatalf("ENERGY_WORKERS=65: %v", err)
	}
	t.Setenv("ENERGY_WORKERS", "4")
	if c, err := loadConfig(nil); err != nil || c.Workers != 4 {
		t.Fatalf("ENERGY_WORKERS=4: %d (%v)", c.Workers, err)
	}
}

// energyd itself: a malformed flag stops it with a non-zero status and a message naming the flag,
// before it opens anything; --help prints the grouped flags and exits with 0.
func TestEnergydRefusesAMalformedFlag(t *testing.T) {
	bin := buildEnergyd(t)
	out, err := exec.Command(bin, "--workers", "2x", "--data-dir", t.TempDir()).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 || !strings.Contains(string(out), `--workers: expected a valid 64 bit int but got \"2x\"`) {
		t.Fatalf("energyd --workers 2x: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("energyd --help: %v\n%s", err, out)
	}
	for _, group := range flagGroups {
		if !strings.Contains(string(out), "\n"+group.Title+"\n") {
			t.Errorf("energyd --help lacks the group %q:\n%s", group.Title, out)
		}
	}
	if !strings.Contains(string(out), "--workers=2") || !strings.Contains(string(out), "from 1 to") || !strings.Contains(string(out), "$ENERGY_WORKERS") {
		t.Errorf("energyd --help does not show --workers' default, bounds and variable:\n%s", out)
	}
}

// TestREADMEListsEveryFlag keeps the configuration table of deploy/README.md true: every flag that
// loadConfig declares appears there with its environment variable.
func TestREADMEListsEveryFlag(t *testing.T) {
	readme, err := os.ReadFile("../../deploy/README.md")
	if err != nil {
		t.Fatal(err)
	}
	parser, err := newParser(&config{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range parser.Model.Flags {
		if f.Name == "help" || f.Name == "version" {
			continue
		}
		if len(f.Envs) != 1 {
			t.Errorf("--%s has %d environment variables, want one", f.Name, len(f.Envs))
			continue
		}
		row := fmt.Sprintf("| `--%s` | `%s` |", f.Name, f.Envs[0])
		if !strings.Contains(string(readme), row) {
			t.Errorf("deploy/README.md's energyd table lacks the row starting %s (default %q)", row, f.Default)
		}
	}
}

// The recommendation listener follows the host of the main one unless it is set itself.
func TestAdviceListenerFollowsTheMainHost(t *testing.T) {
	unsetenv(t, "ENERGY_LISTEN")
	unsetenv(t, "ENERGY_ADVICE_LISTEN")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, ":8081"},
		{[]string{"--listen", "127.0.0.1:8080"}, "127.0.0.1:8081"},
		{[]string{"--listen", "[::1]:9000"}, "[::1]:8081"},
		{[]string{"--listen", "127.0.0.1:8080", "--advice-listen", ":9091"}, ":9091"},
		{[]string{"--listen", "127.0.0.1:8080", "--advice-listen", ""}, ""},
	} {
		cfg, err := loadConfig(c.args)
		if err != nil || cfg.AdviceListen != c.want {
			t.Errorf("%q: advice listener %q (%v), want %q", c.args, cfg.AdviceListen, err, c.want)
		}
	}
	t.Setenv("ENERGY_LISTEN", "127.0.0.1:8080")
	t.Setenv("ENERGY_ADVICE_LISTEN", "0.0.0.0:8081")
	if cfg, _ := loadConfig(nil); cfg.AdviceListen != "0.0.0.0:8081" {
		t.Errorf("ENERGY_ADVICE_LISTEN set: %q", cfg.AdviceListen)
	}
}

// The embedded ClickHouse's port: 0 (a free one) by default, any port number, nothing else, and
// never together with a DSN (which carries its own).
func TestClickHousePortSetting(t *testing.T) {
	unsetenv(t, "ENERGY_CLICKHOUSE_PORT")
	unsetenv(t, "ENERGY_CLICKHOUSE_DSN")
	if c, err := loadConfig(nil); err != nil || c.ClickHousePort != 0 {
		t.Fatalf("default: %d %v", c.ClickHousePort, err)
	}
	if c, err := loadConfig([]string{"--clickhouse-port", "19000"}); err != nil || c.ClickHousePort != 19000 {
		t.Fatalf("flag: %d %v", c.ClickHousePort, err)
	}
	t.Setenv("ENERGY_CLICKHOUSE_PORT", "29000")
	if c, err := loadConfig(nil); err != nil || c.ClickHousePort != 29000 {
		t.Fatalf("environment: %d %v", c.ClickHousePort, err)
	}
	for _, bad := range [][]string{{"--clickhouse-port", "65536"}, {"--clickhouse-port", "-1"}, {"--clickhouse-port", "ch"},
		{"--clickhouse-port", "9000", "--clickhouse-dsn", "clickhouse://ch:9000/energy"}} {
		if _, err := loadConfig(bad); err == nil || !strings.Contains(err.Error(), "--clickhouse-port") {
			t.Errorf("loadConfig(%v): %v, want an error naming --clickhouse-port", bad, err)
		}
	}
}

// The rate limits: 50:100 by default, overrides per scope, a bad value refused naming the flag.
func TestRateLimitFlags(t *testing.T) {
	c, err := loadConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := c.rateLimits(); l.Default != (apidocs.RateLimit{PerSecond: 50, Burst: 100}) || len(l.ByScope) != 0 {
		t.Fatalf("default rate limits %+v", l)
	}
	c, err = loadConfig([]string{"--rate-limit", "off", "--rate-limit-scopes", "collect=5:10"})
	if err != nil {
		t.Fatal(err)
	}
	if l := c.rateLimits(); l.Default.PerSecond != 0 || l.ByScope[registry.ScopeCollect] != (apidocs.RateLimit{PerSecond: 5, Burst: 10}) {
		t.Fatalf("rate limits %+v", l)
	}
	if _, err := loadConfig([]string{"--rate-limit", "fast"}); err == nil || !strings.Contains(err.Error(), "rate-limit") {
		t.Fatalf("--rate-limit fast: %v, want an error naming the flag", err)
	}
}
