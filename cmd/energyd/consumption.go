package main

import (
	"energy/apidocs"
	"energy/query/comparison"
	"energy/query/consumption"
	"energy/query/heating"
	"energy/query/weather"
	"energy/schema"
	"energy/schema/registry"
)

// engine is the one consumption engine of both fluids: the API, the heating budgeter and the
// targets' checker share it (and so its tariff cache).
func (c config) engine(db *schema.DB, reg *registry.Store) *consumption.Engine {
	return consumption.NewEngine(db, reg, c.CarbonCoefficient).WithGasCarbon(c.GasCarbonCoefficient)
}

// consumptions puts the engine behind its result cache, sized by the flags.
func (c config) consumptions(engine *consumption.Engine, reg *registry.Store) apidocs.ConsumptionService {
	return consumption.NewCached(engine, reg.Versions, c.CacheEntries, int64(c.CacheMB)<<20)
}

// budgets is the heating-budget service behind a result cache of the same bounds; electricity
// heating is priced with the consumption engine.
func (c config) budgets(budgeter *heating.Budgeter, reg *registry.Store) *heating.Budgets {
	return heating.NewBudgets(budgeter, reg.Versions, c.CacheEntries, int64(c.CacheMB)<<20)
}

// comparisons is the yearly comparison over the one engine, behind a result cache of the same
// bounds; the stations' daily means are kept in their own small cache whatever those bounds
// (many sites share a station).
func (c config) comparisons(engine *consumption.Engine, db *schema.DB, reg *registry.Store) *comparison.Comparisons {
	means := weather.NewCachedMeans(weather.NewStore(db), reg.Versions)
	return comparison.NewComparisons(comparison.NewEngine(engine, means), reg.Versions, c.CacheEntries, int64(c.CacheMB)<<20)
}

// budgeter fits the heating model; the budget endpoints and the recommendation engine's
// SITE_ID input share it.
func (c config) budgeter(db *schema.DB, reg *registry.Store, engine *consumption.Engine) *heating.Budgeter {
	return heating.NewBudgeter(db, reg, engine)
}
