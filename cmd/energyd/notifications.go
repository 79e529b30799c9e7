package main

import (
	"fmt"
	"log/slog"
	"os"

	"energy/query/targets"
	"energy/schema"
	"energy/schema/registry"
)

// startNotifications starts the background sender of target notifications. The SMTP password
// and the SMS gateway's token may each come from a file (ENERGY_SMTP_PASSWORD_FILE,
// ENERGY_SMS_GATEWAY_TOKEN_FILE: a mounted secret) rather than an environment variable.
func startNotifications(cfg config, outbox *targets.Outbox, reg *registry.Store, log *slog.Logger) (*targets.Sender, error) {
	smtpPassword, err := schema.SecretFromEnv(os.Getenv, "ENERGY_SMTP_PASSWORD")
	if err != nil {
		return nil, err
	}
	smsToken := cfg.SMSGatewayToken
	if os.Getenv("ENERGY_SMS_GATEWAY_TOKEN_FILE") != "" {
		if smsToken, err = schema.SecretFromEnv(os.Getenv, "ENERGY_SMS_GATEWAY_TOKEN"); err != nil {
			return nil, err
		}
	}
	sender, err := targets.NewSender(outbox, reg, targets.SenderConfig{
		SMTPURL: cfg.SMTPURL, SMTPPassword: smtpPassword, SMTPCAFile: cfg.SMTPCAFile, SMSGatewayURL: cfg.SMSGatewayURL, SMSGatewayToken: smsToken,
		Backoff: cfg.NotificationBackoff, Log: log,
	})
	if err != nil {
		return nil, fmt.Errorf("notifications: %w", err)
	}
	sender.Start()
	log.Info("notification sender started", "email", cfg.SMTPURL != "", "sms", cfg.SMSGatewayURL != "")
	return sender, nil
}
