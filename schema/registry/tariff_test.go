package registry

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func ptr(f float64) *float64 { return &f }

// hphc is a French HPHC contract: off-peak 22:00-06:00, two price periods and a standing charge
// split into subscription and CTA.
func hphc() Tariff {
	return Tariff{
		TenantID: "acme", TariffID: "HPHC-2024", Option: OptionHPHC,
		DialHeadings:   map[string]string{"1": "HC", "2": "HP"},
		HeadingGroups:  map[string]string{"HC": "HC", "HP": "HP"},
		TimeOfUse:      []TimeOfUse{{From: "22:00", To: "06:00", Heading: "HC"}},
		DefaultHeading: "HP",
		Prices: []PricePeriod{
			{ValidFrom: "2025-02-01", ByHeading: map[string]float64{"HC": 0.2081, "HP": 0.2700}},
			{ValidFrom: "2024-02-01", ByHeading: map[string]float64{"HC": 0.2068, "HP": 0.2700}},
		},
		StandingCharges:   []StandingChargePeriod{{ValidFrom: "2024-02-01", Yearly: map[string]float64{"subscription": 151.20, "cta": 21.35}}},
		CarbonCoefficient: ptr(0.052),
	}
}

func TestTariffRoundTripAndReplace(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	in := hphc()
	if err := s.PutTariff(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := s.Tariff(ctx, "acme", "HPHC-2024")
	if err != nil {
		t.Fatal(err)
	}
	want := hphc()
	want.Normalize()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stored tariff\n%+v\nwant\n%+v", got, want)
	}
	if got.Prices[0].ValidFrom != "2024-02-01" {
		t.Fatalf("price periods not in date order: %+v", got.Prices)
	}
	var option string
	var coef *float64
	if err := s.db.Conn.QueryRow(ctx, "SELECT option, carbon_coefficient FROM tariffs FINAL WHERE tariff_id = ?", "HPHC-2024").Scan(&option, &coef); err != nil {
		t.Fatal(err)
	}
	if option != "HPHC" || coef == nil || *coef != 0.052 {
		t.Fatalf("columns option=%q carbon_coefficient=%v", option, coef)
	}

	in.Prices = in.Prices[:1]
	in.Prices[0].ByHeading["HP"] = 0.2516
	if err := s.PutTariff(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Tariff(ctx, "acme", "HPHC-2024")
	if len(got.Prices) != 1 || got.Prices[0].ByHeading["HP"] != 0.2516 {
		t.Fatalf("replaced tariff: %+v", got.Prices)
	}
	if _, err := s.Tariff(ctx, "globex", "HPHC-2024"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another tenant reads the tariff: %v", err)
	}
	// A single-heading tariff gets its heading as default.
	base := Tariff{TenantID: "acme", TariffID: "BASE", Option: OptionBase, DialHeadings: map[string]string{"1": "BASE"},
		Prices: []PricePeriod{{ValidFrom: "2024-02-01", ByHeading: map[string]float64{"BASE": 0.2516}}}}
	if err := s.PutTariff(ctx, base); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Tariff(ctx, "acme", "BASE"); got.DefaultHeading != "BASE" || got.Group("BASE") != "BASE" {
		t.Fatalf("BASE tariff defaults: %+v", got)
	}
}

// Each bad value is rejected with a FieldError naming its JSON path (indexes in the order the
// client sent), and nothing is stored.
func TestTariffValidationNamesTheField(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	cases := []struct {
		name     string
		change   func(*Tariff)
		field    string
		mentions []string
	}{
		{"overlapping price periods", func(t *Tariff) { t.Prices[1].ValidFrom = "2025-02-01" }, "prices[1].validFrom", []string{"overlaps", "2025-02-01"}},
		{"overlapping standing charges", func(t *Tariff) {
			t.StandingCharges = append(t.StandingCharges, StandingChargePeriod{ValidFrom: "2024-02-01", Yearly: map[string]float64{"subscription": 1}})
		}, "standingCharges[1].validFrom", []string{"overlaps"}},
		{"negative price", func(t *Tariff) { t.Prices[0].ByHeading["HP"] = -0.1 }, "prices[0].byHeading.HP", []string{"-0.1"}},
		{"negative standing charge", func(t *Tariff) { t.StandingCharges[0].Yearly["cta"] = -21.35 }, "standingCharges[0].yearly.cta", []string{"-21.35"}},
		{"price of an unknown heading", func(t *Tariff) { t.Prices[1].ByHeading["HPJR"] = 0.65 }, "prices[1].byHeading.HPJR", []string{"HPJR"}},
		{"missing heading price", func(t *Tariff) { delete(t.Prices[0].ByHeading, "HC") }, "prices[0].byHeading.HC", []string{"missing"}},
		{"time of use with an unknown heading", func(t *Tariff) { t.TimeOfUse[0].Heading = "HCJB" }, "timeOfUse[0].heading", []string{"HCJB"}},
		{"group of an unknown heading", func(t *Tariff) { t.HeadingGroups["XX"] = "G" }, "headingGroups.XX", []string{"XX"}},
		{"unknown default heading", func(t *Tariff) { t.DefaultHeading = "PEAK" }, "defaultHeading", []string{"PEAK"}},
		{"impossible date", func(t *Tariff) { t.Prices[0].ValidFrom = "2025-02-30" }, "prices[0].validFrom", []string{"2025-02-30"}},
		{"date in another format", func(t *Tariff) { t.Prices[1].ValidFrom = "01/02/2024" }, "prices[1].validFrom", []string{"yyyy-MM-dd"}},
		{"missing date", func(t *Tariff) { t.StandingCharges[0].ValidFrom = "" }, "standingCharges[0].validFrom", nil},
		{"bad clock", func(t *Tariff) { t.TimeOfUse[0].From = "25:00" }, "timeOfUse[0].from", []string{"25:00"}},
		{"empty time range", func(t *Tariff) { t.TimeOfUse[0].To = "22:00" }, "timeOfUse[0].to", nil},
		{"unknown option", func(t *Tariff) { t.Option = "EJP" }, "option", []string{`must be BASE, HPHC, TEMPO or GAS (got "EJP")`}},
		{"no dials", func(t *Tariff) { t.DialHeadings = nil }, "dialHeadings", nil},
		{"no prices", func(t *Tariff) { t.Prices = nil }, "prices", nil},
		{"no standing-charge components", func(t *Tariff) { t.StandingCharges[0].Yearly = nil }, "standingCharges[0].yearly", nil},
		{"negative carbon coefficient", func(t *Tariff) { t.CarbonCoefficient = ptr(-1) }, "carbonCoefficient", nil},
		{"bad id", func(t *Tariff) { t.TariffID = "HPHC 2024" }, "tariffId", nil},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := hphc()
			tr.TariffID = fmt.Sprintf("T-%d", i)
			if c.field == "tariffId" {
				tr.TariffID = "HPHC 2024"
			}
			c.change(&tr)
			wantField(t, s.PutTariff(ctx, tr), c.field, c.mentions...)
			if _, err := s.Tariff(ctx, "acme", tr.TariffID); !errors.Is(err, ErrNotFound) {
				t.Fatalf("a rejected tariff was stored: %v", err)
			}
		})
	}
}

// A site or tariff edit changes prices of cached results: the tenant's version moves, and
// only that tenant's.
func TestSiteAndTariffEditsBumpTheTenantVersion(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if got := s.Versions.Get("acme", ""); got != 0 {
		t.Fatalf("fresh tenant version %d, want 0", got)
	}
	if err := s.PutTariff(ctx, hphc()); err != nil {
		t.Fatal(err)
	}
	if got := s.Versions.Get("acme", ""); got != 1 {
		t.Fatalf("after PutTariff tenant version %d, want 1", got)
	}
	if err := s.PutSite(ctx, Site{TenantID: "acme", SiteID: "S1", TariffID: "HPHC-2024"}); err != nil {
		t.Fatal(err)
	}
	if got := s.Versions.Get("acme", ""); got != 2 {
		t.Fatalf("after PutSite tenant version %d, want 2", got)
	}
	bad := hphc()
	bad.Option = "NIGHT"
	if err := s.PutTariff(ctx, bad); err == nil {
		t.Fatal("invalid tariff accepted")
	}
	if got, other := s.Versions.Get("acme", ""), s.Versions.Get("globex", ""); got != 2 || other != 0 {
		t.Fatalf("after a rejected PutTariff: acme %d (want 2), globex %d (want 0)", got, other)
	}
}
