package consumption

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// A computed answer is encoded once, then served from the cache as bytes; encoding/json spends
// about 5 ms on a 1,200-item answer (500 KiB) here, most of it in reflection and map sorting.
// appendResult writes the same bytes as encoding/json (no HTML escaping, trailing newline) by
// hand, several times faster. It knows the result types as they are: resultShape fingerprints
// them, and EncodeJSON falls back to encoding/json whenever they change (a new field, tag or
// type), so the output is never wrong, only slower until appendResult is updated
// (TestFastJSONMatchesEncodingJSON says so).

// EncodeJSON writes a result as the endpoint sends it (no HTML escaping, trailing newline, like
// Huma's own encoder), so cached and computed answers are byte for byte the same.
func EncodeJSON(res *ConsumptionResult) ([]byte, error) {
	if fastJSON {
		items := int64(len(res.Consumptions) + 1)
		b := make([]byte, 0, items*bytesPerItem.Load()+1024)
		b, err := appendResult(b, res)
		if err == nil {
			b = append(b, '\n')
			bytesPerItem.Store(int64(len(b))/items + 16)
			if cap(b)-len(b) > len(b)/8 { // the cache holds it: no large unused tail
				b = bytes.Clone(b)
			}
			return b, nil
		}
	}
	return encodeJSONReflect(res)
}

// bytesPerItem sizes EncodeJSON's buffer from the answers written so far (a 1,200-item answer
// is 500 KiB): written in one buffer of about the right size, an answer is neither grown step
// by step nor copied out of a scratch buffer.
var bytesPerItem atomic.Int64

func init() { bytesPerItem.Store(512) }

func encodeJSONReflect(res *ConsumptionResult) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// knownResultShape is resultShape of the types appendResult was written for.
const knownResultShape = "ConsumptionResult{Period:period:Period{StartTime:startTime:Time;EndTime:endTime:Time};ComputationPeriod:computationPeriod,omitempty:*Period;" +
	"Step:step:string;Units:units:Units{Cost:cost:string;EnergyMeter:energyMeter:string;CarbonFootprint:carbonFootprint:string};" +
	"Consumptions:consumptions:[]Consumption{Period:period:Period;EnergyMeter:energyMeter:EnergyMeter{Total:total:*float64;ByTariffHeading:byTariffHeading:map[string]float64};" +
	"Volume:volume,omitempty:*Volume{Total:total:*float64;Unit:unit:string};" +
	"Cost:cost,omitempty:*Cost{Total:total:float64;StandingCharge:standingCharge:float64;StandingChargeByComponents:standingChargeByComponents:map[string]float64;ByTariffHeading:byTariffHeading:map[string]float64};" +
	"CarbonFootprint:carbonFootprint,omitempty:*CarbonFootprint{Coefficient:coefficient:float64;Total:total:*float64};Quality:quality:float64;ErrorFlags:errorFlags:[]string;" +
	"IndexNatures:indexNatures:[]string;Status:status:string;Nature:nature:string;Aggregated:aggregated:bool;UsingLoadCurve:usingLoadCurve:bool;" +
	"Ratios:ratios,omitempty:*Ratios{ByTariffHeading:byTariffHeading:map[string]float64;ByTariffHeadingGroup:byTariffHeadingGroup:map[string]float64}};" +
	"GlobalConsumption:globalConsumption,omitempty:*Consumption}"

var fastJSON = resultShape() == knownResultShape

// resultShape describes ConsumptionResult and the types it holds: field names, json tags and
// types, each struct spelled out once.
func resultShape() string {
	seen := map[reflect.Type]bool{}
	var shape func(t reflect.Type) string
	shape = func(t reflect.Type) string {
		switch t.Kind() {
		case reflect.Pointer:
			return "*" + shape(t.Elem())
		case reflect.Slice:
			return "[]" + shape(t.Elem())
		case reflect.Map:
			return "map[" + shape(t.Key()) + "]" + shape(t.Elem())
		case reflect.Struct:
			if t == reflect.TypeFor[time.Time]() || seen[t] {
				return t.Name()
			}
			seen[t] = true
			var fields []string
			for f := range t.Fields() {
				fields = append(fields, f.Name+":"+f.Tag.Get("json")+":"+shape(f.Type))
			}
			return t.Name() + "{" + strings.Join(fields, ";") + "}"
		}
		return t.Kind().String()
	}
	return shape(reflect.TypeFor[ConsumptionResult]())
}

var errNotFinite = errors.New("json: unsupported value: NaN or infinite number")

// jsonEncoder holds what appendResult remembers from one item to the next: an answer's items
// repeat their map keys, zone offsets and timestamps (an item's end is the next one's start).
type jsonEncoder struct {
	err  error                // the first value refused, see keep
	keys [mapMembers][]string // the sorted keys last written, per map member
	zone zoneSpan
	last struct { // the last timestamp written and its text
		unix int64
		loc  *time.Location
		text []byte
	}
}

// Map members of a consumption item, each with its own sorted keys.
const (
	keysEnergy = iota
	keysStandingCharge
	keysCost
	keysRatios
	keysRatioGroups
	mapMembers
)

func appendResult(b []byte, r *ConsumptionResult) ([]byte, error) {
	var e jsonEncoder
	return e.appendResult(b, r)
}

func (e *jsonEncoder) appendResult(b []byte, r *ConsumptionResult) ([]byte, error) {
	var err error
	b = append(b, `{"period":`...)
	b = e.appendPeriod(b, r.Period)
	if r.ComputationPeriod != nil {
		b = append(b, `,"computationPeriod":`...)
		b = e.appendPeriod(b, *r.ComputationPeriod)
	}
	b = append(b, `,"step":`...)
	b = appendString(b, r.Step)
	b = append(b, `,"units":{"cost":`...)
	b = appendString(b, r.Units.Cost)
	b = append(b, `,"energyMeter":`...)
	b = appendString(b, r.Units.EnergyMeter)
	b = append(b, `,"carbonFootprint":`...)
	b = appendString(b, r.Units.CarbonFootprint)
	b = append(b, `},"consumptions":`...)
	if r.Consumptions == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Consumptions {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = e.appendConsumption(b, &r.Consumptions[i]); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if r.GlobalConsumption != nil {
		b = append(b, `,"globalConsumption":`...)
		if b, err = e.appendConsumption(b, r.GlobalConsumption); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func (e *jsonEncoder) appendConsumption(b []byte, c *Consumption) ([]byte, error) {
	b = append(b, `{"period":`...)
	b = e.appendPeriod(b, c.Period)
	b = append(b, `,"energyMeter":{"total":`...)
	b = e.keep(appendFloatPtr(b, c.EnergyMeter.Total))
	b = append(b, `,"byTariffHeading":`...)
	b = e.keep(e.appendFloatMap(b, keysEnergy, c.EnergyMeter.ByTariffHeading))
	b = append(b, '}')
	if c.Volume != nil {
		b = append(b, `,"volume":{"total":`...)
		b = e.keep(appendFloatPtr(b, c.Volume.Total))
		b = append(b, `,"unit":`...)
		b = appendString(b, c.Volume.Unit)
		b = append(b, '}')
	}
	if c.Cost != nil {
		b = append(b, `,"cost":{"total":`...)
		b = e.keep(appendFloat(b, c.Cost.Total))
		b = append(b, `,"standingCharge":`...)
		b = e.keep(appendFloat(b, c.Cost.StandingCharge))
		b = append(b, `,"standingChargeByComponents":`...)
		b = e.keep(e.appendFloatMap(b, keysStandingCharge, c.Cost.StandingChargeByComponents))
		b = append(b, `,"byTariffHeading":`...)
		b = e.keep(e.appendFloatMap(b, keysCost, c.Cost.ByTariffHeading))
		b = append(b, '}')
	}
	if c.CarbonFootprint != nil {
		b = append(b, `,"carbonFootprint":{"coefficient":`...)
		b = e.keep(appendFloat(b, c.CarbonFootprint.Coefficient))
		b = append(b, `,"total":`...)
		b = e.keep(appendFloatPtr(b, c.CarbonFootprint.Total))
		b = append(b, '}')
	}
	b = append(b, `,"quality":`...)
	b = e.keep(appendFloat(b, c.Quality))
	b = append(b, `,"errorFlags":`...)
	b = appendStrings(b, c.ErrorFlags)
	b = append(b, `,"indexNatures":`...)
	b = appendStrings(b, c.IndexNatures)
	b = append(b, `,"status":`...)
	b = appendString(b, c.Status)
	b = append(b, `,"nature":`...)
	b = appendString(b, c.Nature)
	b = append(b, `,"aggregated":`...)
	b = strconv.AppendBool(b, c.Aggregated)
	b = append(b, `,"usingLoadCurve":`...)
	b = strconv.AppendBool(b, c.UsingLoadCurve)
	if c.Ratios != nil {
		b = append(b, `,"ratios":{"byTariffHeading":`...)
		b = e.keep(e.appendFloatMap(b, keysRatios, c.Ratios.ByTariffHeading))
		b = append(b, `,"byTariffHeadingGroup":`...)
		b = e.keep(e.appendFloatMap(b, keysRatioGroups, c.Ratios.ByTariffHeadingGroup))
		b = append(b, '}')
	}
	if e.err != nil {
		return nil, e.err
	}
	return append(b, '}'), nil
}

// keep returns b, remembering err: a value that encoding/json refuses (NaN or infinite) fails
// the whole answer, checked once at the item's end.
func (e *jsonEncoder) keep(b []byte, err error) []byte {
	if err != nil {
		e.err = err
	}
	return b
}

func (e *jsonEncoder) appendPeriod(b []byte, p Period) []byte {
	b = append(b, `{"startTime":`...)
	b = e.appendTime(b, p.StartTime)
	b = append(b, `,"endTime":`...)
	b = e.appendTime(b, p.EndTime)
	return append(b, '}')
}

// appendTime writes time.Time's MarshalJSON (RFC 3339 with nanoseconds when not zero). The
// usual timestamp (whole seconds, years 0-9999, offset in whole minutes) is written by hand
// with the offset of its zone period, looked up once per period; the repeated one (an item's
// start is the previous one's end) is copied.
func (e *jsonEncoder) appendTime(b []byte, t time.Time) []byte {
	unix, loc := t.Unix(), t.Location()
	if e.last.text != nil && unix == e.last.unix && loc == e.last.loc && t.Nanosecond() == 0 {
		return append(b, e.last.text...)
	}
	n := len(b)
	b = append(b, '"')
	if t.Nanosecond() != 0 {
		b = t.AppendFormat(b, time.RFC3339Nano)
		return append(b, '"')
	}
	offset, ok := e.zone.offset(t, unix, loc)
	if !ok {
		b = t.AppendFormat(b, time.RFC3339Nano)
		return append(b, '"')
	}
	local := unix + int64(offset)
	days := local / 86400
	if local%86400 < 0 {
		days--
	}
	y, m, d := civilDate(days)
	if y < 0 || y > 9999 {
		b = t.AppendFormat(b, time.RFC3339Nano)
		return append(b, '"')
	}
	sec := int(local - days*86400)
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append(b, byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10), 'T')
	h, mi, s := sec/3600, sec/60%60, sec%60
	b = append(b, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':', byte('0'+s/10), byte('0'+s%10))
	if offset == 0 {
		b = append(b, 'Z')
	} else {
		z := offset / 60
		sign := byte('+')
		if z < 0 {
			sign, z = '-', -z
		}
		b = append(b, sign, byte('0'+z/600), byte('0'+z/60%10), ':', byte('0'+z%60/10), byte('0'+z%10))
	}
	b = append(b, '"')
	e.last.unix, e.last.loc, e.last.text = unix, loc, append(e.last.text[:0], b[n:]...)
	return b
}

// zoneSpan is a zone period of a location: its offset holds for [from, to) (Unix seconds).
type zoneSpan struct {
	loc      *time.Location
	from, to int64
	seconds  int
}

// offset is the UTC offset of t in seconds (false when not a whole number of minutes, or of
// hours beyond what RFC 3339 writes).
func (z *zoneSpan) offset(t time.Time, unix int64, loc *time.Location) (int, bool) {
	if loc != z.loc || unix < z.from || unix >= z.to {
		_, off := t.Zone()
		from, to := t.ZoneBounds()
		*z = zoneSpan{loc: loc, from: math.MinInt64, to: math.MaxInt64, seconds: off}
		if !from.IsZero() {
			z.from = from.Unix()
		}
		if !to.IsZero() {
			z.to = to.Unix()
		}
	}
	return z.seconds, z.seconds%60 == 0 && z.seconds > -100*3600 && z.seconds < 100*3600
}

// civilDate is the proleptic Gregorian date of a day counted from 1970-01-01 (Howard
// Hinnant's days_from_civil inverse).
func civilDate(days int64) (y, m, d int) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	y = int(yoe + era*400)
	if m <= 2 {
		y++
	}
	return y, m, d
}

// appendFloat writes a float64 as encoding/json does: %f-style within [1e-6, 1e21), else
// exponent form without a leading zero in the exponent.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, errNotFinite
	}
	if b, ok := appendDecimal(b, f); ok {
		return b, nil
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6}

// appendDecimal is the fast path of appendFloat for the answers' values (rounded to at most 6
// decimals): the fewest decimals d ≤ 6 such that n / 10^d, n an integer, is exactly f. That
// decimal is what the shortest round-trip formatting writes. Other values report false.
//
// Below 10^9 in magnitude, f × 10^6 (< 2^50) is within 0.2 of the integer n × 10^(6-d) for
// every d that qualifies, so one rounding at 6 decimals gives the digits, trailing zeros
// stripped; larger values try each d (appendDecimalEach).
func appendDecimal(b []byte, f float64) ([]byte, bool) {
	if !(math.Abs(f) < 1e9) || (f == 0 && math.Signbit(f)) {
		return appendDecimalEach(b, f)
	}
	n := math.Round(f * 1e6)
	if n/1e6 != f {
		return b, false
	}
	i, d := int64(n), 6
	for d > 0 && i%10 == 0 {
		i, d = i/10, d-1
	}
	return appendScaled(b, i, d), true
}

// appendDecimalEach is appendDecimal trying d = 0, 1, … 6 in turn.
func appendDecimalEach(b []byte, f float64) ([]byte, bool) {
	if !(math.Abs(f) < 1e12) || (f == 0 && math.Signbit(f)) {
		return b, false
	}
	for d, p := range pow10 {
		n := math.Round(f * p)
		if n/p != f {
			continue
		}
		return appendScaled(b, int64(n), d), true
	}
	return b, false
}

// appendScaled writes i / 10^d with d decimals (0.00ddd below 1).
func appendScaled(b []byte, i int64, d int) []byte {
	if i < 0 {
		b = append(b, '-')
		i = -i
	}
	var buf [24]byte
	pos := len(buf)
	for range d {
		pos--
		buf[pos] = byte('0' + i%10)
		i /= 10
	}
	if d > 0 {
		pos--
		buf[pos] = '.'
	}
	for { // the integer part, at least one digit
		pos--
		buf[pos] = byte('0' + i%10)
		if i /= 10; i == 0 {
			break
		}
	}
	return append(b, buf[pos:]...)
}

func appendFloatPtr(b []byte, f *float64) ([]byte, error) {
	if f == nil {
		return append(b, "null"...), nil
	}
	return appendFloat(b, *f)
}

// appendFloatMap writes a map with its keys sorted, as encoding/json does. The member's keys
// of the previous item are tried first: a map of as many entries holding each of them has the
// same keys, and is written without iterating or sorting it.
func (e *jsonEncoder) appendFloatMap(b []byte, member int, m map[string]float64) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	if keys := e.keys[member]; keys != nil && len(keys) == len(m) {
		if out, ok, err := appendFloatsByKeys(b, keys, m); ok || err != nil {
			return out, err
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.keys[member] = keys
	out, _, err := appendFloatsByKeys(b, keys, m)
	return out, err
}

// appendFloatsByKeys writes {"key":value,...} in the order of keys; false (b unchanged) when
// a key is not in m.
func appendFloatsByKeys(b []byte, keys []string, m map[string]float64) ([]byte, bool, error) {
	start := len(b)
	b = append(b, '{')
	for i, k := range keys {
		v, ok := m[k]
		if !ok {
			return b[:start], false, nil
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = appendFloat(b, v); err != nil {
			return nil, false, err
		}
	}
	return append(b, '}'), true, nil
}

func appendStrings(b []byte, s []string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	return append(b, ']')
}

// appendString quotes s; anything beyond printable ASCII without quote or backslash (never
// the case for codes and heading names, but possible) goes through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return appendStringSlow(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendStringSlow(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil { // cannot fail for a string
		panic(fmt.Sprintf("encode string: %v", err))
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...)
}
