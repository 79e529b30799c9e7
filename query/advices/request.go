package advices

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// MaxElements is the largest number of elements one job accepts.
const MaxElements = 100

// ParseRequest validates a job's body, a JSON array of 1..MaxElements {"input": {...}}, and
// returns each element's input, raw (as stored with the job) and parsed. The first problem
// found is returned as an *InputError naming the element and key ("[2].input.HOUSING_SURFACE").
// A member given twice or a NUL character is refused before, by the API's check of every JSON
// body (apidocs/strictjson.go).
func ParseRequest(body []byte) ([]json.RawMessage, []Input, error) {
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
