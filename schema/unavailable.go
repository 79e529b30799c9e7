package schema

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"database/sql/driver"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// IsUnavailable tells whether err means that ClickHouse could not be reached (as opposed to
// a query it rejected). The API answers such errors with 503 STORAGE_UNAVAILABLE.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var ex *clickhouse.Exception
	if errors.As(err, &ex) {
		return false
	}
	var opErr *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, clickhouse.ErrAcquireConnTimeout),
		errors.Is(err, context.DeadlineExceeded), errors.As(err, &opErr):
		return true
	}
	return false
}
