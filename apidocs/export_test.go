package apidocs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"energy/ingest"
)

// yearOfReadings is a year (2024) of S1's readings: a daily smart index of two dials with a
// meter change on June 15 (the old meter's last index, then the new meter from 0), a reading
// invalidated by a later generation (March 10), a reading corrected by a later generation
// (April 1), monthly gas indexes, a day of load curve and two max powers.
func yearOfReadings() string {
	var elec []string
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	hc, hp := int64(10000), int64(20000)
	gen := func(t time.Time, h int) string { return t.Add(time.Duration(h) * time.Hour).Format(time.RFC3339) }
	for i := 0; i < 366; i++ {
		at := day.AddDate(0, 0, i)
		hc += int64(3000 + i%7*100)
		hp += int64(5000 + i%5*200)
		rec := func(nature string, ibc bool, dial1, dial2 int64, g int) string {
			return fmt.Sprintf(`{"siteId": "S1", "podId": "PDL-1", "nature": %q, "ts": %q, "generationTs": %q, "indexBeforeChange": %v, "value": {"1": %d, "2": %d}}`,
				nature, at.Format(time.RFC3339), gen(at, g), ibc, dial1, dial2)
		}
		switch {
		case at.Month() == time.June && at.Day() == 15:
			elec = append(elec, rec("MKT_SMART_DISTRIBUTOR", true, hc, hp, 4))
			hc, hp = 0, 0
			elec = append(elec, rec("MKT_SMART_DISTRIBUTOR", false, hc, hp, 4))
		case at.Month() == time.March && at.Day() == 10:
			elec = append(elec, rec("MKT_SMART_DISTRIBUTOR", false, hc, hp, 4), rec("MKT_SMART_DISTRIBUTOR_INVALID", false, hc, hp, 30))
		case at.Month() == time.April && at.Day() == 1:
			elec = append(elec, rec("MKT_SMART_DISTRIBUTOR", false, hc+999999, hp, 4), rec("MKT_SMART_DISTRIBUTOR", false, hc, hp, 30))
		default:
			elec = append(elec, rec("MKT_SMART_DISTRIBUTOR", false, hc, hp, 4))
		}
	}
	var gas []string
	for m := 0; m <= 12; m++ {
		at := time.Date(2024, time.Month(1+m), 1, 0, 0, 0, 0, time.UTC)
		gas = append(gas, fmt.Sprintf(`{"siteId": "S1", "podId": "GAS-1", "nature": "MKT_CYCLIC_DISTRIBUTOR", "ts": %q, "generationTs": %q, "value": %d, "unit": "m3", "conversionFactors": {"kWh": %.2f}}`,
			at.Format(time.RFC3339), gen(at, 6), 1000+m*m*37, 11.2+float64(m)*0.01))
	}
	var points []string
	for i := 0; i < 48; i++ {
		points = append(points, fmt.Sprintf(`{"beginTs": %q, "value": %d, "reliability": %d}`,
			time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*30*time.Minute).Format(time.RFC3339), 400+i*10, i%2))
	}
	return `{"smartElecIndexes": [` + strings.Join(elec, ",\n") + `],
  "cyclicGasIndexes": [` + strings.Join(gas, ",\n") + `],
  "maxPowers": [{"siteId": "S1", "podId": "PDL-1", "ts": "2024-02-01T00:00:00Z", "generationTs": "2024-02-02T00:00:00Z", "value": 6000},
                {"siteId": "S1", "podId": "PDL-1", "ts": "2024-02-02T00:00:00Z", "generationTs": "2024-02-03T00:00:00Z", "value": 5400}],
  "loadCurves": [{"siteId": "S1", "podId": "PDL-1", "meterReadingDate": "2024-02-01", "generationTs": "2024-02-02T02:00:00Z", "step": "PT30M", "values": [` +
		strings.Join(points, ",") + `]}]}`
}

// A year with a meter change, an invalidated and a corrected reading, exported from tenant
// acme and submitted to tenant other after creating the site from the export's site.json:
// DAYS and MONTHS answers of both fluids are identical, byte for byte; the export is audited.
func TestExportReimportGivesTheSameAnswers(t *testing.T) {
	h := newJobsHarness(t, "", true, nil)
	job := h.waitFinal(h.admin, jobIDOf(t, h.submit(h.admin, "year.tar.gz", tarGz(t, "year.json", yearOfReadings()))))
	if job.State.Current != ingest.StateDone || job.Report.Overview.KO != 0 {
		t.Fatalf("load: %s %+v", job.State.Current, job.Report)
	}
	queries := []string{
		"/v2/sites/S1/fluids/elec/consumptions?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&stepUnit=DAYS",
		"/v2/sites/S1/fluids/elec/consumptions?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&stepUnit=MONTHS",
		"/v2/sites/S1/fluids/elec/consumptions?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&stepUnit=DAYS&indexStrategy=NO_ESTIMATED",
		"/v2/sites/S1/fluids/gas/consumptions?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&stepUnit=DAYS",
		"/v2/sites/S1/fluids/gas/consumptions?startTs=2024-01-01T00:00:00&endTs=2025-01-01T00:00:00&stepUnit=MONTHS",
		"/v2/sites/S1/fluids/elec/consumptions?startTs=2024-02-01T00:00:00&endTs=2024-02-02T00:00:00&stepUnit=HOURS",
	}
	answers := func(token string) []string {
		var out []string
		for _, q := range queries {
			st, body, _ := h.do("GET", q, token, "")
			if st != http.StatusOK {
				t.Fatalf("GET %s: %d %s", q, st, body)
			}
			out = append(out, string(body))
		}
		return out
	}
	want := answers(h.admin)
	if !strings.Contains(want[0], "METER_CHANGE") {
		t.Fatalf("the year's DAYS answer has no METER_CHANGE flag: the test data lacks the meter change")
	}

	st, archive, hdr := h.do("GET", "/v2/sites/S1/export", h.admin, "")
	if st != http.StatusOK || hdr.Get("Content-Type") != "application/gzip" {
		t.Fatalf("export: %d %s %.200s", st, hdr.Get("Content-Type"), archive)
	}
	files := untarGz(t, archive)
	var site struct{ Site json.RawMessage }
	if err := json.Unmarshal(files["site.json"], &site); err != nil || len(site.Site) == 0 {
		t.Fatalf("site.json %s: %v", files["site.json"], err)
	}
	if !bytes.Contains(files["readings-0001.json"], []byte("MKT_SMART_DISTRIBUTOR_INVALID")) {
		t.Fatalf("the export lacks the invalidated reading: files %v, %.3000s", len(files), files["readings-0001.json"])
	}

	other := h.token("other", "admin")
	if st, body, _ := h.do("PUT", "/v2/sites/S1", other, string(site.Site)); st != http.StatusOK {
		t.Fatalf("PUT the exported site into tenant other: %d %s", st, body)
	}
	job = h.waitFinal(other, jobIDOf(t, h.submit(other, "S1.tar.gz", archive)))
	if job.State.Current != ingest.StateDone || job.Report.Overview.KO != 0 {
		t.Fatalf("re-import: %s %+v", job.State.Current, job.Report)
	}
	got := answers(other)
	for i := range queries {
		if got[i] != want[i] {
			t.Errorf("%s after re-import differs:\n got %.600s\nwant %.600s", queries[i], got[i], want[i])
		}
	}
	// The export holds the latest generation only: the corrected reading's first value is gone.
	if bytes.Contains(files["readings-0001.json"], []byte(`"generationTs": "2024-04-01T04:00:00Z"`)) {
		t.Errorf("the export holds a superseded generation of April 1")
	}
}

func untarGz(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name], err = io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
	}
}
