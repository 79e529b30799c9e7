package ingest

import (
	"strings"
	"testing"
)

// Operation-level errors: each case is one element; the failures are "array[i] CODE field".

func TestIdentityVariants(t *testing.T) {
	const rest = `"podId":"P","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-01T00:00:00Z","value":1`
	cases := []struct {
		identity string
		want     []string
		site     string
	}{
		{`"siteId":"S1",`, nil, "S1"},
		{`"siteCustomerId":"C-1","personCustomerId":"P-1",`, nil, "S1"},
		{`"siteId":"NOPE",`, []string{"maxPowers[0] UNKNOWN_SITE siteId"}, ""},
		{`"siteCustomerId":"C-1","personCustomerId":"P-2",`, []string{"maxPowers[0] UNKNOWN_SITE siteCustomerId"}, ""},
		{`"siteCustomerId":"C-1",`, []string{"maxPowers[0] MISSING_FIELD personCustomerId"}, ""},
		{`"personCustomerId":"P-1",`, []string{"maxPowers[0] MISSING_FIELD siteCustomerId"}, ""},
		{`"siteId":"S1","siteCustomerId":"C-1","personCustomerId":"P-1",`, []string{"maxPowers[0] INVALID_FIELD siteId"}, ""},
		{`"siteId":"S1","personCustomerId":"P-1",`, []string{"maxPowers[0] INVALID_FIELD siteId"}, ""},
		{``, []string{"maxPowers[0] MISSING_FIELD siteId"}, ""},
		{`"siteId":null,`, []string{"maxPowers[0] MISSING_FIELD siteId"}, ""},
		{`"siteId":"",`, []string{"maxPowers[0] INVALID_FIELD siteId"}, ""},
		{`"siteId":7,`, []string{"maxPowers[0] INVALID_FIELD siteId"}, ""},
		{`"siteId":"S1","siteCustomerId":null,`, nil, "S1"},
		{`"siteCustomerId":"C-1","personCustomerId":"P-1","siteId":null,`, nil, "S1"},
	}
	for _, c := range cases {
		rows, rep := decodeText(t, "f.json", `{"maxPowers":[{`+c.identity+rest+`}]}`)
		wantFailures(t, rep, c.want...)
		if c.site != "" && (len(rows.MaxPowers) != 1 || rows.MaxPowers[0].SiteID != c.site) {
			t.Fatalf("%s: rows %+v", c.identity, rows.MaxPowers)
		}
		if c.want != nil && len(rows.MaxPowers) != 0 {
			t.Fatalf("%s: invalid element produced rows", c.identity)
		}
	}
}

func TestUnknownSiteMessageNamesTheIdentifiers(t *testing.T) {
	_, rep := decodeText(t, "f.json", `{"maxPowers":[{"siteCustomerId":"C-9","personCustomerId":"P-9","podId":"P","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-01T00:00:00Z","value":1}]}`)
	msg := rep.FailedOperations[0].Errors[0].Message
	if !strings.Contains(msg, `"C-9"`) || !strings.Contains(msg, `"P-9"`) || !strings.HasPrefix(msg, "siteCustomerId ") {
		t.Fatalf("message %q", msg)
	}
}

func TestGasIndexFieldErrors(t *testing.T) {
	base := map[string]string{
		"siteId": `"S1"`, "podId": `"G"`, "nature": `"MKT_ESTIMATION_INVALID"`, "ts": `"2024-01-01T00:00:00Z"`,
		"generationTs": `"2024-01-01T00:00:00Z"`, "value": `10`, "unit": `"m3"`, "conversionFactors": `{"kWh": 11}`,
	}
	cases := []struct {
		field, value string // value "" removes the field
		want         string
	}{
		{"podId", "", "MISSING_FIELD podId"},
		{"podId", `["G"]`, "INVALID_FIELD podId"},
		{"nature", `"MKT_SMART_DISTRIBUTOR"`, "INVALID_FIELD nature"},
		{"nature", `"mkt_estimation"`, "INVALID_FIELD nature"},
		{"nature", "", "MISSING_FIELD nature"},
		{"ts", `"2024-01-01T00:00:00+01:00"`, "INVALID_FIELD ts"},
		{"ts", `"2024-01-01 00:00:00Z"`, "INVALID_FIELD ts"},
		{"ts", `"2024-01-01T00:00:00z"`, "INVALID_FIELD ts"},
		{"ts", `"2024-01-01T00:00Z"`, "INVALID_FIELD ts"},
		{"ts", `"2024-02-30T00:00:00Z"`, "INVALID_FIELD ts"},
		{"ts", `"1969-12-31T23:59:59Z"`, "INVALID_FIELD ts"},
		{"ts", `"2024-01-01"`, "INVALID_FIELD ts"},
		{"ts", `1704067200`, "INVALID_FIELD ts"},
		{"generationTs", "", "MISSING_FIELD generationTs"},
		{"generationTs", `"2024-01-01T24:00:00Z"`, "INVALID_FIELD generationTs"},
		{"value", `1.5`, "INVALID_FIELD value"},
		{"value", `"10"`, "INVALID_FIELD value"},
		{"value", `-1`, "INVALID_FIELD value"},
		{"value", `1e19`, "INVALID_FIELD value"},
		{"value", ``, "MISSING_FIELD value"},
		{"unit", `""`, "INVALID_FIELD unit"},
		{"unit", ``, "MISSING_FIELD unit"},
		{"conversionFactors", ``, "MISSING_FIELD conversionFactors"},
		{"conversionFactors", `[11]`, "INVALID_FIELD conversionFactors"},
		{"conversionFactors", `{"kWh": 0}`, "INVALID_FIELD conversionFactors.kWh"},
		{"conversionFactors", `{"kWh": -2}`, "INVALID_FIELD conversionFactors.kWh"},
		{"conversionFactors", `{"kWh": "11"}`, "INVALID_FIELD conversionFactors.kWh"},
		{"conversionFactors", `{"kWh": 1e400}`, "INVALID_FIELD conversionFactors.kWh"},
		{"conversionFactors", `{"kWh": 1, "kWh": 2}`, "INVALID_FIELD conversionFactors.kWh"},
		{"conversionFactors", `{"": 1}`, "INVALID_FIELD conversionFactors"},
		{"indexBeforeChange", `"true"`, "INVALID_FIELD indexBeforeChange"},
		{"indexBeforeChange", `1`, "INVALID_FIELD indexBeforeChange"},
	}
	for _, c := range cases {
		body := elementWith(base, c.field, c.value)
		rows, rep := decodeText(t, "f.json", `{"cyclicGasIndexes":[`+body+`]}`)
		wantFailures(t, rep, "cyclicGasIndexes[0] "+c.want)
		if len(rows.Gas) != 0 || rep.NbOperationsKO != 1 {
			t.Fatalf("%s=%s: rows %+v", c.field, c.value, rows.Gas)
		}
	}
	// Accepted variants.
	for _, c := range []struct{ field, value string }{
		{"value", `10.0`}, {"value", `1e1`}, {"value", `0`}, {"value", `9223372036854775807`},
		{"ts", `"2024-01-01T00:00:00.123456789Z"`}, {"conversionFactors", `{}`},
		{"indexBeforeChange", `false`}, {"indexBeforeChange", `null`}, {"extra", `{"ignored": true}`},
	} {
		rows, rep := decodeText(t, "f.json", `{"cyclicGasIndexes":[`+elementWith(base, c.field, c.value)+`]}`)
		if rep.NbOperationsOK != 1 || len(rows.Gas) != 1 {
			t.Fatalf("%s=%s refused: %q", c.field, c.value, failureLines(rep))
		}
	}
}

func TestSmartIndexFieldErrors(t *testing.T) {
	base := map[string]string{
		"siteId": `"S1"`, "podId": `"E"`, "nature": `"MKT_SMART_DISTRIBUTOR_INVALID"`, "ts": `"2024-01-01T00:00:00Z"`,
		"generationTs": `"2024-01-01T00:00:00Z"`, "value": `{"1": 10, "2": 20}`,
	}
	cases := []struct {
		field, value string
		want         []string
	}{
		{"nature", `"MKT_CYCLIC_DISTRIBUTOR"`, []string{"INVALID_FIELD nature"}},
		{"value", `10`, []string{"INVALID_FIELD value"}},
		{"value", `{}`, []string{"INVALID_FIELD value"}},
		{"value", `{"1": 10, "2": 2.5}`, []string{"INVALID_FIELD value.2"}},
		{"value", `{"1": -10, "3": "x"}`, []string{"INVALID_FIELD value.1", "INVALID_FIELD value.3"}},
		{"value", `{"1": null}`, []string{"MISSING_FIELD value.1"}},
		{"value", `{"": 10}`, []string{"INVALID_FIELD value"}},
		{"value", `{"1": 10, "1": 11}`, []string{"INVALID_FIELD value.1"}},
		{"indexBeforeChange", `"no"`, []string{"INVALID_FIELD indexBeforeChange"}},
		{"ts", `"2024-01-01T00:00:00.Z"`, []string{"INVALID_FIELD ts"}},
	}
	for _, c := range cases {
		rows, rep := decodeText(t, "f.json", `{"smartElecIndexes":[`+elementWith(base, c.field, c.value)+`]}`)
		var want []string
		for _, w := range c.want {
			want = append(want, "smartElecIndexes[0] "+w)
		}
		wantFailures(t, rep, want...)
		if len(rows.Elec) != 0 {
			t.Fatalf("%s: rows %+v", c.value, rows.Elec)
		}
	}
	rows, _ := decodeText(t, "f.json", `{"smartElecIndexes":[`+elementWith(base, "indexBeforeChange", "")+`]}`)
	if len(rows.Elec) != 2 || rows.Elec[0].IndexBeforeChange || rows.Elec[0].Nature != "MKT_SMART_DISTRIBUTOR_INVALID" {
		t.Fatalf("rows %+v", rows.Elec)
	}
}

func TestMaxPowerFieldErrors(t *testing.T) {
	_, rep := decodeText(t, "f.json", `{"maxPowers":[
		{"siteId":"S1","podId":"P","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-01T00:00:00Z","value":1},
		"not an object",
		{"siteId":"S1","podId":"P","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-01T00:00:00+00:00","value":-5},
		{},
		{"siteId":"S1","siteId":"S2","podId":"P","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-01T00:00:00Z","value":1}
	]}`)
	wantFailures(t, rep,
		"maxPowers[1] INVALID_FIELD ",
		"maxPowers[2] INVALID_FIELD generationTs",
		"maxPowers[2] INVALID_FIELD value",
		"maxPowers[3] MISSING_FIELD siteId",
		"maxPowers[3] MISSING_FIELD podId",
		"maxPowers[3] MISSING_FIELD ts",
		"maxPowers[3] MISSING_FIELD generationTs",
		"maxPowers[3] MISSING_FIELD value",
		"maxPowers[4] INVALID_FIELD siteId",
	)
	if rep.NbOperationsOK != 1 || rep.NbOperationsKO != 4 || rep.NbOperationsTotal != 5 {
		t.Fatalf("%+v", rep)
	}
}

func TestLoadCurveFieldErrors(t *testing.T) {
	base := map[string]string{
		"siteCustomerId": `"C-1"`, "personCustomerId": `"P-1"`, "podId": `"E"`, "meterReadingDate": `"2024-01-01"`,
		"generationTs": `"2024-01-02T01:00:00+01:00"`, "step": `"PT30M"`,
		"values": `[{"beginTs":"2024-01-01T00:00:00+01:00","value":10,"reliability":0}]`,
	}
	cases := []struct {
		field, value string
		want         []string
	}{
		{"meterReadingDate", `"2024-01-01T00:00:00Z"`, []string{"INVALID_FIELD meterReadingDate"}},
		{"meterReadingDate", `"2024-13-01"`, []string{"INVALID_FIELD meterReadingDate"}},
		{"meterReadingDate", ``, []string{"MISSING_FIELD meterReadingDate"}},
		{"generationTs", `"2024-01-02T01:00:00"`, []string{"INVALID_FIELD generationTs"}},
		{"generationTs", `"2024-01-02T01:00:00+0100"`, []string{"INVALID_FIELD generationTs"}},
		{"generationTs", `"2024-01-02T01:00:00+24:00"`, []string{"INVALID_FIELD generationTs"}},
		{"step", `"30"`, []string{"INVALID_FIELD step"}},
		{"step", `"PT0M"`, []string{"INVALID_FIELD step"}},
		{"step", `"P1M"`, []string{"INVALID_FIELD step"}},
		{"step", `"P1W"`, []string{"INVALID_FIELD step"}},
		{"step", `"PT25H"`, []string{"INVALID_FIELD step"}},
		{"step", `"PT0.5S"`, []string{"INVALID_FIELD step"}},
		{"step", `"PT"`, []string{"INVALID_FIELD step"}},
		{"step", `"pt30m"`, []string{"INVALID_FIELD step"}},
		{"step", ``, []string{"MISSING_FIELD step"}},
		{"values", ``, []string{"MISSING_FIELD values"}},
		{"values", `{}`, []string{"INVALID_FIELD values"}},
		{"values", `[]`, []string{"INVALID_FIELD values"}},
		{"values", `[{"beginTs":"2024-01-01T00:00:00+01:00","value":10,"reliability":0}, 5]`, []string{"INVALID_FIELD values[1]"}},
		{"values", `[{"value":10,"reliability":0}]`, []string{"MISSING_FIELD values[0].beginTs"}},
		{"values", `[{"beginTs":"2024-01-01T00:00:00Z","endTs":"2024-01-01T00:30:00Z","value":10,"reliability":0}]`, []string{"INVALID_FIELD values[0].endTs"}},
		{"values", `[{"beginTs":"2024-01-01T00:00:00Z","value":10,"reliability":0},{"beginTs":"2024-01-01T00:30:00Z","value":10},` +
			`{"endTs":"2024-01-01T01:00:00","value":1.5,"reliability":2}]`,
			[]string{"MISSING_FIELD values[1].reliability", "INVALID_FIELD values[2].endTs", "INVALID_FIELD values[2].value", "INVALID_FIELD values[2].reliability"}},
		{"values", `[{"beginTs":"2024-01-01T00:00:00Z","value":-1,"reliability":0}]`, []string{"INVALID_FIELD values[0].value"}},
		{"values", `[{"endTs":"1970-01-01T00:10:00Z","value":1,"reliability":0}]`, []string{"INVALID_FIELD values[0].endTs"}},
		{"values", `[{"beginTs":"2024-01-01T00:00:00Z","beginTs":"2024-01-01T00:00:00Z","value":1,"reliability":0}]`, []string{"INVALID_FIELD values[0].beginTs"}},
	}
	for _, c := range cases {
		rows, rep := decodeText(t, "f.json", `{"loadCurves":[`+elementWith(base, c.field, c.value)+`]}`)
		var want []string
		for _, w := range c.want {
			want = append(want, "loadCurves[0] "+w)
		}
		wantFailures(t, rep, want...)
		if len(rows.LoadCurvePoints) != 0 {
			t.Fatalf("%s: rows %+v", c.value, rows.LoadCurvePoints)
		}
	}
	for _, step := range []string{"PT10M", "PT1H", "P1D", "PT24H", "PT1H30M", "PT15M", "PT1S", "P0DT30M"} {
		rows, rep := decodeText(t, "f.json", `{"loadCurves":[`+elementWith(base, "step", `"`+step+`"`)+`]}`)
		if rep.NbOperationsOK != 1 || len(rows.LoadCurvePoints) != 1 {
			t.Fatalf("step %s refused: %q", step, failureLines(rep))
		}
	}
}

func TestErrorsPerOperationAreBounded(t *testing.T) {
	var points []string
	for range 200 {
		points = append(points, `{"value":1,"reliability":0}`)
	}
	_, rep := decodeText(t, "f.json", `{"loadCurves":[{"siteId":"S1","podId":"P","meterReadingDate":"2024-01-01","generationTs":"2024-01-01T00:00:00Z","step":"PT30M","values":[`+strings.Join(points, ",")+`]}]}`)
	if len(rep.FailedOperations) != 1 || len(rep.FailedOperations[0].Errors) != maxErrorsPerOperation {
		t.Fatalf("%d errors", len(rep.FailedOperations[0].Errors))
	}
}

// elementWith renders base as a JSON object with field set to value (removed when value is "").
func elementWith(base map[string]string, field, value string) string {
	var parts []string
	seen := false
	for _, k := range sortedKeys(base) {
		v := base[k]
		if k == field {
			seen = true
			if value == "" {
				continue
			}
			v = value
		}
		parts = append(parts, `"`+k+`":`+v)
	}
	if !seen && value != "" {
		parts = append(parts, `"`+field+`":`+value)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	return keys
}

func TestMessagesStaySmall(t *testing.T) {
	long := strings.Repeat("é", 600) // 1,200 bytes
	_, rep := decodeText(t, "f.json", `{"smartElecIndexes":[{"siteId":"`+long[:1000]+`","podId":"P","nature":"`+long[:1000]+`","ts":"`+long[:1000]+`",`+
		`"generationTs":"2024-01-01T00:00:00Z","value":{"`+long[:200]+`":1}}]}`)
	wantFailures(t, rep,
		"smartElecIndexes[0] UNKNOWN_SITE siteId",
		"smartElecIndexes[0] INVALID_FIELD nature",
		"smartElecIndexes[0] INVALID_FIELD ts",
		"smartElecIndexes[0] INVALID_FIELD value",
	)
	for _, e := range rep.FailedOperations[0].Errors {
		if len(e.Message) > 400 {
			t.Errorf("%d-byte message: %s", len(e.Message), e.Message)
		}
	}
}
