package main

import (
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"energy/schema/chtest"
)

// runScriptFunction is the text of a shell function of scripts/run.sh (make run), to be
// sourced on its own.
func runScriptFunction(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../scripts/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?ms)^` + name + `\(\) \{.*?^\}\n|^` + name + `\(\) \{.*?\}\n`).Find(b)
	if m == nil {
		t.Fatalf("scripts/run.sh has no function %s", name)
	}
	return string(m)
}

// The clickhouse-client line that make run prints reaches the store energyd uses, as printed:
// a DSN with its own encoded password, a DSN with the password in ENERGY_CLICKHOUSE_PASSWORD or
// in a _FILE, and the embedded server recorded under the data dir.
func TestRunScriptPrintsAWorkingClickHouseLine(t *testing.T) {
	client, err := exec.LookPath("clickhouse-client")
	if err != nil {
		t.Fatalf("clickhouse-client is needed (Debian package clickhouse-client): %v", err)
	}
	addr := startPasswordServer(t)
	host, port, _ := net.SplitHostPort(addr)
	secret := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(secret, []byte(oddPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// An embedded server as energyd records it (its tables are in database energy), with
	// credentials in the environment that energyd, and so the line, leaves aside. The tests'
	// store stands for it (a launched server, or one node of the launched cluster).
	store, err := url.Parse(chtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	embeddedVar := t.TempDir()
	if err := os.MkdirAll(filepath.Join(embeddedVar, "clickhouse"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(embeddedVar, "clickhouse", "endpoint"), []byte("clickhouse://"+store.Host+"/default\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ehost, eport, _ := net.SplitHostPort(store.Host)
	functions := runScriptFunction(t, "url_decode") + runScriptFunction(t, "clickhouse_client_line")
	cases := []struct {
		name string
		env  []string
		want string
	}{
		{"password in the DSN", []string{"ENERGY_CLICKHOUSE_DSN=clickhouse://energy:p%40ss%2Fw%3Ard%25%23%3F@" + addr + "/energy?dial_timeout=3s"},
			"clickhouse-client --host " + host + " --port " + port + " --database energy --user energy --password "},
		{"password in the environment", []string{"ENERGY_CLICKHOUSE_DSN=clickhouse://" + addr + "/energy", "ENERGY_CLICKHOUSE_USER=energy", "ENERGY_CLICKHOUSE_PASSWORD=" + oddPassword},
			"clickhouse-client --host " + host + " --port " + port + " --database energy --user energy --password "},
		{"password in a file", []string{"ENERGY_CLICKHOUSE_DSN=clickhouse://someone@" + addr + "/energy", "ENERGY_CLICKHOUSE_USER=energy", "ENERGY_CLICKHOUSE_PASSWORD_FILE=" + secret},
			"clickhouse-client --host " + host + " --port " + port + " --database energy --user energy --password \"$(cat " + secret + ")\""},
		{"embedded", []string{"ENERGY_CLICKHOUSE_USER=energy", "ENERGY_CLICKHOUSE_PASSWORD_FILE=" + secret},
			"clickhouse-client --host " + ehost + " --port " + eport + " --database energy"},
	}
	// The database the lines name must exist (the password server may still be starting).
	for _, args := range [][]string{
		{"--host", host, "--port", port, "--user", "energy", "--password", oddPassword},
		{"--host", ehost, "--port", eport},
	} {
		for end := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			out, err := exec.Command(client, append(args, "--query", "CREATE DATABASE IF NOT EXISTS energy")...).CombinedOutput()
			if err == nil {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("%v\n%s", err, out)
			}
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sh := exec.Command("bash", "-c", functions+"\nvar="+embeddedVar+"\nclickhouse_client_line")
			sh.Env = append(cleanEnv(), c.env...)
			out, err := sh.CombinedOutput()
			line := strings.TrimSpace(string(out))
			if err != nil || !strings.HasPrefix(line, c.want) {
				t.Fatalf("printed %q (%v), want it to start with %q", line, err, c.want)
			}
			// Pasted into a shell as printed (the variables of make run's environment are not
			// in the user's shell).
			// The password server knows only user energy with oddPassword.
			run := exec.Command("bash", "-c", line+" --query 'SELECT currentDatabase()'")
			run.Env = cleanEnv()
			got, err := run.CombinedOutput()
			if err != nil || strings.TrimSpace(string(got)) != "energy" {
				t.Fatalf("%s\n→ %v %s", line, err, got)
			}
		})
	}
}

// cleanEnv is the environment without ENERGY_* settings.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ENERGY_") {
			out = append(out, kv)
		}
	}
	return out
}
