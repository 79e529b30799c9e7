package targets

import (
	"strings"
	"testing"
	"time"

	"energy/query/targets/mailsink"
	"energy/schema/registry"
)

// smtpPassword has characters that must be escaped in the URL.
const smtpPassword = "s3cret:@/%?#"

// tlsAuthSink is a real SMTP server that refuses mail before STARTTLS (with a self-signed
// certificate; certFile is it) and requires AUTH as user "alerts".
func tlsAuthSink(t *testing.T, exclude ...string) (sink *mailsink.Sink, certFile string) {
	t.Helper()
	certFile, keyFile := mailsink.SelfSignedCert(t)
	sink = mailsink.NewWith(t, mailsink.Options{CertFile: certFile, KeyFile: keyFile, User: "alerts", Password: smtpPassword, ExcludeMechanisms: exclude})
	sink.Start()
	return sink, certFile
}

// sentOverTLSWithAuth checks that the one message arrived and that the server checked the
// credentials once, with mechanism, inside the TLS session.
func sentOverTLSWithAuth(t *testing.T, f outboxFixture, sink *mailsink.Sink, mechanism string) {
	t.Helper()
	n := f.waitState(t, StateSent, 10*time.Second)
	if n.Attempts != 1 || n.LastError != "" {
		t.Errorf("sent notification: attempts %d, lastError %q", n.Attempts, n.LastError)
	}
	msgs := sink.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages received, want 1", len(msgs))
	}
	if m := msgs[0]; m.Header.Get("X-RcptTo") != "anne@example.org" || !strings.Contains(m.Body, "1234.5 kWh") {
		t.Errorf("message to %q: %q", m.Header.Get("X-RcptTo"), m.Body)
	}
	checks := sink.AuthChecks()
	want := mailsink.AuthCheck{Mechanism: mechanism, Login: "alerts", OK: true, TLS: true}
	if len(checks) != 1 || checks[0] != want {
		t.Errorf("credential checks %+v, want [%+v]", checks, want)
	}
}

// STARTTLS to a server whose self-signed certificate is trusted through SMTPCAFile, then
// AUTH PLAIN (the first mechanism offered).
func TestEmailOverSTARTTLSWithAuthPlain(t *testing.T) {
	sink, cert := tlsAuthSink(t)
	f := newOutboxFixture(t, ChannelEmail, &registry.Contact{Email: "anne@example.org"})
	f.start(t, SenderConfig{SMTPURL: sink.URLWithUser("alerts", smtpPassword, "from=alerts@energy.example"), SMTPCAFile: cert})
	sentOverTLSWithAuth(t, f, sink, "PLAIN")
}

// A server that offers only AUTH LOGIN.
func TestEmailOverSTARTTLSWithAuthLogin(t *testing.T) {
	sink, cert := tlsAuthSink(t, "PLAIN")
	f := newOutboxFixture(t, ChannelEmail, &registry.Contact{Email: "anne@example.org"})
	f.start(t, SenderConfig{SMTPURL: sink.URLWithUser("alerts", smtpPassword, "from=alerts@energy.example"), SMTPCAFile: cert})
	sentOverTLSWithAuth(t, f, sink, "LOGIN")
}

// A wrong password is refused at every attempt; after the last one the notification is FAILED
// with the server's answer, and nothing was delivered.
func TestEmailWithWrongPasswordFailsAfterTheRetries(t *testing.T) {
	sink, cert := tlsAuthSink(t)
	f := newOutboxFixture(t, ChannelEmail, &registry.Contact{Email: "anne@example.org"})
	f.start(t, SenderConfig{SMTPURL: sink.URLWithUser("alerts", "wrong", "from=alerts@energy.example"), SMTPCAFile: cert,
		Backoff: 10 * time.Millisecond})
	n := f.waitState(t, StateFailed, 30*time.Second)
	if n.Attempts != DefaultMaxAttempts || !strings.Contains(n.LastError, `refused AUTH as "alerts"`) || !strings.Contains(n.LastError, "535") {
		t.Errorf("failed notification: attempts %d, lastError %q", n.Attempts, n.LastError)
	}
	checks := sink.AuthChecks()
	if len(checks) != DefaultMaxAttempts {
		t.Errorf("%d credential checks, want one per attempt (%d)", len(checks), DefaultMaxAttempts)
	}
	for _, c := range checks {
		if c.OK || !c.TLS || c.Login != "alerts" {
			t.Errorf("credential check %+v: want a refused login over TLS", c)
		}
	}
	if msgs := sink.Messages(); len(msgs) != 0 {
		t.Errorf("%d messages delivered with a wrong password", len(msgs))
	}
}

// Without the CA file the self-signed certificate is not trusted: the attempt fails before any
// password is sent.
func TestEmailToUntrustedServerSendsNoPassword(t *testing.T) {
	sink, _ := tlsAuthSink(t)
	f := newOutboxFixture(t, ChannelEmail, &registry.Contact{Email: "anne@example.org"})
	f.start(t, SenderConfig{SMTPURL: sink.URLWithUser("alerts", smtpPassword, "from=alerts@energy.example"), MaxAttempts: 2,
		Backoff: 10 * time.Millisecond})
	n := f.waitState(t, StateFailed, 30*time.Second)
	if n.Attempts != 2 || !strings.Contains(n.LastError, "STARTTLS") || !strings.Contains(n.LastError, "certificate") {
		t.Errorf("failed notification: attempts %d, lastError %q", n.Attempts, n.LastError)
	}
	if checks := sink.AuthChecks(); len(checks) != 0 {
		t.Errorf("credentials were sent to an untrusted server: %+v", checks)
	}
}

// The password given apart from the URL (a mounted secret) is the one sent, whatever the URL
// holds: a URL naming only the user authenticates, and so does one whose password is stale.
func TestEmailWithPasswordApartFromTheURL(t *testing.T) {
	for name, rawURL := range map[string]func(*mailsink.Sink) string{
		"user only":      func(s *mailsink.Sink) string { return "smtp://alerts@" + s.Addr() + "?from=alerts@energy.example" },
		"stale password": func(s *mailsink.Sink) string { return s.URLWithUser("alerts", "old", "from=alerts@energy.example") },
	} {
		t.Run(name, func(t *testing.T) {
			sink, cert := tlsAuthSink(t)
			f := newOutboxFixture(t, ChannelEmail, &registry.Contact{Email: "anne@example.org"})
			f.start(t, SenderConfig{SMTPURL: rawURL(sink), SMTPPassword: smtpPassword, SMTPCAFile: cert})
			sentOverTLSWithAuth(t, f, sink, "PLAIN")
		})
	}
}

// A password without a user to go with it is refused at start, naming the URL without secrets.
func TestSMTPPasswordNeedsAUserInTheURL(t *testing.T) {
	_, err := NewSender(nil, nil, SenderConfig{SMTPURL: "smtp://mail.example.org:587?from=alerts@energy.example", SMTPPassword: "s3cret"})
	if err == nil || !strings.Contains(err.Error(), "names no user") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("NewSender: %v, want an error naming the missing user, without the password", err)
	}
}
