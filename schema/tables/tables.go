// Package tables names the ClickHouse tables, and the columns of a site's readings, which the
// archive intake (ingest) writes and the analyses (query) read, so that the writer and every
// reader spell them one way. The migrations under schema/migrations create them; SQL built with
// these names takes identifiers from constants only, never from input.
package tables

import "strings"

// The readings of archives, one table per record kind, and the points of delivery seen in them.
const (
	ElecIndexes     = "elec_indexes"
	GasIndexes      = "gas_indexes"
	MaxPowers       = "max_powers"
	LoadCurvePoints = "load_curve_points"
	Pods            = "pods"

	// The index readings laid out for reading one site (no monthly partitions): the rows of
	// ElecIndexes and GasIndexes, copied by materialized views on every insert (migration 0024).
	ElecIndexesBySite = "elec_indexes_by_site"
	GasIndexesBySite  = "gas_indexes_by_site"
)

// The registry: tenants and their tokens, sites, contracts, weather stations and settings.
const (
	Tenants          = "tenants"
	APITokens        = "api_tokens"
	Sites            = "sites"
	SiteContacts     = "site_contacts"
	Tariffs          = "tariffs"
	WeatherStations  = "weather_stations"
	HeatingSchedules = "heating_schedules"
	// Day-colour calendars (TEMPO) and the colour of each of their dates (migration 0030).
	DayColourCalendars = "day_colour_calendars"
	DayColours         = "day_colours"
)

// Everything else the service writes: weather, jobs and their archives, targets and their
// outbox, and the versions that tell every energyd which sites' answers changed.
const (
	WeatherObservations = "weather_observations"
	Jobs                = "jobs"       // archive jobs
	JobLeases           = "job_leases" // which energyd holds an archive job (cluster mode)
	Archives            = "archives"   // accepted archive bytes (cluster mode)
	AdviceJobs          = "advice_jobs"
	Targets             = "targets"
	TargetSettings      = "target_settings"
	Notifications       = "notifications" // the outbox of target notifications
	DataVersions        = "data_versions"
	AuditEvents         = "audit_events"  // the append-only trail of admin changes
	SiteErasures        = "site_erasures" // erasures of a site's data and their reports

	// The consumption endpoint's answer for each local day of a site's fluid, written by the
	// service (migration 0027), and the views that sum it by local month and year.
	DailyEnergy            = "daily_energy"
	DailyEnergyBySite      = "daily_energy_by_site" // the same rows without monthly partitions (migration 0036): the service's per-site reads
	MonthlyEnergy          = "monthly_energy"
	MonthlyEnergyByHeading = "monthly_energy_by_heading"
	YearlyEnergy           = "yearly_energy"
	YearlyEnergyByHeading  = "yearly_energy_by_heading"

	// The record of applied migrations, and the lock that lets one process apply them.
	SchemaMigrations     = "schema_migrations"
	SchemaMigrationsLock = "schema_migrations_lock"
)

// Columns of the readings tables: every table has the identity columns; the others are
// those of the tables named beside them.
const (
	TenantID = "tenant_id"
	SiteID   = "site_id"
	PodID    = "pod_id"
	JobID    = "job_id" // the archive job that stored the row

	TS                = "ts"                  // indexes, max powers: the reading's instant
	IndexBeforeChange = "index_before_change" // indexes: the old meter's last index at a meter change
	Nature            = "nature"              // indexes
	GenerationTS      = "generation_ts"       // every reading: the latest generation wins
	Value             = "value"               // Wh (electricity indexes), index units (gas), VA, W
	Dial              = "dial"                // electricity indexes
	Unit              = "unit"                // gas indexes
	ConversionUnits   = "conversion_units"    // gas indexes, with ConversionFactors
	ConversionFactors = "conversion_factors"
	BeginTS           = "begin_ts" // load-curve points: [begin_ts, end_ts)
	EndTS             = "end_ts"
	Reliability       = "reliability" // load-curve points: 0 real, 1 to be verified
	MeterReadingDate  = "meter_reading_date"
	Fluid             = "fluid"         // pods: ELEC or GAS
	FirstSeenTS       = "first_seen_ts" // pods
)

// List writes columns as a SELECT or INSERT column list.
func List(columns ...string) string { return strings.Join(columns, ", ") }
