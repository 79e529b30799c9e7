package apidocs

import (
	"github.com/danielgtaylor/huma/v2"

	"energy/schema/registry"
)

// registerContractOptimizer registers what answers "am I on the right contract?": the daily
// max powers, the day-colour calendars of TEMPO tariffs and the tariff simulations.
func registerContractOptimizer(api huma.API, reg *registry.Store) {
	registerMaxPowers(api, reg)
	registerDayColourCalendars(api, reg)
	registerTariffSimulations(api, reg)
}
