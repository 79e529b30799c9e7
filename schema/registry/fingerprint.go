package registry

import (
	"context"
	"fmt"

	"energy/schema/tables"
)

// fingerprint sums up a tenant's stored site and tariff rows: their count and the sum of their
// versions (wrapping), every row as stored, replaced ones included until merged. Any edit adds a
// row of a fresh version, so it changes the fingerprint whoever made it; a merge changes it too,
// which only costs a reload.
type fingerprint struct {
	sites, tariffs [2]uint64 // count, sum of versions
}

// tenantFingerprint reads the tenant's fingerprint: one query, no FINAL, two columns.
func (s *Store) tenantFingerprint(ctx context.Context, tenantID string) (fingerprint, error) {
	var fp fingerprint
	rows, err := s.db.Conn.Query(ctx,
		"SELECT 0, count(), sum(version) FROM "+tables.Sites+" WHERE tenant_id = ?"+
			" UNION ALL SELECT 1, count(), sum(version) FROM "+tables.Tariffs+" WHERE tenant_id = ?", tenantID, tenantID)
	if err != nil {
		return fp, fmt.Errorf("registry fingerprint: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var table uint8
		var count, sum uint64
		if err := rows.Scan(&table, &count, &sum); err != nil {
			return fp, fmt.Errorf("registry fingerprint: %w", err)
		}
		if table == 0 {
			fp.sites = [2]uint64{count, sum}
		} else {
			fp.tariffs = [2]uint64{count, sum}
		}
	}
	return fp, rows.Err()
}
