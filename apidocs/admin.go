package apidocs

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"energy/schema/registry"
)

// SiteBody is a site as sent to and returned by PUT/GET /v2/sites/{siteId}.
type SiteBody struct {
	SiteID           string `json:"siteId,omitempty" doc:"Site id; when given it must equal the path's" example:"SITE-1"`
	SiteCustomerID   string `json:"siteCustomerId,omitempty" doc:"Marketer's site identifier (unique with personCustomerId within the tenant)" example:"C-1"`
	PersonCustomerID string `json:"personCustomerId,omitempty" doc:"Marketer's person identifier" example:"P-1"`
	Timezone         string `json:"timezone,omitempty" doc:"IANA time zone of the site; default Europe/Paris" example:"Europe/Paris"`
	WeatherStationID string `json:"weatherStationId,omitempty" doc:"Weather station serving the site (must exist)" example:"07149"`
	TariffID         string `json:"tariffId,omitempty" doc:"Electricity tariff (contract) of the site (must exist, option BASE, HPHC or TEMPO); without one, consumptions carry no cost" example:"HPHC-2024"`
	GasTariffID      string `json:"gasTariffId,omitempty" doc:"Gas tariff of the site (must exist, option GAS): prices gas consumptions and gas heating budgets" example:"GAS-2024"`
	HeatingFluid     string `json:"heatingFluid,omitempty" enum:"GAS,ELEC,NONE" doc:"Heating fluid; default NONE" example:"GAS"`
}

type siteOutput struct {
	Body SiteBody
}

type SiteIDParam struct {
	SiteID string `path:"siteId" doc:"Site identifier" example:"SITE-1"`
}

// TariffBody is a tariff as sent to and returned by PUT/GET /v2/tariffs/{tariffId}.
type TariffBody struct {
	TariffID          string                          `json:"tariffId,omitempty" doc:"Tariff id; when given it must equal the path's" example:"HPHC-2024"`
	Option            string                          `json:"option" enum:"BASE,HPHC,TEMPO,GAS" doc:"Tariff option; GAS is a gas contract whose only heading is BASE" example:"HPHC"`
	DialHeadings      map[string]string               `json:"dialHeadings,omitempty" doc:"Meter dial number to tariff heading; required but for GAS (gas indexes have no dials)" example:"{\"1\":\"HC\",\"2\":\"HP\"}"`
	HeadingGroups     map[string]string               `json:"headingGroups,omitempty" doc:"Tariff heading to heading group (default: the heading itself)"`
	TimeOfUse         []registry.TimeOfUse            `json:"timeOfUse,omitempty" doc:"Local time ranges splitting load-curve energy into headings; time not covered goes to defaultHeading"`
	DefaultHeading    string                          `json:"defaultHeading,omitempty" doc:"Heading of time not covered by timeOfUse"`
	Prices            []registry.PricePeriod          `json:"prices" doc:"EUR/kWh by heading, each period valid from its local date until the next one"`
	StandingCharges   []registry.StandingChargePeriod `json:"standingCharges,omitempty" doc:"Yearly standing charge in EUR by component, each period valid from its local date until the next one"`
	CarbonCoefficient *float64                        `json:"carbonCoefficient,omitempty" doc:"kgCO2e per kWh; default: the service's coefficient"`
}

type tariffOutput struct {
	Body TariffBody
}

type TariffIDParam struct {
	TariffID string `path:"tariffId" doc:"Tariff identifier" example:"HPHC-2024"`
}

// StationBody is a weather station as sent to and returned by PUT/GET /v1/weather-stations/{stationId}.
type StationBody struct {
	StationID string  `json:"stationId,omitempty" doc:"Station id; when given it must equal the path's" example:"07149"`
	Name      string  `json:"name" doc:"Station name" example:"Paris-Orly"`
	Latitude  float64 `json:"latitude" minimum:"-90" maximum:"90" example:"48.72"`
	Longitude float64 `json:"longitude" minimum:"-180" maximum:"180" example:"2.38"`
}

type stationOutput struct {
	Body StationBody
}

type StationIDParam struct {
	StationID string `path:"stationId" doc:"Weather station identifier" example:"07149"`
}

// pathID checks a path identifier and an optional identical copy in the body.
func pathID(field, path, body string) error {
	if err := registry.ValidID(field, path); err != nil {
		return BadParam("path parameter %s: %s", field, err.(*registry.FieldError).Message)
	}
	if body != "" && body != path {
		return BadParam("body field %s: %q differs from the path's %q", field, body, path)
	}
	return nil
}

// notFound maps registry.ErrNotFound to the resource's 404.
func notFound(err error, what, id string) error {
	if errors.Is(err, registry.ErrNotFound) {
		return Fail(http.StatusNotFound, CodeNotFound, "%s %q does not exist", what, id)
	}
	return err
}

func addAdmin(api huma.API, reg *registry.Store) {
	admin := requireScopes(registry.ScopeAdmin)

	huma.Register(api, huma.Operation{
		OperationID: "put-site", Method: http.MethodPut, Path: "/v2/sites/{siteId}", Tags: []string{"Admin"},
		Summary: "Create or replace a site", Security: admin,
		Description: "Every field is optional; timezone defaults to Europe/Paris and heatingFluid to NONE. A tariffId or weatherStationId that does not exist is rejected with 400 naming it.",
	}, func(ctx context.Context, in *struct {
		SiteIDParam
		Body SiteBody
	}) (*siteOutput, error) {
		if err := pathID("siteId", in.SiteID, in.Body.SiteID); err != nil {
			return nil, err
		}
		b := in.Body
		s := registry.Site{TenantID: Caller(ctx).TenantID, SiteID: in.SiteID, SiteCustomerID: b.SiteCustomerID, PersonCustomerID: b.PersonCustomerID,
			Timezone: b.Timezone, WeatherStationID: b.WeatherStationID, TariffID: b.TariffID, GasTariffID: b.GasTariffID, HeatingFluid: b.HeatingFluid}
		if err := reg.PutSite(ctx, s); err != nil {
			return nil, err
		}
		s.Normalize()
		return &siteOutput{Body: siteBody(s)}, nil
	})

	huma.Register(api, huma.Operation{
		OperationID: "get-site", Method: http.MethodGet, Path: "/v2/sites/{siteId}", Tags: []string{"Admin"},
		Summary: "Read a site", Security: requireScopes(registry.ScopeAdmin, registry.ScopeRead),
	}, func(ctx context.Context, in *SiteIDParam) (*siteOutput, error) {
		s, err := site(ctx, reg, in.SiteID)
		if err != nil {
			return nil, err
		}
		return &siteOutput{Body: siteBody(s)}, nil
	})

	huma.Register(api, huma.Operation{
		OperationID: "put-tariff", Method: http.MethodPut, Path: "/v2/tariffs/{tariffId}", Tags: []string{"Admin"},
		Summary: "Create or replace a tariff", Security: admin,
		Description: "Dates are local dates of the site; a period runs until the next validFrom. Prices in EUR/kWh, standing charges in EUR/year.",
	}, func(ctx context.Context, in *struct {
		TariffIDParam
		Body TariffBody
	}) (*tariffOutput, error) {
		if err := pathID("tariffId", in.TariffID, in.Body.TariffID); err != nil {
			return nil, err
		}
		b := in.Body
		t := registry.Tariff{TenantID: Caller(ctx).TenantID, TariffID: in.TariffID, Option: b.Option, DialHeadings: b.DialHeadings,
			HeadingGroups: b.HeadingGroups, TimeOfUse: b.TimeOfUse, DefaultHeading: b.DefaultHeading, Prices: b.Prices,
			StandingCharges: b.StandingCharges, CarbonCoefficient: b.CarbonCoefficient}
		if err := reg.PutTariff(ctx, t); err != nil {
			return nil, err
		}
		t.Normalize()
		return &tariffOutput{Body: tariffBody(t)}, nil
	})

	huma.Register(api, huma.Operation{
		OperationID: "get-tariff", Method: http.MethodGet, Path: "/v2/tariffs/{tariffId}", Tags: []string{"Admin"},
		Summary: "Read a tariff", Security: admin,
	}, func(ctx context.Context, in *TariffIDParam) (*tariffOutput, error) {
		t, err := reg.Tariff(ctx, Caller(ctx).TenantID, in.TariffID)
		if err != nil {
			return nil, notFound(err, "tariff", in.TariffID)
		}
		return &tariffOutput{Body: tariffBody(t)}, nil
	})

	huma.Register(api, huma.Operation{
		OperationID: "put-weather-station", Method: http.MethodPut, Path: "/v1/weather-stations/{stationId}", Tags: []string{"Admin"},
		Summary: "Create or replace a weather station", Security: admin,
	}, func(ctx context.Context, in *struct {
		StationIDParam
		Body StationBody
	}) (*stationOutput, error) {
		if err := pathID("stationId", in.StationID, in.Body.StationID); err != nil {
			return nil, err
		}
		st := registry.Station{TenantID: Caller(ctx).TenantID, StationID: in.StationID, Name: in.Body.Name, Latitude: in.Body.Latitude, Longitude: in.Body.Longitude}
		if err := reg.PutStation(ctx, st); err != nil {
			return nil, err
		}
		return &stationOutput{Body: stationBody(st)}, nil
	})

	huma.Register(api, huma.Operation{
		OperationID: "get-weather-station", Method: http.MethodGet, Path: "/v1/weather-stations/{stationId}", Tags: []string{"Admin"},
		Summary: "Read a weather station", Security: admin,
	}, func(ctx context.Context, in *StationIDParam) (*stationOutput, error) {
		st, err := reg.Station(ctx, Caller(ctx).TenantID, in.StationID)
		if err != nil {
			return nil, notFound(err, "weather station", in.StationID)
		}
		return &stationOutput{Body: stationBody(st)}, nil
	})
}

func siteBody(s registry.Site) SiteBody {
	return SiteBody{SiteID: s.SiteID, SiteCustomerID: s.SiteCustomerID, PersonCustomerID: s.PersonCustomerID, Timezone: s.Timezone,
		WeatherStationID: s.WeatherStationID, TariffID: s.TariffID, GasTariffID: s.GasTariffID, HeatingFluid: s.HeatingFluid}
}

func tariffBody(t registry.Tariff) TariffBody {
	return TariffBody{TariffID: t.TariffID, Option: t.Option, DialHeadings: t.DialHeadings, HeadingGroups: t.HeadingGroups,
		TimeOfUse: t.TimeOfUse, DefaultHeading: t.DefaultHeading, Prices: t.Prices, StandingCharges: t.StandingCharges,
		CarbonCoefficient: t.CarbonCoefficient}
}

func stationBody(st registry.Station) StationBody {
	return StationBody{StationID: st.StationID, Name: st.Name, Latitude: st.Latitude, Longitude: st.Longitude}
}
