package ingest

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// The time parsers as they were first written, on time.Parse: the oracle of the hand-written ones.

func oracleTimestampZ(s string) (time.Time, error) {
	rest, ok := timePrefix([]byte(s))
	if !ok || string(rest) != "Z" {
		return time.Time{}, errFormatZ
	}
	return oracleInRange(s, errFormatZ)
}

func oracleTimestampOffset(s string) (time.Time, error) {
	rest, ok := timePrefix([]byte(s))
	if !ok {
		return time.Time{}, errFormatOffset
	}
	switch {
	case string(rest) == "Z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && digits(rest[1:3]) && rest[3] == ':' && digits(rest[4:6]) &&
		atoi2(rest[1:3]) <= 23 && atoi2(rest[4:6]) <= 59:
	default:
		return time.Time{}, errFormatOffset
	}
	return oracleInRange(s, errFormatOffset)
}

func oracleInRange(s string, format error) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, format
	}
	t = t.UTC().Truncate(time.Second)
	if t.Before(minTime) || t.After(maxTime) {
		return time.Time{}, errRange
	}
	return t, nil
}

func oracleDate(s string) (time.Time, error) {
	if len(s) != 10 || !(digits([]byte(s[0:4])) && s[4] == '-' && digits([]byte(s[5:7])) && s[7] == '-' && digits([]byte(s[8:10]))) {
		return time.Time{}, errFormatDate
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, errFormatDate
	}
	if t.Before(minTime) || t.After(maxTime) {
		return time.Time{}, errRange
	}
	return t, nil
}

// FuzzTimeFormats: the hand-written parsers give time.Parse's answers (same instant, same error).
func FuzzTimeFormats(f *testing.F) {
	for _, s := range []string{
		"2024-01-31T23:00:00Z", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2000-02-29T12:00:00Z", "1900-02-29T00:00:00Z",
		"2024-04-31T00:00:00Z", "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z", "2024-01-00T00:00:00Z", "2024-01-01T24:00:00Z",
		"2024-01-01T23:60:00Z", "2024-01-01T23:59:60Z", "2024-01-31T23:30:00+01:00", "2024-01-31T23:30:00-23:59", "2024-01-31T23:30:00+24:00",
		"1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999Z", "1970-01-01T00:30:00+01:00", "2105-12-31T23:59:59.999999999Z",
		"2106-01-01T00:00:00Z", "2105-12-31T23:59:59-00:01", "0000-02-29T00:00:00Z", "9999-12-31T23:59:59Z", "2024-01-01T00:00:00.Z",
		"2024-01-01T00:00:00.1234567890Z", "2024-01-01t00:00:00Z", "2024-01-01T00:00:00z", "2024-01-01", "1970-01-01", "2105-12-31",
		"2106-01-01", "1969-12-31", "2024-02-30", "+024-01-01T00:00:00Z", "2024-01-01T00:00:00+01:0x",
	} {
		f.Add(s)
	}
	same := func(t *testing.T, what, s string, got time.Time, gotErr error, want time.Time, wantErr error) {
		if !errors.Is(gotErr, wantErr) || !got.Equal(want) || got.Location() != want.Location() {
			t.Fatalf("%s(%q) = %v, %v; time.Parse gives %v, %v", what, s, got, gotErr, want, wantErr)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseTimestampZ([]byte(s))
		want, wantErr := oracleTimestampZ(s)
		same(t, "parseTimestampZ", s, got, err, want, wantErr)
		got, err = parseTimestampOffset([]byte(s))
		want, wantErr = oracleTimestampOffset(s)
		same(t, "parseTimestampOffset", s, got, err, want, wantErr)
		got, err = parseDate([]byte(s))
		want, wantErr = oracleDate(s)
		same(t, "parseDate", s, got, err, want, wantErr)
	})
}

// Every day of the storage range and its edges, and the leap days of every year, against time.Parse.
func TestTimeFormatsEveryDay(t *testing.T) {
	check := func(s string) {
		t.Helper()
		got, err := parseDate([]byte(s))
		want, wantErr := oracleDate(s)
		if !errors.Is(err, wantErr) || !got.Equal(want) {
			t.Fatalf("parseDate(%q) = %v, %v; want %v, %v", s, got, err, want, wantErr)
		}
		ts := s + "T23:59:59.5-01:00"
		got, err = parseTimestampOffset([]byte(ts))
		want, wantErr = oracleTimestampOffset(ts)
		if !errors.Is(err, wantErr) || !got.Equal(want) {
			t.Fatalf("parseTimestampOffset(%q) = %v, %v; want %v, %v", ts, got, err, want, wantErr)
		}
	}
	for d := time.Date(1969, 12, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2107; d = d.AddDate(0, 0, 1) {
		check(d.Format(time.DateOnly))
	}
	for y := 0; y <= 9999; y++ {
		for _, md := range []string{"-02-28", "-02-29", "-02-30", "-03-01", "-12-31", "-13-01"} {
			check(fmt.Sprintf("%04d%s", y, md))
		}
	}
}
