// Package query holds the analyses: the electricity consumption engine and the others.
package query

import (
	"context"
	"errors"

	"energy/schema"
	"energy/schema/registry"
)

// Consumptions is the electricity consumption engine (endpoint 4).
type Consumptions struct {
	db            *schema.DB
	reg           *registry.Store
	defaultCarbon float64 // kgCO2e/kWh when the tariff names none
}

// NewConsumptions returns the engine; defaultCarbon is the coefficient (kgCO2e/kWh) of sites
// whose tariff has no carbonCoefficient.
func NewConsumptions(db *schema.DB, reg *registry.Store, defaultCarbon float64) *Consumptions {
	return &Consumptions{db: db, reg: reg, defaultCarbon: defaultCarbon}
}

// Compute returns the consumption of site over req.
func (c *Consumptions) Compute(ctx context.Context, site registry.Site, req ConsumptionRequest) (*ConsumptionResult, error) {
	return nil, errors.New("consumption engine: not implemented yet")
}
