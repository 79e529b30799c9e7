package query

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
	"sync"
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
		buf := encodeBuffers.Get().(*[]byte)
		b, err := appendResult((*buf)[:0], res)
		if err == nil {
			b = append(b, '\n')
			out := bytes.Clone(b) // the cache holds it: exact size, and the buffer is reused
			if cap(b) <= maxPooledBuffer {
				*buf = b
				encodeBuffers.Put(buf)
			}
			return out, nil
		}
	}
	return encodeJSONReflect(res)
}

// encodeBuffers are the scratch buffers of EncodeJSON: an answer is written in one, then copied
// out at its exact size, instead of into a fresh over-sized buffer (~1 MiB for 1,200 items).
var encodeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// maxPooledBuffer keeps rare huge answers from pinning their buffer.
const maxPooledBuffer = 4 << 20

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

func appendResult(b []byte, r *ConsumptionResult) ([]byte, error) {
	var err error
	b = append(b, `{"period":`...)
	b = appendPeriod(b, r.Period)
	if r.ComputationPeriod != nil {
		b = append(b, `,"computationPeriod":`...)
		b = appendPeriod(b, *r.ComputationPeriod)
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
			if b, err = appendConsumption(b, &r.Consumptions[i]); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if r.GlobalConsumption != nil {
		b = append(b, `,"globalConsumption":`...)
		if b, err = appendConsumption(b, r.GlobalConsumption); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendConsumption(b []byte, c *Consumption) ([]byte, error) {
	var err error
	b = append(b, `{"period":`...)
	b = appendPeriod(b, c.Period)
	b = append(b, `,"energyMeter":{"total":`...)
	if b, err = appendFloatPtr(b, c.EnergyMeter.Total); err != nil {
		return nil, err
	}
	b = append(b, `,"byTariffHeading":`...)
	if b, err = appendFloatMap(b, c.EnergyMeter.ByTariffHeading); err != nil {
		return nil, err
	}
	b = append(b, '}')
	if c.Cost != nil {
		b = append(b, `,"cost":{"total":`...)
		if b, err = appendFloat(b, c.Cost.Total); err != nil {
			return nil, err
		}
		b = append(b, `,"standingCharge":`...)
		if b, err = appendFloat(b, c.Cost.StandingCharge); err != nil {
			return nil, err
		}
		b = append(b, `,"standingChargeByComponents":`...)
		if b, err = appendFloatMap(b, c.Cost.StandingChargeByComponents); err != nil {
			return nil, err
		}
		b = append(b, `,"byTariffHeading":`...)
		if b, err = appendFloatMap(b, c.Cost.ByTariffHeading); err != nil {
			return nil, err
		}
		b = append(b, '}')
	}
	if c.CarbonFootprint != nil {
		b = append(b, `,"carbonFootprint":{"coefficient":`...)
		if b, err = appendFloat(b, c.CarbonFootprint.Coefficient); err != nil {
			return nil, err
		}
		b = append(b, `,"total":`...)
		if b, err = appendFloatPtr(b, c.CarbonFootprint.Total); err != nil {
			return nil, err
		}
		b = append(b, '}')
	}
	b = append(b, `,"quality":`...)
	if b, err = appendFloat(b, c.Quality); err != nil {
		return nil, err
	}
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
		if b, err = appendFloatMap(b, c.Ratios.ByTariffHeading); err != nil {
			return nil, err
		}
		b = append(b, `,"byTariffHeadingGroup":`...)
		if b, err = appendFloatMap(b, c.Ratios.ByTariffHeadingGroup); err != nil {
			return nil, err
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

func appendPeriod(b []byte, p Period) []byte {
	b = append(b, `{"startTime":`...)
	b = appendTime(b, p.StartTime)
	b = append(b, `,"endTime":`...)
	b = appendTime(b, p.EndTime)
	return append(b, '}')
}

// appendTime writes time.Time's MarshalJSON (RFC 3339 with nanoseconds when not zero).
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
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
func appendDecimal(b []byte, f float64) ([]byte, bool) {
	if !(math.Abs(f) < 1e12) || (f == 0 && math.Signbit(f)) {
		return b, false
	}
	for d, p := range pow10 {
		n := math.Round(f * p)
		if n/p != f {
			continue
		}
		i := int64(n)
		if i < 0 {
			b = append(b, '-')
			i = -i
		}
		if d == 0 {
			return strconv.AppendInt(b, i, 10), true
		}
		var digits [24]byte
		ds := strconv.AppendInt(digits[:0], i, 10)
		if len(ds) <= d { // 0.00ddd
			b = append(b, '0', '.')
			for range d - len(ds) {
				b = append(b, '0')
			}
			return append(b, ds...), true
		}
		b = append(b, ds[:len(ds)-d]...)
		b = append(b, '.')
		return append(b, ds[len(ds)-d:]...), true
	}
	return b, false
}

func appendFloatPtr(b []byte, f *float64) ([]byte, error) {
	if f == nil {
		return append(b, "null"...), nil
	}
	return appendFloat(b, *f)
}

// appendFloatMap writes a map with its keys sorted, as encoding/json does.
func appendFloatMap(b []byte, m map[string]float64) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	var small [16]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		if b, err = appendFloat(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
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
