package schema

import "time"

// OrDefault returns v when it is positive, else fallback: a setting left at zero (or given a
// meaningless negative value) takes its default.
func OrDefault[T int | time.Duration](v, fallback T) T {
	if v > 0 {
		return v
	}
	return fallback
}
