package ingest

import (
	"context"

	"energy/schema/registry"
)

// tenantSites resolves record identities against one tenant's sites, loaded once per job.
type tenantSites struct {
	byID       map[string]bool
	byCustomer map[[2]string]string
}

func loadTenantSites(ctx context.Context, reg *registry.Store, tenantID string) (*tenantSites, error) {
	sites, err := reg.Sites(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	t := &tenantSites{byID: make(map[string]bool, len(sites)), byCustomer: make(map[[2]string]string, len(sites))}
	for _, s := range sites {
		t.byID[s.SiteID] = true
		if s.SiteCustomerID != "" {
			t.byCustomer[[2]string{s.SiteCustomerID, s.PersonCustomerID}] = s.SiteID
		}
	}
	return t, nil
}

// SiteByID tells whether the tenant has the site.
func (t *tenantSites) SiteByID(_ context.Context, siteID string) (bool, error) {
	return t.byID[siteID], nil
}

// SiteByCustomer finds the tenant's site with the marketer's identifiers.
func (t *tenantSites) SiteByCustomer(_ context.Context, siteCustomerID, personCustomerID string) (string, bool, error) {
	id, ok := t.byCustomer[[2]string{siteCustomerID, personCustomerID}]
	return id, ok, nil
}
