package main

import (
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"energy/apidocs/client"
)

// exportSite writes a site's export archive (GET /v2/sites/{siteId}/export) to stdout, with its
// progress on stderr; the archive is checked whole (a stream the service had to cut is an error).
func exportSite(ctx context.Context, args []string, stdout io.Writer, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var a apiFlags
	a.register(fs)
	start := fs.String("start", "", "first instant exported, RFC 3339 (2024-01-01T00:00:00Z); default: the first reading")
	end := fs.String("end", "", "instant where the export stops, excluded, RFC 3339; default: after the last reading")
	setUsage(fs, "usage: energyctl export [--start T] [--end T] SITE > SITE.tar.gz   (a token with the admin scope)")
	id, err := parseCommand(fs, args, "site id")
	if err != nil {
		return err
	}
	if f, ok := stdout.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return errors.New("standard output is a terminal: redirect it to a file (energyctl export " + id + " > " + id + ".tar.gz)")
		}
	}
	c, err := newAPIClient(a.api, a.token)
	if err != nil {
		return err
	}
	params := &client.ExportSiteParams{}
	if *start != "" {
		params.StartTs = start
	}
	if *end != "" {
		params.EndTs = end
	}
	// The raw call: the archive is streamed to stdout, never held whole in memory.
	resp, err := c.api.ExportSite(ctx, id, params)
	if err != nil {
		return c.outcome(ctx, nil, err, "admin")
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		parsed, err := client.ParseExportSiteResponse(resp)
		return c.outcome(ctx, parsed, err, "admin")
	}
	counted := &countingWriter{w: stdout, progress: stderr, every: 250 * time.Millisecond}
	zr, err := gzip.NewReader(io.TeeReader(resp.Body, counted))
	if err != nil {
		return fmt.Errorf("the export of %s is not a gzip stream: %w", id, err)
	}
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return fmt.Errorf("the export of %s was cut after %d bytes: %w (the service's log says why)", id, counted.n, err)
	}
	// Trailing bytes after the gzip stream would be a service bug; copy them anyway.
	if _, err := io.Copy(counted, resp.Body); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "\rexported site %s: %d bytes\n", id, counted.n)
	return nil
}

// countingWriter passes bytes on and reports their count on progress at most every every.
type countingWriter struct {
	w, progress io.Writer
	n           int64
	every       time.Duration
	last        time.Time
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	if now := time.Now(); now.Sub(c.last) >= c.every {
		c.last = now
		fmt.Fprintf(c.progress, "\rexporting: %d bytes", c.n)
	}
	return n, err
}
