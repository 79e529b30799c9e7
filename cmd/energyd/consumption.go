package main

import (
	"energy/apidocs"
	"energy/query/consumption"
	"energy/query/heating"
	"energy/schema"
	"energy/schema/registry"
)

// consumptions builds the consumption engine behind its result cache, sized by the flags.
func (c config) consumptions(db *schema.DB, reg *registry.Store) apidocs.ConsumptionService {
	engine := consumption.NewEngine(db, reg, c.CarbonCoefficient)
	return consumption.NewCached(engine, reg.Versions, c.CacheEntries, int64(c.CacheMB)<<20)
}

// budgets is the heating-budget service behind a result cache of the same bounds; electricity
// heating is priced with the consumption engine.
func (c config) budgets(db *schema.DB, reg *registry.Store) *heating.Budgets {
	engine := consumption.NewEngine(db, reg, c.CarbonCoefficient)
	return heating.NewBudgets(heating.NewBudgeter(db, reg, engine), reg.Versions, c.CacheEntries, int64(c.CacheMB)<<20)
}
