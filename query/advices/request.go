package advices

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxElements is the largest number of elements one job accepts.
const MaxElements = 100

// ParseRequest validates a job's body, a JSON array of 1..MaxElements {"input": {...}}, and
// returns each element's input, raw (as stored with the job) and parsed. The first problem
// found is returned as an *InputError naming the element and key ("[2].input.HOUSING_SURFACE").
func ParseRequest(body []byte) ([]json.RawMessage, []Input, error) {
	if err := checkJSON(body); err != nil {
		return nil, nil, err
	}
	var elements []json.RawMessage
	if err := json.Unmarshal(body, &elements); err != nil || elements == nil {
		return nil, nil, &InputError{Path: "request body", Reason: `must be a JSON array of 1 to 100 elements {"input": {...}}`}
	}
	if len(elements) == 0 || len(elements) > MaxElements {
		return nil, nil, &InputError{Path: "request body", Reason: fmt.Sprintf("must hold 1 to %d elements (got %d)", MaxElements, len(elements))}
	}
	raws := make([]json.RawMessage, len(elements))
	inputs := make([]Input, len(elements))
	for i, el := range elements {
		path := "[" + strconv.Itoa(i) + "]"
		var members map[string]json.RawMessage
		if err := json.Unmarshal(el, &members); err != nil || members == nil {
			return nil, nil, &InputError{Path: path, Reason: `must be an object {"input": {...}}`}
		}
		for name := range members {
			if name != "input" {
				return nil, nil, &InputError{Path: path + "." + name, Reason: `is not a member of an element (only "input" is)`}
			}
		}
		raw, ok := members["input"]
		if !ok {
			return nil, nil, &InputError{Path: path + ".input", Reason: "is required"}
		}
		in, err := ParseInput(path+".input", raw)
		if err != nil {
			return nil, nil, err
		}
		raws[i], inputs[i] = raw, in
	}
	return raws, inputs, nil
}

// checkJSON refuses what json.Unmarshal lets through silently: a member name given twice in
// one object (which value would count?) and a NUL character in a string.
func checkJSON(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	type frame struct {
		object bool
		names  map[string]bool
		index  int
		key    string // the member being read, in an object
		path   string
	}
	var stack []*frame
	pathOf := func() string {
		if len(stack) == 0 {
			return "request body"
		}
		f := stack[len(stack)-1]
		if f.object {
			return join(f.path, "."+f.key)
		}
		return join(f.path, "["+strconv.Itoa(f.index)+"]")
	}
	expectKey := func() bool { return len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].key == "" }
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if f.object {
			f.key = ""
		} else {
			f.index++
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil // malformed JSON: ParseRequest reports it with the expected shape
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, &frame{object: t == '{', names: map[string]bool{}, path: pathOf()})
			case '}', ']':
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if strings.ContainsRune(t, 0) {
				if expectKey() {
					return &InputError{Path: stack[len(stack)-1].path, Reason: "a member name holds a NUL character"}
				}
				return &InputError{Path: pathOf(), Reason: "holds a NUL character"}
			}
			if expectKey() {
				f := stack[len(stack)-1]
				if f.names[t] {
					return &InputError{Path: join(f.path, "."+t), Reason: "is given twice"}
				}
				f.names[t], f.key = true, t
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// join appends a member or index to a path; the body itself is the empty path.
func join(path, suffix string) string {
	if path == "request body" {
		return strings.TrimPrefix(suffix, ".")
	}
	return path + suffix
}
