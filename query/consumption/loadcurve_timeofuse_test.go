package consumption

import (
	"testing"
	"time"

	"energy/schema/registry"
)

// TestTimeOfUseAcrossDST splits spans by local wall-clock time on DST days (no database).
func TestTimeOfUseAcrossDST(t *testing.T) {
	hc := &registry.Tariff{DialHeadings: map[string]string{"1": "HC", "2": "HP"}, DefaultHeading: "HP",
		TimeOfUse: []registry.TimeOfUse{{From: "22:00", To: "06:00", Heading: "HC"}}}
	cases := []struct {
		name     string
		tariff   *registry.Tariff
		from, to time.Time
		want     map[string]time.Duration
	}{
		// 03-30 20:00 → 03-31 08:00 local: HP 20–22 (2 h); HC 22:00–06:00 wall clock, which lasts
		// 7 h because 02:00–03:00 does not exist; HP 06–08 (2 h). 11 absolute hours.
		{"spring night", hc, pt("2024-03-30T20:00"), pt("2024-03-31T08:00"), map[string]time.Duration{"HP": 4 * time.Hour, "HC": 7 * time.Hour}},
		// 10-26 20:00 → 10-27 08:00: HC lasts 9 h (02:00–03:00 happens twice). 13 hours.
		{"fall night", hc, pt("2024-10-26T20:00"), pt("2024-10-27T08:00"), map[string]time.Duration{"HP": 4 * time.Hour, "HC": 9 * time.Hour}},
		// A range inside the day, and one ending at 24:00.
		{"day range", &registry.Tariff{DefaultHeading: "HP", TimeOfUse: []registry.TimeOfUse{{From: "12:30", To: "14:00", Heading: "HC"}, {From: "23:00", To: "24:00", Heading: "HC"}}},
			pt("2024-06-12T12:00"), pt("2024-06-13T00:30"), map[string]time.Duration{"HP": 9*time.Hour + time.Hour, "HC": 90*time.Minute + time.Hour}},
		// No tariff: everything under BASE.
		{"no tariff", nil, pt("2024-06-12T12:00"), pt("2024-06-12T13:00"), map[string]time.Duration{"BASE": time.Hour}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tou := newTimeOfUse(c.tariff, parisLoc, nil)
			got := map[string]time.Duration{}
			last := c.from
			tou.split(c.from, c.to, func(a, b time.Time, h string) {
				if !a.Equal(last) || !b.After(a) {
					t.Errorf("parts not contiguous: %s..%s after %s", a, b, last)
				}
				last = b
				got[h] += b.Sub(a)
			})
			if !last.Equal(c.to) {
				t.Errorf("split ends at %s, want %s", last, c.to)
			}
			if len(got) != len(c.want) {
				t.Fatalf("headings %v, want %v", got, c.want)
			}
			for h, d := range c.want {
				if got[h] != d {
					t.Errorf("%s: %v, want %v", h, got[h], d)
				}
			}
		})
	}
}
