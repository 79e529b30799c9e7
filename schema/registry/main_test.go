package registry

import (
	"context"
	"os"
	"testing"
	"time"

	"energy/schema/chtest"
)

func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }

// newStore is a store on a fresh database whose clock the test sets.
func newStore(t *testing.T) (*Store, *time.Time) {
	t.Helper()
	s := New(chtest.DB(t))
	now := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	return s, &now
}

// watchedStores are two stores on one fresh database, each watching the other's changes every
// 50 ms, as two energyd replicas do; they stop watching when the test ends.
func watchedStores(t *testing.T) (context.Context, *Store, *Store) {
	t.Helper()
	db := chtest.DB(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	a, b := New(db), New(db)
	go a.Versions.Watch(ctx, 50*time.Millisecond, nil)
	go b.Versions.Watch(ctx, 50*time.Millisecond, nil)
	return ctx, a, b
}

// wantField checks that err is a FieldError naming field and that its message mentions each
// of mentions.
func wantField(t *testing.T, err error, field string, mentions ...string) {
	t.Helper()
	fe, ok := err.(*FieldError)
	if !ok {
		t.Fatalf("error %v (%T), want a FieldError on %s", err, err, field)
	}
	if fe.Field != field {
		t.Fatalf("FieldError on %q (%s), want %q", fe.Field, fe.Message, field)
	}
	for _, m := range mentions {
		if !contains(fe.Message, m) {
			t.Errorf("message %q does not mention %q", fe.Message, m)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
