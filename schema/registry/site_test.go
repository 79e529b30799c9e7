package registry

import (
	"context"
	"errors"
	"testing"
)

func TestSiteDefaultsAndRoundTrip(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if err := s.PutSite(ctx, Site{TenantID: "acme", SiteID: "S1"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Site(ctx, "acme", "S1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Timezone != "Europe/Paris" || got.HeatingFluid != "NONE" || got.Location().String() != "Europe/Paris" {
		t.Fatalf("defaults: %+v", got)
	}
	if err := s.PutTariff(ctx, hphc()); err != nil {
		t.Fatal(err)
	}
	if err := s.PutStation(ctx, Station{TenantID: "acme", StationID: "07149", Name: "Paris-Orly", Latitude: 48.72, Longitude: 2.38}); err != nil {
		t.Fatal(err)
	}
	full := Site{TenantID: "acme", SiteID: "S1", SiteCustomerID: "C-1", PersonCustomerID: "P-1", Timezone: "America/Cayenne",
		WeatherStationID: "07149", TariffID: "HPHC-2024", HeatingFluid: "GAS"}
	if err := s.PutSite(ctx, full); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Site(ctx, "acme", "S1"); got != full {
		t.Fatalf("replaced site %+v, want %+v", got, full)
	}
	if got, err = s.SiteByCustomer(ctx, "acme", "C-1", "P-1"); err != nil || got.SiteID != "S1" {
		t.Fatalf("SiteByCustomer: %+v %v", got, err)
	}
	if _, err := s.Site(ctx, "globex", "S1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another tenant reads the site: %v", err)
	}
	if _, err := s.SiteByCustomer(ctx, "globex", "C-1", "P-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another tenant resolves the customer ids: %v", err)
	}
}

func TestSiteValidationNamesTheField(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	// globex's tariff and station do not exist for acme.
	if err := s.PutTariff(ctx, func() Tariff { t := hphc(); t.TenantID = "globex"; return t }()); err != nil {
		t.Fatal(err)
	}
	if err := s.PutStation(ctx, Station{TenantID: "globex", StationID: "07149", Name: "Paris-Orly", Latitude: 48.72, Longitude: 2.38}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		site     Site
		field    string
		mentions []string
	}{
		{"unknown time zone", Site{Timezone: "Mars/Olympus"}, "timezone", []string{"Mars/Olympus"}},
		{"Local is no IANA zone", Site{Timezone: "Local"}, "timezone", nil},
		{"unknown tariff", Site{TariffID: "NOPE"}, "tariffId", []string{"NOPE"}},
		{"another tenant's tariff", Site{TariffID: "HPHC-2024"}, "tariffId", []string{"HPHC-2024"}},
		{"unknown station", Site{WeatherStationID: "99999"}, "weatherStationId", []string{"99999"}},
		{"another tenant's station", Site{WeatherStationID: "07149"}, "weatherStationId", []string{"07149"}},
		{"half a customer pair", Site{SiteCustomerID: "C-1"}, "personCustomerId", nil},
		{"unknown heating fluid", Site{HeatingFluid: "COAL"}, "heatingFluid", []string{`must be GAS, ELEC or NONE (got "COAL")`}},
		{"bad id", Site{SiteID: "S 1"}, "siteId", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			site := c.site
			site.TenantID = "acme"
			if site.SiteID == "" {
				site.SiteID = "S-new"
			}
			wantField(t, s.PutSite(ctx, site), c.field, c.mentions...)
			if _, err := s.Site(ctx, "acme", site.SiteID); !errors.Is(err, ErrNotFound) {
				t.Fatalf("a rejected site was stored: %v", err)
			}
		})
	}
}

func TestCustomerPairIsUniqueWithinTheTenant(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	put := func(tenant, site, customer, person string) error {
		return s.PutSite(ctx, Site{TenantID: tenant, SiteID: site, SiteCustomerID: customer, PersonCustomerID: person})
	}
	if err := put("acme", "S1", "C-1", "P-1"); err != nil {
		t.Fatal(err)
	}
	wantField(t, put("acme", "S2", "C-1", "P-1"), "siteCustomerId", "S1")
	if err := put("acme", "S1", "C-1", "P-1"); err != nil {
		t.Fatalf("re-putting the site that holds the pair: %v", err)
	}
	if err := put("acme", "S3", "C-1", "P-2"); err != nil {
		t.Fatalf("same site customer id with another person: %v", err)
	}
	if err := put("globex", "S9", "C-1", "P-1"); err != nil {
		t.Fatalf("the same pair in another tenant: %v", err)
	}
	// Once S1 takes another pair, its old one is free.
	if err := put("acme", "S1", "C-9", "P-9"); err != nil {
		t.Fatal(err)
	}
	if err := put("acme", "S2", "C-1", "P-1"); err != nil {
		t.Fatalf("a pair released by S1: %v", err)
	}
	if got, err := s.SiteByCustomer(ctx, "acme", "C-1", "P-1"); err != nil || got.SiteID != "S2" {
		t.Fatalf("pair C-1/P-1 resolves to %+v %v, want S2", got, err)
	}
	sites, err := s.Sites(ctx, "acme")
	if err != nil || len(sites) != 3 {
		t.Fatalf("acme has %d sites (%v), want 3", len(sites), err)
	}
}

func TestStationValidationNamesTheField(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	ok := Station{TenantID: "acme", StationID: "07149", Name: "Paris-Orly", Latitude: 48.72, Longitude: 2.38}
	for field, st := range map[string]Station{
		"latitude":  {TenantID: "acme", StationID: "W1", Name: "x", Latitude: 91},
		"longitude": {TenantID: "acme", StationID: "W1", Name: "x", Longitude: -181},
		"name":      {TenantID: "acme", StationID: "W1"},
		"stationId": {TenantID: "acme", StationID: "", Name: "x"},
	} {
		wantField(t, s.PutStation(ctx, st), field)
	}
	if err := s.PutStation(ctx, ok); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Station(ctx, "acme", "07149"); err != nil || got != ok {
		t.Fatalf("station %+v %v, want %+v", got, err, ok)
	}
}
