package targets

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// smtpSink is a real SMTP server (Debian's python3-aiosmtpd) storing what it receives in a
// maildir, started on a port chosen by the test.
type smtpSink struct {
	t       *testing.T
	port    int
	maildir string
	cmd     *exec.Cmd
}

// aiosmtpdPython is the interpreter that has Debian's aiosmtpd (not a pyenv or venv one).
const aiosmtpdPython = "/usr/bin/python3"

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// newSMTPSink prepares a sink on a free port; start runs it.
func newSMTPSink(t *testing.T) *smtpSink {
	t.Helper()
	if err := exec.Command(aiosmtpdPython, "-c", "import aiosmtpd").Run(); err != nil {
		t.Fatalf("these tests need a real SMTP server: apt-get install -y python3-aiosmtpd (%v)", err)
	}
	return &smtpSink{t: t, port: freePort(t), maildir: filepath.Join(t.TempDir(), "maildir")}
}

func (s *smtpSink) url(query string) string {
	return fmt.Sprintf("smtp://127.0.0.1:%d?%s", s.port, query)
}

func (s *smtpSink) start() {
	s.t.Helper()
	s.cmd = exec.Command(aiosmtpdPython, "-m", "aiosmtpd", "-n", "-l", fmt.Sprintf("127.0.0.1:%d", s.port),
		"-c", "aiosmtpd.handlers.Mailbox", s.maildir)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	cmd := s.cmd
	s.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.port)); err == nil {
			c.Close()
			return
		}
	}
	s.t.Fatal("aiosmtpd did not start listening")
}

// received is one message the sink stored.
type received struct {
	header mail.Header
	body   string
}

// messages returns what the sink received.
func (s *smtpSink) messages() []received {
	s.t.Helper()
	entries, _ := os.ReadDir(filepath.Join(s.maildir, "new"))
	var out []received
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
		out = append(out, received{header: m.Header, body: string(body)})
	}
	return out
}
