package schema

import (
	"context"
	"errors"
	"testing"
	"time"
)

type probeKey struct{}

// The driver's context ends with the caller's while the batch is under way, with the caller's
// error and deadline, and never once the batch is over.
func TestBatchContextEndsOnlyWhileTheBatchIsUnderWay(t *testing.T) {
	deadline := time.Now().Add(time.Hour)
	parent, cancel := context.WithDeadline(context.WithValue(context.Background(), probeKey{}, "v"), deadline)
	under := newBatchContext(parent)
	if d, ok := under.Deadline(); !ok || !d.Equal(deadline) {
		t.Errorf("deadline %v %v, want the caller's %v", d, ok, deadline)
	}
	if under.Value(probeKey{}) != "v" {
		t.Error("the caller's values are lost")
	}
	over := newBatchContext(parent)
	over.end()
	cancel()
	select {
	case <-under.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a batch under way did not end with its caller's context")
	}
	if !errors.Is(under.Err(), context.Canceled) {
		t.Errorf("error %v, want the caller's context.Canceled", under.Err())
	}
	select {
	case <-over.Done():
		t.Fatal("the context of a batch already over ended with its caller's")
	default:
	}
	if over.Err() != nil {
		t.Errorf("error %v of a batch already over", over.Err())
	}

	expired, cancelExpired := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancelExpired()
	<-expired.Done()
	late := newBatchContext(expired)
	<-late.Done()
	if !errors.Is(late.Err(), context.DeadlineExceeded) {
		t.Errorf("error %v, want the caller's context.DeadlineExceeded", late.Err())
	}
}
