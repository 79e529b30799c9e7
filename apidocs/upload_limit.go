package apidocs

import (
	"io"
	"net/http"
	"strings"
	"time"

	"energy/ingest"
)

// uploadOverhead is what a multipart body may hold beyond its archive part (boundaries, part
// headers, small fields) before the body itself is refused with 413.
const uploadOverhead = 1 << 20

// tooLarge is the 413 of an oversized archive; limitUpload strips its body.
func tooLarge() *APIError {
	return Fail(http.StatusRequestEntityTooLarge, CodeInvalidParameter, "the archive file part is larger than %d bytes", ingest.MaxArchiveBytes)
}

// limitUpload guards the submission route: the body is bounded while it is read (never
// buffered unbounded), and a 413 there carries no body (the error model in apidocs/README.md).
// A client trickling its upload is cut off below the minimum transfer rate.
func limitUpload(next http.Handler, rate UploadRate) http.Handler {
	rate = rate.withDefaults()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || strings.TrimRight(r.URL.Path, "/") != submitPath {
			next.ServeHTTP(w, r)
			return
		}
		body := newRateLimitedBody(w, r.Body, rate, time.Now())
		r.Body = http.MaxBytesReader(w, body, ingest.MaxArchiveBytes+uploadOverhead)
		rec := &emptyTooLarge{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		// A client that sends its whole body before reading the answer would see the connection
		// reset instead of the 413: send the answer, then read (and drop) a bounded rest of the
		// body. Not when the client waits for "100 Continue": it sends nothing more.
		if rec.dropping && r.Header.Get("Expect") == "" && r.ContentLength <= drainLimit {
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			_, _ = io.CopyN(io.Discard, body, drainLimit)
		}
	})
}

const (
	// drainLimit bounds what is read of a refused upload's body.
	drainLimit = 16 << 20
)

// emptyTooLarge drops the body and content headers of a 413.
type emptyTooLarge struct {
	http.ResponseWriter
	dropping bool
}

func (w *emptyTooLarge) WriteHeader(code int) {
	if code == http.StatusRequestEntityTooLarge {
		w.dropping = true
		h := w.Header()
		h.Del("Content-Type")
		h.Del("Content-Length")
		h.Set("Connection", "close")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *emptyTooLarge) Write(b []byte) (int, error) {
	if w.dropping {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *emptyTooLarge) Unwrap() http.ResponseWriter { return w.ResponseWriter }
