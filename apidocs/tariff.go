package apidocs

import (
	"context"

	"energy/schema/registry"
)

// TariffBody is a tariff as sent to and returned by PUT/GET /v2/tariffs/{tariffId}.
type TariffBody struct {
	TariffID            string                          `json:"tariffId,omitempty" doc:"Tariff id; when given it must equal the path's" example:"HPHC-2024"`
	Option              string                          `json:"option" enum:"BASE,HPHC,TEMPO,GAS" doc:"Tariff option; GAS is a gas contract whose only heading is BASE" example:"HPHC"`
	DialHeadings        map[string]string               `json:"dialHeadings,omitempty" doc:"Meter dial number to tariff heading; required but for GAS (gas indexes have no dials)" example:"{\"1\":\"HC\",\"2\":\"HP\"}"`
	HeadingGroups       map[string]string               `json:"headingGroups,omitempty" doc:"Tariff heading to heading group (default: the heading itself)"`
	TimeOfUse           []registry.TimeOfUse            `json:"timeOfUse,omitempty" doc:"Local time ranges splitting load-curve energy into headings; time not covered goes to defaultHeading"`
	DefaultHeading      string                          `json:"defaultHeading,omitempty" doc:"Heading of time not covered by timeOfUse"`
	Prices              []registry.PricePeriod          `json:"prices" doc:"EUR/kWh by heading, each period valid from its local date until the next one"`
	StandingCharges     []registry.StandingChargePeriod `json:"standingCharges,omitempty" doc:"Yearly standing charge in EUR by component, each period valid from its local date until the next one"`
	CarbonCoefficient   *float64                        `json:"carbonCoefficient,omitempty" doc:"kgCO2e per kWh; default: the service's coefficient"`
	SubscribedPowerKva  *int                            `json:"subscribedPowerKva,omitempty" minimum:"1" maximum:"36" doc:"The power its standing charge buys, in kVA (1 to 36; not for GAS); 1 kVA counts as 1,000 W of daily max power" example:"9"`
	DayColourCalendarID string                          `json:"dayColourCalendarId,omitempty" doc:"TEMPO only: the day-colour calendar whose colour days select the timeOfUse entries that carry a dayColour; it must exist" example:"TEMPO"`
}

// putTariffInput declares the identifier rule the store enforces on the id it creates.
type putTariffInput struct {
	TariffID string `path:"tariffId" pattern:"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$" maxLength:"128" doc:"Tariff identifier: 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit" example:"HPHC-2024"`
	Body     TariffBody
}

func (h *registryHandler) putTariff(ctx context.Context, in *putTariffInput) (*resourceOutput[TariffBody], error) {
	if err := pathID("tariffId", in.TariffID, in.Body.TariffID); err != nil {
		return nil, err
	}
	b := in.Body
	t := registry.Tariff{TenantID: Caller(ctx).TenantID, TariffID: in.TariffID, Option: b.Option, DialHeadings: b.DialHeadings,
		HeadingGroups: b.HeadingGroups, TimeOfUse: b.TimeOfUse, DefaultHeading: b.DefaultHeading, Prices: b.Prices,
		StandingCharges: b.StandingCharges, CarbonCoefficient: b.CarbonCoefficient,
		SubscribedPowerKva: b.SubscribedPowerKva, DayColourCalendarID: b.DayColourCalendarID}
	if err := h.reg.PutTariff(ctx, t); err != nil {
		return nil, err
	}
	t.Normalize()
	return &resourceOutput[TariffBody]{Body: tariffBody(t)}, nil
}

type TariffIDParam struct {
	TariffID string `path:"tariffId" doc:"Tariff identifier" example:"HPHC-2024"`
}

func (h *registryHandler) getTariff(ctx context.Context, in *TariffIDParam) (*resourceOutput[TariffBody], error) {
	return readResource(ctx, "tariff", in.TariffID, h.reg.Tariff, tariffBody)
}

func tariffBody(t registry.Tariff) TariffBody {
	return TariffBody{TariffID: t.TariffID, Option: t.Option, DialHeadings: t.DialHeadings, HeadingGroups: t.HeadingGroups,
		TimeOfUse: t.TimeOfUse, DefaultHeading: t.DefaultHeading, Prices: t.Prices, StandingCharges: t.StandingCharges,
		CarbonCoefficient: t.CarbonCoefficient, SubscribedPowerKva: t.SubscribedPowerKva, DayColourCalendarID: t.DayColourCalendarID}
}
