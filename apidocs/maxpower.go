package apidocs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"energy/query/cache"
	"energy/query/maxpower"
	"energy/schema/registry"
)

// MaxPowerParams is the query of GET /v2/sites/{site-id}/fluids/elec/max-powers.
type MaxPowerParams struct {
	SiteID    string `path:"site-id" doc:"Site identifier" example:"SITE-1"`
	StartTs   string `query:"startTs" required:"true" example:"2025-01-01T00:00:00" doc:"Start of the period (included), in the formats of the consumption endpoint (a time without offset is read in the site's time zone)."`
	EndTs     string `query:"endTs" required:"true" example:"2026-01-01T00:00:00" doc:"End of the period (excluded), same formats; must be after startTs."`
	StepUnit  string `query:"stepUnit" enum:"YEARS,MONTHS,DAYS" example:"MONTHS" doc:"Calendar step in the site's time zone, as in the consumption endpoint. Absent: one step covering the period."`
	StepValue int    `query:"stepValue" minimum:"1" maximum:"1000" default:"1" example:"1" doc:"Number of stepUnit per step, 1 to 1000; only with stepUnit."`

	stepValueGiven bool
}

// Resolve notes whether stepValue was sent: its default must not hide a stepValue without stepUnit.
func (p *MaxPowerParams) Resolve(ctx huma.Context) []error {
	p.stepValueGiven = ctx.Query("stepValue") != ""
	return nil
}

const maxPowerDescription = `Daily max powers of the site (W, the apparent power the meters report) at calendar steps, with the dates above the subscribed power of the site's tariff.

**Readings.** The site's maxPowers records; for one ts the record of the latest generationTs wins. A reading belongs to the local date (site's time zone) of its ts, and a date to the step in which it starts (its local midnight).

**Items.** value: the highest daily max power of the step's dates, date: the first date that reached it (both null without reading). days: the dates of the step that have a reading. overrunDays: the dates whose max power exceeds subscribedPowerKva × 1,000 W (null when the site's tariff has no subscribed power). status: COMPLETE (every date of the step has a reading), PARTIAL, NO_DATA. At most 1,200 steps: beyond, the first 1,200 are returned and computationPeriod says where they stop.

**Errors.** 400 INVALID_PARAMETER naming the parameter; 404 SITE_NOT_FOUND. Answers are cached and invalidated by new readings of the site and tariff changes (X-Cache).`

// maxPowerHandler serves the max powers (scope read).
type maxPowerHandler struct {
	cached *maxpower.Cached
	sites  *registry.Directory
}

// registerMaxPowers registers GET /v2/sites/{site-id}/fluids/elec/max-powers.
func registerMaxPowers(api huma.API, reg *registry.Store) {
	h := &maxPowerHandler{sites: reg.Directory,
		cached: maxpower.NewCached(maxpower.NewEngine(reg.DB(), reg), reg.Versions, cache.DefaultEntries, cache.DefaultBytes)}
	schema := api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[maxpower.MaxPowerResult](), true, "MaxPowerResult")
	huma.Register(api, huma.Operation{
		OperationID: "get-site-elec-max-powers", Method: http.MethodGet, Path: maxPowersPath,
		Tags: []string{"Consumption"}, Summary: "Daily max powers of a site", Description: maxPowerDescription,
		Security: requireScopes(registry.ScopeRead),
		Responses: map[string]*huma.Response{"200": {
			Description: "The highest daily max power of each step and its overrun days",
			Content:     map[string]*huma.MediaType{"application/json": {Schema: schema}},
		}},
	}, h.get)
	documentCSV(api, maxPowersPath, maxPowerCSVColumns)
}

// maxPowersPath is the path of the max powers.
const maxPowersPath = "/v2/sites/{site-id}/fluids/elec/max-powers"

// maxPowerCSVColumns says what the rows of a max-power CSV hold.
const maxPowerCSVColumns = "One row per step (the period, step, unit and subscribedPowerKva of the answer are left out): " +
	"startTime, endTime, value (W), date, days, overrunDays, status."

// maxPowerCSV turns a JSON max-power answer (as cached) into its CSV: one row per step.
func maxPowerCSV(answer []byte) ([]byte, error) {
	var a maxpower.MaxPowerResult
	if err := json.Unmarshal(answer, &a); err != nil {
		return nil, fmt.Errorf("reading the max-power answer for CSV: %w", err)
	}
	var b bytes.Buffer
	if err := writeCSVTable(&b, a.MaxPowers); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (h *maxPowerHandler) get(ctx context.Context, in *MaxPowerParams) (*consumptionOutput, error) {
	start, err := parseStamp("startTs", in.StartTs)
	if err != nil {
		return nil, err
	}
	end, err := parseStamp("endTs", in.EndTs)
	if err != nil {
		return nil, err
	}
	unit, value := in.StepUnit, in.StepValue
	if unit == "" {
		if in.stepValueGiven {
			return nil, BadParam("query parameter stepValue: only allowed with stepUnit (without stepUnit the step is the whole period)")
		}
		value = 1
	}
	if registry.ValidID("site-id", in.SiteID) != nil {
		return nil, SiteNotFound(in.SiteID)
	}
	key := string(end.appendKey(append(start.appendKey(nil), ' '))) + " " + unit + " " + strconv.Itoa(value)
	tenant := Caller(ctx).TenantID
	body, hit, err := h.cached.JSON(ctx, tenant, in.SiteID, key, func(ctx context.Context) (registry.Site, maxpower.Request, error) {
		s, err := h.sites.Site(ctx, tenant, in.SiteID)
		if errors.Is(err, registry.ErrNotFound) {
			return s, maxpower.Request{}, SiteNotFound(in.SiteID)
		}
		if err != nil {
			return s, maxpower.Request{}, err
		}
		loc := s.Location()
		req := maxpower.Request{Start: start.in(loc), End: end.in(loc), StepUnit: unit, StepValue: value}
		if !req.End.After(req.Start) {
			return s, req, BadParam("query parameter endTs: %s must be after startTs %s", req.End.Format(time.RFC3339), req.Start.Format(time.RFC3339))
		}
		return s, req, nil
	})
	if err != nil {
		return nil, err
	}
	return cachedOutput(ctx, body, hit, maxPowerCSV)
}
