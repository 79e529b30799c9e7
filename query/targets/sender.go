package targets

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"energy/schema"
	"energy/schema/registry"
)

// Defaults of SenderConfig.
const (
	DefaultMaxAttempts  = 8
	DefaultBackoff      = 30 * time.Second
	DefaultPollInterval = time.Second
	DefaultClaimLease   = time.Minute
)

// SenderConfig says how notifications are delivered.
type SenderConfig struct {
	// SMTPURL is smtp://user:pass@host:port?from=addr (smtps:// for TLS from the start); empty:
	// EMAIL notifications end FAILED.
	SMTPURL string
	// SMTPPassword, when set, replaces the password of SMTPURL: it comes from a mounted secret
	// (energyd's ENERGY_SMTP_PASSWORD_FILE), so that it never sits in a URL. SMTPURL then
	// names the user.
	SMTPPassword string
	// SMTPCAFile names PEM certificates trusted for the SMTP server's TLS besides the
	// system's (an internal CA, or the server's self-signed certificate); empty: the system's.
	SMTPCAFile string
	// SMSGatewayURL receives POST {"to", "text"} with SMSGatewayToken as bearer; empty: SMS
	// notifications end FAILED.
	SMSGatewayURL, SMSGatewayToken string
	// MaxAttempts bounds the attempts of one notification (default 8).
	MaxAttempts int
	// Backoff is the wait after the first failed attempt, doubled after each further one
	// (default 30 s: 30 s, 1 min, 2 min … 32 min).
	Backoff time.Duration
	// PollInterval is how often the outbox is read (default 1 s).
	PollInterval time.Duration
	// ClaimLease bounds a message handover; a claim older than that was interrupted (default 1 min).
	ClaimLease time.Duration
	Log        *slog.Logger
}

// Sender delivers the outbox's PENDING notifications in the background.
//
// Never twice: a notification is claimed (written with a lease) right before the step after
// which the message may have been delivered, and marked SENT right after. A claim found
// expired means the process died in between: the message may or may not have gone, so it is
// not sent again but ends FAILED saying so. Failures before that step are retried with
// exponential backoff, up to MaxAttempts.
type Sender struct {
	outbox   *Outbox
	contacts *registry.Store
	cfg      SenderConfig
	email    channel
	sms      channel
	id       string
	log      *slog.Logger
	now      func() time.Time
	wake     chan struct{}

	startOnce, stopOnce sync.Once
	quit                chan struct{}
	done                chan struct{}
}

// NewSender checks the configuration; Start runs it.
func NewSender(outbox *Outbox, contacts *registry.Store, cfg SenderConfig) (*Sender, error) {
	cfg.MaxAttempts = schema.OrDefault(cfg.MaxAttempts, DefaultMaxAttempts)
	cfg.Backoff = schema.OrDefault(cfg.Backoff, DefaultBackoff)
	cfg.PollInterval = schema.OrDefault(cfg.PollInterval, DefaultPollInterval)
	cfg.ClaimLease = schema.OrDefault(cfg.ClaimLease, DefaultClaimLease)
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &Sender{outbox: outbox, contacts: contacts, cfg: cfg, log: cfg.Log.With("component", "notifications"), now: time.Now,
		wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	if cfg.SMTPURL != "" {
		c, err := newSMTPChannel(cfg.SMTPURL, cfg.SMTPCAFile, cfg.SMTPPassword)
		if err != nil {
			return nil, err
		}
		s.email = c
	}
	if cfg.SMSGatewayURL != "" {
		c, err := newSMSChannel(cfg.SMSGatewayURL, cfg.SMSGatewayToken)
		if err != nil {
			return nil, err
		}
		s.sms = c
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	s.id = hex.EncodeToString(b)
	return s, nil
}

// Start runs the delivery loop until Stop.
func (s *Sender) Start() {
	s.startOnce.Do(func() { go s.run() })
}

// Stop ends the loop after the notification in hand, waiting at most until ctx ends.
func (s *Sender) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() { close(s.quit) })
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wake makes the loop read the outbox now (new notifications were written).
func (s *Sender) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Sender) run() {
	defer close(s.done)
	ticker := time.NewTicker(s.cfg.PollInterval)
	defer ticker.Stop()
	for {
		s.round()
		select {
		case <-s.quit:
			return
		case <-ticker.C:
		case <-s.wake:
		}
	}
}

// round delivers what is due now.
func (s *Sender) round() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if n, err := s.outbox.depth(ctx); err == nil {
		outboxDepth.Set(float64(n))
	}
	due, err := s.outbox.pending(ctx, 100)
	if err != nil {
		s.log.Warn("outbox not readable, will retry", "error", err)
		return
	}
	for _, n := range due {
		select {
		case <-s.quit:
			return
		default:
		}
		now := s.now()
		switch {
		case !n.ClaimedUntil.IsZero() && now.Before(n.ClaimedUntil):
			continue // being handed over by a sender
		case !n.ClaimedUntil.IsZero():
			s.finish(ctx, n, errors.New("delivery was interrupted while the message was being handed over; it may have been delivered, so it is not sent again"), true)
		case now.Before(n.NextAttempt):
			continue
		default:
			s.deliver(ctx, n)
		}
	}
}

// deliver makes one attempt and records its outcome.
func (s *Sender) deliver(ctx context.Context, n Notification) {
	n.Attempts++
	ch, to, err := s.route(ctx, n)
	if err != nil {
		s.finish(ctx, n, err, isPermanent(err))
		return
	}
	handover := func() error {
		c := n
		c.ClaimedUntil, c.ClaimedBy = s.now().Add(s.cfg.ClaimLease), s.id
		if err := s.outbox.write(ctx, c); err != nil {
			return fmt.Errorf("outbox: claim not recorded: %w", err)
		}
		holder, err := s.outbox.claimHolder(ctx, c)
		if err != nil {
			return fmt.Errorf("outbox: claim not read back: %w", err)
		}
		if holder != s.id {
			return errClaimedElsewhere
		}
		return nil
	}
	err = ch.send(ctx, to, n, handover)
	if errors.Is(err, errClaimedElsewhere) {
		return // another sender has it
	}
	if err == nil {
		n.State, n.Sent, n.LastError = StateSent, s.now(), ""
		n.ClaimedUntil, n.ClaimedBy = time.Time{}, ""
		// The message is out: insist on recording it. If this process stops first, the claim
		// left behind keeps it from being sent again.
		for {
			werr := s.outbox.write(context.Background(), n)
			if werr == nil {
				break
			}
			s.log.Warn("SENT not recorded, retrying", "notification", n.ID, "error", werr)
			select {
			case <-s.quit:
				return
			case <-time.After(time.Second):
			}
		}
		notificationsSent.WithLabelValues(n.Channel).Inc()
		s.log.Info("notification sent", "notification", n.ID, "target", n.TargetID, "event", n.Event, "channel", n.Channel, "attempts", n.Attempts)
		return
	}
	s.finish(ctx, n, err, isPermanent(err))
}

var errClaimedElsewhere = errors.New("claimed by another sender")

// finish records a failed attempt: FAILED when it cannot succeed or was the last, else
// PENDING with the next attempt after the backoff.
func (s *Sender) finish(ctx context.Context, n Notification, cause error, final bool) {
	n.LastError = cause.Error()
	n.ClaimedUntil, n.ClaimedBy = time.Time{}, ""
	if final || int(n.Attempts) >= s.cfg.MaxAttempts {
		n.State = StateFailed
	} else {
		n.NextAttempt = s.now().Add(s.cfg.Backoff << (n.Attempts - 1))
	}
	if err := s.outbox.write(ctx, n); err != nil {
		s.log.Warn("notification outcome not recorded, will retry", "notification", n.ID, "error", err)
		return
	}
	if n.State == StateFailed {
		notificationsFailed.WithLabelValues(n.Channel).Inc()
		s.log.Warn("notification failed", "notification", n.ID, "target", n.TargetID, "channel", n.Channel, "attempts", n.Attempts, "reason", n.LastError)
	} else {
		notificationRetries.WithLabelValues(n.Channel).Inc()
		s.log.Info("notification attempt failed, will retry", "notification", n.ID, "channel", n.Channel, "attempts", n.Attempts,
			"next", n.NextAttempt.Format(time.RFC3339), "error", n.LastError)
	}
}

// route picks the channel and the recipient; a missing one is a permanent failure.
func (s *Sender) route(ctx context.Context, n Notification) (channel, string, error) {
	var ch channel
	switch n.Channel {
	case ChannelEmail:
		if s.email == nil {
			return nil, "", permanent(errors.New("EMAIL is not configured (--smtp-url / ENERGY_SMTP_URL)"))
		}
		ch = s.email
	case ChannelSMS:
		if s.sms == nil {
			return nil, "", permanent(errors.New("SMS is not configured (--sms-gateway-url / ENERGY_SMS_GATEWAY_URL)"))
		}
		ch = s.sms
	default:
		return nil, "", permanent(fmt.Errorf("unknown channel %q", n.Channel))
	}
	c, err := s.contacts.Contact(ctx, n.TenantID, n.SiteID)
	if err != nil {
		return nil, "", err
	}
	to := map[string]string{ChannelEmail: c.Email, ChannelSMS: c.Phone}[n.Channel]
	if to == "" {
		field := map[string]string{ChannelEmail: "contact.email", ChannelSMS: "contact.phone"}[n.Channel]
		return nil, "", permanent(fmt.Errorf("site %s has no %s", n.SiteID, field))
	}
	return ch, to, nil
}
