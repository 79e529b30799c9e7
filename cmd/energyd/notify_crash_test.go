package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"energy/query/targets"
	"energy/query/targets/mailsink"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// smsGatewayLog is an SMS gateway that accepts every message with the right bearer token and
// counts them by Idempotency-Key (the notification id).
type smsGatewayLog struct {
	mu   sync.Mutex
	byID map[string][]string // notification id → bodies received
}

func (g *smsGatewayLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Header.Get("Authorization") != "Bearer gw-token" {
		http.Error(w, "bad token", http.StatusUnauthorized)
		return
	}
	g.mu.Lock()
	g.byID[r.Header.Get("Idempotency-Key")] = append(g.byID[r.Header.Get("Idempotency-Key")], string(body))
	g.mu.Unlock()
}

func (g *smsGatewayLog) received() map[string][]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := map[string][]string{}
	for k, v := range g.byID {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// silentServer accepts connections and never answers: an SMTP server that hangs before its
// greeting. accepted receives each connection.
func silentServer(t *testing.T, addr string) (accepted chan net.Conn, stop func()) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	accepted = make(chan net.Conn, 16)
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			accepted <- c
		}
	}()
	return accepted, func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}
}

// energyd is killed (SIGKILL) while its four notifications (two targets, two events, EMAIL and
// SMS) are pending: each has failed once already because the SMTP server and the SMS gateway
// were down, and an email attempt hangs on an SMTP server that never greets. Restarted once
// both are up, energyd delivers each notification exactly once (the server and the gateway
// receive each (target, event, channel) once, the notifications endpoint says SENT), and a
// further kill and restart sends nothing again.
func TestNotificationsPendingAtAKillAreDeliveredOnceAfterRestart(t *testing.T) {
	dsn := chtest.DSN(t)
	bin := buildEnergyd(t)
	sink := mailsink.New(t)
	gwAddr := freeAddr(t)
	// The gateway's token from a file, as a mounted Kubernetes Secret gives it (its line
	// break is not part of the token).
	tokenFile := filepath.Join(t.TempDir(), "sms-token")
	if err := os.WriteFile(tokenFile, []byte("gw-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ENERGY_SMS_GATEWAY_TOKEN_FILE", tokenFile)
	args := []string{"--clickhouse-dsn", dsn, "--data-dir", t.TempDir(), "--smtp-url", sink.URL("from=alerts@energy.example"),
		"--sms-gateway-url", "http://" + gwAddr + "/sms", "--notification-backoff", "1s"}
	d := startEnergydWith(t, bin, args...)

	ctx := context.Background()
	db, err := schema.Open(ctx, dsn, chtest.ClusterName(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := registry.New(db)
	secret, _, err := reg.CreateToken(ctx, "acme", []string{"admin"}, 0, "crash test")
	if err != nil {
		t.Fatal(err)
	}
	call := func(d *daemon, method, path, contentType string, body []byte) []byte {
		t.Helper()
		req, err := http.NewRequest(method, "http://"+d.addr+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+secret)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return b
	}
	call(d, "PUT", "/v2/sites/S1", "application/json",
		[]byte(`{"siteCustomerId": "C-1", "personCustomerId": "P-1", "contact": {"email": "anne@example.org", "phone": "+33612345678"}}`))
	// A 365-day period that started 10 days ago; 100 kWh used since is above 1000 kWh × 10/365.
	now := time.Now().UTC().Truncate(time.Second)
	begin, end := now.Add(-10*24*time.Hour), now.Add(355*24*time.Hour)
	targetIDs := map[string]string{} // event → target id
	for event, value := range map[string]int{targets.NotifyDistIndex: 1000000, targets.NotifyThreshold: 1000} {
		b := call(d, "POST", "/v2/sites/S1/targets", "application/json", []byte(fmt.Sprintf(
			`{"beginDate": %q, "endDate": %q, "type": "ELEC", "unit": "KWH", "targetValue": %d, "notificationChannels": ["EMAIL", "SMS"], "notificationType": %q}`,
			begin.Format(time.RFC3339), end.Format(time.RFC3339), value, event)))
		var created struct{ TargetID string }
		if err := json.Unmarshal(b, &created); err != nil || created.TargetID == "" {
			t.Fatalf("created target: %s", b)
		}
		targetIDs[event] = created.TargetID
	}
	index := func(ts time.Time, wh int) string {
		stamp := ts.Format(time.RFC3339)
		return fmt.Sprintf(`{"siteId": "S1", "podId": "PDL-1", "nature": "MKT_SMART_DISTRIBUTOR", "ts": %q, "generationTs": %q, "value": {"1": %d}}`, stamp, stamp, wh)
	}
	contentType, form := archiveForm(t, "indexes.json", `{"smartElecIndexes": [`+index(begin, 0)+`, `+index(now.Add(-24*time.Hour), 100000)+`]}`)
	call(d, "POST", "/v2/indexes-collect-jobs", contentType, form)

	outbox := targets.NewOutbox(db)
	all := func() []targets.Notification {
		t.Helper()
		var out []targets.Notification
		for _, id := range targetIDs {
			ns, err := outbox.List(ctx, "acme", "S1", id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ns...)
		}
		return out
	}
	waitAll := func(what string, within time.Duration, ok func(targets.Notification) bool) []targets.Notification {
		t.Helper()
		var ns []targets.Notification
		for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			ns = all()
			good := len(ns) == 4
			for _, n := range ns {
				good = good && ok(n)
			}
			if good {
				return ns
			}
		}
		t.Fatalf("%s: not reached within %s; notifications %+v", what, within, ns)
		return nil
	}
	notInHandover := func(n targets.Notification) bool {
		return n.State == targets.StatePending && n.ClaimedUntil.IsZero()
	}
	// Every notification has failed at least once (connection refused) and waits for a retry.
	waitAll("a failed attempt each while the SMTP server and the SMS gateway are down", 60*time.Second, func(n targets.Notification) bool {
		return notInHandover(n) && n.Attempts >= 1 && strings.Contains(n.LastError, "connection refused")
	})
	// The next email attempt hangs on an SMTP server that never greets: killed in the middle of it.
	accepted, stopSilent := silentServer(t, sink.Addr())
	select {
	case <-accepted:
	case <-time.After(30 * time.Second):
		t.Fatal("energyd made no further email attempt")
	}
	if err := d.cmd.Process.Kill(); err != nil { // SIGKILL: nothing is cleaned up
		t.Fatal(err)
	}
	<-d.exited
	stopSilent()
	before := waitAll("at the kill", time.Second, notInHandover)
	attemptsBefore := map[string]uint32{}
	for _, n := range before {
		attemptsBefore[n.ID] = n.Attempts
	}

	sink.Start()
	gw := &smsGatewayLog{byID: map[string][]string{}}
	l, err := net.Listen("tcp", gwAddr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: gw}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()

	d = startEnergydWith(t, bin, args...)
	sent := waitAll("delivery after the restart", 60*time.Second, func(n targets.Notification) bool { return n.State == targets.StateSent })
	// Killed and started once more: nothing is sent again.
	if err := d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-d.exited
	d = startEnergydWith(t, bin, args...)
	time.Sleep(3 * time.Second) // three rounds of the sender

	emails := map[string]int{}
	for _, m := range sink.Messages() {
		id := strings.TrimSuffix(strings.TrimPrefix(m.Header.Get("Message-Id"), "<"), "@energy.example>")
		emails[id]++
		if rcpt := m.Header.Get("X-RcptTo"); rcpt != "anne@example.org" {
			t.Errorf("email %s to %q", id, rcpt)
		}
	}
	sms := gw.received()
	if len(emails) != 2 || len(sms) != 2 {
		t.Errorf("%d distinct emails and %d distinct SMS received, want 2 each", len(emails), len(sms))
	}
	for _, n := range sent {
		got := map[string]int{targets.ChannelEmail: emails[n.ID], targets.ChannelSMS: len(sms[n.ID])}[n.Channel]
		if got != 1 {
			t.Errorf("%s %s of target %s received %d times, want exactly once", n.Event, n.Channel, n.TargetID, got)
		}
		if n.Attempts <= attemptsBefore[n.ID] || n.Sent.IsZero() {
			t.Errorf("%s %s: attempts %d (before the kill %d), sentTs %v", n.Event, n.Channel, n.Attempts, attemptsBefore[n.ID], n.Sent)
		}
		if n.Channel == targets.ChannelSMS && !strings.Contains(sms[n.ID][0], `"to":"+33612345678"`) {
			t.Errorf("SMS %s", sms[n.ID][0])
		}
	}
	// The API says the same after the restarts.
	for event, id := range targetIDs {
		var listed []struct{ Event, Channel, State, SentTs string }
		if err := json.Unmarshal(call(d, "GET", "/v2/sites/S1/targets/"+id+"/notifications", "", nil), &listed); err != nil {
			t.Fatal(err)
		}
		if len(listed) != 2 {
			t.Fatalf("target %s (%s): %d notifications listed, want 2", id, event, len(listed))
		}
		for _, n := range listed {
			if n.Event != event || n.State != targets.StateSent || n.SentTs == "" {
				t.Errorf("target %s: listed %+v, want %s SENT with sentTs", id, n, event)
			}
		}
	}
}
