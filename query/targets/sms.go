package targets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// smsChannel sends text messages through an HTTP gateway: POST {"to": phone, "text": …} with
// a bearer token.
type smsChannel struct {
	url, token string
	client     *http.Client
}

func newSMSChannel(raw, token string) (*smsChannel, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("SMS gateway URL %q: want http(s)://host/path", redact(raw))
	}
	return &smsChannel{url: raw, token: token, client: &http.Client{Timeout: 30 * time.Second}}, nil
}

func (c *smsChannel) send(ctx context.Context, to string, n Notification, handover func() error) error {
	body, err := json.Marshal(struct {
		To   string `json:"to"`
		Text string `json:"text"`
	}{to, n.Body})
	if err != nil {
		return permanent(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return permanent(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	// Idempotency-Key lets a gateway that supports it drop a repeat.
	req.Header.Set("Idempotency-Key", n.ID)
	if err := handover(); err != nil {
		return err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("SMS gateway: %w", err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests:
		return permanent(fmt.Errorf("SMS gateway refused the message: %s %s", resp.Status, bytes.TrimSpace(msg)))
	}
	return fmt.Errorf("SMS gateway: %s %s", resp.Status, bytes.TrimSpace(msg))
}
