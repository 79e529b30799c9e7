package heating

import (
	"context"
	"encoding/json"

	"energy/query/cache"
	"energy/schema/registry"
)

// cacheMetrics are the series of the budget result cache.
var cacheMetrics = cache.NewMetrics("energy_budget_cache", "Budget answers (matrix, heating budget)")

// SiteLoader loads the site of a request that missed the cache; its errors are returned as
// they are.
type SiteLoader func(ctx context.Context) (registry.Site, error)

// Budgets answers the budget endpoints through a result cache of JSON answers, keyed by site,
// answer and the site's local date, and invalidated like consumption answers: an ingest, a
// schedule change of the site, or a site, tariff or weather change of its tenant makes the
// next request recompute. The fit depends on the data alone (its period ends at the last
// reading, which only an ingest into the site moves: the site's data version); the date is
// there for the price, the one in force on the site's local date.
type Budgets struct {
	*cache.Results
	budgeter *Budgeter
}

// NewBudgets wraps b in a cache of at most maxEntries answers and about maxBytes bytes.
func NewBudgets(b *Budgeter, versions *registry.DataVersions, maxEntries int, maxBytes int64) *Budgets {
	return &Budgets{Results: cache.NewResults(versions, maxEntries, maxBytes, cacheMetrics), budgeter: b}
}

// MatrixJSON is the budget matrix of the site, and whether it came from the cache.
func (s *Budgets) MatrixJSON(ctx context.Context, tenantID, siteID string, load SiteLoader) ([]byte, bool, error) {
	return s.answer(ctx, tenantID, siteID, "matrix", load, func(m *Model) any { return m.Matrix() })
}

// HeatingBudgetJSON is the heating budget of the site with its current schedule.
func (s *Budgets) HeatingBudgetJSON(ctx context.Context, tenantID, siteID string, load SiteLoader) ([]byte, bool, error) {
	return s.answer(ctx, tenantID, siteID, "heating", load, func(m *Model) any { return m.HeatingBudget() })
}

func (s *Budgets) answer(ctx context.Context, tenantID, siteID, what string, load SiteLoader, shape func(*Model) any) ([]byte, bool, error) {
	// The site's zone gives the date of the key (its local date, not UTC's: a tariff period
	// starts at a local midnight).
	site, err := load(ctx)
	if err != nil {
		return nil, false, err
	}
	on := s.budgeter.Today(site)
	return s.Get(ctx, tenantID, siteID, what+"|"+on.String(), func(ctx context.Context) ([]byte, error) {
		// Loaded again once the key holds the versions: a site changed meanwhile is computed
		// here and stored under the new version, never the reverse. Priced on the key's date.
		site, err := load(ctx)
		if err != nil {
			return nil, err
		}
		m, err := s.budgeter.Model(ctx, site, on)
		if err != nil {
			return nil, err
		}
		return json.Marshal(shape(m))
	})
}
