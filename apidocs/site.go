package apidocs

import (
	"context"
	"errors"

	"energy/schema/registry"
)

// SiteBody is a site as sent to and returned by PUT/GET /v2/sites/{siteId}.
type SiteBody struct {
	SiteID           string            `json:"siteId,omitempty" doc:"Site id; when given it must equal the path's" example:"SITE-1"`
	SiteCustomerID   string            `json:"siteCustomerId,omitempty" doc:"Marketer's site identifier (unique with personCustomerId within the tenant)" example:"C-1"`
	PersonCustomerID string            `json:"personCustomerId,omitempty" doc:"Marketer's person identifier" example:"P-1"`
	Timezone         string            `json:"timezone,omitempty" doc:"IANA time zone of the site; default Europe/Paris" example:"Europe/Paris"`
	WeatherStationID string            `json:"weatherStationId,omitempty" doc:"Weather station serving the site (must exist)" example:"07149"`
	TariffID         string            `json:"tariffId,omitempty" doc:"Electricity tariff (contract) of the site (must exist, option BASE, HPHC or TEMPO); without one, consumptions carry no cost" example:"HPHC-2024"`
	GasTariffID      string            `json:"gasTariffId,omitempty" doc:"Gas tariff of the site (must exist, option GAS): prices gas consumptions and gas heating budgets" example:"GAS-2024"`
	HeatingFluid     string            `json:"heatingFluid,omitempty" enum:"GAS,ELEC,NONE" doc:"Heating fluid; default NONE" example:"GAS"`
	Contact          *registry.Contact `json:"contact,omitempty" doc:"Receiver of the site's target notifications (email for EMAIL, E.164 phone for SMS); absent: none"`
}

// putSiteInput declares the identifier rule the store enforces on the id it creates (reads
// of an id that breaks it are simply 404).
type putSiteInput struct {
	SiteID string `path:"siteId" pattern:"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$" maxLength:"128" doc:"Site identifier: 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit" example:"SITE-1"`
	Body   SiteBody
}

func (h *registryHandler) putSite(ctx context.Context, in *putSiteInput) (*resourceOutput[SiteBody], error) {
	if err := pathID("siteId", in.SiteID, in.Body.SiteID); err != nil {
		return nil, err
	}
	b := in.Body
	s := registry.Site{TenantID: Caller(ctx).TenantID, SiteID: in.SiteID, SiteCustomerID: b.SiteCustomerID, PersonCustomerID: b.PersonCustomerID,
		Timezone: b.Timezone, WeatherStationID: b.WeatherStationID, TariffID: b.TariffID, GasTariffID: b.GasTariffID, HeatingFluid: b.HeatingFluid,
		Contact: b.Contact}
	if s.Contact != nil && *s.Contact == (registry.Contact{}) {
		s.Contact = nil
	}
	if err := h.reg.PutSite(ctx, s); err != nil {
		return nil, err
	}
	s.Normalize()
	return &resourceOutput[SiteBody]{Body: siteBody(s)}, nil
}

type SiteIDParam struct {
	SiteID string `path:"siteId" doc:"Site identifier" example:"SITE-1"`
}

func (h *registryHandler) getSite(ctx context.Context, in *SiteIDParam) (*resourceOutput[SiteBody], error) {
	s, err := h.reg.SiteWithContact(ctx, Caller(ctx).TenantID, in.SiteID)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, SiteNotFound(in.SiteID)
	} else if err != nil {
		return nil, err
	}
	return &resourceOutput[SiteBody]{Body: siteBody(s)}, nil
}

func siteBody(s registry.Site) SiteBody {
	return SiteBody{SiteID: s.SiteID, SiteCustomerID: s.SiteCustomerID, PersonCustomerID: s.PersonCustomerID, Timezone: s.Timezone,
		WeatherStationID: s.WeatherStationID, TariffID: s.TariffID, GasTariffID: s.GasTariffID, HeatingFluid: s.HeatingFluid, Contact: s.Contact}
}
