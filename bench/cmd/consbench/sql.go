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

// sqlOutput says how a direct query's result leaves clickhouse-client.
type sqlOutput int

const (
	// delivered: the client's default output format (TabSeparated), every row written to a
	// pipe that discards it, as a user running the query gets the rows on a terminal or in a
	// file. Comparable with the endpoint, whose time includes delivering its JSON body.
	delivered sqlOutput = iota
	// serverOnly: FORMAT Null, the server computes the result and sends nothing back.
	serverOnly
)

// sqlRun is what one clickhouse-client session measured.
type sqlRun struct {
	times []time.Duration // elapsed time the client reports for each timed query
	bytes int64           // output written per query (0 with FORMAT Null)
	rows  int64           // output lines per query
}

// timeSQL runs query n+1 times in one clickhouse-client process (--multiquery --time) and
// returns the n last elapsed times the client reports (the first run warms the caches, as the
// endpoint's check request does). Client start-up is not counted; the network round trip is,
// and with delivered output the transfer of the rows and their writing to stdout.
func timeSQL(ctx context.Context, dsn, query string, n int, output sqlOutput) (sqlRun, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return sqlRun{}, err
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" {
		db = "default"
	}
	port := u.Port()
	if port == "" {
		port = "9000"
	}
	suffix := ";\n"
	if output == serverOnly {
		suffix = " FORMAT Null;\n"
	}
	var q strings.Builder
	for range n + 1 {
		q.WriteString(query)
		q.WriteString(suffix)
	}
	cmd := exec.CommandContext(ctx, "clickhouse-client", "--host", u.Hostname(), "--port", port, "--database", db,
		"--multiquery", "--time", "--query", q.String())
	var sink discardCounter
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &sink, &stderr // a non-file Stdout: the client writes into a pipe
	if err := cmd.Run(); err != nil {
		return sqlRun{}, fmt.Errorf("clickhouse-client: %v: %s", err, lastLine(stderr.String()))
	}
	var times []time.Duration
	for _, line := range strings.Split(stderr.String(), "\n") {
		if s, err := strconv.ParseFloat(strings.TrimSpace(line), 64); err == nil {
			times = append(times, time.Duration(s*float64(time.Second)))
		}
	}
	if len(times) != n+1 {
		return sqlRun{}, fmt.Errorf("clickhouse-client reported %d times for %d queries: %s", len(times), n+1, lastLine(stderr.String()))
	}
	return sqlRun{times: times[1:], bytes: sink.bytes / int64(n+1), rows: sink.lines / int64(n+1)}, nil
}

// discardCounter drops what it is given, counting bytes and lines so that the report can show
// the rows were really delivered.
type discardCounter struct{ bytes, lines int64 }

func (d *discardCounter) Write(p []byte) (int, error) {
	d.bytes += int64(len(p))
	d.lines += int64(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
