package ingest

import (
	"errors"
	"math"
	"strconv"
	"time"
)

// Field formats of archive records (apidocs/README.md, "Archives"), parsed strictly.

// Times must fit the storage columns (ClickHouse DateTime is seconds since 1970 in a UInt32,
// Date a UInt16 of days): earlier or later values would wrap silently, so they are refused.
var (
	minTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(2105, 12, 31, 23, 59, 59, 0, time.UTC)
)

// maxStep is the longest load-curve step.
const maxStep = 24 * time.Hour

var (
	errFormatZ      = errors.New("must be a Timestamp-Z such as 2024-01-31T23:00:00Z (RFC 3339, 'T' and 'Z' in capitals, no offset)")
	errFormatOffset = errors.New("must be a Timestamp-offset such as 2024-01-31T23:30:00+01:00 (RFC 3339 with 'T', and 'Z' or a ±hh:mm offset)")
	errFormatDate   = errors.New("must be a full date such as 2024-01-31")
	errRange        = errors.New("is outside the supported range 1970-01-01T00:00:00Z to 2105-12-31T23:59:59Z")
	errStep         = errors.New("must be an ISO 8601 duration of whole seconds, more than zero and at most one day, such as PT30M, PT10M, PT1H or P1D")
)

// LayoutZ is the Timestamp-Z layout for time.Format: UTC, whole seconds, 'Z'.
const LayoutZ = "2006-01-02T15:04:05Z"

// FormatTimestampZ writes t as a Timestamp-Z (UTC, whole seconds).
func FormatTimestampZ(t time.Time) string { return t.UTC().Format(LayoutZ) }

// LayoutLocal is a local date-time without offset (the consumption API's startTs/endTs in the
// site's time zone): whole seconds, no zone.
const LayoutLocal = "2006-01-02T15:04:05"

// LayoutOffset is the Timestamp-offset layout for time.Format: the time's own ±hh:mm offset.
const LayoutOffset = "2006-01-02T15:04:05-07:00"

// ParseTimestampZ reads a Timestamp-Z (fraction of a second optional) as archive records and
// the job listing take it; its error says what format is expected.
func ParseTimestampZ(s string) (time.Time, error) { return parseTimestampZ([]byte(s)) }

// The parsers below read the fixed formats digit by digit (time.Parse costs a third of a
// load-curve file's decoding); FuzzTimeFormats checks that they answer as time.Parse does.

// parseTimestampZ accepts full-date 'T' partial-time 'Z': YYYY-MM-DDThh:mm:ss[.f{1,9}]Z.
func parseTimestampZ(s []byte) (time.Time, error) {
	rest, ok := timePrefix(s)
	if !ok || string(rest) != "Z" {
		return time.Time{}, errFormatZ
	}
	return civilTime(s, 0, errFormatZ)
}

// parseTimestampOffset accepts full-date 'T' partial-time time-offset, the offset being 'Z'
// or ±hh:mm.
func parseTimestampOffset(s []byte) (time.Time, error) {
	rest, ok := timePrefix(s)
	if !ok {
		return time.Time{}, errFormatOffset
	}
	var offset int64
	switch {
	case string(rest) == "Z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && digits(rest[1:3]) && rest[3] == ':' && digits(rest[4:6]) &&
		atoi2(rest[1:3]) <= 23 && atoi2(rest[4:6]) <= 59:
		offset = int64(atoi2(rest[1:3])*3600 + atoi2(rest[4:6])*60)
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return time.Time{}, errFormatOffset
	}
	return civilTime(s, offset, errFormatOffset)
}

// timePrefix checks YYYY-MM-DDThh:mm:ss[.f{1,9}] and returns what follows.
func timePrefix(s []byte) ([]byte, bool) {
	if len(s) < 20 {
		return nil, false
	}
	if !(datePrefix(s) && s[10] == 'T' && digits(s[11:13]) && s[13] == ':' && digits(s[14:16]) && s[16] == ':' && digits(s[17:19])) {
		return nil, false
	}
	rest := s[19:]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 || n > 10 {
			return nil, false
		}
		rest = rest[n:]
	}
	return rest, true
}

// datePrefix checks YYYY-MM-DD at the start of s (at least 10 bytes).
func datePrefix(s []byte) bool {
	return digits(s[0:4]) && s[4] == '-' && digits(s[5:7]) && s[7] == '-' && digits(s[8:10])
}

// civilTime is the instant of the checked YYYY-MM-DDThh:mm:ss at the start of s, at offset
// seconds east of UTC, to the second (a fraction is dropped): format when a field is out of
// its calendar range, errRange outside the storage range.
func civilTime(s []byte, offset int64, format error) (time.Time, error) {
	hour, minute, second := atoi2(s[11:13]), atoi2(s[14:16]), atoi2(s[17:19])
	days, ok := civilDays(s)
	if !ok || hour > 23 || minute > 59 || second > 59 {
		return time.Time{}, format
	}
	return inRange(days*86400 + int64(hour*3600+minute*60+second) - offset)
}

// civilDays is the day of the checked YYYY-MM-DD at the start of s, in days since 1970-01-01;
// ok is false for a month or day that does not exist.
func civilDays(s []byte) (int64, bool) {
	y := int64(atoi2(s[0:2])*100 + atoi2(s[2:4]))
	m, d := int64(atoi2(s[5:7])), int64(atoi2(s[8:10]))
	if m < 1 || m > 12 || d < 1 || d > int64(daysIn(int(m), y)) {
		return 0, false
	}
	// Days from the civil date (proleptic Gregorian), years counted from March.
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	doy := (153*((m+9)%12)+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468, true
}

func daysIn(month int, year int64) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// inRange is the UTC time of unix seconds, or errRange outside the storage columns.
func inRange(unix int64) (time.Time, error) {
	if unix < minTime.Unix() || unix > maxTime.Unix() {
		return time.Time{}, errRange
	}
	return time.Unix(unix, 0).UTC(), nil
}

// parseDate accepts a full date YYYY-MM-DD and returns UTC midnight of it.
func parseDate(s []byte) (time.Time, error) {
	if len(s) != 10 || !datePrefix(s) {
		return time.Time{}, errFormatDate
	}
	days, ok := civilDays(s)
	if !ok {
		return time.Time{}, errFormatDate
	}
	return inRange(days * 86400)
}

// parseStep reads an ISO 8601 duration P[nD][T[nH][nM][nS]] of at most one day. Years, months
// and weeks are refused: none of them is one day or less.
func parseStep(s string) (time.Duration, error) {
	if len(s) < 3 || s[0] != 'P' {
		return 0, errStep
	}
	var total int64
	units := []struct {
		designator byte
		seconds    int64
		timePart   bool
	}{{'D', 86400, false}, {'H', 3600, true}, {'M', 60, true}, {'S', 1, true}}
	i, u, inTime, seen := 1, 0, false, false
	for i < len(s) {
		if s[i] == 'T' {
			if inTime || i == len(s)-1 {
				return 0, errStep
			}
			inTime = true
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || j-i > 9 || j == len(s) {
			return 0, errStep
		}
		n, _ := strconv.ParseInt(s[i:j], 10, 64)
		for u < len(units) && (units[u].designator != s[j] || units[u].timePart != inTime) {
			u++
		}
		if u == len(units) {
			return 0, errStep
		}
		total += n * units[u].seconds
		u++
		seen = true
		i = j + 1
	}
	d := time.Duration(total) * time.Second
	if !seen || total <= 0 || d > maxStep {
		return 0, errStep
	}
	return d, nil
}

// parseInteger reads a JSON number that is an exact integer within int64: 3, -0, 3.0 and 3e2
// are integers; 1.5 and 1e19 are not. The exponent is handled on the digits, so "1e999999999"
// costs nothing.
func parseInteger(raw []byte) (int64, bool) {
	s := string(raw)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, true
	}
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	mant, exp := s, int64(0)
	for k := 0; k < len(s); k++ {
		if s[k] == 'e' || s[k] == 'E' {
			mant = s[:k]
			e, err := strconv.ParseInt(s[k+1:], 10, 64)
			if err != nil {
				// |exponent| beyond int64: the value is 0 or enormous; only 0 mantissas are integers.
				if trimZeros(mant) == "" {
					return 0, true
				}
				return 0, false
			}
			exp = e
			break
		}
	}
	intPart, frac := mant, ""
	for k := 0; k < len(mant); k++ {
		if mant[k] == '.' {
			intPart, frac = mant[:k], mant[k+1:]
			break
		}
	}
	if !digits(intPart) || (frac != "" && !digits(frac)) {
		return 0, false
	}
	d := intPart + frac
	exp -= int64(len(frac))
	// Normalise: strip leading zeros and move trailing zeros into the exponent.
	d = trimLeadingZeros(d)
	for len(d) > 0 && d[len(d)-1] == '0' {
		d = d[:len(d)-1]
		exp++
	}
	if d == "" {
		return 0, true
	}
	if exp < 0 || int64(len(d))+exp > 19 {
		return 0, false
	}
	u, err := strconv.ParseUint(d+zeros(int(exp)), 10, 64)
	if err != nil {
		return 0, false
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	case neg && u <= 1<<63:
		return int64(-u), true // -(1<<63) wraps to MinInt64, as intended
	}
	return 0, false
}

func digits[T string | []byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	for k := 0; k < len(s); k++ {
		if s[k] < '0' || s[k] > '9' {
			return false
		}
	}
	return true
}

func atoi2(s []byte) int { return int(s[0]-'0')*10 + int(s[1]-'0') }

func trimLeadingZeros(s string) string {
	for len(s) > 0 && s[0] == '0' {
		s = s[1:]
	}
	return s
}

// trimZeros is s without '0', '.' and sign characters: empty when the mantissa is zero.
func trimZeros(s string) string {
	out := make([]byte, 0, len(s))
	for k := 0; k < len(s); k++ {
		if s[k] >= '1' && s[k] <= '9' {
			out = append(out, s[k])
		}
	}
	return string(out)
}

func zeros(n int) string {
	b := make([]byte, n)
	for k := range b {
		b[k] = '0'
	}
	return string(b)
}
