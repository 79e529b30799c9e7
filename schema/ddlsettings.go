package schema

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// legacyDDLSettings are sent with each migration statement, but only to a server that still
// knows them: ClickHouse 18.16 refuses LowCardinality columns unless the first is 1, while
// current releases removed it as obsolete and refuse a query that carries an unknown setting.
var legacyDDLSettings = map[string]int{
	"allow_experimental_low_cardinality_type": 1,
}

// DDLSettingsQuery lists which of the legacy DDL settings the server knows. It holds no input.
var DDLSettingsQuery = func() string {
	names := make([]string, 0, len(legacyDDLSettings))
	for n := range legacyDDLSettings {
		names = append(names, "'"+n+"'")
	}
	sort.Strings(names)
	return "SELECT name FROM system.settings WHERE name IN (" + strings.Join(names, ", ") + ")"
}()

// DDLSettings returns the settings to send with migration statements to a server whose
// system.settings lists the names known.
func DDLSettings(known []string) map[string]int {
	out := map[string]int{}
	for _, n := range known {
		if v, ok := legacyDDLSettings[n]; ok {
			out[n] = v
		}
	}
	return out
}

// ddlSettings asks the server which legacy DDL settings it knows.
func (db *DB) ddlSettings(ctx context.Context) (map[string]int, error) {
	rows, err := db.Conn.Query(ctx, DDLSettingsQuery)
	if err != nil {
		return nil, fmt.Errorf("read system.settings: %w", err)
	}
	defer rows.Close()
	var known []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		known = append(known, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return DDLSettings(known), nil
}
