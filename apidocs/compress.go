package apidocs

import (
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"energy/query/cache"
)

// minGzipBytes is the smallest body sent gzip-encoded: below it the header and framing cost
// more than they save.
const minGzipBytes = 1024

// compressAnswers gzip-encodes the 200 answers of 1 KiB or more to clients whose
// Accept-Encoding accepts gzip, with Content-Encoding: gzip and Vary: Accept-Encoding. Other
// requests, error answers, small bodies and answers whose handler chose an encoding itself
// (the /metrics endpoint) are sent as they are. A cached consumption, comparison or budget
// answer is sent in the gzip form its result cache keeps (cache.GzipSlot); any other body is
// compressed as it is written.
func compressAnswers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead || !acceptsGzip(r.Header.Values("Accept-Encoding")) {
			next.ServeHTTP(w, r)
			return
		}
		gw := &gzipResponse{ResponseWriter: w}
		next.ServeHTTP(gw, r.WithContext(cache.WithGzipSlot(r.Context(), &gw.cached)))
		gw.finish()
	})
}

// acceptsGzip tells whether Accept-Encoding values accept gzip: a gzip (or x-gzip) coding
// with a non-zero q-value, or else a * with one. It walks the values without splitting them
// (it runs on every request).
func acceptsGzip(values []string) bool {
	gzipQ, starQ := -1.0, -1.0
	for _, v := range values {
		for rest, more := v, true; more; {
			var part string
			part, rest, more = strings.Cut(rest, ",")
			coding, params, _ := strings.Cut(part, ";")
			q := 1.0
			for params != "" {
				var p string
				p, params, _ = strings.Cut(params, ";")
				name, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(name), "q") {
					f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
					if err != nil || f < 0 || f > 1 {
						f = 0 // an invalid weight accepts nothing
					}
					q = f
				}
			}
			switch strings.ToLower(strings.TrimSpace(coding)) { // no copy when already lower case
			case "gzip", "x-gzip":
				gzipQ = max(gzipQ, q)
			case "*":
				starQ = max(starQ, q)
			}
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}

// gzipResponse holds back the status and the first bytes of an answer until it knows whether
// to compress it: a 200 whose handler set no Content-Encoding, once minGzipBytes are written.
type gzipResponse struct {
	http.ResponseWriter
	cached cache.GzipSlot // the cached answer the request got, if any

	status int      // held back while pending
	mode   gzipMode //
	held   []byte   // body written while pending
	gz     *gzip.Writer
}

type gzipMode int

const (
	pending gzipMode = iota // undecided: status and body held back
	plain                   // passed through
	gzipped                 // compressed as written
	sent                    // a cached gzip form was sent whole
)

func (w *gzipResponse) WriteHeader(code int) {
	if w.mode != pending || w.status != 0 {
		if w.mode == plain {
			w.ResponseWriter.WriteHeader(code)
		}
		return
	}
	w.status = code
	h := w.Header()
	if code != http.StatusOK || h.Get("Content-Encoding") != "" || strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") || h.Get("Content-Type") == "application/gzip" {
		w.pass()
		return
	}
	h.Add("Vary", "Accept-Encoding")
}

func (w *gzipResponse) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	switch w.mode {
	case plain:
		return w.ResponseWriter.Write(b)
	case gzipped:
		return w.gz.Write(b)
	case sent:
		return 0, http.ErrBodyNotAllowed // the whole answer was sent
	}
	if len(w.held) == 0 && len(b) >= minGzipBytes {
		if gz, ok := w.cached.Gzip(b); ok {
			h := w.Header()
			h.Set("Content-Encoding", "gzip")
			h.Set("Content-Length", strconv.Itoa(len(gz)))
			w.ResponseWriter.WriteHeader(w.status)
			w.mode = sent
			if _, err := w.ResponseWriter.Write(gz); err != nil {
				return 0, err
			}
			return len(b), nil
		}
	}
	w.held = append(w.held, b...)
	if len(w.held) < minGzipBytes {
		return len(b), nil
	}
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	h.Del("Content-Length")
	w.ResponseWriter.WriteHeader(w.status)
	w.mode = gzipped
	w.gz = streamWriters.Get().(*gzip.Writer)
	w.gz.Reset(w.ResponseWriter)
	held := w.held
	w.held = nil
	if _, err := w.gz.Write(held); err != nil {
		return 0, err
	}
	return len(b), nil
}

// pass sends what was held back and passes the rest through.
func (w *gzipResponse) pass() {
	w.mode = plain
	if w.status != 0 {
		w.ResponseWriter.WriteHeader(w.status)
	}
	if len(w.held) > 0 {
		_, _ = w.ResponseWriter.Write(w.held)
		w.held = nil
	}
}

// Flush sends an undecided answer as it is (a handler that flushes streams) and flushes the
// compressor of a compressed one.
func (w *gzipResponse) Flush() {
	switch w.mode {
	case pending:
		w.pass()
	case gzipped:
		_ = w.gz.Flush()
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// finish ends the answer once the handler returned: a small body goes plain.
func (w *gzipResponse) finish() {
	switch w.mode {
	case pending:
		if w.status != 0 || len(w.held) > 0 {
			w.pass()
		}
	case gzipped:
		_ = w.gz.Close()
		w.gz.Reset(nil)
		streamWriters.Put(w.gz)
		w.gz = nil
	}
}

func (w *gzipResponse) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// streamWriters compress the answers no cache keeps, for every request: at the fastest level.
var streamWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // error only for an invalid level
	return w
}}
