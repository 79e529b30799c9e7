package advices

import (
	"context"
	"errors"

	"energy/query/heating"
	"energy/schema/registry"
)

// ModelHeating answers SITE_ID from the heating model fitted on the site's own readings: the
// weather-dependent consumption of its heating fluid over a year (the model's slope × degree
// days, base load excluded), as the budget endpoints compute it.
type ModelHeating struct {
	Sites    *registry.Store
	Budgeter *heating.Budgeter
}

// LastYearHeating implements SiteHeating. The budgeter dates the fit on the site's data (the
// 365 days ending at its last reading of the fluid, 730 when readings are sparse).
func (m ModelHeating) LastYearHeating(ctx context.Context, tenantID, siteID string) (Fluid, float64, error) {
	site, err := m.Sites.Site(ctx, tenantID, siteID)
	if errors.Is(err, registry.ErrNotFound) {
		return "", 0, ErrUnknownSite
	}
	if err != nil {
		return "", 0, err
	}
	var fluid Fluid
	switch site.HeatingFluid {
	case registry.HeatingGas:
		fluid = FluidGas
	case registry.HeatingElec:
		fluid = FluidElec
	default:
		return "", 0, &SiteDataError{Reason: "has no heating fluid (heatingFluid is " + site.HeatingFluid + ")"}
	}
	kwh, err := m.Budgeter.AnnualHeatingKWh(ctx, site)
	var short *heating.InsufficientDataError
	if errors.As(err, &short) {
		return "", 0, &SiteDataError{Reason: "its heating consumption cannot be computed: " + short.Reason}
	}
	if err != nil {
		return "", 0, err
	}
	return fluid, kwh, nil
}
