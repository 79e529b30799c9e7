package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"energy/ingest"
	"energy/schema"
	"energy/schema/registry"
	"energy/schema/sitedata"
)

// startIntake loads the OpenPGP keys, opens the archive spool under the data dir, recovers the
// jobs a previous run left unfinished and starts the worker pool. On a cluster the archives
// are kept in the store (replicated) and the spool only stages uploads.
// afterStore hears what each job stored, and afterWrite the spans of readings it inserted,
// before the job is recorded DONE.
func startIntake(ctx context.Context, cfg config, db *schema.DB, reg *registry.Store, afterStore func(context.Context, sitedata.Stored) error,
	afterWrite func(context.Context, sitedata.Written) error, log *slog.Logger) (*ingest.Service, error) {
	keys, err := ingest.LoadKeys(cfg.PGPKeyFiles)
	if err != nil {
		return nil, fmt.Errorf("--pgp-key-files: %w", err)
	}
	jobs, err := ingest.New(ingest.Config{
		DB: db, Registry: reg, SpoolDir: filepath.Join(cfg.DataDir, "spool"), Keys: keys,
		Workers: cfg.Workers, DecodeSlots: cfg.DecodeSlots, Deadline: cfg.JobDeadline, Log: log, AfterStore: afterStore, AfterWrite: afterWrite,
		Shared: cfg.ClickHouseClust != "", Lease: cfg.JobLease,
	})
	if err != nil {
		return nil, err
	}
	if err := jobs.Start(ctx); err != nil {
		return nil, err
	}
	log.Info("archive intake started", "spool", filepath.Join(cfg.DataDir, "spool"), "workers", cfg.Workers,
		"decodeSlots", schema.OrDefault(cfg.DecodeSlots, ingest.DefaultDecodeSlots()),
		"deadline", cfg.JobDeadline.String(), "pgpKeys", len(keys))
	return jobs, nil
}
