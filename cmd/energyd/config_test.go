package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
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
		len(c.PGPKeyFiles) != 0 || c.JobDeadline != 10*time.Minute || c.Workers != 2 || c.LogLevel != "info" {
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

	if c.LoadCurveSums {
		t.Fatal("load-curve sums on by default")
	}
	if c, err = loadConfig([]string{"--load-curve-sums", "true"}); err != nil || !c.LoadCurveSums {
		t.Fatalf("--load-curve-sums true: %v (%v)", c.LoadCurveSums, err)
	}
	if c.DecodeSlots != 0 { // 0: the ingest service leaves a processor to requests
		t.Fatalf("decode slots default: %d", c.DecodeSlots)
	}
	if c, err = loadConfig([]string{"--decode-slots", "3"}); err != nil || c.DecodeSlots != 3 {
		t.Fatalf("--decode-slots 3: %d (%v)", c.DecodeSlots, err)
	}

	for _, bad := range [][]string{{"--load-curve-sums", "maybe"}, {"--job-deadline", "soon"}, {"--job-lease", "2m"}, {"--job-lease", "0s"}, {"--workers", "0"}, {"--workers", "x"}, {"--nope"},
		{"--decode-slots", "-1"}, {"--decode-slots", "65"}, {"--decode-slots", "all"},
		{"--upload-min-rate", "0"}, {"--upload-min-rate", "fast"}, {"--upload-grace", "-1s"}} {
		if _, err := loadConfig(bad); err == nil {
			t.Errorf("loadConfig(%v) accepted a bad value", bad)
		}
	}
}

// TestREADMEListsEveryFlag keeps the configuration table of deploy/README.md true: every flag that
// loadConfig declares appears there with its environment variable.
func TestREADMEListsEveryFlag(t *testing.T) {
	src, err := os.ReadFile("config.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../deploy/README.md")
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`str\(&[\w.]+, "([a-z-]+)", "(ENERGY_[A-Z_]+)", "([^"]*)"`)
	found := decl.FindAllStringSubmatch(string(src), -1)
	if len(found) < 10 {
		t.Fatalf("found only %d flag declarations in config.go: has its style changed?", len(found))
	}
	for _, f := range found {
		row := fmt.Sprintf("| `--%s` | `%s` |", f[1], f[2])
		if !strings.Contains(string(readme), row) {
			t.Errorf("deploy/README.md's energyd table lacks the row starting %s (default %q)", row, f[3])
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
