package main

import (
	"energy/apidocs"
	"energy/query/consumption"
	"energy/schema"
	"energy/schema/registry"
)

// consumptions builds the consumption engine behind its result cache, sized by the flags.
func (c config) consumptions(db *schema.DB, reg *registry.Store) apidocs.ConsumptionService {
	engine := consumption.NewEngine(db, reg, c.CarbonCoefficient)
	return consumption.NewCached(engine, reg.Versions, c.CacheEntries, int64(c.CacheMB)<<20)
}
