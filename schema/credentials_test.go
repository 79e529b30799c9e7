package schema

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
)

func TestCredentialsSurviveEveryCharacter(t *testing.T) {
	const odd = `p@ss/w:rd%25#?&= x`
	for _, c := range []struct {
		dsn, user, password string
		wantUser, wantPass  string
	}{
		{"clickhouse://ch:9000/energy", "energy", odd, "energy", odd},
		{"clickhouse://old:secret@ch:9000/energy?dial_timeout=3s", "", odd, "old", odd},
		{"clickhouse://ch:9000/energy?username=u&password=x", "", odd, "u", odd},
		{"clickhouse://ch:9000/energy", "us@r:/", "", "us@r:/", ""},
	} {
		dsn, err := Credentials{User: c.user, Password: c.password}.Apply(c.dsn)
		if err != nil {
			t.Fatal(err)
		}
		opts, err := clickhouse.ParseDSN(dsn)
		if err != nil {
			t.Fatalf("%s: %v", dsn, err)
		}
		if opts.Auth.Username != c.wantUser || opts.Auth.Password != c.wantPass || opts.Auth.Database != "energy" || opts.Addr[0] != "ch:9000" {
			t.Errorf("%s → user %q password %q db %q addr %v", c.dsn, opts.Auth.Username, opts.Auth.Password, opts.Auth.Database, opts.Addr)
		}
	}
}

func TestCredentialsFromEnv(t *testing.T) {
	file := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(file, []byte("s3cr@t#?\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ENERGY_CLICKHOUSE_USER": "energy", "ENERGY_CLICKHOUSE_PASSWORD_FILE": file}
	c, err := CredentialsFromEnv(func(k string) string { return env[k] })
	if err != nil || c != (Credentials{User: "energy", Password: "s3cr@t#?"}) {
		t.Fatalf("%+v %v", c, err)
	}
	env["ENERGY_CLICKHOUSE_PASSWORD"] = "x"
	if _, err := CredentialsFromEnv(func(k string) string { return env[k] }); err == nil {
		t.Fatal("a password given twice was accepted")
	}
	env = map[string]string{"ENERGY_CLICKHOUSE_PASSWORD_FILE": filepath.Join(t.TempDir(), "absent")}
	if _, err := CredentialsFromEnv(func(k string) string { return env[k] }); err == nil {
		t.Fatal("a missing password file was accepted")
	}
}
