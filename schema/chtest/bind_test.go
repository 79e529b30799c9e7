package chtest

import (
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

func TestBindPositional(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	got, err := bindPositional("SELECT '?', x FROM t WHERE a = ? AND has(?, n) AND ts >= ? AND v < ? AND k = ? AND s IN ?",
		[]any{"it's", []string{"A", "B"}, time.Date(2024, 3, 31, 2, 30, 0, 0, time.UTC).In(paris), 2.5, uint32(7),
			clickhouse.GroupSet{Value: []any{"S1", "S'2"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `SELECT '?', x FROM t WHERE a = 'it\'s' AND has(['A', 'B'], n) AND ts >= toDateTime('2024-03-31 04:30:00', 'Europe/Paris') AND v < 2.5 AND k = 7 AND s IN ('S1', 'S\'2')`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if _, err := bindPositional("SELECT ?", nil); err == nil {
		t.Fatal("a '?' without argument was accepted")
	}
	if _, err := bindPositional("SELECT 1", []any{1}); err == nil {
		t.Fatal("an argument without '?' was accepted")
	}
}
