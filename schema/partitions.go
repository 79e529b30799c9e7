package schema

import (
	"slices"
	"time"
)

// MaxPartitionsPerInsert is the most partitions one INSERT of ours touches. Releases after
// 18.16 (24 and 26.5 at least) refuse an INSERT block that touches more than
// max_partitions_per_insert_block (100 by default; 18.16 takes any number), and the server may
// squash the blocks of one INSERT into one, so the rows of an INSERT, not only of a block, stay
// within it. The readings and weather tables are partitioned by month (toYYYYMM of a UTC
// column): 100 partitions are 8 years and 4 months, while one archive file may hold 27 years of
// daily indexes and a weather upload more.
const MaxPartitionsPerInsert = 100

// Month is the partition of t in a table PARTITION BY toYYYYMM(column) of a UTC DateTime or
// Date column: its calendar month in UTC, counted from year 0.
func Month(t time.Time) int {
	y, m, _ := t.UTC().Date()
	return y*12 + int(m) - 1
}

// ByPartitions splits rows, given as runs, into groups that each touch at most
// MaxPartitionsPerInsert partitions, one INSERT per group: the partitions in ascending order,
// the first MaxPartitionsPerInsert of them in the first group, and so on. Each group holds the
// rows of its partitions as runs of the given ones (sub-slices in the same order, no copy), so
// rows in key order stay so. The split depends only on the rows: the same rows sent again (a
// job redone after a crash) make the same INSERTs, which a replicated table deduplicates as it
// did the first ones. Rows within the limit come back as one group, the runs unchanged.
func ByPartitions[T any](runs [][]T, partition func(*T) int) [][][]T {
	seen := map[int]bool{}
	for _, run := range runs {
		last := -1
		for i := range run {
			if p := partition(&run[i]); p != last { // runs in time order repeat a partition
				seen[p], last = true, p
			}
		}
	}
	if len(seen) <= MaxPartitionsPerInsert {
		return [][][]T{runs}
	}
	parts := make([]int, 0, len(seen))
	for p := range seen {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	group := make(map[int]int, len(parts))
	for i, p := range parts {
		group[p] = i / MaxPartitionsPerInsert
	}
	groups := make([][][]T, (len(parts)+MaxPartitionsPerInsert-1)/MaxPartitionsPerInsert)
	for _, run := range runs {
		start := 0
		for i := 1; i <= len(run); i++ {
			if i < len(run) && group[partition(&run[i])] == group[partition(&run[start])] {
				continue
			}
			g := group[partition(&run[start])]
			groups[g] = append(groups[g], run[start:i])
			start = i
		}
	}
	return groups
}
