package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// mapSites is a SiteResolver over fixed maps (the decoder needs no database).
type mapSites struct {
	ids       map[string]bool
	customers map[[2]string]string
	calls     int
	fail      error
}

func (s *mapSites) SiteByID(_ context.Context, id string) (bool, error) {
	s.calls++
	return s.ids[id], s.fail
}

func (s *mapSites) SiteByCustomer(_ context.Context, site, person string) (string, bool, error) {
	s.calls++
	id, ok := s.customers[[2]string{site, person}]
	return id, ok, s.fail
}

func knownSites() *mapSites {
	return &mapSites{
		ids:       map[string]bool{"S1": true, "S2": true},
		customers: map[[2]string]string{{"C-1", "P-1"}: "S1"},
	}
}

func decodeText(t *testing.T, name, body string) (Rows, FileReport) {
	t.Helper()
	rows, rep, err := DecodeFile(context.Background(), Member{Name: name, Data: []byte(body), Regular: true}, knownSites())
	if err != nil {
		t.Fatal(err)
	}
	if rep.NbOperationsTotal != rep.NbOperationsOK+rep.NbOperationsKO {
		t.Fatalf("total %d != OK %d + KO %d", rep.NbOperationsTotal, rep.NbOperationsOK, rep.NbOperationsKO)
	}
	return rows, rep
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// failures flattens a report's failed operations to "array[i] CODE field" lines.
func failureLines(rep FileReport) []string {
	var out []string
	for _, op := range rep.FailedOperations {
		for _, e := range op.Errors {
			out = append(out, fmt.Sprintf("%s[%d] %s %s", op.Array, op.Index, e.Code, e.Field))
		}
	}
	return out
}

func wantFailures(t *testing.T, rep FileReport, want ...string) {
	t.Helper()
	got := failureLines(rep)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("failures:\n got  %q\n want %q", got, want)
	}
}

const validFile = `{
  "cyclicGasIndexes": [
    {"siteId": "S1", "podId": "GAS-1", "nature": "MKT_CYCLIC_DISTRIBUTOR", "ts": "2024-01-31T23:00:00Z",
     "generationTs": "2024-02-01T06:00:00.250Z", "value": 12345, "unit": "m3",
     "conversionFactors": {"kWh": 11.2, "MWh": 0.0112}}
  ],
  "smartElecIndexes": [
    {"siteCustomerId": "C-1", "personCustomerId": "P-1", "podId": "PDL-1", "nature": "MKT_SMART_DISTRIBUTOR",
     "ts": "2024-02-01T00:00:00Z", "generationTs": "2024-02-01T04:00:00Z", "indexBeforeChange": true,
     "value": {"2": 200000, "1": 100000.0}}
  ],
  "maxPowers": [
    {"siteId": "S2", "podId": "PDL-2", "ts": "2024-02-01T00:00:00Z", "generationTs": "2024-02-02T00:00:00Z", "value": 6000}
  ],
  "loadCurves": [
    {"siteId": "S1", "podId": "PDL-1", "meterReadingDate": "2024-03-31", "generationTs": "2024-04-01T02:00:00+02:00",
     "step": "PT30M", "values": [
       {"beginTs": "2024-03-31T00:00:00+01:00", "value": 500, "reliability": 0},
       {"endTs": "2024-03-31T04:00:00+02:00", "value": 700, "reliability": 1},
       {"beginTs": "2024-03-31T05:07:00+02:00", "value": 0, "reliability": 0}
     ]}
  ],
  "comment": "unknown members are ignored"
}`

func TestDecodeFileValidRecordsOfEveryKind(t *testing.T) {
	rows, rep := decodeText(t, "data.json", validFile)
	want := FileReport{Name: "data.json", NbOperationsTotal: 4, NbOperationsOK: 4, FailedOperations: []FailedOperation{}}
	if !reflect.DeepEqual(rep, want) {
		t.Fatalf("report %+v", rep)
	}
	wantGas := []GasIndexRow{{SiteID: "S1", PodID: "GAS-1", TS: utc("2024-01-31T23:00:00Z"), Nature: "MKT_CYCLIC_DISTRIBUTOR",
		GenerationTS: utc("2024-02-01T06:00:00Z"), Value: 12345, Unit: "m3",
		ConversionUnits: []string{"MWh", "kWh"}, ConversionFactors: []float64{0.0112, 11.2}}}
	if !reflect.DeepEqual(rows.Gas, wantGas) {
		t.Errorf("gas %+v", rows.Gas)
	}
	wantElec := []ElecIndexRow{
		{SiteID: "S1", PodID: "PDL-1", TS: utc("2024-02-01T00:00:00Z"), IndexBeforeChange: true, Nature: "MKT_SMART_DISTRIBUTOR",
			GenerationTS: utc("2024-02-01T04:00:00Z"), Dial: "1", Value: 100000},
		{SiteID: "S1", PodID: "PDL-1", TS: utc("2024-02-01T00:00:00Z"), IndexBeforeChange: true, Nature: "MKT_SMART_DISTRIBUTOR",
			GenerationTS: utc("2024-02-01T04:00:00Z"), Dial: "2", Value: 200000},
	}
	if !reflect.DeepEqual(rows.Elec, wantElec) {
		t.Errorf("elec %+v", rows.Elec)
	}
	wantMax := []MaxPowerRow{{SiteID: "S2", PodID: "PDL-2", TS: utc("2024-02-01T00:00:00Z"), GenerationTS: utc("2024-02-02T00:00:00Z"), Value: 6000}}
	if !reflect.DeepEqual(rows.MaxPowers, wantMax) {
		t.Errorf("max %+v", rows.MaxPowers)
	}
	day := utc("2024-03-31T00:00:00Z")
	gen := utc("2024-04-01T00:00:00Z")
	wantPoints := []LoadCurvePointRow{
		{SiteID: "S1", PodID: "PDL-1", BeginTS: utc("2024-03-30T23:00:00Z"), EndTS: utc("2024-03-30T23:30:00Z"), GenerationTS: gen, Value: 500, MeterReadingDate: day},
		// endTs: the point covers the step that ends there.
		{SiteID: "S1", PodID: "PDL-1", BeginTS: utc("2024-03-31T01:30:00Z"), EndTS: utc("2024-03-31T02:00:00Z"), GenerationTS: gen, Value: 700, Reliability: 1, MeterReadingDate: day},
		// Not aligned on the step: kept as its own interval.
		{SiteID: "S1", PodID: "PDL-1", BeginTS: utc("2024-03-31T03:07:00Z"), EndTS: utc("2024-03-31T03:37:00Z"), GenerationTS: gen, Value: 0, MeterReadingDate: day},
	}
	if !reflect.DeepEqual(rows.LoadCurvePoints, wantPoints) {
		t.Errorf("points %+v", rows.LoadCurvePoints)
	}
}

func TestDecodeFileReportJSONShape(t *testing.T) {
	_, rep := decodeText(t, "ok.json", `{"maxPowers": []}`)
	b, _ := json.Marshal(rep)
	if string(b) != `{"name":"ok.json","nbOperationsTotal":0,"nbOperationsOK":0,"nbOperationsKO":0,"failedOperations":[]}` {
		t.Fatalf("%s", b)
	}
}

func TestDecodeFileFileLevelErrors(t *testing.T) {
	cases := []struct {
		name, file, body string
		code             string
		total, ko        int
	}{
		{"not json name", "data.txt", `{}`, CodeInvalidFileFormat, 0, 0},
		{"truncated", "a.json", `{"maxPowers": [`, CodeInvalidJSON, 0, 0},
		{"empty file", "a.json", ``, CodeInvalidJSON, 0, 0},
		{"top-level array", "a.json", `[{"siteId": "S1"}]`, CodeInvalidJSON, 0, 0},
		{"top-level string", "a.json", `"x"`, CodeInvalidJSON, 0, 0},
		{"member not an array", "a.json", `{"maxPowers": {"siteId": "S1"}}`, CodeInvalidJSON, 0, 0},
		{"member a number", "a.json", `{"loadCurves": 3}`, CodeInvalidJSON, 0, 0},
		{"duplicate member", "a.json", `{"maxPowers": [], "maxPowers": []}`, CodeInvalidJSON, 0, 0},
		{"trailing garbage", "a.json", `{"maxPowers": []} x`, CodeInvalidJSON, 0, 0},
		{"two values", "a.json", `{} {}`, CodeInvalidJSON, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows, rep := decodeText(t, c.file, c.body)
			if rep.Error == nil || rep.Error.Code != c.code || rep.NbOperationsTotal != c.total || rep.NbOperationsKO != c.ko {
				t.Fatalf("report %+v error %+v", rep, rep.Error)
			}
			if len(rep.FailedOperations) != 0 || len(rows.Sites()) != 0 {
				t.Fatalf("file-level error lists operations or rows: %+v", rep)
			}
			if !strings.Contains(rep.Error.Message, c.file) {
				t.Errorf("message %q does not name the file", rep.Error.Message)
			}
		})
	}
}

func TestDecodeFileNonRegularMember(t *testing.T) {
	rows, rep, err := DecodeFile(context.Background(), Member{Name: "link.json"}, knownSites())
	if err != nil || rep.Error == nil || rep.Error.Code != CodeInvalidFileFormat || rep.NbOperationsTotal != 0 || len(rows.Elec) != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
}

func TestDecodeFileAcceptsUpperCaseExtensionNullArraysAndBOM(t *testing.T) {
	_, rep := decodeText(t, "DATA.JSON", "\xef\xbb\xbf"+`{"maxPowers": null, "loadCurves": [], "other": {"x": [1]}}`)
	if rep.Error != nil || rep.NbOperationsTotal != 0 {
		t.Fatalf("%+v", rep)
	}
}

// manyMaxPowers builds a file of n max powers.
func manyOf(array string, n int, element string) string {
	var b strings.Builder
	b.WriteString(`{"` + array + `": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(element)
	}
	b.WriteString("]}")
	return b.String()
}

const (
	smartElement = `{"siteId":"S1","podId":"P","nature":"MKT_SMART_DISTRIBUTOR","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-01T00:00:00Z","value":{"1":1}}`
	maxElement   = `{"siteId":"S1","podId":"P","ts":"2024-01-01T00:00:00Z","generationTs":"2024-01-01T00:00:00Z","value":1}`
	curveElement = `{"siteId":"S1","podId":"P","meterReadingDate":"2024-01-01","generationTs":"2024-01-02T00:00:00Z","step":"PT30M","values":[{"beginTs":"2024-01-01T00:00:00Z","value":1,"reliability":0}]}`
)

func TestDecodeFileRecordLimits(t *testing.T) {
	sites := knownSites()
	run := func(body string) FileReport {
		_, rep, err := DecodeFile(context.Background(), Member{Name: "f.json", Data: []byte(body), Regular: true}, sites)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := run(manyOf("smartElecIndexes", 10000, smartElement))
	if rep.Error != nil || rep.NbOperationsOK != 10000 {
		t.Fatalf("10,000 indexes: %+v", rep.Error)
	}
	if sites.calls != 1 {
		t.Errorf("resolver called %d times for one site", sites.calls)
	}
	sites.calls = 0
	rep = run(manyOf("smartElecIndexes", 10001, smartElement))
	if rep.Error == nil || rep.Error.Code != CodeTooManyRecords || rep.NbOperationsTotal != 10001 || rep.NbOperationsKO != 10001 ||
		rep.NbOperationsOK != 0 || len(rep.FailedOperations) != 0 {
		t.Fatalf("10,001 indexes: %+v", rep)
	}
	if sites.calls != 0 {
		t.Errorf("a file over the limit cost %d site lookups", sites.calls)
	}
	// Max powers count with the indexes; gas too.
	body := `{"maxPowers": ` + manyOf("x", 5000, maxElement)[6:len(manyOf("x", 5000, maxElement))-1] +
		`, "smartElecIndexes": ` + manyOf("x", 5001, smartElement)[6:len(manyOf("x", 5001, smartElement))-1] + `}`
	if rep = run(body); rep.Error == nil || rep.Error.Code != CodeTooManyRecords || rep.NbOperationsKO != 10001 {
		t.Fatalf("5,000 max powers + 5,001 indexes: %+v", rep.Error)
	}
	if rep = run(manyOf("loadCurves", 1500, curveElement)); rep.Error != nil || rep.NbOperationsOK != 1500 {
		t.Fatalf("1,500 curves: %+v", rep.Error)
	}
	if rep = run(manyOf("loadCurves", 1501, curveElement)); rep.Error == nil || rep.Error.Code != CodeTooManyRecords || rep.NbOperationsKO != 1501 {
		t.Fatalf("1,501 curves: %+v", rep.Error)
	}
	// The limits are separate: 10,000 indexes and 1,500 curves in one file are accepted.
	both := manyOf("smartElecIndexes", 10000, smartElement)
	both = both[:len(both)-1] + `, "loadCurves": ` + manyOf("x", 1500, curveElement)[6:]
	if rep = run(both); rep.Error != nil || rep.NbOperationsOK != 11500 {
		t.Fatalf("both limits: %+v", rep.Error)
	}
}

func TestDecodeFileFailedOperationsAreTruncatedAt1000(t *testing.T) {
	rows, rep := decodeText(t, "f.json", manyOf("maxPowers", 1500, `{"siteId":"S1"}`))
	if rep.NbOperationsKO != 1500 || len(rep.FailedOperations) != MaxFailedOperations || !rep.FailedOperationsTruncated {
		t.Fatalf("KO %d, listed %d, truncated %v", rep.NbOperationsKO, len(rep.FailedOperations), rep.FailedOperationsTruncated)
	}
	if rep.FailedOperations[999].Index != 999 || len(rows.MaxPowers) != 0 {
		t.Fatalf("last listed %+v", rep.FailedOperations[999])
	}
}

func TestDecodeFileResolverFailureIsAnError(t *testing.T) {
	sites := knownSites()
	sites.fail = errors.New("storage unreachable")
	_, _, err := DecodeFile(context.Background(), Member{Name: "f.json", Data: []byte(manyOf("maxPowers", 2, maxElement)), Regular: true}, sites)
	if err == nil || err.Error() != "storage unreachable" {
		t.Fatalf("err %v", err)
	}
}

// A file's load-curve points get their room at once (growing a slice of millions of rows
// copies them), counted from the file: objects in the curves' values arrays, no more than the
// bytes of the file can hold as valid points.
func TestLoadCurvePointsAreCountedBeforeDecoding(t *testing.T) {
	curve := func(points ...string) string {
		return `{"siteId":"S1","podId":"PDL-1","meterReadingDate":"2024-01-01","generationTs":"2024-01-02T06:00:00+01:00","step":"PT30M","values":[` +
			strings.Join(points, ",") + `]}`
	}
	p := func(hhmm string) string {
		return `{"beginTs":"2024-01-01T` + hhmm + `:00+01:00","value":500,"reliability":0}`
	}
	body := `{"loadCurves":[` + curve(p("00:00"), p("00:30"), p("01:00")) + `,` + curve(p("02:00"), p("02:30")) + `,` +
		curve(`3`) + `,{"values":"none"},7]}`
	rows, rep := decodeText(t, "f.json", body)
	if len(rows.LoadCurvePoints) != 5 || cap(rows.LoadCurvePoints) != 5 || rep.NbOperationsOK != 2 || rep.NbOperationsKO != 3 {
		t.Fatalf("%d points in room for %d (want 5 in 5: the number 3 is no point), %d OK, %d KO",
			len(rows.LoadCurvePoints), cap(rows.LoadCurvePoints), rep.NbOperationsOK, rep.NbOperationsKO)
	}
	arrays, msg := fileArrays([]byte(body))
	if msg != "" || countPoints(arrays[0].raw) != 5 {
		t.Fatalf("counted %d points (%s), want 5", countPoints(arrays[0].raw), msg)
	}

	empties := `[{"values":[` + strings.Repeat(`{},`, 9999) + `{}]}]`
	if n, bound := countPoints([]byte(empties)), len(empties)/minPointBytes+1; n != bound || n >= 10000 {
		t.Fatalf("10,000 empty objects: room for %d points, want the %d their bytes could hold as points", n, bound)
	}
	shortest := `{"endTs":"2024-01-01T00:00:00Z","value":0,"reliability":0},`
	if len(shortest) != minPointBytes {
		t.Fatalf("the shortest point takes %d bytes, minPointBytes says %d", len(shortest), minPointBytes)
	}
}
