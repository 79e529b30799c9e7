package main

import (
	"context"
	"fmt"
	"log/slog"

	"energy/ingest"
	"energy/query/targets"
	"energy/schema/registry"
)

// startNotifications starts the background sender of target notifications.
func startNotifications(cfg config, outbox *targets.Outbox, reg *registry.Store, log *slog.Logger) (*targets.Sender, error) {
	sender, err := targets.NewSender(outbox, reg, targets.SenderConfig{
		SMTPURL: cfg.SMTPURL, SMSGatewayURL: cfg.SMSGatewayURL, SMSGatewayToken: cfg.SMSGatewayToken,
		Backoff: cfg.NotificationBackoff, Log: log,
	})
	if err != nil {
		return nil, fmt.Errorf("notifications: %w", err)
	}
	sender.Start()
	log.Info("notification sender started", "email", cfg.SMTPURL != "", "sms", cfg.SMSGatewayURL != "")
	return sender, nil
}

// targetEvents hands what each archive job stored to the targets' checker, whose
// notifications are then in the outbox before the job is DONE (ingest and the targets
// package know nothing of each other; this is where they meet).
func targetEvents(checker *targets.Checker) func(context.Context, ingest.StoredData) error {
	return func(ctx context.Context, d ingest.StoredData) error {
		td := targets.StoredData{TenantID: d.TenantID, JobID: d.JobID}
		for _, s := range d.Sites {
			td.Sites = append(td.Sites, targets.StoredSite{SiteID: s.SiteID, NewDistributorReadings: s.NewDistributorReadings})
		}
		return checker.SiteDataStored(ctx, td)
	}
}
