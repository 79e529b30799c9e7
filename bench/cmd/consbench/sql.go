package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// timeSQL runs query n+1 times in one clickhouse-client process (--multiquery --time, output
// discarded with FORMAT Null) and returns the n last elapsed times the client reports (the
// first run warms the caches, as the endpoint's check request does). Client start-up is not
// counted; the network round trip and the transfer of the result are.
func timeSQL(ctx context.Context, dsn, query string, n int) ([]time.Duration, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, err
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" {
		db = "default"
	}
	port := u.Port()
	if port == "" {
		port = "9000"
	}
	var q strings.Builder
	for range n + 1 {
		q.WriteString(query)
		q.WriteString(" FORMAT Null;\n")
	}
	cmd := exec.CommandContext(ctx, "clickhouse-client", "--host", u.Hostname(), "--port", port, "--database", db,
		"--multiquery", "--time", "--query", q.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("clickhouse-client: %v: %s", err, lastLine(stderr.String()))
	}
	var out []time.Duration
	for _, line := range strings.Split(stderr.String(), "\n") {
		if s, err := strconv.ParseFloat(strings.TrimSpace(line), 64); err == nil {
			out = append(out, time.Duration(s*float64(time.Second)))
		}
	}
	if len(out) != n+1 {
		return nil, fmt.Errorf("clickhouse-client reported %d times for %d queries: %s", len(out), n+1, lastLine(stderr.String()))
	}
	return out[1:], nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
