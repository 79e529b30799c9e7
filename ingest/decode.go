package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Per-file record limits (interface.md "Limits"). Max powers count with the indexes: every
// record that is not a load curve counts towards MaxIndexesPerFile.
const (
	MaxIndexesPerFile    = 10000
	MaxLoadCurvesPerFile = 1500
)

// SiteResolver maps a record's identity to a site id of the job's tenant.
type SiteResolver interface {
	SiteByID(ctx context.Context, siteID string) (ok bool, err error)
	SiteByCustomer(ctx context.Context, siteCustomerID, personCustomerID string) (siteID string, ok bool, err error)
}

// elementDecoder validates one element of an array, appending its rows when it is valid.
type elementDecoder func(ctx context.Context, raw []byte, sites *siteCache, errs *[]FieldFailure, rows *Rows) error

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
		// Room for the rows at once (load-curve points grow by doubling, see decodeLoadCurve).
		switch a.name {
		case ArrayCyclicGasIndexes:
			rows.Gas = slices.Grow(rows.Gas, a.count)
		case ArraySmartElecIndexes:
			rows.Elec = slices.Grow(rows.Elec, a.count)
		case ArrayMaxPowers:
			rows.MaxPowers = slices.Grow(rows.MaxPowers, a.count)
		}
		var err error
		eachElement(a.raw, func(i int, raw []byte) {
			if err != nil {
				return
			}
			if i%1000 == 999 {
				if err = ctx.Err(); err != nil {
					return
				}
			}
			errs = errs[:0]
			if err = decode(ctx, raw, cache, &errs, &rows); err != nil {
				return
			}
			if len(errs) == 0 {
				rep.NbOperationsOK++
				return
			}
			rep.NbOperationsKO++
			if len(rep.FailedOperations) == MaxFailedOperations {
				rep.FailedOperationsTruncated = true
				return
			}
			rep.FailedOperations = append(rep.FailedOperations,
				FailedOperation{Array: a.name, Index: i, Errors: append([]FieldFailure(nil), errs...)})
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
// taken as absent) and returns them in file order; msg says what is wrong otherwise.
func fileArrays(data []byte) ([]fileArray, string) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark is tolerated
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			err = fmt.Errorf("invalid JSON")
		}
		return nil, "is not valid JSON: " + err.Error()
	}
	start := skipSpace(data, 0)
	if data[start] != '{' {
		return nil, "is not a JSON object (expected {\"cyclicGasIndexes\": [...], \"smartElecIndexes\": [...], \"maxPowers\": [...], \"loadCurves\": [...]})"
	}
	var arrays []fileArray
	var msg string
	eachMember(data[start:], func(key string, _ bool, val []byte) {
		if decoders[key] == nil || msg != "" {
			return
		}
		for _, a := range arrays {
			if a.name == key {
				msg = fmt.Sprintf("has the member %q more than once", key)
				return
			}
		}
		switch k := kindOf(val); k {
		case kindNull:
			arrays = append(arrays, fileArray{name: key}) // a null array is an empty one
		case kindArray:
			arrays = append(arrays, fileArray{name: key, raw: val, count: countElements(val)})
		default:
			msg = fmt.Sprintf("member %q must be an array, not %s", key, k)
		}
	})
	if msg != "" {
		return nil, msg
	}
	return arrays, ""
}

// siteCache remembers the resolver's answers for one file: thousands of records name the same
// few sites.
type siteCache struct {
	r         SiteResolver
	ids       map[string]bool
	customers map[[2]string]customerSite
}

type customerSite struct {
	siteID string
	ok     bool
}

func newSiteCache(r SiteResolver) *siteCache {
	return &siteCache{r: r, ids: map[string]bool{}, customers: map[[2]string]customerSite{}}
}

func (c *siteCache) byID(ctx context.Context, id string) (bool, error) {
	if ok, hit := c.ids[id]; hit {
		return ok, nil
	}
	ok, err := c.r.SiteByID(ctx, id)
	if err != nil {
		return false, err
	}
	c.ids[id] = ok
	return ok, nil
}

func (c *siteCache) byCustomer(ctx context.Context, site, person string) (string, bool, error) {
	key := [2]string{site, person}
	if s, hit := c.customers[key]; hit {
		return s.siteID, s.ok, nil
	}
	id, ok, err := c.r.SiteByCustomer(ctx, site, person)
	if err != nil {
		return "", false, err
	}
	c.customers[key] = customerSite{id, ok}
	return id, ok, nil
}
