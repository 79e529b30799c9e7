package apidocs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"energy/ingest"
	"energy/query/cache"
	"energy/query/consumption"
	"energy/schema/registry"
)

// DefaultCarbonCoefficient is the carbon intensity (kgCO2e/kWh) of sites whose tariff names
// none when energyd's --carbon-coefficient is not set: consumption.DefaultCarbonCoefficient (ADEME
// Base Empreinte, French average consumption mix).
const DefaultCarbonCoefficient = consumption.DefaultCarbonCoefficient

// Consumption options (the repeatable options parameter).
const (
	optWithoutCost              = "withoutCost"
	optWithCarbonFootprint      = "withCarbonFootprint"
	optWithGlobalConsumption    = "withGlobalConsumption"
	optWithRatioByTariffHeading = "withRatioByTariffHeading"
)

var consumptionOptions = []string{optWithoutCost, optWithCarbonFootprint, optWithGlobalConsumption, optWithRatioByTariffHeading}

// Years accepted in consumption timestamps (the store's DateTime range, with margin).
const minConsumptionYear, maxConsumptionYear = 1970, 2100

// ConsumptionStepParams are the query parameters the consumption of both fluids shares.
type ConsumptionStepParams struct {
	SiteID  string `path:"site-id" doc:"Site identifier" example:"SITE-1"`
	StartTs string `query:"startTs" required:"true" example:"2024-01-01T00:00:00" doc:"Start of the period (included). Formats: YYYY-MM-DDThh:mm:ss (read in the site's time zone; a local time skipped by a DST change moves forward by the gap, a repeated one is the first), YYYY-MM-DDThh:mm:ssZ (UTC) or YYYY-MM-DDThh:mm:ss+hh:mm / -hh:mm (a '+' left unencoded, read as a space, is accepted). Years 1970 to 2100."`
	EndTs   string `query:"endTs" required:"true" example:"2025-01-01T00:00:00" doc:"End of the period (excluded), same formats; must be after startTs."`

	StepUnit  string `query:"stepUnit" enum:"YEARS,MONTHS,DAYS,HOURS,MINUTES" example:"DAYS" doc:"Unit of the step. YEARS, MONTHS and DAYS follow the site's calendar: boundaries are startTs + k steps in local wall-clock time (from local midnight to local midnight when startTs is midnight, so a DST day lasts 23 or 25 hours; a month step from the 31st ends on the last day of shorter months). HOURS and MINUTES are fixed durations. The last step is cut at endTs. Absent: one step covering the whole period."`
	StepValue int    `query:"stepValue" minimum:"1" maximum:"1000" default:"1" example:"1" doc:"Number of stepUnit per step (MONTHS with 2 gives 2-month steps), 1 to 1000; only with stepUnit."`

	IndexCategories []string `query:"indexCategories,explode" example:"SMART_METER" doc:"Index categories allowed for the calculation, repeatable (indexCategories=A&indexCategories=B) or comma-separated (indexCategories=A,B): RTM, SUPPLIER, SMART_METER (nature MKT_SMART_DISTRIBUTOR), LEGACY_METER (MKT_CYCLIC_DISTRIBUTOR), SENSOR, STEREO, SELF_METER_READING (DTN_CUSTOMER_ACK, MKT_CUSTOMER), ESTIMATED (MKT_ESTIMATION). Default: all."`
	IndexStrategy   string   `query:"indexStrategy" enum:"NO_ESTIMATED,ALL_ESTIMATED,SURROUNDING_ESTIMATED" default:"SURROUNDING_ESTIMATED" doc:"NO_ESTIMATED: no estimated index is used (steps shrink to the real readings they contain). ALL_ESTIMATED: estimated and interpolated indexes may be used anywhere. SURROUNDING_ESTIMATED: only at the start and end of the requested period, where real ones are missing."`

	Options []string `query:"options,explode" example:"withCarbonFootprint" doc:"Repeatable or comma-separated: withoutCost (no cost member), withCarbonFootprint (carbonFootprint member, kgCO2e), withGlobalConsumption (globalConsumption member for the whole period; the period may then end at most one calendar year, in the site's time zone, after its start, else 400 PERIOD_TOO_LONG), withRatioByTariffHeading (ratios member: shares by tariff heading and by heading group, each summing to 1)."`

	stepValueGiven bool
}

// Resolve notes whether stepValue was sent: its default must not hide a stepValue without stepUnit.
func (p *ConsumptionStepParams) Resolve(ctx huma.Context) []error {
	p.stepValueGiven = ctx.Query("stepValue") != ""
	return nil
}

// ConsumptionParams is the query of GET /v2/sites/{site-id}/fluids/elec/consumptions: the shared
// parameters and the electricity's data sources.
type ConsumptionParams struct {
	ConsumptionStepParams

	DataSources []string `query:"dataSources,explode" example:"SMART_METER" doc:"Data sources allowed, repeatable or comma-separated: INTRADAY, SMART_METER, LEGACY_INDEX, LOAD_CURVE, SENSOR. Default: all. HOURS and MINUTES steps are computed from the load curve when LOAD_CURVE is allowed."`

	LoadCurveCompletion bool `query:"loadCurveCompletion" default:"false" doc:"When true, the load curve fills the start and end of the period that indexes do not cover; the rest stays index-based."`
}

type consumptionOutput struct {
	ContentType string `header:"Content-Type"`
	Cache       string `header:"X-Cache" doc:"HIT when the answer came from the result cache, MISS when it was computed. Cached answers are never stale: ingesting data for the site invalidates them."`
	Body        []byte
}

// stamp is a parsed timestamp parameter: an instant, or a local wall-clock time to read in
// the site's zone.
type stamp struct {
	abs   time.Time // when the text carried Z or an offset
	local time.Time // wall-clock fields (in UTC) otherwise
}

func (s stamp) isLocal() bool { return s.abs.IsZero() }

func (s stamp) in(loc *time.Location) time.Time {
	if !s.isLocal() {
		return s.abs.In(loc)
	}
	l := s.local
	return consumption.WallClock(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), 0, loc)
}

// appendKey appends the stamp's part of the cache key: instants by their Unix time, local
// times by text.
func (s stamp) appendKey(b []byte) []byte {
	if s.isLocal() {
		return s.local.AppendFormat(append(b, 'L'), ingest.LayoutLocal)
	}
	return strconv.AppendInt(append(b, '@'), s.abs.Unix(), 10)
}

// stampShape tells whether v is YYYY-MM-DDThh:mm:ss, alone or followed by Z or +hh:mm /
// -hh:mm (digits where the layout has them; time.Parse checks the values). A loop, not a
// regular expression: it runs twice on every request.
func stampShape(v string) bool {
	const digitsAt = "dddd-dd-ddTdd:dd:dd"
	if len(v) < len(digitsAt) {
		return false
	}
	for i := range len(digitsAt) {
		if c := v[i]; c != digitsAt[i] && (digitsAt[i] != 'd' || c < '0' || c > '9') {
			return false
		}
	}
	switch zone := v[len(digitsAt):]; {
	case zone == "", zone == "Z":
		return true
	case len(zone) == 6 && (zone[0] == '+' || zone[0] == '-'):
		return isDigit(zone[1]) && isDigit(zone[2]) && zone[3] == ':' && isDigit(zone[4]) && isDigit(zone[5])
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func parseStamp(name, raw string) (stamp, error) {
	v := strings.ReplaceAll(raw, " ", "+") // an unencoded '+' arrives as a space
	bad := func() (stamp, error) {
		return stamp{}, BadParam("query parameter %s: %q is not a timestamp in a supported format: YYYY-MM-DDThh:mm:ss (site's local time), "+
			"YYYY-MM-DDThh:mm:ssZ or YYYY-MM-DDThh:mm:ss+hh:mm (for example 2024-01-01T00:00:00+01:00)", name, raw)
	}
	if !stampShape(v) {
		return bad()
	}
	var s stamp
	var err error
	if len(v) == len(ingest.LayoutLocal) {
		s.local, err = time.Parse(ingest.LayoutLocal, v)
	} else {
		s.abs, err = time.Parse(time.RFC3339, v)
	}
	if err != nil {
		return bad()
	}
	if y, _ := strconv.Atoi(v[:4]); y < minConsumptionYear || y > maxConsumptionYear {
		return stamp{}, BadParam("query parameter %s: year %d is out of range (%d to %d)", name, y, minConsumptionYear, maxConsumptionYear)
	}
	return s, nil
}

// splitList flattens a repeatable parameter given as a=X&a=Y, a=X,Y or both; blank items are
// ignored. Each item must be in allowed; the result is sorted without repeats, nil when empty.
func splitList(name string, values, allowed []string) ([]string, error) {
	var out []string
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			if !slices.Contains(allowed, item) {
				return nil, BadParam("query parameter %s: unknown value %q (allowed: %s)", name, item, strings.Join(allowed, ", "))
			}
			out = append(out, item)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// consumptionQuery is a request checked as far as it can be without the site: what remains
// (reading local timestamps in the site's zone, the order of the bounds, the one-year limit of
// withGlobalConsumption) is done by resolve.
type consumptionQuery struct {
	start, end stamp
	req        consumption.Request // without Start and End
}

func parseConsumptionQuery(p *ConsumptionParams) (*consumptionQuery, error) {
	q := &consumptionQuery{}
	var err error
	if q.start, err = parseStamp("startTs", p.StartTs); err != nil {
		return nil, err
	}
	if q.end, err = parseStamp("endTs", p.EndTs); err != nil {
		return nil, err
	}
	r := &q.req
	r.StepUnit, r.StepValue = p.StepUnit, p.StepValue
	if r.StepUnit == "" {
		if p.stepValueGiven {
			return nil, BadParam("query parameter stepValue: only allowed with stepUnit (without stepUnit the step is the whole period)")
		}
		r.StepValue = 1
	}
	if r.IndexCategories, err = splitList("indexCategories", p.IndexCategories, consumption.IndexCategories); err != nil {
		return nil, err
	}
	if len(r.IndexCategories) == len(consumption.IndexCategories) {
		r.IndexCategories = nil // all, as when absent
	}
	r.IndexStrategy = p.IndexStrategy
	if r.IndexStrategy == "" {
		r.IndexStrategy = consumption.StrategySurroundingEstimated
	}
	if r.DataSources, err = splitList("dataSources", p.DataSources, consumption.DataSources); err != nil {
		return nil, err
	}
	if len(r.DataSources) == len(consumption.DataSources) {
		r.DataSources = nil
	}
	r.LoadCurveCompletion = p.LoadCurveCompletion
	opts, err := splitList("options", p.Options, consumptionOptions)
	if err != nil {
		return nil, err
	}
	r.WithoutCost = slices.Contains(opts, optWithoutCost)
	r.WithCarbonFootprint = slices.Contains(opts, optWithCarbonFootprint)
	r.WithGlobalConsumption = slices.Contains(opts, optWithGlobalConsumption)
	r.WithRatioByTariffHeading = slices.Contains(opts, optWithRatioByTariffHeading)
	return q, nil
}

// key is the normalised request: two requests with the same key have the same answer for a
// given site and data version.
func (q *consumptionQuery) key() string {
	r := q.req
	b := make([]byte, 0, 160)
	if r.Fluid != "" { // electricity keeps its keys
		b = append(b, r.Fluid...)
		b = append(b, ' ')
	}
	b = q.start.appendKey(b)
	b = append(b, ' ')
	b = q.end.appendKey(b)
	b = append(b, ' ')
	b = append(b, r.StepUnit...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(r.StepValue), 10)
	b = append(b, " c="...)
	b = append(b, strings.Join(r.IndexCategories, ",")...)
	b = append(b, " s="...)
	b = append(b, r.IndexStrategy...)
	b = append(b, " d="...)
	b = append(b, strings.Join(r.DataSources, ",")...)
	for _, f := range []bool{r.LoadCurveCompletion, r.WithoutCost, r.WithCarbonFootprint, r.WithGlobalConsumption, r.WithRatioByTariffHeading} {
		b = strconv.AppendBool(append(b, ' '), f)
	}
	return string(b)
}

// resolve finishes the request in the site's zone.
func (q *consumptionQuery) resolve(loc *time.Location) (consumption.Request, error) {
	r := q.req
	r.Start, r.End = q.start.in(loc), q.end.in(loc)
	if !r.End.After(r.Start) {
		return r, BadParam("query parameter endTs: %s must be after startTs %s", r.End.Format(time.RFC3339), r.Start.Format(time.RFC3339))
	}
	if r.WithGlobalConsumption {
		if limit := consumption.AddSteps(r.Start, loc, consumption.UnitYears, 1); r.End.After(limit) {
			return r, Fail(http.StatusBadRequest, CodePeriodTooLong,
				"query parameter endTs: with option withGlobalConsumption the period may end at most one calendar year after startTs, at %s (got %s)",
				limit.Format(time.RFC3339), r.End.Format(time.RFC3339))
		}
	}
	return r, nil
}

const consumptionDescription = `Electricity consumption of the site over [startTs, endTs), one item per step, at most 1,200 items.

**Steps.** YEARS, MONTHS and DAYS follow the site's calendar (its IANA time zone): boundaries are startTs + k × step in local wall-clock time, so DAYS from local midnight run midnight to midnight and a DST day lasts 23 or 25 hours; a month step from the 31st ends on the last day of shorter months. HOURS and MINUTES are fixed durations. The last step is cut at endTs. Without stepUnit, a single step covers the period. ` + "`step`" + ` is an ISO 8601 duration (P1D, P2M, PT30M; without stepUnit, P1M/P3D/P1Y when the period is a whole number of calendar units, else PTnHnMnS).

**Window.** When the period holds more than 1,200 steps, the first 1,200 are returned and ` + "`computationPeriod`" + ` tells where the computation stopped: continue from its endTime. computationPeriod also appears when leading or trailing steps have no data (it then spans the first to the last computed instant).

**Units.** energyMeter in Wh, cost in EUR (energy by tariff heading at the prices in force day by day, plus the standing charge prorated by day, split by component), carbonFootprint in kgCO2e (coefficient in kgCO2e/kWh: the tariff's carbonCoefficient, else the service default, 0.052 kgCO2e/kWh from ADEME's Base Empreinte French average mix unless configured otherwise).

**Items.** quality: percentage (0-100) of the step covered by real data (not estimated, reliability 0). status: COMPLETE, PARTIAL or NO_DATA (then energyMeter.total is null, byTariffHeading empty, no cost). nature: REAL or ESTIMATED. aggregated: the step sums more than one reading interval. indexNatures: natures of the readings used. errorFlags: NEGATIVE_CONSUMPTION (a decreasing index without meter change, counted 0), MISSING_DATA (part of the step covered by no reading), METER_CHANGE, UNRELIABLE_LOAD_CURVE. usingLoadCurve: the step was computed from the load curve.

**Errors.** Every invalid parameter is a 400 INVALID_PARAMETER naming it: a timestamp in another format, endTs not after startTs, an unknown enum value (stepUnit, indexStrategy, indexCategories, dataSources, options), stepValue outside 1..1000 or without stepUnit. withGlobalConsumption over a period ending more than one calendar year after its start: 400 PERIOD_TOO_LONG. An unknown site, or a site of another tenant: 404 SITE_NOT_FOUND.

**Caching.** Answers are cached per site and request and invalidated by every ingest touching the site (response header X-Cache: HIT or MISS).`

// The consumption paths of both fluids.
const (
	elecConsumptionPath = "/v2/sites/{site-id}/fluids/elec/consumptions"
	gasConsumptionPath  = "/v2/sites/{site-id}/fluids/gas/consumptions"
)

// consumptionCSVColumns says what the rows of a consumption CSV hold.
const consumptionCSVColumns = "One row per step (the global consumption is left out): startTime, endTime, energy (Wh, or kWh for gas), " +
	"energy_HEADING per tariff heading, volume and volume_unit (gas), cost, standingCharge, standingCharge_COMPONENT, cost_HEADING, " +
	"carbonFootprint_coefficient and carbonFootprint (withCarbonFootprint), quality, errorFlags, indexNatures, status, nature, aggregated, " +
	"usingLoadCurve, ratio_HEADING and ratioGroup_GROUP (withRatioByTariffHeading)."

// consumptionCSV turns a JSON consumption answer (as cached) into its CSV: one row per step.
func consumptionCSV(answer []byte) ([]byte, error) {
	var r consumption.ConsumptionResult
	if err := json.Unmarshal(answer, &r); err != nil {
		return nil, fmt.Errorf("reading the consumption answer for CSV: %w", err)
	}
	var b bytes.Buffer
	if err := writeCSVTable(&b, r.Consumptions); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ConsumptionService answers the consumption of either fluid with JSON bytes: *consumption.Cached, the
// engine behind its result cache.
type ConsumptionService interface {
	JSON(ctx context.Context, tenantID, siteID, request string, resolve consumption.Resolve) (body []byte, hit bool, err error)
}

// consumptionHandler serves the consumption of both fluids (scope read).
type consumptionHandler struct {
	cons   ConsumptionService
	sites  *registry.Directory
	schema *huma.Schema // of the answer
}

// registerConsumption registers the consumption of both fluids, answered by one engine behind
// one result cache. A nil cons gets the engine with the default carbon coefficients behind a
// default-sized cache.
func registerConsumption(api huma.API, reg *registry.Store, cons ConsumptionService) {
	if cons == nil {
		engine := consumption.NewEngine(reg.DB(), reg, consumption.DefaultCarbonCoefficient)
		cons = consumption.NewCached(engine, reg.Versions, cache.DefaultEntries, cache.DefaultBytes)
	}
	h := &consumptionHandler{cons: cons, sites: reg.Directory} // every computed answer reads its site
	h.schema = api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[consumption.ConsumptionResult](), true, "ConsumptionResult")
	registerElecConsumption(api, h)
	registerGasConsumption(api, h)
	for _, path := range []string{elecConsumptionPath, gasConsumptionPath} {
		documentCSV(api, path, consumptionCSVColumns)
	}
}

// registerElecConsumption registers GET /v2/sites/{site-id}/fluids/elec/consumptions.
func registerElecConsumption(api huma.API, h *consumptionHandler) {
	huma.Register(api, h.operation("get-site-elec-consumptions", elecConsumptionPath,
		"Electricity consumption of a site", consumptionDescription,
		"The consumption of each step (and of the whole period with withGlobalConsumption)"), h.get)
}

// operation describes a consumption operation (scope read). The body is cached JSON bytes:
// the operation declares its shape since Huma cannot see it.
func (h *consumptionHandler) operation(id, path, summary, description, answers string) huma.Operation {
	return huma.Operation{
		OperationID: id, Method: http.MethodGet, Path: path,
		Tags: []string{"Consumption"}, Summary: summary, Description: description,
		Security: requireScopes(registry.ScopeRead),
		Responses: map[string]*huma.Response{"200": {
			Description: answers,
			Content:     map[string]*huma.MediaType{"application/json": {Schema: h.schema}},
		}},
	}
}

// get answers the electricity consumption.
func (h *consumptionHandler) get(ctx context.Context, in *ConsumptionParams) (*consumptionOutput, error) {
	q, err := parseConsumptionQuery(in)
	if err != nil {
		return nil, err
	}
	return h.answer(ctx, in.SiteID, q)
}

// answer serves a parsed request of either fluid from the cache or the engine.
func (h *consumptionHandler) answer(ctx context.Context, siteID string, q *consumptionQuery) (*consumptionOutput, error) {
	if registry.ValidID("site-id", siteID) != nil {
		return nil, SiteNotFound(siteID)
	}
	body, hit, err := h.cons.JSON(ctx, Caller(ctx).TenantID, siteID, q.key(), func(ctx context.Context) (registry.Site, consumption.Request, error) {
		s, err := h.sites.Site(ctx, Caller(ctx).TenantID, siteID)
		if errors.Is(err, registry.ErrNotFound) {
			return s, consumption.Request{}, SiteNotFound(siteID)
		}
		if err != nil {
			return s, consumption.Request{}, err
		}
		req, err := q.resolve(s.Location())
		return s, req, err
	})
	if err != nil {
		return nil, err
	}
	return cachedOutput(ctx, body, hit, consumptionCSV)
}

// cachedOutput is the answer of an operation served from a result cache: its JSON body, or
// the CSV toCSV makes of it when the request asks for text/csv (toCSV nil: JSON only), with
// the cache's HIT or MISS.
func cachedOutput(ctx context.Context, body []byte, hit bool, toCSV func([]byte) ([]byte, error)) (*consumptionOutput, error) {
	out := &consumptionOutput{ContentType: "application/json", Cache: "MISS", Body: body}
	if toCSV != nil && wantsCSV(ctx) {
		var err error
		if out.Body, err = toCSV(body); err != nil {
			return nil, err
		}
		out.ContentType = csvType
	}
	if hit {
		out.Cache = "HIT"
	}
	return out, nil
}
