package ingest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Validation of the four record kinds of an archive file (apidocs/README.md, "Archives"). Each validator
// reads one element, collects every problem it finds (not only the first, at most 50) and
// returns the element's rows only when there is none.
//
// Rules where the contract is silent (documented in the API description):
//   - a field set to null is missing (MISSING_FIELD), except indexBeforeChange (false);
//     unknown fields are ignored; a field given twice is INVALID_FIELD;
//   - strings are non-empty UTF-8 of at most 1024 bytes; natures match exactly;
//   - integers are JSON numbers with an exact integer value within int64 (3, 3.0 and 3e2 are,
//     1.5 is not); index, dial, max-power and point values are >= 0, reliability is 0 or 1;
//   - times lie within 1970-01-01T00:00:00Z..2105-12-31T23:59:59Z (the storage columns) and are
//     stored to the second;
//   - smart index values are a non-empty map of dial name to Wh (one row per dial);
//     conversionFactors a map, possibly empty, of unit to a number > 0;
//   - step is P[nD][T[nH][nM][nS]] with whole numbers, more than 0 and at most one day;
//   - a load curve has at least one point; a point with beginTs covers [t, t+step), with endTs
//     [t-step, t); alignment, order and the reading date of points are not checked.

// The array names of a file.
const (
	ArrayCyclicGasIndexes = "cyclicGasIndexes"
	ArraySmartElecIndexes = "smartElecIndexes"
	ArrayMaxPowers        = "maxPowers"
	ArrayLoadCurves       = "loadCurves"
)

var (
	gasNatures = setOf("MKT_CYCLIC_DISTRIBUTOR", "MKT_ESTIMATION", "DTN_CUSTOMER_ACK", "MKT_CUSTOMER",
		"MKT_CYCLIC_DISTRIBUTOR_INVALID", "MKT_ESTIMATION_INVALID", "DTN_CUSTOMER_ACK_INVALID", "MKT_CUSTOMER_INVALID")
	smartNatures = setOf("MKT_SMART_DISTRIBUTOR", "MKT_SMART_DISTRIBUTOR_INVALID")
)

// Field names of every kind; the identity fields are shared.
const (
	fSiteID           = "siteId"
	fSiteCustomerID   = "siteCustomerId"
	fPersonCustomerID = "personCustomerId"
	fPodID            = "podId"
)

var (
	gasFields   = []string{fSiteID, fSiteCustomerID, fPersonCustomerID, fPodID, "nature", "ts", "generationTs", "indexBeforeChange", "value", "conversionFactors", "unit"}
	smartFields = []string{fSiteID, fSiteCustomerID, fPersonCustomerID, fPodID, "nature", "ts", "generationTs", "indexBeforeChange", "value"}
	maxFields   = []string{fSiteID, fSiteCustomerID, fPersonCustomerID, fPodID, "ts", "generationTs", "value"}
	curveFields = []string{fSiteID, fSiteCustomerID, fPersonCustomerID, fPodID, "meterReadingDate", "generationTs", "step", "values"}
	pointFields = []string{"beginTs", "endTs", "value", "reliability"}
)

// identity is the element's site reference: a site id, or a customer pair to resolve (views
// of the file, see text).
type identity struct {
	siteID, siteCustomerID, personCustomerID []byte
}

// identity reads siteId XOR (siteCustomerId and personCustomerId).
func (e *element) identity() (identity, bool) {
	hasSite := e.present(fSiteID)
	hasCustomer := e.present(fSiteCustomerID) || e.present(fPersonCustomerID)
	switch {
	case hasSite && hasCustomer:
		e.fail(CodeInvalidField, fSiteID, "cannot be combined with siteCustomerId and personCustomerId: use one identity variant")
		return identity{}, false
	case hasSite:
		s, ok := e.text(fSiteID)
		return identity{siteID: s}, ok
	case hasCustomer:
		sc, ok1 := e.text(fSiteCustomerID)
		pc, ok2 := e.text(fPersonCustomerID)
		return identity{siteCustomerID: sc, personCustomerID: pc}, ok1 && ok2
	}
	e.fail(CodeMissingField, fSiteID, "is required (or siteCustomerId and personCustomerId)")
	return identity{}, false
}

// resolve turns a well-formed identity into a site id of the tenant, or reports UNKNOWN_SITE.
func (e *element) resolve(ctx context.Context, sites *siteCache, id identity) (string, bool, error) {
	if id.siteID != nil {
		siteID, ok, err := sites.byID(ctx, id.siteID)
		if err != nil {
			return "", false, err
		}
		if !ok {
			e.fail(CodeUnknownSite, fSiteID, fmt.Sprintf("%s is not a site of this tenant", quote(string(id.siteID))))
		}
		return siteID, ok, nil
	}
	siteID, ok, err := sites.byCustomer(ctx, id.siteCustomerID, id.personCustomerID)
	if err != nil {
		return "", false, err
	}
	if !ok {
		e.fail(CodeUnknownSite, fSiteCustomerID, fmt.Sprintf("%s with personCustomerId %s matches no site of this tenant",
			quote(string(id.siteCustomerID)), quote(string(id.personCustomerID))))
	}
	return siteID, ok, nil
}

// record is one element of a record array being decoded: its members, its length and what
// every kind has, the site its identity resolves to and its podId.
type record struct {
	element
	size          int
	siteID, podID string
}

// open starts decoding raw, one element of a record array whose members are names. ok is
// false when the record ends there: raw is not an object (reported in errs) or resolving its
// identity failed (err).
func (r *record) open(ctx context.Context, raw []byte, names []string, sites *siteCache, errs *[]FieldFailure) (ok bool, err error) {
	if !isObject(raw, errs) {
		r.size = valueLen(raw)
		return false, nil
	}
	r.size = r.init(raw, names, -1, errs)
	id, idOK := r.identity()
	if pod, ok := r.text(fPodID); ok {
		r.podID = sites.intern(pod) // thousands of rows name the same few pods
	}
	if idOK {
		r.siteID, _, err = r.resolve(ctx, sites, id)
	}
	return err == nil, err
}

// decodeGasIndex validates one element of cyclicGasIndexes.
func decodeGasIndex(ctx context.Context, raw []byte, sites *siteCache, errs *[]FieldFailure, rows *Rows) (int, error) {
	var e record
	if ok, err := e.open(ctx, raw, gasFields, sites, errs); !ok {
		return e.size, err
	}
	nature, _ := e.oneOf("nature", gasNatures, "the cyclic gas natures (MKT_CYCLIC_DISTRIBUTOR, MKT_ESTIMATION, DTN_CUSTOMER_ACK, MKT_CUSTOMER and their _INVALID forms)")
	ts, _ := e.timeField("ts", parseTimestampZ)
	gen, _ := e.timeField("generationTs", parseTimestampZ)
	ibc, _ := e.optionalBool("indexBeforeChange")
	value, _ := e.integer("value", 0, math.MaxInt64)
	unit, _ := e.str("unit")
	var units []string
	var factors []float64
	if obj, ok := e.object("conversionFactors"); ok {
		units, factors = conversionFactors(&e.element, obj)
	}
	if !e.ok() {
		return e.size, nil
	}
	rows.Gas = append(rows.Gas, GasIndexRow{SiteID: e.siteID, PodID: e.podID, TS: ts, IndexBeforeChange: ibc, Nature: nature,
		GenerationTS: gen, Value: value, Unit: unit, ConversionUnits: units, ConversionFactors: factors})
	return e.size, nil
}

// conversionFactors reads a map of unit name → finite positive factor, sorted by unit.
func conversionFactors(e *element, obj []byte) ([]string, []float64) {
	byUnit := map[string]float64{}
	seen := map[string]bool{}
	eachMember(obj, func(key []byte, validKey bool, val []byte) {
		unit := string(key)
		if unit == "" || len(unit) > maxKeyLen || !validKey {
			e.fail(CodeInvalidField, "conversionFactors", "unit names must be 1 to 64 bytes of UTF-8")
			return
		}
		field := "conversionFactors." + unit
		if seen[unit] {
			e.fail(CodeInvalidField, field, "is given more than once")
			return
		}
		seen[unit] = true
		if kindOf(val) != kindNumber {
			e.fail(CodeInvalidField, field, "must be a number, not "+kindOf(val).String())
			return
		}
		f, err := strconv.ParseFloat(string(val), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f <= 0 {
			e.fail(CodeInvalidField, field, fmt.Sprintf("must be a finite number greater than 0, not %s", clip(val)))
			return
		}
		byUnit[unit] = f
	})
	units := make([]string, 0, len(byUnit))
	for u := range byUnit {
		units = append(units, u)
	}
	sort.Strings(units)
	factors := make([]float64, len(units))
	for k, u := range units {
		factors[k] = byUnit[u]
	}
	return units, factors
}

// decodeSmartIndex validates one element of smartElecIndexes: one row per dial.
func decodeSmartIndex(ctx context.Context, raw []byte, sites *siteCache, errs *[]FieldFailure, rows *Rows) (int, error) {
	var e record
	if ok, err := e.open(ctx, raw, smartFields, sites, errs); !ok {
		return e.size, err
	}
	nature, _ := e.oneOf("nature", smartNatures, "MKT_SMART_DISTRIBUTOR, MKT_SMART_DISTRIBUTOR_INVALID")
	ts, _ := e.timeField("ts", parseTimestampZ)
	gen, _ := e.timeField("generationTs", parseTimestampZ)
	ibc, _ := e.optionalBool("indexBeforeChange")
	type dial struct {
		name  string
		value int64
	}
	var dialBuf [4]dial
	dials := dialBuf[:0]
	if obj, ok := e.object("value"); ok {
		var seen nameSet
		eachMember(obj, func(key []byte, validKey bool, val []byte) {
			switch {
			case len(key) == 0 || len(key) > maxKeyLen || !validKey:
				e.fail(CodeInvalidField, "value", "dial names must be 1 to 64 bytes of UTF-8")
			case seen.has(key):
				e.fail(CodeInvalidField, "value."+string(key), "is given more than once")
			default:
				if v, ok := integerIn(val, 0, math.MaxInt64); ok {
					dials = append(dials, dial{sites.intern(key), v})
				} else {
					integerAt(&e.element, "value."+string(key), val, 0, math.MaxInt64) // reports why
				}
			}
			seen.add(key)
		})
		if seen.len() == 0 {
			e.fail(CodeInvalidField, "value", "must hold at least one dial (map of dial number to Wh)")
		}
	}
	if !e.ok() {
		return e.size, nil
	}
	slices.SortFunc(dials, func(a, b dial) int { return strings.Compare(a.name, b.name) })
	for _, d := range dials {
		rows.Elec = append(rows.Elec, ElecIndexRow{SiteID: e.siteID, PodID: e.podID, TS: ts, IndexBeforeChange: ibc,
			Nature: nature, GenerationTS: gen, Dial: d.name, Value: d.value})
	}
	return e.size, nil
}

// decodeMaxPower validates one element of maxPowers.
func decodeMaxPower(ctx context.Context, raw []byte, sites *siteCache, errs *[]FieldFailure, rows *Rows) (int, error) {
	var e record
	if ok, err := e.open(ctx, raw, maxFields, sites, errs); !ok {
		return e.size, err
	}
	ts, _ := e.timeField("ts", parseTimestampZ)
	gen, _ := e.timeField("generationTs", parseTimestampZ)
	value, _ := e.integer("value", 0, math.MaxInt64)
	if !e.ok() {
		return e.size, nil
	}
	rows.MaxPowers = append(rows.MaxPowers, MaxPowerRow{SiteID: e.siteID, PodID: e.podID, TS: ts, GenerationTS: gen, Value: value})
	return e.size, nil
}

// decodeLoadCurve validates one element of loadCurves: one row per point, each point turned
// into its [begin, end) interval with the curve's step.
func decodeLoadCurve(ctx context.Context, raw []byte, sites *siteCache, errs *[]FieldFailure, rows *Rows) (int, error) {
	var e record
	if ok, err := e.open(ctx, raw, curveFields, sites, errs); !ok {
		return e.size, err
	}
	day, _ := e.timeField("meterReadingDate", parseDate)
	gen, _ := e.timeField("generationTs", parseTimestampOffset)
	var step time.Duration
	if s, ok := e.str("step"); ok {
		var err error
		if step, err = parseStep(s); err != nil {
			e.fail(CodeInvalidField, "step", fmt.Sprintf("%s %v", quote(s), err))
		}
	}
	values := e.raw("values")
	switch k := kindOf(values); k {
	case kindNone, kindNull:
		e.fail(CodeMissingField, "values", "is required")
		return e.size, nil
	case kindArray:
	default:
		e.fail(CodeInvalidField, "values", "must be an array of points, not "+k.String())
		return e.size, nil
	}
	start := len(rows.LoadCurvePoints)
	n := 0
	eachElement(values, func(i int, raw []byte) int {
		n++
		if kindOf(raw) != kindObject {
			e.fail(CodeInvalidField, pointPath(i), "must be an object with beginTs or endTs, value and reliability")
			return valueLen(raw)
		}
		var p element
		size := p.init(raw, pointFields, i, errs)
		var at time.Time
		var fromBegin, timeOK bool
		switch hasBegin, hasEnd := p.present("beginTs"), p.present("endTs"); {
		case hasBegin && hasEnd:
			p.fail(CodeInvalidField, "endTs", "cannot be given with beginTs: a point has exactly one of them")
		case hasBegin:
			at, timeOK = p.timeField("beginTs", parseTimestampOffset)
			fromBegin = true
		case hasEnd:
			at, timeOK = p.timeField("endTs", parseTimestampOffset)
		default:
			p.fail(CodeMissingField, "beginTs", "is required (or endTs)")
		}
		value, _ := p.integer("value", 0, math.MaxInt64)
		reliability, _ := p.integer("reliability", 0, 1)
		if !timeOK || step == 0 || !e.ok() {
			return size
		}
		begin, end := at, at.Add(step)
		if !fromBegin {
			begin, end = at.Add(-step), at
			if begin.Before(minTime) {
				p.fail(CodeInvalidField, "endTs", "ends a step that starts before 1970-01-01T00:00:00Z")
				return size
			}
		}
		if len(rows.LoadCurvePoints) == cap(rows.LoadCurvePoints) {
			// DecodeFile makes room for the file's points first; doubling is the fallback
			// (append's 1.25 growth for large slices would copy them many times over).
			rows.LoadCurvePoints = slices.Grow(rows.LoadCurvePoints, max(256, cap(rows.LoadCurvePoints)))
		}
		rows.LoadCurvePoints = append(rows.LoadCurvePoints, LoadCurvePointRow{SiteID: e.siteID, PodID: e.podID,
			BeginTS: begin, EndTS: end, GenerationTS: gen,
			Value: value, Reliability: uint8(reliability), MeterReadingDate: day})
		return size
	})
	if n == 0 {
		e.fail(CodeInvalidField, "values", "must hold at least one point")
	}
	if !e.ok() {
		rows.LoadCurvePoints = rows.LoadCurvePoints[:start]
	}
	return e.size, nil
}

func pointPath(i int) string { return "values[" + strconv.Itoa(i) + "]" }
