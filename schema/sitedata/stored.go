// Package sitedata describes what an archive job stored for a tenant's sites: ingest reports
// it, and whatever reacts to new readings (the targets' notifications) reads it, without
// either package knowing the other.
package sitedata

import "time"

// Stored tells what one job stored, once its rows are in and before the job is recorded DONE.
type Stored struct {
	TenantID, JobID string
	Sites           []Site
}

// Site is one site the job touched.
type Site struct {
	SiteID string
	// NewDistributorReadings are the instants of distributor indexes (MKT_SMART_DISTRIBUTOR,
	// MKT_CYCLIC_DISTRIBUTOR) that no other job had stored: a re-sent record is not new.
	NewDistributorReadings []time.Time
}
