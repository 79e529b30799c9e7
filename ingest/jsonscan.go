package ingest

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// A small zero-copy scanner over a JSON text that jsonChecker has already validated.
// Archive members are in memory anyway; walking their bytes in place keeps the decoder's
// memory at the rows it produces (no token strings, no interface{} trees) and lets it keep
// what encoding/json throws away: the order of keys and their duplicates.
//
// Every function here assumes valid JSON; fed anything else it may misread but never panics
// (bounds are checked), which the fuzz target verifies.

// jsonKind is the kind of a raw JSON value, from its first byte.
type jsonKind byte

const (
	kindNone jsonKind = iota // absent
	kindNull
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
)

func kindOf(raw []byte) jsonKind {
	if len(raw) == 0 {
		return kindNone
	}
	switch raw[0] {
	case 'n':
		return kindNull
	case 't', 'f':
		return kindBool
	case '"':
		return kindString
	case '{':
		return kindObject
	case '[':
		return kindArray
	}
	return kindNumber
}

func (k jsonKind) String() string {
	return [...]string{"absent", "null", "a boolean", "a number", "a string", "an object", "an array"}[k]
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the value starting at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// valueLen is the length of the value that starts rest.
func valueLen(rest []byte) int { return valueEnd(rest, 0) }

// stringEnd returns the index just past the string whose opening quote is b[i]. Strings of
// archive files are short: a plain loop beats bytes.IndexByte's call per quote.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++ // the escaped byte (of \uXXXX the rest are hex digits)
		}
	}
	return len(b)
}

// eachMember calls fn for every member of the object that starts raw, in order, duplicates
// included, and returns the object's length (raw may go on after it); validKey is false for a
// key holding invalid UTF-8 (replaced by U+FFFD in key). key is only valid during the call (it
// may be a view of raw).
func eachMember(raw []byte, fn func(key []byte, validKey bool, val []byte)) int {
	i := skipSpace(raw, 1)
	for i < len(raw) && raw[i] == '"' {
		end := stringEnd(raw, i)
		key, validKey := stringBytes(raw[i:end])
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ':' {
			i++
		}
		i = skipSpace(raw, i)
		vend := valueEnd(raw, i)
		fn(key, validKey, raw[i:vend])
		i = skipSpace(raw, vend)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
			continue
		}
		break
	}
	return min(i+1, len(raw)) // past the closing brace
}

// eachElement calls fn for every element of the array raw, with its 0-based index and the
// bytes from the element's start to the end of raw: fn returns the element's length (its
// decoder parses an object once, without a scan for its end first; valueLen measures any
// value). A length of 0 stops the walk.
func eachElement(raw []byte, fn func(i int, rest []byte) int) {
	i := skipSpace(raw, 1)
	if i >= len(raw) || raw[i] == ']' {
		return
	}
	for n := 0; i < len(raw); n++ {
		size := fn(n, raw[i:])
		if size <= 0 { // not a value (only on invalid input), or stopped
			return
		}
		i = skipSpace(raw, i+size)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
			continue
		}
		return
	}
}

// stringBytes decodes a JSON string like unquote without copying when it can: the result is
// a view of raw when raw holds no escape.
func stringBytes(raw []byte) ([]byte, bool) {
	if len(raw) < 2 {
		return nil, false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner, true
	}
	s, ok := unquote(raw)
	return []byte(s), ok
}

// unquote decodes a JSON string; ok is false when it holds invalid UTF-8.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if !utf8.Valid(inner) {
		return strings.ToValidUTF8(string(inner), "\uFFFD"), false
	}
	for _, c := range inner {
		if c == '\\' {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return "", false
			}
			return s, true
		}
	}
	return string(inner), true
}
