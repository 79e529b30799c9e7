package registry

import "sync"

// DataVersions counts, per site, how many times its readings changed in this process.
// Result caches key on it: ingest bumps a site's version after inserting its rows, so a
// cached answer computed before the insert is never served again.
type DataVersions struct {
	mu   sync.RWMutex
	byID map[[2]string]uint64
}

// NewDataVersions returns an empty counter set.
func NewDataVersions() *DataVersions { return &DataVersions{byID: map[[2]string]uint64{}} }

// Get returns the site's current version.
func (v *DataVersions) Get(tenantID, siteID string) uint64 {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.byID[[2]string{tenantID, siteID}]
}

// Bump records a change to the site's data.
func (v *DataVersions) Bump(tenantID, siteID string) {
	v.mu.Lock()
	v.byID[[2]string{tenantID, siteID}]++
	v.mu.Unlock()
}
