package schema_test

import (
	"testing"
	"time"

	"energy/schema"
)

type monthRow struct {
	pod string
	ts  time.Time
}

func monthOf(r *monthRow) int { return schema.Month(r.ts) }

// Two pods' daily rows over 250 months go in three INSERTs of 100, 100 and 50 months, each
// row once, each pod's rows still in time order; within the limit the runs come back as given.
func TestByPartitionsKeepsEachInsertWithinTheLimit(t *testing.T) {
	start := time.Date(1999, 12, 31, 23, 0, 0, 0, time.UTC) // December 1999 in UTC
	var a, b []monthRow
	for d := 0; ; d++ {
		ts := start.AddDate(0, 0, d)
		if schema.Month(ts) >= schema.Month(start)+250 {
			break
		}
		a = append(a, monthRow{"A", ts})
		b = append(b, monthRow{"B", ts})
	}
	groups := schema.ByPartitions([][]monthRow{a, b}, monthOf)
	if len(groups) != 3 {
		t.Fatalf("%d groups, want 3", len(groups))
	}
	wantMonths := []int{100, 100, 50}
	total := 0
	lastTS := map[string]time.Time{}
	for g, runs := range groups {
		months := map[int]bool{}
		for _, run := range runs {
			for _, r := range run {
				months[monthOf(&r)] = true
				if !r.ts.After(lastTS[r.pod]) && !lastTS[r.pod].IsZero() {
					t.Fatalf("group %d: pod %s's row %s after %s", g, r.pod, r.ts, lastTS[r.pod])
				}
				lastTS[r.pod] = r.ts
				total++
			}
		}
		if len(months) != wantMonths[g] {
			t.Errorf("group %d touches %d months, want %d", g, len(months), wantMonths[g])
		}
	}
	if total != len(a)+len(b) {
		t.Errorf("%d rows in the groups, want %d", total, len(a)+len(b))
	}
	if first := groups[0][0][0]; !first.ts.Equal(start) || first.pod != "A" {
		t.Errorf("first row %+v, want pod A at %s", first, start)
	}

	within := [][]monthRow{a[:3000], b[:10]}
	if g := schema.ByPartitions(within, monthOf); len(g) != 1 || len(g[0]) != 2 || len(g[0][0]) != 3000 || len(g[0][1]) != 10 {
		t.Errorf("rows over %d months split: %d groups", schema.Month(a[2999].ts)-schema.Month(start)+1, len(g))
	}
}
