package targets

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"mime"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"os"
	"strings"
	"time"
)

// smtpChannel sends email through an SMTP server: STARTTLS when the server offers it (or TLS
// from the start with smtps://), authentication when the URL has a user.
type smtpChannel struct {
	addr, host string
	implicit   bool // smtps://
	user, pass string
	auth       bool
	from       string
	roots      *x509.CertPool // nil: the system's
	timeout    time.Duration
}

// newSMTPChannel reads smtp://user:pass@host:port?from=addr (smtps:// for TLS from the start);
// caFile (may be empty) names PEM certificates trusted for the server besides the system's;
// password, when set, replaces the URL's (whose user it then needs).
func newSMTPChannel(raw, caFile, password string) (*smtpChannel, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, fmt.Errorf("SMTP URL %q: want smtp://[user:pass@]host[:port]?from=addr (or smtps://)", redact(raw))
	}
	c := &smtpChannel{host: u.Hostname(), implicit: u.Scheme == "smtps", timeout: 30 * time.Second}
	port := u.Port()
	if port == "" {
		port = map[bool]string{false: "25", true: "465"}[c.implicit]
	}
	c.addr = net.JoinHostPort(c.host, port)
	if u.User != nil {
		c.user, c.auth = u.User.Username(), true
		c.pass, _ = u.User.Password()
	}
	if password != "" {
		if !c.auth || c.user == "" {
			return nil, fmt.Errorf("SMTP URL %q names no user for the password given apart from it", redact(raw))
		}
		c.pass = password
	}
	c.from = u.Query().Get("from")
	if c.from == "" {
		c.from = "energy@" + c.host
		if strings.Contains(c.user, "@") {
			c.from = c.user
		}
	}
	if a, err := mail.ParseAddress(c.from); err != nil || a.Address != c.from {
		return nil, fmt.Errorf("SMTP URL: from=%q is not an email address", c.from)
	}
	if caFile != "" {
		roots, err := trustedRoots(caFile)
		if err != nil {
			return nil, err
		}
		c.roots = roots
	}
	return c, nil
}

// trustedRoots is the system's certificate pool plus the PEM certificates of file (an
// internal CA, or a server's self-signed certificate).
func trustedRoots(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("SMTP CA file: %w", err)
	}
	roots, err := x509.SystemCertPool()
	if err != nil {
		roots = x509.NewCertPool()
	}
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("SMTP CA file %s: no PEM certificate in it", file)
	}
	return roots, nil
}

// redact hides a URL's password in messages.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(unparsable)"
}

func (c *smtpChannel) send(ctx context.Context, to string, n Notification, handover func() error) error {
	deadline := time.Now().Add(c.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	dialer := &net.Dialer{Deadline: deadline}
	tlsConfig := &tls.Config{ServerName: c.host, RootCAs: c.roots, MinVersion: tls.VersionTLS12}
	var conn net.Conn
	var err error
	if c.implicit {
		conn, err = (&tls.Dialer{NetDialer: dialer, Config: tlsConfig}).DialContext(ctx, "tcp", c.addr)
	} else {
		conn, err = dialer.DialContext(ctx, "tcp", c.addr)
	}
	if err != nil {
		return fmt.Errorf("SMTP server %s: %w", c.addr, err)
	}
	_ = conn.SetDeadline(deadline)
	client, err := smtp.NewClient(conn, c.host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("SMTP server %s: %w", c.addr, err)
	}
	defer client.Close()
	if err := client.Hello("localhost"); err != nil {
		return smtpErr(c.addr, "EHLO", err)
	}
	if ok, _ := client.Extension("STARTTLS"); ok && !c.implicit {
		if err := client.StartTLS(tlsConfig); err != nil {
			return smtpErr(c.addr, "STARTTLS", err)
		}
	}
	if c.auth {
		if err := c.authenticate(client); err != nil {
			return err
		}
	}
	if err := client.Mail(c.from); err != nil {
		return smtpErr(c.addr, "MAIL FROM", err)
	}
	if err := client.Rcpt(to); err != nil {
		return smtpErr(c.addr, "RCPT TO <"+to+">", err)
	}
	if err := handover(); err != nil {
		return err
	}
	w, err := client.Data()
	if err != nil {
		return smtpErr(c.addr, "DATA", err)
	}
	if _, err := w.Write(c.message(to, n)); err != nil {
		return smtpErr(c.addr, "DATA", err)
	}
	if err := w.Close(); err != nil {
		return smtpErr(c.addr, "end of DATA", err)
	}
	_ = client.Quit()
	return nil
}

// message is the RFC 5322 message: plain UTF-8 text; its Message-ID is derived from the
// notification so that a receiving system can recognise it.
func (c *smtpChannel) message(to string, n Notification) []byte {
	var b strings.Builder
	domain := c.from[strings.LastIndex(c.from, "@")+1:]
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%s@%s>\r\n", c.from, to,
		mime.QEncoding.Encode("utf-8", n.Subject), time.Now().UTC().Format(time.RFC1123Z), n.ID, domain)
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	// The DATA writer dot-stuffs lines and ends them with CRLF.
	b.WriteString(strings.TrimRight(n.Body, "\n") + "\n")
	return []byte(b.String())
}

// smtpErr words an SMTP failure; 5xx replies are permanent.
func smtpErr(addr, step string, err error) error {
	e := fmt.Errorf("SMTP server %s refused %s: %w", addr, step, err)
	if tp, ok := err.(*textproto.Error); ok && tp.Code >= 500 {
		return permanent(e)
	}
	return e
}
