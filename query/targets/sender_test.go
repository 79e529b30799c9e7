package targets

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"energy/query/targets/mailsink"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// outboxFixture is a store with site S1 of tenant acme (contact given) and one notification.
type outboxFixture struct {
	reg    *registry.Store
	outbox *Outbox
	n      Notification
}

func newOutboxFixture(t *testing.T, channel string, contact *registry.Contact) outboxFixture {
	t.Helper()
	db := chtest.DB(t)
	reg := registry.New(db)
	if err := reg.PutSite(context.Background(), registry.Site{TenantID: "acme", SiteID: "S1", Contact: contact}); err != nil {
		t.Fatal(err)
	}
	f := outboxFixture{reg: reg, outbox: NewOutbox(db)}
	f.n = Notification{TenantID: "acme", SiteID: "S1", TargetID: "T1", Event: NotifyThreshold, Channel: channel, Occurrence: "rev-1",
		Subject: "Objective 2025: consumption above target", Body: "Since 2025-01-01 the site used 1234.5 kWh, above the 1000 kWh prorated target.\n.\nThe end."}
	f.n.ID = notificationID("acme", "S1", "T1", f.n.Event, f.n.Occurrence, channel)
	if err := f.outbox.add(context.Background(), []Notification{f.n}); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f outboxFixture) start(t *testing.T, cfg SenderConfig) *Sender {
	t.Helper()
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 20 * time.Millisecond
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 50 * time.Millisecond
	}
	s, err := NewSender(f.outbox, f.reg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	return s
}

// waitState polls the notification until it is in state, and returns it.
func (f outboxFixture) waitState(t *testing.T, state string, within time.Duration) Notification {
	t.Helper()
	var last Notification
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ns, err := f.outbox.List(context.Background(), "acme", "S1", "T1")
		if err != nil {
			t.Fatal(err)
		}
		if len(ns) != 1 {
			t.Fatalf("%d notifications, want 1", len(ns))
		}
		if last = ns[0]; last.State == state {
			return last
		}
	}
	t.Fatalf("notification still %s after %s (attempts %d, lastError %q), want %s", last.State, within, last.Attempts, last.LastError, state)
	return last
}

func TestEmailDeliveredThroughRealSMTPServer(t *testing.T) {
	sink := mailsink.New(t)
	sink.Start()
	f := newOutboxFixture(t, ChannelEmail, &registry.Contact{Email: "anne@example.org"})
	f.start(t, SenderConfig{SMTPURL: sink.URL("from=alerts@energy.example")})
	n := f.waitState(t, StateSent, 10*time.Second)
	if n.Attempts != 1 || n.Sent.IsZero() || n.LastError != "" {
		t.Errorf("sent notification: %+v", n)
	}
	msgs := sink.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages received, want 1", len(msgs))
	}
	m := msgs[0]
	subject, _ := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if m.Header.Get("X-RcptTo") != "anne@example.org" || m.Header.Get("To") != "anne@example.org" || m.Header.Get("X-MailFrom") != "alerts@energy.example" ||
		subject != "Objective 2025: consumption above target" {
		t.Errorf("envelope/headers: rcpt %q to %q from %q subject %q", m.Header.Get("X-RcptTo"), m.Header.Get("To"), m.Header.Get("X-MailFrom"), subject)
	}
	if want := "Since 2025-01-01 the site used 1234.5 kWh, above the 1000 kWh prorated target.\r\n.\r\nThe end.\r\n"; strings.ReplaceAll(m.Body, "\r\n", "\n") != strings.ReplaceAll(want, "\r\n", "\n") {
		t.Errorf("body %q, want %q", m.Body, want)
	}
}

// The SMTP server is down for the first attempts, then up: the message arrives exactly once.
func TestEmailRetriedWhileServerDownThenSentOnce(t *testing.T) {
	sink := mailsink.New(t)
	f := newOutboxFixture(t, ChannelEmail, &registry.Contact{Email: "anne@example.org"})
	f.start(t, SenderConfig{SMTPURL: sink.URL("from=alerts@energy.example"), Backoff: 100 * time.Millisecond})
	var n Notification
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ns, _ := f.outbox.List(context.Background(), "acme", "S1", "T1")
		if n = ns[0]; n.Attempts >= 2 {
			break
		}
	}
	if n.State != StatePending || n.Attempts < 2 || !strings.Contains(n.LastError, "connection refused") {
		t.Fatalf("while the server is down: %+v", n)
	}
	sink.Start()
	n = f.waitState(t, StateSent, 20*time.Second)
	time.Sleep(300 * time.Millisecond) // a few more rounds: nothing is sent again
	if msgs := sink.Messages(); len(msgs) != 1 {
		t.Fatalf("%d messages received, want exactly 1", len(msgs))
	}
	if n.Attempts < 3 {
		t.Errorf("attempts %d, want the failed ones counted too", n.Attempts)
	}
}

// smsGateway is a local HTTP gateway answering the statuses of fail first, then 200.
type smsGateway struct {
	mu       sync.Mutex
	fail     []int
	accepted []map[string]string
	bad      []string
}

func (g *smsGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	var m map[string]string
	if r.Header.Get("Authorization") != "Bearer gw-secret" || r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &m) != nil {
		g.bad = append(g.bad, r.Header.Get("Authorization")+" "+string(body))
		http.Error(w, "bad request", http.StatusUnauthorized)
		return
	}
	if len(g.fail) > 0 {
		status := g.fail[0]
		g.fail = g.fail[1:]
		http.Error(w, "busy", status)
		return
	}
	g.accepted = append(g.accepted, m)
	w.WriteHeader(http.StatusAccepted)
}

func TestSMSThroughGatewayRetriedThenSentOnce(t *testing.T) {
	gw := &smsGateway{fail: []int{503, 500}}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	f := newOutboxFixture(t, ChannelSMS, &registry.Contact{Phone: "+33612345678"})
	f.start(t, SenderConfig{SMSGatewayURL: srv.URL + "/send", SMSGatewayToken: "gw-secret"})
	n := f.waitState(t, StateSent, 10*time.Second)
	time.Sleep(200 * time.Millisecond)
	gw.mu.Lock()
	defer gw.mu.Unlock()
	if len(gw.bad) > 0 {
		t.Errorf("gateway got bad requests: %q", gw.bad)
	}
	if len(gw.accepted) != 1 || gw.accepted[0]["to"] != "+33612345678" || gw.accepted[0]["text"] != f.n.Body || len(gw.accepted[0]) != 2 {
		t.Fatalf("gateway accepted %v, want one {to, text}", gw.accepted)
	}
	if n.Attempts != 3 {
		t.Errorf("attempts %d, want 3 (503, 500, then 202)", n.Attempts)
	}
}

func TestDeliveryGivesUpAfterEightAttempts(t *testing.T) {
	gw := &smsGateway{fail: []int{503, 503, 503, 503, 503, 503, 503, 503, 503, 503}}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	f := newOutboxFixture(t, ChannelSMS, &registry.Contact{Phone: "+33612345678"})
	f.start(t, SenderConfig{SMSGatewayURL: srv.URL, SMSGatewayToken: "gw-secret", Backoff: time.Millisecond})
	n := f.waitState(t, StateFailed, 20*time.Second)
	if n.Attempts != 8 || !strings.Contains(n.LastError, "503") {
		t.Errorf("failed notification: attempts %d, lastError %q", n.Attempts, n.LastError)
	}
	gw.mu.Lock()
	defer gw.mu.Unlock()
	if left := len(gw.fail); left != 2 || len(gw.accepted) != 0 {
		t.Errorf("gateway saw %d requests, want 8", 10-left)
	}
}

func TestDeliveryFailsAtOnceWithoutChannel(t *testing.T) {
	f := newOutboxFixture(t, ChannelEmail, &registry.Contact{Email: "anne@example.org"})
	f.start(t, SenderConfig{})
	n := f.waitState(t, StateFailed, 10*time.Second)
	if n.Attempts != 1 || !strings.Contains(n.LastError, "EMAIL is not configured") {
		t.Errorf("no SMTP: %+v", n)
	}
}

// One database per test: the 26.x replay of a test's reads follows its one database.
func TestDeliveryFailsAtOnceWithoutContact(t *testing.T) {
	f := newOutboxFixture(t, ChannelSMS, &registry.Contact{Email: "anne@example.org"})
	f.start(t, SenderConfig{SMSGatewayURL: "http://127.0.0.1:1/send"})
	n := f.waitState(t, StateFailed, 10*time.Second)
	if n.Attempts != 1 || !strings.Contains(n.LastError, "has no contact.phone") {
		t.Errorf("no phone: %+v", n)
	}
}

// A claim left by a sender that died mid-handover: the message may have gone, so it is never
// sent again.
func TestInterruptedHandoverIsNotSentAgain(t *testing.T) {
	sink := mailsink.New(t)
	sink.Start()
	f := newOutboxFixture(t, ChannelEmail, &registry.Contact{Email: "anne@example.org"})
	c := f.n
	c.State, c.Attempts, c.ClaimedUntil, c.ClaimedBy, c.Created = StatePending, 1, time.Now().Add(-time.Second), "dead-sender", time.Now()
	if err := f.outbox.write(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	f.start(t, SenderConfig{SMTPURL: sink.URL("from=alerts@energy.example")})
	n := f.waitState(t, StateFailed, 10*time.Second)
	if !strings.Contains(n.LastError, "interrupted") || len(sink.Messages()) != 0 {
		t.Errorf("interrupted handover: %+v, %d messages", n, len(sink.Messages()))
	}
}
