package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Per-file record limits (apidocs/README.md, "Archives"). Max powers count with the indexes: every
// record that is not a load curve counts towards MaxIndexesPerFile.
const (
	MaxIndexesPerFile    = 10000
	MaxLoadCurvesPerFile = 1500
)

// SiteResolver maps a record's identity to a site id of the job's tenant. A job's files are
// decoded concurrently: it must be safe for concurrent use.
type SiteResolver interface {
	SiteByID(ctx context.Context, siteID string) (ok bool, err error)
	SiteByCustomer(ctx context.Context, siteCustomerID, personCustomerID string) (siteID string, ok bool, err error)
}

// elementDecoder validates one element of an array, appending its rows when it is valid.
// The element starts rest, which may go on after it: the decoder returns its length.
type elementDecoder func(ctx context.Context, rest []byte, sites *siteCache, errs *[]FieldFailure, rows *Rows) (int, error)

var decoders = map[string]elementDecoder{
	ArrayCyclicGasIndexes: decodeGasIndex,
	ArraySmartElecIndexes: decodeSmartIndex,
	ArrayMaxPowers:        decodeMaxPower,
	ArrayLoadCurves:       decodeLoadCurve,
}

// DecodeFile validates every element of one archive member and returns the rows of the valid
// ones and the file's report. err is only for resolver (storage) failures.
//
// The file is read twice, both times in place: a first pass checks the JSON and its shape and
// counts the elements (so a file over the limits costs no site lookups), the second validates
// element by element. Arrays are processed in the order they appear in the file; unknown
// top-level members and unknown fields of elements are ignored.
func DecodeFile(ctx context.Context, m Member, sites SiteResolver) (Rows, FileReport, error) {
	rep := FileReport{Name: m.Name, FailedOperations: []FailedOperation{}}
	if !m.Regular {
		rep.Error = &ErrorInfo{Code: CodeInvalidFileFormat,
			Message: m.Name + " is not a regular file (links, devices and other special entries are not processed)"}
		return Rows{}, rep, nil
	}
	if !strings.HasSuffix(strings.ToLower(m.Name), ".json") {
		rep.Error = &ErrorInfo{Code: CodeInvalidFileFormat, Message: m.Name + " is not a .json file"}
		return Rows{}, rep, nil
	}
	arrays, msg := fileArrays(m.Data)
	if msg != "" {
		rep.Error = &ErrorInfo{Code: CodeInvalidJSON, Message: m.Name + " " + msg}
		return Rows{}, rep, nil
	}
	indexes, curves := 0, 0
	for _, a := range arrays {
		if a.name == ArrayLoadCurves {
			curves += a.count
		} else {
			indexes += a.count
		}
	}
	rep.NbOperationsTotal = indexes + curves
	if indexes > MaxIndexesPerFile || curves > MaxLoadCurvesPerFile {
		rep.NbOperationsKO = rep.NbOperationsTotal
		rep.Error = &ErrorInfo{Code: CodeTooManyRecords, Message: fmt.Sprintf(
			"%s holds %d indexes and max powers and %d load curves; at most %d indexes and max powers, and %d load curves, are allowed per file",
			m.Name, indexes, curves, MaxIndexesPerFile, MaxLoadCurvesPerFile)}
		return Rows{}, rep, nil
	}

	var rows Rows
	cache := newSiteCache(sites)
	var errs []FieldFailure
	for _, a := range arrays {
		decode := decoders[a.name]
		// Room for the rows at once: growing a slice of rows copies them, and a file's load-curve
		// points are tens of megabytes that a copy could not be interrupted in (it holds up the
		// collector's stops, and so every request in flight).
		switch a.name {
		case ArrayLoadCurves:
			rows.LoadCurvePoints = slices.Grow(rows.LoadCurvePoints, countPoints(a.raw))
		case ArrayCyclicGasIndexes:
			rows.Gas = slices.Grow(rows.Gas, a.count)
		case ArraySmartElecIndexes:
			rows.Elec = slices.Grow(rows.Elec, 2*a.count) // a row per dial: mostly 2 (off-peak, peak)
		case ArrayMaxPowers:
			rows.MaxPowers = slices.Grow(rows.MaxPowers, a.count)
		}
		var err error
		eachElement(a.raw, func(i int, rest []byte) int {
			if i%1000 == 999 {
				if err = ctx.Err(); err != nil {
					return 0
				}
			}
			errs = errs[:0]
			size, derr := decode(ctx, rest, cache, &errs, &rows)
			if err = derr; err != nil {
				return 0
			}
			if len(errs) == 0 {
				rep.NbOperationsOK++
				return size
			}
			rep.NbOperationsKO++
			if len(rep.FailedOperations) == MaxFailedOperations {
				rep.FailedOperationsTruncated = true
				return size
			}
			rep.FailedOperations = append(rep.FailedOperations,
				FailedOperation{Array: a.name, Index: i, Errors: append([]FieldFailure(nil), errs...)})
			return size
		})
		if err != nil {
			return Rows{}, FileReport{}, err
		}
	}
	return rows, rep, nil
}

// fileArray is one of the four arrays of a file, raw.
type fileArray struct {
	name  string
	raw   []byte
	count int
}

// fileArrays checks that data is a JSON object whose known members are arrays (or null,
// taken as absent) and returns them in file order with their element counts; msg says what is
// wrong otherwise. It reads the file once: validity (exactly json.Valid's), shape and counts.
func fileArrays(data []byte) ([]fileArray, string) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark is tolerated
	c := jsonChecker{b: data}
	c.space()
	var arrays []fileArray
	var shape string
	var ok bool
	if c.i < len(data) && data[c.i] == '{' {
		ok = topObject(&c, &arrays, &shape)
	} else {
		ok = c.value(0)
		shape = "is not a JSON object (expected {\"cyclicGasIndexes\": [...], \"smartElecIndexes\": [...], \"maxPowers\": [...], \"loadCurves\": [...]})"
	}
	if ok {
		c.space()
		ok = c.i == len(data)
	}
	if !ok {
		var v any
		err := json.Unmarshal(data, &v) // for encoding/json's description of the problem
		if err == nil {
			err = fmt.Errorf("invalid JSON")
		}
		return nil, "is not valid JSON: " + err.Error()
	}
	if shape != "" {
		return nil, shape
	}
	return arrays, ""
}

// topObject checks the file's object at c.i and collects its known arrays; shape gets the
// first problem of the file's shape, in file order (a known member given twice or not an array).
func topObject(c *jsonChecker, arrays *[]fileArray, shape *string) bool {
	data := c.b
	c.i++
	c.space()
	if c.i < len(data) && data[c.i] == '}' {
		c.i++
		return true
	}
	for {
		keyStart := c.i
		if c.i >= len(data) || data[c.i] != '"' || !c.str() {
			return false
		}
		name := arrayName(data[keyStart:c.i])
		c.space()
		if c.i >= len(data) || data[c.i] != ':' {
			return false
		}
		c.i++
		c.space()
		start := c.i
		count := 0
		if name != "" && start < len(data) && data[start] == '[' {
			n, ok := c.array(2)
			if !ok {
				return false
			}
			count = n
		} else if !c.value(1) {
			return false
		}
		if name != "" && *shape == "" {
			*shape = addArray(arrays, name, data[start:c.i], count)
		}
		if end, ok := c.next('}'); !ok || end {
			return ok
		}
	}
}

// addArray records the known member name with value val, or says why it cannot.
func addArray(arrays *[]fileArray, name string, val []byte, count int) string {
	for _, a := range *arrays {
		if a.name == name {
			return fmt.Sprintf("has the member %q more than once", name)
		}
	}
	switch k := kindOf(val); k {
	case kindNull:
		*arrays = append(*arrays, fileArray{name: name}) // a null array is an empty one
	case kindArray:
		*arrays = append(*arrays, fileArray{name: name, raw: val, count: count})
	default:
		return fmt.Sprintf("member %q must be an array, not %s", name, k)
	}
	return ""
}

// arrayName is the array a top-level key (quotes included) names, or "".
func arrayName(rawKey []byte) string {
	key, _ := stringBytes(rawKey)
	for _, name := range [...]string{ArrayCyclicGasIndexes, ArraySmartElecIndexes, ArrayMaxPowers, ArrayLoadCurves} {
		if string(key) == name {
			return name
		}
	}
	return ""
}

// siteCache remembers the resolver's answers for one file, and keeps one copy of each
// identifier: thousands of records name the same few sites and pods, and looking bytes up in
// a map allocates nothing.
type siteCache struct {
	r         SiteResolver
	ids       map[string]knownSite // by site id
	customers map[string]knownSite // by customerKey
	key       []byte
	strs      map[string]string
}

type knownSite struct {
	siteID string
	ok     bool
}

func newSiteCache(r SiteResolver) *siteCache {
	return &siteCache{r: r, ids: map[string]knownSite{}, customers: map[string]knownSite{}, strs: map[string]string{}}
}

// intern returns a string equal to b, the same one for equal bytes.
func (c *siteCache) intern(b []byte) string {
	if s, ok := c.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	c.strs[s] = s
	return s
}

func (c *siteCache) byID(ctx context.Context, id []byte) (string, bool, error) {
	if s, hit := c.ids[string(id)]; hit {
		return s.siteID, s.ok, nil
	}
	siteID := c.intern(id)
	ok, err := c.r.SiteByID(ctx, siteID)
	if err != nil {
		return "", false, err
	}
	c.ids[siteID] = knownSite{siteID, ok}
	return siteID, ok, nil
}

func (c *siteCache) byCustomer(ctx context.Context, site, person []byte) (string, bool, error) {
	// The key is both ids, the first one's length ahead so that no pair of ids can collide.
	c.key = append(binary.AppendUvarint(c.key[:0], uint64(len(site))), site...)
	c.key = append(c.key, person...)
	if s, hit := c.customers[string(c.key)]; hit {
		return s.siteID, s.ok, nil
	}
	id, ok, err := c.r.SiteByCustomer(ctx, string(site), string(person))
	if err != nil {
		return "", false, err
	}
	c.customers[string(c.key)] = knownSite{id, ok}
	return id, ok, nil
}

// minPointBytes is the shortest valid load-curve point with the comma before the next one:
// {"endTs":"2024-01-01T00:00:00Z","value":0,"reliability":0},
const minPointBytes = 59

// countPoints counts the objects in the values arrays of the load curves in raw (the file's
// loadCurves array), the room their rows take. The count never exceeds the points raw has
// bytes for, so a file of empty objects reserves no more than a file of real points.
func countPoints(raw []byte) int {
	n := 0
	eachElement(raw, func(_ int, rest []byte) int {
		if kindOf(rest) != kindObject {
			return valueLen(rest)
		}
		return eachMember(rest, func(key []byte, _ bool, val []byte) {
			if string(key) != "values" || kindOf(val) != kindArray {
				return
			}
			eachElement(val, func(_ int, p []byte) int {
				if kindOf(p) == kindObject {
					n++
				}
				return valueLen(p)
			})
		})
	})
	return min(n, len(raw)/minPointBytes+1)
}
