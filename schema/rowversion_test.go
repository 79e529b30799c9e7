package schema

import (
	"sync"
	"testing"
)

func TestRowVersionsStrictlyIncrease(t *testing.T) {
	var v RowVersions
	const workers, each = 4, 1000
	got := make([][]uint64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				got[w] = append(got[w], v.Next())
			}
			first := v.Reserve(10)
			got[w] = append(got[w], first, first+9)
		}()
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for w := range got {
		for i, x := range got[w] {
			if i > 0 && x <= got[w][i-1] {
				t.Fatalf("worker %d: version %d after %d", w, x, got[w][i-1])
			}
			if seen[x] {
				t.Fatalf("version %d handed out twice", x)
			}
			seen[x] = true
		}
	}
	if after := v.Next(); after <= got[0][len(got[0])-1] {
		t.Fatalf("Next after a reservation returned %d, not above the reserved range", after)
	}
}
