package weather

import (
	"context"
	"maps"
	"testing"
	"time"

	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestCachedMeansFollowWeatherChanges: cached daily means are the store's exact values; a
// weather change made as the PUT handler makes it (insert, then a bump of the tenant's
// reference version) is seen by the next read of this process, and by another process (an
// energyd replica watching the data versions) within the documented second.
func TestCachedMeansFollowWeatherChanges(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := chtest.DB(t)
	store := NewStore(db)
	paris, _ := time.LoadLocation("Europe/Paris")
	from, to := time.Date(2024, 1, 1, 0, 0, 0, 0, paris), time.Date(2024, 1, 4, 0, 0, 0, 0, paris)
	put := func(day int, temperatures ...float64) {
		t.Helper()
		var obs []Observation
		for i, v := range temperatures {
			obs = append(obs, Observation{Date: time.Date(2024, 1, day, 6*i, 0, 0, 0, paris), Temperature: v, Cloudiness: 4})
		}
		if err := store.Put(ctx, "acme", "ST", obs); err != nil {
			t.Fatal(err)
		}
	}
	// 1 January: (1.1 + 2.2 + 3.4) / 3, a mean with no short decimal form; 2 January: 7;
	// 3 January: nothing.
	put(1, 1.1, 2.2, 3.4)
	put(2, 6, 8)

	a, b := registry.New(db), registry.New(db)
	go b.Versions.Watch(ctx, 250*time.Millisecond, nil)
	onA, onB := NewCachedMeans(store, a.Versions), NewCachedMeans(store, b.Versions)
	read := func(c interface {
		DailyMeans(context.Context, string, string, *time.Location, time.Time, time.Time) (map[uint32]float64, error)
	}) map[uint32]float64 {
		t.Helper()
		m, err := c.DailyMeans(ctx, "acme", "ST", paris, from, to)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	direct := read(store)
	if len(direct) != 2 || direct[20240102] != 7 {
		t.Fatalf("store's means %v, want 2 days, 7 °C on 2 January", direct)
	}
	for range 2 { // a miss, then a hit: both the store's float64 values, bit for bit
		if got := read(onA); !maps.Equal(got, direct) {
			t.Fatalf("cached means %v, want %v", got, direct)
		}
	}
	read(onB)[20240102] = -99 // each caller gets its own map
	if got := read(onB); !maps.Equal(got, direct) {
		t.Fatalf("cached means after a caller's edit %v, want %v", got, direct)
	}
	if s := onA.results.Stats(); s.Hits != 1 || s.Misses != 1 {
		t.Errorf("process A: %d hits, %d misses; want 1 and 1", s.Hits, s.Misses)
	}

	// 2 January at 10 and 12 °C, written through A as the PUT handler does.
	put(2, 10, 12)
	a.Versions.Bump("acme", "")
	if got := read(onA)[20240102]; got != 11 {
		t.Errorf("process A after its weather change: 2 January %v °C, want 11", got)
	}
	changed := time.Now()
	for read(onB)[20240102] != 11 {
		if time.Since(changed) > time.Second {
			t.Fatalf("process B still reads 2 January at %v °C 1 s after the change", read(onB)[20240102])
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("process B saw the change after %v", time.Since(changed).Round(time.Millisecond))

	// Another station, zone or span is another entry, never the cached one.
	put(3, -2)
	if got := read(store)[20240103]; got != -2 {
		t.Fatalf("store: 3 January %v °C, want -2", got)
	}
	if m, err := onA.DailyMeans(ctx, "acme", "ST", paris, from, to.AddDate(0, 0, 1)); err != nil || m[20240103] != -2 {
		t.Errorf("a longer span: 3 January %v °C (%v), want -2", m[20240103], err)
	}
	if m, err := onA.DailyMeans(ctx, "acme", "OTHER", paris, from, to); err != nil || len(m) != 0 {
		t.Errorf("a station without weather: %v (%v), want nothing", m, err)
	}
}
