package daily

import (
	"context"

	"energy/schema/registry"
)

// ReferenceChanged rewrites every stored day of the sites a site or tariff change can move:
// the site itself (its zone, its tariffs), or every site of the tenant that names the tariff
// (its headings, its dials' headings). A site moved to another time zone keeps the rows of
// dates its new zone no longer has, at the ends of its data; `energyctl daily rebuild` leaves
// them too (the API answers those dates from the new zone).
func (t *Table) ReferenceChanged(ctx context.Context, c registry.ReferenceChange) error {
	siteIDs := []string{c.SiteID}
	if c.SiteID == "" {
		sites, err := t.reg.Sites(ctx, c.TenantID)
		if err != nil {
			return err
		}
		siteIDs = siteIDs[:0]
		for _, s := range sites {
			if s.TariffID == c.TariffID || s.GasTariffID == c.TariffID {
				siteIDs = append(siteIDs, s.SiteID)
			}
		}
		if len(siteIDs) == 0 {
			return nil
		}
	}
	spans, err := t.Spans(ctx, c.TenantID, siteIDs)
	if err != nil {
		return err
	}
	_, err = t.Rebuild(ctx, spans, nil)
	return err
}
