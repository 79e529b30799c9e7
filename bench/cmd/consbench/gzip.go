package main

import (
	"fmt"
	"net/http"
)

// acceptGzip is the header dashboards send (browsers, Grafana, Go's http.Client by default).
const acceptGzip = "Accept-Encoding: gzip"

// gzipBody fetches a cached answer as a dashboard does, with Accept-Encoding: gzip, checks it
// comes gzip-encoded from the cache and returns its size on the wire. It also makes the
// answer's gzip form before wrk measures it (the first such request compresses it, once).
func gzipBody(client *http.Client, url, token string) (int, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept-Encoding", "gzip") // the client's DisableCompression leaves it as sent
	st, body, hdr, err := do(client, req)
	if err != nil {
		return 0, err
	}
	if st != http.StatusOK || hdr.Get("Content-Encoding") != "gzip" || hdr.Get("X-Cache") != "HIT" {
		return 0, fmt.Errorf("%s with %s: status %d, Content-Encoding %q, X-Cache %q", url, acceptGzip, st, hdr.Get("Content-Encoding"), hdr.Get("X-Cache"))
	}
	return len(body), nil
}
