package ingest

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// A small zero-copy scanner over a JSON text that encoding/json has already validated
// (json.Valid). Archive members are in memory anyway; walking their bytes in place keeps the
// decoder's memory at the rows it produces (no token strings, no interface{} trees) and lets it
// keep what encoding/json throws away: the order of keys and their duplicates.
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

// stringEnd returns the index just past the string whose opening quote is b[i]. It jumps from
// quote to quote (bytes.IndexByte is vectorised) and counts the backslashes before each one.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		i += q
		escapes := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			escapes++
		}
		if escapes%2 == 0 {
			return i + 1
		}
	}
	return len(b)
}

// eachMember calls fn for every member of the object raw, in order, duplicates included;
// validKey is false for a key holding invalid UTF-8 (replaced by U+FFFD in key).
func eachMember(raw []byte, fn func(key string, validKey bool, val []byte)) {
	i := skipSpace(raw, 1)
	for i < len(raw) && raw[i] == '"' {
		end := stringEnd(raw, i)
		key, validKey := unquote(raw[i:end])
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
}

// eachElement calls fn for every element of the array raw, with its 0-based index.
func eachElement(raw []byte, fn func(i int, val []byte)) {
	i := skipSpace(raw, 1)
	if i >= len(raw) || raw[i] == ']' {
		return
	}
	for n := 0; i < len(raw); n++ {
		end := valueEnd(raw, i)
		if end == i { // not a value: only reachable on invalid input
			return
		}
		fn(n, raw[i:end])
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
			continue
		}
		return
	}
}

// countElements is the number of elements of the array raw.
func countElements(raw []byte) int {
	n := 0
	eachElement(raw, func(int, []byte) { n++ })
	return n
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
