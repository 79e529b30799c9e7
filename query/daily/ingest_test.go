package daily

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"energy/ingest"
	"energy/query/consumption"
	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestJobDoneMeansItsDaysAreWritten runs archives through the real intake, with the table as
// its AfterWrite hook as energyd wires it, and checks that once a job is DONE every local day
// its readings touch holds the API's answer for that day, Wh for Wh: readings off midnight
// (interpolated at both ends of each day), a meter change, the spring DST day (23 hours), gas
// with its volume, then a second archive that re-sends a reading with a newer generationTs
// (moving the two days around it) and invalidates another one.
func TestJobDoneMeansItsDaysAreWritten(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	reg := registry.New(db)
	// Two sites, so that the job's sites are answered from one read (ChangedDays).
	for _, id := range []string{"S1", "S2"} {
		if err := reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: id, Timezone: "Europe/Paris"}); err != nil {
			t.Fatal(err)
		}
	}
	engine := consumption.NewEngine(db, reg, consumption.DefaultCarbonCoefficient)
	table := New(db, reg, engine)
	intake, err := ingest.New(ingest.Config{DB: db, Registry: reg, SpoolDir: filepath.Join(t.TempDir(), "spool"), Workers: 1,
		PollInterval: 10 * time.Millisecond, RetryDelay: 20 * time.Millisecond, AfterWrite: table.Written})
	if err != nil {
		t.Fatal(err)
	}
	if err := intake.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = intake.Stop(ctx)
	})

	gen1, gen2 := "2024-04-10T00:00:00Z", "2024-04-20T00:00:00Z"
	elec := func(ts, nature, gen string, d1, d2 int64, beforeChange bool) string {
		return fmt.Sprintf(`{"siteId":"S1","podId":"E1","nature":%q,"ts":%q,"generationTs":%q,"value":{"1":%d,"2":%d},"indexBeforeChange":%t}`,
			nature, ts, gen, d1, d2, beforeChange)
	}
	// S2: the same readings on a meter with a third of S1's consumption.
	onS2 := func(readings []string) []string {
		var out []string
		for _, r := range readings {
			var x map[string]any
			if err := json.Unmarshal([]byte(r), &x); err != nil {
				t.Fatal(err)
			}
			x["siteId"], x["podId"] = "S2", "E2"
			if v, ok := x["value"].(map[string]any); ok {
				for k, n := range v {
					v[k] = int64(n.(float64)) / 3
				}
			}
			b, err := json.Marshal(x)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
		return out
	}
	gas := func(ts string, value int64) string {
		return fmt.Sprintf(`{"siteId":"S1","podId":"G1","nature":"MKT_CYCLIC_DISTRIBUTOR","ts":%q,"generationTs":%q,"value":%d,"unit":"m3","conversionFactors":{"kWh":11.2}}`,
			ts, gen1, value)
	}
	const smart = "MKT_SMART_DISTRIBUTOR"
	first := []string{
		elec("2024-03-28T05:00:00Z", smart, gen1, 100000, 50000, false),
		elec("2024-03-29T05:00:00Z", smart, gen1, 112000, 55000, false),
		elec("2024-03-30T05:00:00Z", smart, gen1, 125000, 61000, false),
		elec("2024-03-31T04:00:00Z", smart, gen1, 137000, 66000, false), // the DST day: 23 hours in Paris
		elec("2024-04-01T04:00:00Z", smart, gen1, 151000, 72000, false),
		// Meter change: the old meter's last index, then the new meter from 0.
		elec("2024-04-02T10:00:00Z", smart, gen1, 170000, 80000, true),
		elec("2024-04-02T10:00:00Z", smart, gen1, 0, 0, false),
		elec("2024-04-03T04:00:00Z", smart, gen1, 9000, 4000, false),
		elec("2024-04-04T04:00:00Z", smart, gen1, 21000, 9000, false),
	}
	gasReadings := []string{gas("2024-03-28T05:00:00Z", 5000), gas("2024-03-30T17:00:00Z", 5031), gas("2024-04-02T05:00:00Z", 5060)}
	submit := func(name string, body string) {
		t.Helper()
		ct, form := formOf(t, name, archiveOf(t, body))
		job, err := intake.Submit(ctx, "acme", ct, form)
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			j, err := intake.Job(ctx, "acme", job.ID)
			if err == nil && j.State == ingest.StateDone {
				if j.Overview.KO != 0 {
					t.Fatalf("%s: %d operations refused: %+v", name, j.Overview.KO, j.Files)
				}
				break
			}
			if err == nil && ingest.Final(j.State) || time.Now().After(deadline) {
				t.Fatalf("%s: job %+v, %v", name, j, err)
			}
		}
	}
	loc, _ := time.LoadLocation("Europe/Paris")
	// checkDays compares each local day from..to (inclusive) with the API's answer for that day.
	checkDays := func(fluid string, from, to time.Time) map[string]dayRow {
		t.Helper()
		if fluid == registry.HeatingElec {
			checkSiteDays(t, db, engine, "S2", fluid, from, to)
		}
		return checkSiteDays(t, db, engine, "S1", fluid, from, to)
	}
	day := func(d int, m time.Month) time.Time { return time.Date(2024, m, d, 0, 0, 0, 0, loc) }

	submit("first.tar.gz", `{"smartElecIndexes":[`+strings.Join(append(first, onS2(first)...), ",")+`],"cyclicGasIndexes":[`+strings.Join(gasReadings, ",")+`]}`)
	before := checkDays(registry.HeatingElec, day(28, time.March), day(4, time.April))
	checkDays(registry.HeatingGas, day(28, time.March), day(2, time.April))
	if r := before["2024-03-31"]; r.Status != consumption.StatusComplete || r.EnergyWh == nil || *r.EnergyWh <= 0 {
		t.Errorf("DST day: %+v", r)
	}
	if r := before["2024-04-02"]; !strings.Contains(strings.Join(r.ErrorFlags, ","), consumption.FlagMeterChange) {
		t.Errorf("meter change day: flags %v", r.ErrorFlags)
	}
	if r := before["2024-03-29"]; r.EnergyWh == nil || len(r.Dials) != 2 || r.Dials[0] != "1" || r.DialWh[0]+r.DialWh[1] != *r.EnergyWh {
		t.Errorf("by dial: %v %v, total %v", r.Dials, r.DialWh, r.EnergyWh)
	}

	// The reading of March 30th again, later generation and 3,000 Wh more on dial 1: the days
	// of the intervals it bounds (29th, 30th and the 31st it reaches into) move; the reading of
	// April 1st is invalidated (its _INVALID twin of the same generation), so its two
	// intervals become one.
	second := []string{
		elec("2024-03-30T05:00:00Z", smart, gen2, 128000, 61000, false),
		elec("2024-04-01T04:00:00Z", smart+"_INVALID", gen1, 151000, 72000, false),
	}
	submit("second.tar.gz", `{"smartElecIndexes":[`+strings.Join(append(second, onS2(second)...), ",")+`]}`)
	after := checkDays(registry.HeatingElec, day(28, time.March), day(4, time.April))
	for _, d := range []string{"2024-03-29", "2024-03-30"} {
		if a, b := after[d].EnergyWh, before[d].EnergyWh; a == nil || b == nil || *a == *b {
			t.Errorf("%s: %v Wh before the re-sent reading, %v after", d, b, a)
		}
	}
	if a, b := after["2024-03-28"].EnergyWh, before["2024-03-28"].EnergyWh; a == nil || b == nil || *a != *b {
		t.Errorf("2024-03-28 moved: %v → %v Wh", b, a)
	}

	// A reading 46 days after the last one: its interval reaches back past the 35 days the
	// job's read covers (the second read finds April 4th), so each site's days are answered on
	// their own; every day of the interval moves.
	third := []string{elec("2024-05-20T04:00:00Z", smart, gen1, 250000, 100000, false)}
	submit("third.tar.gz", `{"smartElecIndexes":[`+strings.Join(append(third, onS2(third)...), ",")+`]}`)
	late := checkDays(registry.HeatingElec, day(4, time.April), day(20, time.May))
	if r := late["2024-04-20"]; r.EnergyWh == nil || r.Status != consumption.StatusComplete {
		t.Errorf("a day inside the long interval: %+v", r)
	}
}

// checkSiteDays compares each local day from..to (inclusive) of the site with the API's answer
// for that day, and returns the rows.
func checkSiteDays(t *testing.T, db *schema.DB, engine *consumption.Engine, siteID, fluid string, from, to time.Time) map[string]dayRow {
	t.Helper()
	ctx := context.Background()
	site, err := registry.New(db).Site(ctx, "acme", siteID)
	if err != nil {
		t.Fatal(err)
	}
	stored := readDays(t, db, "acme", siteID, fluid)
	for day := from; !day.After(to); day = day.AddDate(0, 0, 1) {
		res, err := engine.Compute(ctx, site, consumption.Request{Fluid: fluid, Start: day, End: day.AddDate(0, 0, 1),
			StepUnit: consumption.UnitDays, StepValue: 1})
		if err != nil {
			t.Fatal(err)
		}
		key := day.Format(time.DateOnly)
		row, ok := stored[key]
		if !ok {
			t.Errorf("%s %s %s: no row once the job is DONE", siteID, fluid, key)
			continue
		}
		checkDay(t, siteID+" "+fluid+" "+key, res.Consumptions[0], row, fluid == registry.HeatingGas)
	}
	return stored
}

// archiveOf packs one JSON file as a .tar.gz.
func archiveOf(t *testing.T, body string) []byte {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	if err := tw.WriteHeader(&tar.Header{Name: "indexes.json", Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var gb bytes.Buffer
	zw := gzip.NewWriter(&gb)
	if _, err := zw.Write(tb.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return gb.Bytes()
}

// formOf is the multipart body of an archive submission.
func formOf(t *testing.T, name string, archive []byte) (string, *bytes.Reader) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	part, err := w.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.Write(archive); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), bytes.NewReader(b.Bytes())
}
