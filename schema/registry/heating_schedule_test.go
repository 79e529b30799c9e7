package registry

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
)

func TestDefaultHeatingScheduleMeanSetpoint(t *testing.T) {
	d := DefaultHeatingSchedule()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(d.WeeklyCalendar) != 14 || d.WeeklyCalendar[0] != (ScheduleSwitch{360, ModeComfort}) || d.WeeklyCalendar[13] != (ScheduleSwitch{6*1440 + 1320, ModeEco}) {
		t.Fatalf("default calendar %+v", d.WeeklyCalendar)
	}
	// 16 h at 19 °C and 8 h at 16 °C a day: (16×19 + 8×16) / 24 = 18.0.
	if got := d.MeanSetpoint(nil); math.Abs(got-18) > 1e-12 {
		t.Fatalf("mean set point %v, want 18", got)
	}
	// COMFORT 21, ECO 15: (16×21 + 8×15) / 24 = 19.0.
	if got := d.MeanSetpoint(map[string]float64{ModeComfort: 21, ModeEco: 15}); math.Abs(got-19) > 1e-12 {
		t.Fatalf("mean set point at 21/15: %v, want 19", got)
	}
	// The week wraps: one switch to ECO on Tuesday 00:00 holds the whole week.
	one := HeatingSchedule{Temperatures: map[string]float64{ModeComfort: 20, ModeEco: 17}, WeeklyCalendar: []ScheduleSwitch{{1440, ModeEco}}}
	if got := one.MeanSetpoint(nil); got != 17 {
		t.Fatalf("single switch: %v, want 17", got)
	}
	// FROST_PROTECTION (default 7) Monday 00:00–12:00, COMFORT 20 the rest of the week:
	// (720×7 + 9360×20) / 10080.
	frost := HeatingSchedule{Temperatures: map[string]float64{ModeComfort: 20, ModeEco: 17}, WeeklyCalendar: []ScheduleSwitch{{0, ModeFrostProtection}, {720, ModeComfort}}}
	if got, want := frost.MeanSetpoint(nil), (720*7.0+9360*20)/10080; math.Abs(got-want) > 1e-12 {
		t.Fatalf("frost: %v, want %v", got, want)
	}
}

func TestHeatingScheduleValidationNamesTheField(t *testing.T) {
	good := func() HeatingSchedule {
		return HeatingSchedule{Temperatures: map[string]float64{ModeComfort: 19, ModeEco: 16},
			WeeklyCalendar: []ScheduleSwitch{{360, ModeComfort}, {1320, ModeEco}, {1800, ModeComfort}, {2760, ModeEco}}}
	}
	cases := []struct {
		name  string
		edit  func(*HeatingSchedule)
		field string
	}{
		{"no comfort", func(h *HeatingSchedule) { delete(h.Temperatures, ModeComfort) }, "temperatures.COMFORT"},
		{"no eco", func(h *HeatingSchedule) { delete(h.Temperatures, ModeEco) }, "temperatures.ECO"},
		{"unknown mode", func(h *HeatingSchedule) { h.Temperatures["BOOST"] = 22 }, "temperatures.BOOST"},
		{"too hot", func(h *HeatingSchedule) { h.Temperatures[ModeComfort] = 30.5 }, "temperatures.COMFORT"},
		{"too cold", func(h *HeatingSchedule) { h.Temperatures[ModeFrostProtection] = 4.9 }, "temperatures.FROST_PROTECTION"},
		{"NaN", func(h *HeatingSchedule) { h.Temperatures[ModeEco] = math.NaN() }, "temperatures.ECO"},
		{"eco above comfort", func(h *HeatingSchedule) { h.Temperatures[ModeEco] = 20 }, "temperatures.ECO"},
		{"empty calendar", func(h *HeatingSchedule) { h.WeeklyCalendar = nil }, "weeklyCalendar"},
		{"negative offset", func(h *HeatingSchedule) { h.WeeklyCalendar[0].Offset = -1 }, "weeklyCalendar[0].offset"},
		{"offset past the week", func(h *HeatingSchedule) { h.WeeklyCalendar[3].Offset = 10080 }, "weeklyCalendar[3].offset"},
		{"offsets not increasing", func(h *HeatingSchedule) { h.WeeklyCalendar[2].Offset = 1320 }, "weeklyCalendar[2].offset"},
		{"unknown mode in calendar", func(h *HeatingSchedule) { h.WeeklyCalendar[1].Temperature = "BOOST" }, "weeklyCalendar[1].temperature"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := good()
			c.edit(&h)
			wantField(t, h.Validate(), c.field)
		})
	}
	h := good()
	h.WeeklyCalendar[1].Temperature = ModeFrostProtection // optional, 7 °C by default
	if err := h.Validate(); err != nil {
		t.Fatalf("FROST_PROTECTION without its set point: %v", err)
	}
	h.Temperatures[ModeComfort], h.Temperatures[ModeEco] = 30, 5
	if err := h.Validate(); err != nil {
		t.Fatalf("bounds are inclusive: %v", err)
	}
}

func TestHeatingScheduleRoundTrip(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if _, err := s.PutHeatingSchedule(ctx, "acme", "S1", DefaultHeatingSchedule()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("schedule of an unknown site: %v", err)
	}
	if err := s.PutSite(ctx, Site{TenantID: "acme", SiteID: "S1"}); err != nil {
		t.Fatal(err)
	}
	got, stored, err := s.HeatingSchedule(ctx, "acme", "S1")
	if err != nil || stored || !reflect.DeepEqual(got, DefaultHeatingSchedule()) {
		t.Fatalf("before any PUT: %+v stored=%v %v", got, stored, err)
	}
	v0 := s.Versions.Get("acme", "S1")
	in := HeatingSchedule{Temperatures: map[string]float64{ModeComfort: 20.5, ModeEco: 15}, WeeklyCalendar: []ScheduleSwitch{{0, ModeEco}, {420, ModeComfort}, {1380, ModeEco}}}
	out, err := s.PutHeatingSchedule(ctx, "acme", "S1", in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Temperatures[ModeFrostProtection] != 7 {
		t.Fatalf("FROST_PROTECTION not defaulted: %+v", out)
	}
	if s.Versions.Get("acme", "S1") == v0 {
		t.Fatal("a schedule change does not bump the site's version")
	}
	got, stored, err = s.HeatingSchedule(ctx, "acme", "S1")
	if err != nil || !stored || !reflect.DeepEqual(got, out) {
		t.Fatalf("read back %+v stored=%v %v, want %+v", got, stored, err, out)
	}
	bad := in
	bad.WeeklyCalendar = []ScheduleSwitch{{5, ModeEco}, {5, ModeComfort}}
	if _, err := s.PutHeatingSchedule(ctx, "acme", "S1", bad); err == nil {
		t.Fatal("a bad schedule was stored")
	}
	if got, _, _ = s.HeatingSchedule(ctx, "acme", "S1"); !reflect.DeepEqual(got, out) {
		t.Fatalf("a refused PUT changed the schedule: %+v", got)
	}
	if _, stored, _ := s.HeatingSchedule(ctx, "globex", "S1"); stored {
		t.Fatal("another tenant reads the schedule")
	}
}

func gasTariff() Tariff {
	return Tariff{TenantID: "acme", TariffID: "GAS-2024", Option: OptionGas,
		Prices: []PricePeriod{{ValidFrom: "2024-01-01", ByHeading: map[string]float64{"BASE": 0.11}}}}
}

func TestGasTariffAndSiteGasTariff(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if err := s.PutTariff(ctx, gasTariff()); err != nil {
		t.Fatal(err)
	}
	got, err := s.Tariff(ctx, "acme", "GAS-2024")
	if err != nil || got.Option != OptionGas || !reflect.DeepEqual(got.Headings(), []string{"BASE"}) {
		t.Fatalf("gas tariff %+v %v", got, err)
	}
	bad := gasTariff()
	bad.DialHeadings = map[string]string{"1": "HP"}
	wantField(t, s.PutTariff(ctx, bad), "dialHeadings.1", "BASE")
	bad = gasTariff()
	bad.Prices[0].ByHeading = map[string]float64{"HP": 0.1}
	wantField(t, s.PutTariff(ctx, bad), "prices[0].byHeading.BASE")
	if err := s.PutTariff(ctx, hphc()); err != nil {
		t.Fatal(err)
	}
	site := Site{TenantID: "acme", SiteID: "S1", TariffID: "HPHC-2024", GasTariffID: "GAS-2024", HeatingFluid: HeatingGas}
	if err := s.PutSite(ctx, site); err != nil {
		t.Fatal(err)
	}
	if back, _ := s.Site(ctx, "acme", "S1"); back.GasTariffID != "GAS-2024" || back.TariffID != "HPHC-2024" {
		t.Fatalf("site read back %+v", back)
	}
	site.GasTariffID = "HPHC-2024"
	wantField(t, s.PutSite(ctx, site), "gasTariffId", "GAS")
	site.GasTariffID = "NOPE"
	wantField(t, s.PutSite(ctx, site), "gasTariffId", "does not exist")
	site.GasTariffID, site.TariffID = "", "GAS-2024"
	wantField(t, s.PutSite(ctx, site), "tariffId", "gasTariffId")
}
