package main

import (
	"fmt"
	"log/slog"

	"energy/query/targets"
	"energy/schema/registry"
)

// startNotifications starts the background sender of target notifications.
func startNotifications(cfg config, outbox *targets.Outbox, reg *registry.Store, log *slog.Logger) (*targets.Sender, error) {
	sender, err := targets.NewSender(outbox, reg, targets.SenderConfig{
		SMTPURL: cfg.SMTPURL, SMTPCAFile: cfg.SMTPCAFile, SMSGatewayURL: cfg.SMSGatewayURL, SMSGatewayToken: cfg.SMSGatewayToken,
		Backoff: cfg.NotificationBackoff, Log: log,
	})
	if err != nil {
		return nil, fmt.Errorf("notifications: %w", err)
	}
	sender.Start()
	log.Info("notification sender started", "email", cfg.SMTPURL != "", "sms", cfg.SMSGatewayURL != "")
	return sender, nil
}
