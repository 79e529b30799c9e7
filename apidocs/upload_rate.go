package apidocs

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// UploadRate is the slowest archive upload the service waits for: once Grace has passed since
// the request's headers arrived, the body must have come at MinBytesPerSecond on average, or
// the connection's read deadline cuts it off and the client gets a 400 saying so. A client
// trickling its body therefore holds a connection (and a staged spool file) for at most
// Grace + (archive limit + multipart overhead) / MinBytesPerSecond.
type UploadRate struct {
	MinBytesPerSecond int64
	Grace             time.Duration
}

// Defaults of UploadRate (energyd --upload-min-rate, --upload-grace): 16 KiB/s is a slow
// mobile link; the largest accepted upload then has about 4 minutes.
const (
	DefaultUploadMinRate = 16 << 10
	DefaultUploadGrace   = 10 * time.Second
)

func (r UploadRate) withDefaults() UploadRate {
	if r.MinBytesPerSecond <= 0 {
		r.MinBytesPerSecond = DefaultUploadMinRate
	}
	if r.Grace <= 0 {
		r.Grace = DefaultUploadGrace
	}
	return r
}

// rateLimitedBody moves the connection's read deadline forward as bytes arrive: the deadline
// is start + Grace + received / MinBytesPerSecond, so a body at the minimum rate never meets
// it and a slower one does.
type rateLimitedBody struct {
	body     io.ReadCloser
	rc       *http.ResponseController
	rate     UploadRate
	start    time.Time
	received int64
}

func newRateLimitedBody(w http.ResponseWriter, body io.ReadCloser, rate UploadRate, now time.Time) *rateLimitedBody {
	b := &rateLimitedBody{body: body, rc: http.NewResponseController(w), rate: rate, start: now}
	b.extend()
	return b
}

func (b *rateLimitedBody) deadline() time.Time {
	allowed := b.rate.Grace + time.Duration(float64(b.received)/float64(b.rate.MinBytesPerSecond)*float64(time.Second))
	return b.start.Add(allowed)
}

// extend sets the read deadline; a connection that cannot take one (none in tests' recorders)
// is left as it is.
func (b *rateLimitedBody) extend() { _ = b.rc.SetReadDeadline(b.deadline()) }

func (b *rateLimitedBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if n > 0 {
		b.received += int64(n)
		b.extend()
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = &slowUploadError{rate: b.rate, received: b.received, elapsed: time.Since(b.start)}
	}
	return n, err
}

func (b *rateLimitedBody) Close() error { return b.body.Close() }

// slowUploadError is a body cut off for arriving below the minimum transfer rate.
type slowUploadError struct {
	rate     UploadRate
	received int64
	elapsed  time.Duration
}

func (e *slowUploadError) Error() string {
	return fmt.Sprintf("the upload is slower than the minimum transfer rate of %d bytes/s (after %s allowed to start): %d bytes received in %.1f s",
		e.rate.MinBytesPerSecond, e.rate.Grace, e.received, e.elapsed.Seconds())
}
