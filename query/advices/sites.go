package advices

import (
	"context"
	"errors"
	"strconv"
)

// SiteHeating gives the heating consumption of a site over a year, from its own readings (the
// heating model fitted on the 365 days ending at its last reading, whatever today's date), and
// the fluid it heats with.
type SiteHeating interface {
	LastYearHeating(ctx context.Context, tenantID, siteID string) (Fluid, float64, error)
}

// ErrUnknownSite: the tenant has no such site.
var ErrUnknownSite = errors.New("unknown site")

// SiteDataError is a site whose data cannot give a heating consumption (no heating fluid,
// not enough readings); its message says why.
type SiteDataError struct{ Reason string }

func (e *SiteDataError) Error() string { return e.Reason }

// fillFromSites fills, for each element with SITE_ID, the missing heating consumption of the
// site's heating fluid; a consumption given in the element wins. Each site is read once.
func (s *Service) fillFromSites(ctx context.Context, tenantID string, inputs []Input) ([]Input, error) {
	type heating struct {
		fluid Fluid
		kwh   float64
	}
	known := map[string]heating{}
	for i, in := range inputs {
		siteID, ok := in.Text(KeySiteID)
		if !ok {
			continue
		}
		if s.cfg.Heating == nil {
			return nil, &InputError{Path: elementPath(i, KeySiteID), Reason: "is not supported by this service yet: " +
				"the heating consumption cannot be computed from site data here; send " +
				string(KeyGasHeatingKwh) + " or " + string(KeyElecHeatingKwh) + " instead"}
		}
		h, seen := known[siteID]
		if !seen {
			fluid, kwh, err := s.cfg.Heating.LastYearHeating(ctx, tenantID, siteID)
			var sde *SiteDataError
			switch {
			case errors.Is(err, ErrUnknownSite):
				return nil, &InputError{Path: elementPath(i, KeySiteID), Reason: "site " + strconv.Quote(siteID) + " does not exist"}
			case errors.As(err, &sde):
				return nil, &InputError{Path: elementPath(i, KeySiteID), Reason: "site " + strconv.Quote(siteID) + ": " + sde.Reason}
			case err != nil:
				return nil, err
			}
			h = heating{fluid: fluid, kwh: kwh}
			known[siteID] = h
		}
		if key := heatingKey(h.fluid); !in.Has(key) {
			inputs[i] = in.WithNumber(key, h.kwh)
		}
	}
	return inputs, nil
}
