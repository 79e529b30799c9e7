package registry

import (
	"context"
	"fmt"
	"sync"
	"time"

	"energy/schema/audit"
	"energy/schema/tables"
)

// Site is a customer's place of consumption. Ids are unique within a tenant.
type Site struct {
	TenantID         string `json:"-"`
	SiteID           string `json:"siteId"`
	SiteCustomerID   string `json:"siteCustomerId,omitempty"`
	PersonCustomerID string `json:"personCustomerId,omitempty"`
	Timezone         string `json:"timezone"`
	WeatherStationID string `json:"weatherStationId,omitempty"`
	TariffID         string `json:"tariffId,omitempty"`
	GasTariffID      string `json:"gasTariffId,omitempty"`
	HeatingFluid     string `json:"heatingFluid"`
	// Contact receives target notifications; read by SiteWithContact (Site leaves it nil).
	Contact *Contact `json:"contact,omitempty"`
}

// Heating fluids of a site (Site.HeatingFluid).
const (
	HeatingGas  = "GAS"
	HeatingElec = "ELEC"
	HeatingNone = "NONE"
)

// DefaultTimezone is the zone of a site that names none.
const DefaultTimezone = "Europe/Paris"

// Location is the site's IANA time zone (Validate has checked it loads).
func (s Site) Location() *time.Location {
	if loc, ok := locations.Load(s.Timezone); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		loc, _ = time.LoadLocation(DefaultTimezone)
		return loc
	}
	locations.Store(s.Timezone, loc)
	return loc
}

// locations holds the zones loaded, by name: time.LoadLocation reads and parses the zone's
// file at every call, and the daily energies of a job plan each day of each site (500 loads,
// 3 MB, for bench-ingest's smart index archive). A Location is immutable, safe to share.
var locations sync.Map

// Normalize fills defaults: the Paris time zone and no heating fluid.
func (s *Site) Normalize() {
	if s.Timezone == "" {
		s.Timezone = DefaultTimezone
	}
	if s.HeatingFluid == "" {
		s.HeatingFluid = HeatingNone
	}
}

// Validate checks the site's own fields (references are checked by PutSite).
func (s Site) Validate() error {
	if err := validID("siteId", s.SiteID); err != nil {
		return err
	}
	if (s.SiteCustomerID == "") != (s.PersonCustomerID == "") {
		return fieldErr("personCustomerId", "siteCustomerId and personCustomerId go together: give both or neither")
	}
	if s.GasTariffID != "" {
		if err := validID("gasTariffId", s.GasTariffID); err != nil {
			return err
		}
	}
	if s.SiteCustomerID != "" {
		if err := validText("siteCustomerId", s.SiteCustomerID); err != nil {
			return err
		}
		if err := validText("personCustomerId", s.PersonCustomerID); err != nil {
			return err
		}
	}
	if _, err := time.LoadLocation(s.Timezone); err != nil || s.Timezone == "" || s.Timezone == "Local" {
		return fieldErr("timezone", "unknown IANA time zone %q (for example Europe/Paris)", s.Timezone)
	}
	if err := oneOf("heatingFluid", s.HeatingFluid, HeatingGas, HeatingElec, HeatingNone); err != nil {
		return err
	}
	if s.Contact != nil {
		return s.Contact.Validate()
	}
	return nil
}

func validText(field, v string) error {
	if len(v) > 256 {
		return fieldErr(field, "must be at most 256 characters")
	}
	return nil
}

const siteColumns = "tenant_id, site_id, site_customer_id, person_customer_id, timezone, weather_station_id, tariff_id, gas_tariff_id, heating_fluid"

// PutSite creates or replaces a site after checking that its tariff and weather station exist
// in the tenant and that no other site of the tenant has the same customer identifiers.
func (s *Store) PutSite(ctx context.Context, site Site) error {
	site.Normalize()
	if err := site.Validate(); err != nil {
		return err
	}
	if site.TariffID != "" {
		t, err := s.Tariff(ctx, site.TenantID, site.TariffID)
		if err == ErrNotFound {
			return fieldErr("tariffId", "tariff %q does not exist (create it with PUT /v2/tariffs/%s)", site.TariffID, site.TariffID)
		} else if err != nil {
			return err
		}
		if t.Option == OptionGas {
			return fieldErr("tariffId", "tariff %q is a gas tariff (option GAS): give it as gasTariffId", site.TariffID)
		}
	}
	if site.GasTariffID != "" {
		t, err := s.Tariff(ctx, site.TenantID, site.GasTariffID)
		if err == ErrNotFound {
			return fieldErr("gasTariffId", "tariff %q does not exist (create it with PUT /v2/tariffs/%s and option GAS)", site.GasTariffID, site.GasTariffID)
		} else if err != nil {
			return err
		}
		if t.Option != OptionGas {
			return fieldErr("gasTariffId", "tariff %q has option %s; a gas tariff has option GAS", site.GasTariffID, t.Option)
		}
	}
	if site.WeatherStationID != "" {
		if _, err := s.Station(ctx, site.TenantID, site.WeatherStationID); err == ErrNotFound {
			return fieldErr("weatherStationId", "weather station %q does not exist (create it with PUT /v1/weather-stations/%s)", site.WeatherStationID, site.WeatherStationID)
		} else if err != nil {
			return err
		}
	}
	if site.SiteCustomerID != "" {
		other, err := s.SiteByCustomer(ctx, site.TenantID, site.SiteCustomerID, site.PersonCustomerID)
		if err == nil && other.SiteID != site.SiteID {
			return fieldErr("siteCustomerId", "siteCustomerId %q with personCustomerId %q already identifies site %q", site.SiteCustomerID, site.PersonCustomerID, other.SiteID)
		} else if err != nil && err != ErrNotFound {
			return err
		}
	}
	if err := s.ensureTenant(ctx, site.TenantID); err != nil {
		return err
	}
	before, err := s.existing(s.SiteWithContact(ctx, site.TenantID, site.SiteID))
	if err != nil {
		return err
	}
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.Sites+" ("+siteColumns+", updated_ts, version)")
	if err != nil {
		return err
	}
	version := s.version()
	if err := b.Append(site.TenantID, site.SiteID, site.SiteCustomerID, site.PersonCustomerID, site.Timezone,
		site.WeatherStationID, site.TariffID, site.GasTariffID, site.HeatingFluid, s.now().UTC(), version); err != nil {
		return err
	}
	if err := b.Send(); err != nil {
		return err
	}
	// A PUT replaces the whole site: no contact in it clears the stored one.
	var contact Contact
	if site.Contact != nil {
		contact = *site.Contact
	}
	if err := s.putContact(ctx, site.TenantID, site.SiteID, contact, version); err != nil {
		return err
	}
	// Cached results priced with the old site or tariff must not be served again.
	s.Versions.Bump(site.TenantID, "")
	s.changed(ctx, ReferenceChange{TenantID: site.TenantID, SiteID: site.SiteID})
	return audit.Record(ctx, s.db, site.TenantID, audit.SitePut, "sites/"+site.SiteID, before, site)
}

// Site returns a site of the tenant, or ErrNotFound (also when another tenant has that id).
func (s *Store) Site(ctx context.Context, tenantID, siteID string) (Site, error) {
	sites, err := s.querySites(ctx, "tenant_id = ? AND site_id = ?", tenantID, siteID)
	if err != nil {
		return Site{}, err
	}
	if len(sites) == 0 {
		return Site{}, ErrNotFound
	}
	return sites[0], nil
}

// SiteByCustomer resolves the marketer's identifiers to the tenant's site.
func (s *Store) SiteByCustomer(ctx context.Context, tenantID, siteCustomerID, personCustomerID string) (Site, error) {
	sites, err := s.querySites(ctx, "tenant_id = ? AND site_customer_id = ? AND person_customer_id = ?", tenantID, siteCustomerID, personCustomerID)
	if err != nil {
		return Site{}, err
	}
	if len(sites) == 0 {
		return Site{}, ErrNotFound
	}
	return sites[0], nil
}

// Sites lists the tenant's sites by id.
func (s *Store) Sites(ctx context.Context, tenantID string) ([]Site, error) {
	return s.querySites(ctx, "tenant_id = ?", tenantID)
}

// querySites reads sites matching where, a fixed condition with bound values.
func (s *Store) querySites(ctx context.Context, where string, args ...any) ([]Site, error) {
	rows, err := s.db.Conn.Query(ctx, fmt.Sprintf("SELECT %s FROM "+tables.Sites+" FINAL WHERE %s ORDER BY site_id", siteColumns, where), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Site
	for rows.Next() {
		var st Site
		if err := rows.Scan(&st.TenantID, &st.SiteID, &st.SiteCustomerID, &st.PersonCustomerID, &st.Timezone,
			&st.WeatherStationID, &st.TariffID, &st.GasTariffID, &st.HeatingFluid); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, rows.Err()
}
