package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"energy/schema/registry"
)

func TestCalendarImport(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	var out bytes.Buffer
	bad := writeFile(t, "bad.csv", "date,colour\n2025-01-06,blue\n2025-01-07,PINK\n")
	err := calendarImport(ctx, c.args("--tenant", "acme", "--calendar", "TEMPO", bad), &out)
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "PINK") {
		t.Fatalf("bad colour: %v", err)
	}
	if _, err := c.reg.DayColourCalendar(ctx, "acme", "TEMPO"); err != registry.ErrNotFound {
		t.Fatalf("a refused file created the calendar: %v", err)
	}
	good := writeFile(t, "tempo.csv", "date,colour\n2025-01-06,blue\n2025-01-07, RED\n\n2025-01-08,White\n")
	if err := calendarImport(ctx, c.args("--tenant", "acme", "--calendar", "TEMPO", good), &out); err != nil {
		t.Fatal(err)
	}
	cal, err := c.reg.DayColourCalendar(ctx, "acme", "TEMPO")
	if err != nil || cal.DayStartsAt != "06:00" || cal.Name != "TEMPO" {
		t.Fatalf("calendar %+v %v", cal, err)
	}
	days, err := c.reg.DayColoursBetween(ctx, "acme", "TEMPO", "2025-01-01", "2025-02-01")
	want := []registry.DayColour{{Date: "2025-01-06", Colour: "BLUE"}, {Date: "2025-01-07", Colour: "RED"}, {Date: "2025-01-08", Colour: "WHITE"}}
	if err != nil || len(days) != 3 || days[0] != want[0] || days[1] != want[1] || days[2] != want[2] {
		t.Fatalf("days %v %v", days, err)
	}
	if !strings.Contains(out.String(), "imported 3 dates") {
		t.Errorf("output %q", out.String())
	}
}

func TestSimulateTable(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	for _, tr := range []registry.Tariff{
		{TenantID: "acme", TariffID: "BASE-6", Option: "BASE", DialHeadings: map[string]string{"1": "BASE"}, SubscribedPowerKva: intPtr(6),
			Prices: []registry.PricePeriod{{ValidFrom: "2025-01-01", ByHeading: map[string]float64{"BASE": 0.2}}}},
		{TenantID: "acme", TariffID: "BASE-9", Option: "BASE", DialHeadings: map[string]string{"1": "BASE"}, SubscribedPowerKva: intPtr(9),
			Prices: []registry.PricePeriod{{ValidFrom: "2025-01-01", ByHeading: map[string]float64{"BASE": 0.25}}}},
	} {
		if err := c.reg.PutTariff(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.reg.PutSite(ctx, registry.Site{TenantID: "acme", SiteID: "S1", TariffID: "BASE-6"}); err != nil {
		t.Fatal(err)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	conn := c.reg.DB().Conn
	b, err := conn.PrepareBatch(ctx, "INSERT INTO load_curve_points (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability, meter_reading_date, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	for p := time.Date(2025, 1, 6, 0, 0, 0, 0, paris); p.Before(time.Date(2025, 1, 8, 0, 0, 0, 0, paris)); p = p.Add(30 * time.Minute) {
		if err := b.Append("acme", "S1", "PDL1", p.UTC(), p.Add(30*time.Minute).UTC(), p.UTC(), int64(1000), uint8(0), time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC), "j"); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	mp, err := conn.PrepareBatch(ctx, "INSERT INTO max_powers (tenant_id, site_id, pod_id, ts, generation_ts, value, job_id)")
	if err != nil {
		t.Fatal(err)
	}
	if err := mp.Append("acme", "S1", "PDL1", time.Date(2025, 1, 6, 19, 0, 0, 0, paris).UTC(), time.Date(2025, 1, 9, 0, 0, 0, 0, time.UTC), int64(7000), "j"); err != nil {
		t.Fatal(err)
	}
	if err := mp.Send(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := simulate(ctx, c.args("S1", "--tenant", "acme", "--tariffs", "BASE-9", "--from", "2025-01-06", "--to", "2025-01-08"), &out); err != nil {
		t.Fatal(err)
	}
	// 48 kWh: BASE-6 9.60 EUR but 7,000 W is above 6 kVA; BASE-9 12.00 EUR, the cheapest that fits.
	lines := strings.Split(out.String(), "\n")
	wantLines := []string{
		"Site S1, 2025-01-06 to 2025-01-08: energy from LOAD_CURVE (quality 100.00 %), reference tariff BASE-6",
		"Highest daily max power: 7000 W on 2025-01-06",
	}
	for i, w := range wantLines {
		if lines[i] != w {
			t.Errorf("line %d: %q, want %q", i, lines[i], w)
		}
	}
	table := strings.Join(lines[3:6], "\n")
	for _, row := range [][]string{
		{"tariff", "option", "kVA", "status", "kWh", "cost EUR", "vs reference EUR", "%", "overrun days"},
		{"BASE-6 (ref)", "BASE", "6", "INSUFFICIENT_POWER", "48.0", "9.60", "+0.00", "+0.00", "1"},
		{"* BASE-9", "BASE", "9", "OK", "48.0", "12.00", "+2.40", "+25.00", "0"},
	} {
		line := strings.Join(strings.Fields(strings.Join(row, " ")), " ")
		if !strings.Contains(collapse(table), line) {
			t.Errorf("table lacks row %q:\n%s", line, table)
		}
	}
	if err := simulate(ctx, c.args("S1", "--tenant", "acme", "--tariffs", "NOPE", "--from", "2025-01-06", "--to", "2025-01-08"), &out); err == nil || !strings.Contains(err.Error(), `"NOPE" does not exist`) {
		t.Errorf("unknown tariff: %v", err)
	}
}

func collapse(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(lines, "\n")
}

func intPtr(v int) *int { return &v }
