package targets

import (
	"context"
	"errors"
)

// channel delivers one notification to one recipient. handover is called right before the
// step after which the message may have been delivered (SMTP DATA, the gateway's POST): when it
// fails, nothing is sent. An error is retried unless it is a *permanentError.
type channel interface {
	send(ctx context.Context, to string, n Notification, handover func() error) error
}

// permanentError is a failure that no retry can fix (recipient refused, request rejected).
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err: err} }

func isPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}
