package advices

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestInputTypeAndRange: each key's wrong type and out-of-range values are refused, naming
// [i].input.KEY; values at the bounds are accepted.
func TestInputTypeAndRange(t *testing.T) {
	cases := []struct {
		key       Key
		bad, good []string
	}{
		{KeyGasHeatingKwh, []string{`-1`, `"12000"`, `true`, `null`, `[1]`}, []string{`0`, `12000.5`}},
		{KeyElecHeatingKwh, []string{`-0.01`, `"1"`, `{}`}, []string{`0`, `3e3`}},
		{KeyElecKwh, []string{`-5`, `false`}, []string{`0`, `4000`}},
		{KeyHousingType, []string{`"house"`, `"VILLA"`, `1`, `null`}, []string{`"HOUSE"`, `"APARTMENT"`}},
		{KeySurface, []string{`0`, `-3`, `10000.01`, `"80"`}, []string{`0.5`, `10000`}},
		{KeyOccupants, []string{`0`, `21`, `2.5`, `"2"`}, []string{`1`, `20`, `3.0`}},
		{KeySetpoint, []string{`9.99`, `30.01`, `"20"`}, []string{`10`, `30`, `19.5`}},
		{KeyHeatingSystem, []string{`"OIL_BOILER"`, `""`, `2`}, []string{`"GAS_BOILER"`, `"GAS_CONDENSING_BOILER"`, `"ELEC_CONVECTOR"`, `"HEAT_PUMP"`}},
		{KeyThermostat, []string{`"true"`, `1`, `null`}, []string{`true`, `false`}},
		{KeyRoofInsulated, []string{`"no"`, `0`}, []string{`true`, `false`}},
		{KeyWindows, []string{`"QUADRUPLE"`, `"single"`}, []string{`"SINGLE"`, `"DOUBLE"`, `"TRIPLE"`}},
		{KeyWaterHeater, []string{`"SOLAR"`, `3`}, []string{`"GAS"`, `"ELEC_TANK"`, `"HEAT_PUMP"`}},
		{KeyGasPrice, []string{`0`, `-0.1`, `"0.11"`}, []string{`0.0001`, `2`}},
		{KeyElecPrice, []string{`0`, `"x"`}, []string{`0.2516`}},
		{KeySiteID, []string{`""`, `12`, `null`}, []string{`"site-1"`}},
	}
	if len(cases) != len(catalog) {
		t.Fatalf("%d keys tested, the catalog has %d", len(cases), len(catalog))
	}
	for _, c := range cases {
		for _, v := range c.bad {
			body := fmt.Sprintf(`[{"input": {"HOUSING_TYPE": "HOUSE"}}, {"input": {%q: %s}}]`, c.key, v)
			_, _, err := ParseRequest([]byte(body))
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("%s = %s: error %v, want an InputError", c.key, v, err)
				continue
			}
			if want := "[1].input." + string(c.key); ie.Path != want || !strings.HasPrefix(ie.Reason, "must be") {
				t.Errorf("%s = %s: %q, want the path %s and the rule", c.key, v, err, want)
			}
		}
		for _, v := range c.good {
			body := fmt.Sprintf(`[{"input": {%q: %s}}]`, c.key, v)
			if _, _, err := ParseRequest([]byte(body)); err != nil {
				t.Errorf("%s = %s refused: %v", c.key, v, err)
			}
		}
	}
}

// TestRequestShape: the body and its elements, each error naming where it is.
func TestRequestShape(t *testing.T) {
	hundred := "[" + strings.TrimSuffix(strings.Repeat(`{"input": {"HOUSING_OCCUPANTS": 2}},`, 100), ",") + "]"
	raws, inputs, err := ParseRequest([]byte(hundred))
	if err != nil || len(raws) != 100 || len(inputs) != 100 {
		t.Fatalf("100 elements: %d, %v", len(inputs), err)
	}
	cases := []struct{ body, want string }{
		{`{"input": {}}`, `request body: must be a JSON array`},
		{`[]`, `request body: must hold 1 to 100 elements (got 0)`},
		{"[" + strings.Repeat(`{"input": {"HOUSING_OCCUPANTS": 2}},`, 100) + `{"input": {"HOUSING_OCCUPANTS": 2}}]`, `request body: must hold 1 to 100 elements (got 101)`},
		{`[{"input": {"HOUSING_TYPE": "HOUSE"}}, 3]`, `[1]: must be an object`},
		{`[{"input": {"HOUSING_TYPE": "HOUSE"}}, {}]`, `[1].input: is required`},
		{`[{"input": {"HOUSING_TYPE": "HOUSE"}}, {"input": {"HOUSING_TYPE": "HOUSE"}}, {"input": [1]}]`, `[2].input: must be an object`},
		{`[{"input": null}]`, `[0].input: must be an object`},
		{`[{"input": {"FOO": 1}}]`, `[0].input: holds no known input key`},
		{`[{"input": {}}]`, `[0].input: holds no known input key`},
		{`[{"input": {"HOUSING_TYPE": "HOUSE"}, "output": 1}]`, `[0].output: is not a member of an element`},
		{`[{"input": {"HOUSING_SURFACE": -2}}]`, `[0].input.HOUSING_SURFACE: must be a number > 0 and <= 10000 (m²) (got -2)`},
		{`[{"input": {"HOUSING_SURFACE": 80}`, `request body: must be a JSON array`},
	}
	for _, c := range cases {
		_, _, err := ParseRequest([]byte(c.body))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%.60s: error %v, want %q", c.body, err, c.want)
		}
	}
}
