package schema

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Credentials are the ClickHouse user and password given apart from the DSN, so that a
// password is never pasted into a URL, where '@', '/', ':', '%', '#' or '?' would break it.
type Credentials struct {
	User     string
	Password string
}

// CredentialsFromEnv reads ENERGY_CLICKHOUSE_USER and ENERGY_CLICKHOUSE_PASSWORD, or their _FILE
// variants (SecretFromEnv).
func CredentialsFromEnv(getenv func(string) string) (Credentials, error) {
	var c Credentials
	var err error
	if c.User, err = SecretFromEnv(getenv, "ENERGY_CLICKHOUSE_USER"); err != nil {
		return c, err
	}
	c.Password, err = SecretFromEnv(getenv, "ENERGY_CLICKHOUSE_PASSWORD")
	return c, err
}

// SecretFromEnv reads the variable name, or name_FILE naming a file that holds the value (a
// mounted secret; one trailing line break is not part of it). Giving both is an error.
func SecretFromEnv(getenv func(string) string, name string) (string, error) {
	fileName := name + "_FILE"
	value, file := getenv(name), getenv(fileName)
	if value != "" && file != "" {
		return "", fmt.Errorf("%s and %s are both set: give one", name, fileName)
	}
	if file == "" {
		return value, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s: %w", fileName, err)
	}
	return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
}

// Apply returns dsn with these credentials in place of any it carries (each part only when
// given), encoded so that every character of them survives.
func (c Credentials) Apply(dsn string) (string, error) {
	if c.User == "" && c.Password == "" {
		return dsn, nil
	}
	u, err := url.Parse(dsn)
	if err != nil {
		// The message of url.Parse quotes the DSN, which may hold a password.
		return "", fmt.Errorf("invalid ClickHouse DSN: not a URL")
	}
	user, password := c.User, c.Password
	if u.User != nil {
		if user == "" {
			user = u.User.Username()
		}
		if old, ok := u.User.Password(); ok && password == "" {
			password = old
		}
	}
	q := u.Query()
	if user == "" {
		user = q.Get("username")
	}
	q.Del("username")
	q.Del("password")
	u.RawQuery = q.Encode()
	if user == "" {
		user = "default"
	}
	u.User = url.UserPassword(user, password)
	return u.String(), nil
}
