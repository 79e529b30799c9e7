package main

import (
	"energy/apidocs"
	"energy/query"
	"energy/schema"
	"energy/schema/registry"
)

// consumptions builds endpoint 4's engine behind its result cache, sized by the flags.
func (c config) consumptions(db *schema.DB, reg *registry.Store) apidocs.ConsumptionService {
	engine := query.NewConsumptions(db, reg, c.CarbonCoefficient)
	return query.NewCachedConsumptions(engine, reg.Versions, c.CacheEntries, int64(c.CacheMB)<<20)
}
