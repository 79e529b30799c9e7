// Package mailsink runs a real SMTP server for tests: Debian's python3-aiosmtpd, storing what
// it receives in a maildir, on a port chosen by the test, optionally requiring STARTTLS (with a
// self-signed certificate made by the test) and AUTH.
package mailsink

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/mail"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Python is the interpreter that has Debian's aiosmtpd (not a pyenv or venv one).
const Python = "/usr/bin/python3"

//go:embed server.py
var serverScript string

// Options asks for a stricter server. The zero value accepts any message in clear text.
type Options struct {
	// CertFile and KeyFile (PEM): the server offers STARTTLS and refuses mail without it.
	CertFile, KeyFile string
	// User and Password: the server requires AUTH (only over TLS) with these credentials.
	User, Password string
	// ExcludeMechanisms are AUTH mechanisms not offered (for example "PLAIN", to force LOGIN).
	ExcludeMechanisms []string
}

// Sink is one SMTP server; Start runs it (it may be started after its URL is handed out, to
// test a server that is down at first).
type Sink struct {
	t       testing.TB
	Port    int
	opts    Options
	dir     string
	maildir string
	cmd     *exec.Cmd
}

// Message is one message the sink stored. Header has the envelope too: X-MailFrom, X-RcptTo.
type Message struct {
	Header mail.Header
	Body   string
}

// AuthCheck is one credential check the server made.
type AuthCheck struct {
	Mechanism string `json:"mechanism"`
	Login     string `json:"login"`
	OK        bool   `json:"ok"`
	TLS       bool   `json:"tls"` // the session was encrypted when it authenticated
}

// New prepares a plain sink on a free port; it fails the test when aiosmtpd is not installed.
func New(t testing.TB) *Sink { return NewWith(t, Options{}) }

// NewWith prepares a sink with options on a free port.
func NewWith(t testing.TB, opts Options) *Sink {
	t.Helper()
	if err := exec.Command(Python, "-c", "import aiosmtpd").Run(); err != nil {
		t.Fatalf("these tests need a real SMTP server: apt-get install -y python3-aiosmtpd (%v)", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	return &Sink{t: t, Port: port, opts: opts, dir: dir, maildir: filepath.Join(dir, "maildir")}
}

// Addr is the sink's host:port.
func (s *Sink) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// URL is the sink's smtp:// URL with query (for example "from=a@example.org").
func (s *Sink) URL(query string) string {
	return fmt.Sprintf("smtp://%s?%s", s.Addr(), query)
}

// URLWithUser is URL with credentials in it.
func (s *Sink) URLWithUser(user, password, query string) string {
	return fmt.Sprintf("smtp://%s@%s?%s", url.UserPassword(user, password).String(), s.Addr(), query)
}

// Start runs the server and waits until it accepts connections; it stops with the test.
func (s *Sink) Start() {
	s.t.Helper()
	cfg, _ := json.Marshal(map[string]any{"port": s.Port, "maildir": s.maildir, "cert": s.opts.CertFile, "key": s.opts.KeyFile,
		"user": s.opts.User, "password": s.opts.Password, "excludeMechanisms": s.opts.ExcludeMechanisms,
		"authLog": filepath.Join(s.dir, "auth.log")})
	s.cmd = exec.Command(Python, "-c", serverScript, string(cfg))
	// Its own log (aiosmtpd prints a traceback for every refused TLS handshake) is shown only
	// when the test fails.
	logFile, err := os.Create(filepath.Join(s.dir, "server.log"))
	if err != nil {
		s.t.Fatal(err)
	}
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	cmd, t := s.cmd, s.t
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logFile.Close()
		if out, _ := os.ReadFile(logFile.Name()); t.Failed() && len(out) > 0 {
			t.Logf("SMTP server log:\n%s", out)
		}
	})
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", s.Addr()); err == nil {
			c.Close()
			return
		}
	}
	s.t.Fatal("aiosmtpd did not start listening")
}

// Messages returns what the sink received.
func (s *Sink) Messages() []Message {
	s.t.Helper()
	entries, _ := os.ReadDir(filepath.Join(s.maildir, "new"))
	var out []Message
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(s.maildir, "new", e.Name()))
		if err != nil {
			s.t.Fatal(err)
		}
		m, err := mail.ReadMessage(bytes.NewReader(data))
		if err != nil {
			s.t.Fatal(err)
		}
		body, err := io.ReadAll(m.Body)
		if err != nil {
			s.t.Fatal(err)
		}
		out = append(out, Message{Header: m.Header, Body: string(body)})
	}
	return out
}

// AuthChecks returns the credential checks the server made, in order.
func (s *Sink) AuthChecks() []AuthCheck {
	s.t.Helper()
	f, err := os.Open(filepath.Join(s.dir, "auth.log"))
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	var out []AuthCheck
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c AuthCheck
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			s.t.Fatalf("auth log line %q: %v", sc.Text(), err)
		}
		out = append(out, c)
	}
	return out
}
