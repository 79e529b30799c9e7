package targets

import (
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"strings"
	"unicode"
)

// authenticate logs in with PLAIN, or LOGIN when the server offers only that. Either sends
// the password only over TLS (or to localhost). A refused login is retried like any other
// failed attempt: the credentials are the operator's to fix, and the notification ends FAILED
// with the server's answer after the last attempt.
func (c *smtpChannel) authenticate(client *smtp.Client) error {
	ok, offered := client.Extension("AUTH")
	if !ok {
		return permanent(fmt.Errorf("SMTP server %s: a user is configured but the server offers no AUTH", c.addr))
	}
	var auth smtp.Auth
	switch mechanisms := strings.Fields(strings.ToUpper(offered)); {
	case contains(mechanisms, "PLAIN"):
		auth = smtp.PlainAuth("", c.user, c.pass, c.host)
	case contains(mechanisms, "LOGIN"):
		auth = &loginAuth{user: c.user, pass: c.pass, host: c.host}
	default:
		return permanent(fmt.Errorf("SMTP server %s offers AUTH %s, neither PLAIN nor LOGIN", c.addr, offered))
	}
	if err := client.Auth(auth); err != nil {
		return fmt.Errorf("SMTP server %s refused AUTH as %q: %w", c.addr, c.user, err)
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// loginAuth is the LOGIN mechanism (user name, then password, each asked by the server),
// which net/smtp does not provide.
type loginAuth struct{ user, pass, host string }

func (a *loginAuth) Start(server *smtp.ServerInfo) (string, []byte, error) {
	if !server.TLS && !isLocalhost(server.Name) {
		return "", nil, errors.New("unencrypted connection: the password is not sent")
	}
	if server.Name != a.host {
		return "", nil, errors.New("wrong host name")
	}
	return "LOGIN", nil, nil
}

func (a *loginAuth) Next(fromServer []byte, more bool) ([]byte, error) {
	if !more {
		return nil, nil
	}
	// Servers word the prompts differently ("Username:", "User Name"): compare letters only.
	prompt := strings.ToLower(strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) {
			return r
		}
		return -1
	}, string(fromServer)))
	switch {
	case strings.HasPrefix(prompt, "username"):
		return []byte(a.user), nil
	case strings.HasPrefix(prompt, "password"):
		return []byte(a.pass), nil
	default:
		return nil, fmt.Errorf("unexpected LOGIN prompt %q", fromServer)
	}
}

func isLocalhost(name string) bool {
	if name == "localhost" {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}
