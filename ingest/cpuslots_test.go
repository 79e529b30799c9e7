package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// slowSites resolves every site id, taking a while, and records how many files were being
// decoded at once (the resolver is called from inside DecodeFile).
type slowSites struct {
	mu            sync.Mutex
	inFlight, max int
}

func (s *slowSites) SiteByID(context.Context, string) (bool, error) {
	s.mu.Lock()
	s.inFlight++
	s.max = max(s.max, s.inFlight)
	s.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	s.mu.Lock()
	s.inFlight--
	s.mu.Unlock()
	return true, nil
}

func (s *slowSites) SiteByCustomer(context.Context, string, string) (string, bool, error) {
	return "", false, nil
}

// membersOfSites is one file per site, each with one max power.
func membersOfSites(n int) []Member {
	var ms []Member
	for i := range n {
		ms = append(ms, Member{Name: fmt.Sprintf("f%d.json", i), Regular: true, Data: fmt.Appendf(nil,
			`{"maxPowers":[{"siteId":"S%d","podId":"PDL-1","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-02T06:00:00Z","value":%d}]}`, i, 1000+i)})
	}
	return ms
}

// The files of an archive are decoded at most as many at once as there are slots, and every
// file is decoded.
func TestDecodeFilesTakesNoMoreThanItsSlots(t *testing.T) {
	for _, n := range []int{1, 2} {
		sites := &slowSites{}
		rows, reps, err := decodeFiles(context.Background(), newCPUSlots(n), membersOfSites(5), sites)
		if err != nil {
			t.Fatal(err)
		}
		if sites.max != n {
			t.Errorf("%d slots: %d files decoded at once", n, sites.max)
		}
		for i := range 5 {
			if len(rows[i].MaxPowers) != 1 || rows[i].MaxPowers[0].Value != int64(1000+i) || rows[i].MaxPowers[0].SiteID != fmt.Sprintf("S%d", i) ||
				reps[i].NbOperationsOK != 1 || reps[i].Name != fmt.Sprintf("f%d.json", i) {
				t.Errorf("%d slots, file %d: rows %+v report %+v", n, i, rows[i], reps[i])
			}
		}
	}
}

// While every slot is taken (another job decoding), a job whose deadline passes stops waiting
// and says why.
func TestDecodeFilesStopsWaitingAtTheDeadline(t *testing.T) {
	slots := newCPUSlots(1)
	if err := slots.take(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _, err := decodeFiles(ctx, slots, membersOfSites(2), &slowSites{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the deadline", err)
	}
	slots.give()
	if _, _, err := decodeFiles(context.Background(), slots, membersOfSites(2), &slowSites{}); err != nil {
		t.Fatalf("after the slot is given back: %v", err)
	}
}

func TestDefaultDecodeSlotsLeavesAProcessor(t *testing.T) {
	for _, c := range []struct{ procs, want int }{{1, 1}, {2, 1}, {4, 3}} {
		if got := decodeSlotsFor(c.procs); got != c.want {
			t.Errorf("%d processors: %d slots, want %d", c.procs, got, c.want)
		}
	}
}
