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

// ReadingSpan is the span of the index readings of one fluid of one site that a job inserted:
// every record it stored (new, re-sent or _INVALID alike) lies at an instant in [First, Last].
type ReadingSpan struct {
	SiteID      string
	Fluid       string // registry.HeatingElec or registry.HeatingGas
	First, Last time.Time
}

// Written tells the spans of index readings one job inserted, once its rows are in and before
// the job is recorded DONE.
type Written struct {
	TenantID, JobID string
	Spans           []ReadingSpan
}
