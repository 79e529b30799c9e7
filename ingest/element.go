package ingest

import (
	"bytes"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// The element reader: one JSON object of an archive file read in place, its known fields looked
// up by name and checked by type and range, every problem collected with its field path. The
// record decoders (records.go) are built on it.

const (
	// maxStringLen bounds identifiers, natures and units.
	maxStringLen = 1024
	// maxKeyLen bounds dial and conversion unit names, which become part of field paths.
	maxKeyLen = 64
	// maxQuoted bounds a value quoted in a message (reports stay small whatever is sent).
	maxQuoted = 64
	// maxErrorsPerOperation bounds the errors listed for one element (a load curve of
	// thousands of bad points lists the first ones).
	maxErrorsPerOperation = 50
)

// element holds the known fields of one JSON object (unknown ones are ignored) and the problems
// found so far. A load-curve point is the element at values[point] of its curve; a record has
// point -1. Values are kept in a fixed array so that an element needs no allocation.
type element struct {
	names []string
	vals  [12][]byte
	point int
	errs  *[]FieldFailure
}

// init reads the object that starts raw and returns its length; a key given twice is an
// INVALID_FIELD (which value would win is otherwise a guess).
func (e *element) init(raw []byte, names []string, point int, errs *[]FieldFailure) int {
	e.names, e.point, e.errs = names, point, errs
	return eachMember(raw, func(key []byte, _ bool, val []byte) {
		for k, n := range names {
			if string(key) == n {
				if e.vals[k] != nil {
					e.fail(CodeInvalidField, n, "is given more than once")
				}
				e.vals[k] = val
				return
			}
		}
	})
}

func (e *element) raw(name string) []byte {
	for k, n := range e.names {
		if n == name {
			return e.vals[k]
		}
	}
	return nil
}

// present is true for a field given with a value other than null.
func (e *element) present(name string) bool {
	k := kindOf(e.raw(name))
	return k != kindNone && k != kindNull
}

func (e *element) fail(code, field, message string) {
	if len(*e.errs) >= maxErrorsPerOperation {
		return
	}
	path := field
	if e.point >= 0 {
		path = pointPath(e.point) + "." + field
	}
	*e.errs = append(*e.errs, FieldFailure{Code: code, Field: path, Message: path + " " + message})
}

func (e *element) ok() bool { return len(*e.errs) == 0 }

// text reads a required non-empty string. null counts as missing. The bytes are a view of the
// file when the string holds no escape: keep them only through a copy (str, intern).
func (e *element) text(name string) ([]byte, bool) {
	raw := e.raw(name)
	switch k := kindOf(raw); k {
	case kindNone, kindNull:
		e.fail(CodeMissingField, name, "is required")
		return nil, false
	case kindString:
	default:
		e.fail(CodeInvalidField, name, "must be a string, not "+k.String())
		return nil, false
	}
	s, valid := stringBytes(raw)
	switch {
	case !valid:
		e.fail(CodeInvalidField, name, "is not valid UTF-8")
	case len(s) == 0:
		e.fail(CodeInvalidField, name, "must not be empty")
	case len(s) > maxStringLen:
		e.fail(CodeInvalidField, name, fmt.Sprintf("is longer than %d bytes", maxStringLen))
	default:
		return s, true
	}
	return nil, false
}

// str is text as a string of its own.
func (e *element) str(name string) (string, bool) {
	s, ok := e.text(name)
	return string(s), ok
}

// oneOf reads a string of the set allowed and returns the set's copy of it.
func (e *element) oneOf(name string, allowed map[string]string, list string) (string, bool) {
	s, ok := e.text(name)
	if !ok {
		return "", false
	}
	v, ok := allowed[string(s)]
	if !ok {
		e.fail(CodeInvalidField, name, fmt.Sprintf("%s is not one of %s", quote(string(s)), list))
	}
	return v, ok
}

func (e *element) timeField(name string, parse func([]byte) (time.Time, error)) (time.Time, bool) {
	s, ok := e.text(name)
	if !ok {
		return time.Time{}, false
	}
	t, err := parse(s)
	if err != nil {
		e.fail(CodeInvalidField, name, fmt.Sprintf("%s %v", quote(string(s)), err))
		return time.Time{}, false
	}
	return t, true
}

// integer reads a required integer within [lo, hi].
func (e *element) integer(name string, lo, hi int64) (int64, bool) {
	return integerAt(e, name, e.raw(name), lo, hi)
}

func integerAt(e *element, field string, raw []byte, lo, hi int64) (int64, bool) {
	switch k := kindOf(raw); k {
	case kindNone, kindNull:
		e.fail(CodeMissingField, field, "is required")
		return 0, false
	case kindNumber:
	default:
		e.fail(CodeInvalidField, field, "must be an integer, not "+k.String())
		return 0, false
	}
	v, ok := parseInteger(raw)
	if !ok {
		e.fail(CodeInvalidField, field, fmt.Sprintf("must be an integer, not %s", clip(raw)))
		return 0, false
	}
	if v < lo || v > hi {
		e.fail(CodeInvalidField, field, fmt.Sprintf("must be between %d and %d, not %d", lo, hi, v))
		return 0, false
	}
	return v, true
}

// integerIn is integerAt's value when it is valid, without reporting anything.
func integerIn(raw []byte, lo, hi int64) (int64, bool) {
	if kindOf(raw) != kindNumber {
		return 0, false
	}
	v, ok := parseInteger(raw)
	return v, ok && v >= lo && v <= hi
}

// optionalBool reads a boolean that defaults to false when absent or null.
func (e *element) optionalBool(name string) (bool, bool) {
	raw := e.raw(name)
	switch k := kindOf(raw); k {
	case kindNone, kindNull:
		return false, true
	case kindBool:
		return raw[0] == 't', true
	default:
		e.fail(CodeInvalidField, name, "must be a boolean, not "+k.String())
		return false, false
	}
}

// object checks that a required field is a JSON object and returns its raw value.
func (e *element) object(name string) ([]byte, bool) {
	raw := e.raw(name)
	switch k := kindOf(raw); k {
	case kindNone, kindNull:
		e.fail(CodeMissingField, name, "is required")
		return nil, false
	case kindObject:
		return raw, true
	default:
		e.fail(CodeInvalidField, name, "must be an object, not "+k.String())
		return nil, false
	}
}

// isObject reports an element that is not a JSON object (the whole element is the field).
func isObject(raw []byte, errs *[]FieldFailure) bool {
	if k := kindOf(raw); k != kindObject {
		*errs = append(*errs, FieldFailure{Code: CodeInvalidField, Field: "",
			Message: "the element must be an object, not " + k.String()})
		return false
	}
	return true
}

// quote quotes s for a message, shortened.
func quote(s string) string {
	if len(s) > maxQuoted {
		cut := maxQuoted
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}

// clip quotes a raw value for a message, shortened.
func clip(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}

func setOf(values ...string) map[string]string {
	m := make(map[string]string, len(values))
	for _, v := range values {
		m[v] = v
	}
	return m
}

// nameSet is a set of the names of one JSON object, without allocation for the usual few.
// It keeps the names it is given: they must not change while it is used.
type nameSet struct {
	few  [8][]byte
	n    int
	many map[string]bool
}

func (s *nameSet) has(name []byte) bool {
	if s.many != nil {
		return s.many[string(name)]
	}
	for _, x := range s.few[:s.n] {
		if bytes.Equal(x, name) {
			return true
		}
	}
	return false
}

func (s *nameSet) add(name []byte) {
	switch {
	case s.has(name):
	case s.many != nil:
		s.many[string(name)] = true
	case s.n < len(s.few):
		s.few[s.n] = name
		s.n++
	default:
		s.many = map[string]bool{string(name): true}
		for _, x := range s.few {
			s.many[string(x)] = true
		}
	}
}

func (s *nameSet) len() int {
	if s.many != nil {
		return len(s.many)
	}
	return s.n
}
