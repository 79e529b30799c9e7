package schema

import (
	"fmt"
	"net/url"
)

// WithDatabase is dsn with its database replaced by database.
func WithDatabase(dsn, database string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("DSN %q: %w", dsn, err)
	}
	u.Path = "/" + database
	return u.String(), nil
}
