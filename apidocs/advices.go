package apidocs

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"energy/query/advices"
	"energy/schema/registry"
)

// Recommendation jobs (endpoint 10), served on the advice listener only.

const (
	adviceJobsPath = "/v1/jobs/advices"
	// maxAdviceBody bounds a job's body: 100 elements of housing inputs fit in far less.
	maxAdviceBody = 1 << 20
)

// AdviceJobBody is a recommendation job: its status and, once DONE, one result per element.
type AdviceJobBody struct {
	JobID     string            `json:"jobId" doc:"Job id (UUID)" example:"5d0c8e0a-3b8e-4f7e-9a41-2f1f6f0c9b7d"`
	Status    string            `json:"status" enum:"CREATED,IN_PROGRESS,DONE,ERROR" doc:"CREATED (stored, waiting) → IN_PROGRESS → DONE or ERROR" example:"DONE"`
	CreatedTs string            `json:"createdTs,omitempty" doc:"When the job was accepted (Timestamp-Z, UTC); on GET" example:"2024-05-02T08:15:02Z"`
	UpdatedTs string            `json:"updatedTs,omitempty" doc:"Time of the last status change (Timestamp-Z, UTC); on GET" example:"2024-05-02T08:15:03Z"`
	Result    []advices.Result  `json:"result" doc:"result[i] answers element i of the body; empty until DONE"`
	Error     *AdviceJobFailure `json:"error,omitempty" doc:"Present when the job ended in ERROR"`
}

// AdviceJobFailure is why a job ended in ERROR.
type AdviceJobFailure struct {
	Message string `json:"message" doc:"What went wrong" example:"the computation failed (internal error); submit the job again"`
}

type adviceJobOutput struct {
	Body AdviceJobBody
}

// adviceSubmitInput takes the raw body: elements are validated by the catalog, which names
// the element and key of a bad value ([2].input.HOUSING_SURFACE).
type adviceSubmitInput struct {
	body        []byte
	err         error
	contentType string
}

func (in *adviceSubmitInput) Resolve(ctx huma.Context) []error {
	in.contentType = ctx.Header("Content-Type")
	in.body, in.err = io.ReadAll(io.LimitReader(ctx.BodyReader(), maxAdviceBody+1))
	return nil
}

type adviceJobInput struct {
	JobID string `path:"jobId" doc:"Job id, as returned by the submission" example:"5d0c8e0a-3b8e-4f7e-9a41-2f1f6f0c9b7d"`
}

// adviceHandler serves recommendation jobs from the job service.
type adviceHandler struct {
	svc *advices.Service
}

// submit validates and stores a job; it is computed asynchronously.
func (h *adviceHandler) submit(ctx context.Context, in *adviceSubmitInput) (*adviceJobOutput, error) {
	if in.err != nil {
		return nil, BadParam("request body: cannot be read: %v", in.err)
	}
	if in.contentType != "" && !isJSON(in.contentType) { // Huma does not check a body read raw
		return nil, notJSON(in.contentType)
	}
	if len(in.body) > maxAdviceBody {
		return nil, BadParam("request body: larger than %d bytes", maxAdviceBody)
	}
	j, err := h.svc.Submit(ctx, Caller(ctx).TenantID, in.body)
	var bad *advices.InputError
	if errors.As(err, &bad) {
		return nil, BadParam("%s", bad.Error())
	}
	if err != nil {
		return nil, err
	}
	return &adviceJobOutput{Body: AdviceJobBody{JobID: j.ID, Status: j.Status, Result: []advices.Result{}}}, nil
}

// get returns a job of the caller's tenant.
func (h *adviceHandler) get(ctx context.Context, in *adviceJobInput) (*adviceJobOutput, error) {
	j, err := h.svc.Get(ctx, Caller(ctx).TenantID, in.JobID)
	if errors.Is(err, advices.ErrJobNotFound) {
		return nil, Fail(http.StatusNotFound, CodeJobNotFound, "advice job %q does not exist", in.JobID)
	}
	if err != nil {
		return nil, err
	}
	body := AdviceJobBody{JobID: j.ID, Status: j.Status, CreatedTs: formatTS(j.CreatedTS),
		UpdatedTs: formatTS(j.UpdatedTS), Result: j.Results}
	if body.Result == nil {
		body.Result = []advices.Result{}
	}
	if j.Status == advices.StatusError {
		body.Error = &AdviceJobFailure{Message: j.Error}
	}
	return &adviceJobOutput{Body: body}, nil
}

// registerAdvices adds the recommendation job operations.
func registerAdvices(api huma.API, svc *advices.Service) {
	h := &adviceHandler{svc: svc}
	scope := requireScopes(registry.ScopeAdvices)
	huma.Register(api, huma.Operation{
		OperationID: "submit-advice-job", Method: http.MethodPost, Path: adviceJobsPath, Tags: []string{"Recommendations"},
		Summary: "Submit a recommendation job", Description: adviceSubmitDescription, Security: scope,
		// The schema is set after registration: given here, Huma would decode the body itself.
		RequestBody: &huma.RequestBody{
			Required:    true,
			Description: "JSON array of 1 to 100 elements {\"input\": {KEY: value}}",
			Content:     map[string]*huma.MediaType{"application/json": {}},
		},
	}, h.submit)
	if item := api.OpenAPI().Paths[adviceJobsPath]; item != nil && item.Post != nil {
		item.Post.RequestBody.Content["application/json"].Schema = adviceRequestSchema()
		item.Post.RequestBody.Content["application/json"].Example = []map[string]any{{"input": map[string]any{
			"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 12000, "HOUSING_HEATING_SETPOINT": 21,
			"HOUSING_HAS_PROGRAMMABLE_THERMOSTAT": false}}}
	}
	huma.Register(api, huma.Operation{
		OperationID: "get-advice-job", Method: http.MethodGet, Path: adviceJobsPath + "/{jobId}", Tags: []string{"Recommendations"},
		Summary: "Recommendation job, with its results once DONE", Description: adviceJobDescription, Security: scope,
	}, h.get)
}

// adviceRequestSchema documents the body that adviceSubmitInput reads raw.
func adviceRequestSchema() *huma.Schema {
	number := func(doc string, min float64) *huma.Schema {
		return &huma.Schema{Type: "number", Minimum: &min, Description: doc}
	}
	enum := func(doc string, values ...any) *huma.Schema {
		return &huma.Schema{Type: "string", Enum: values, Description: doc}
	}
	boolean := func(doc string) *huma.Schema { return &huma.Schema{Type: "boolean", Description: doc} }
	surfaceMax, occMin, occMax, spMax := 10000.0, 1.0, 20.0, 30.0
	surface := number("Heated floor area, m²: 0 < x ≤ 10000", 0)
	surface.ExclusiveMinimum, surface.Minimum, surface.Maximum = surface.Minimum, nil, &surfaceMax
	occupants := &huma.Schema{Type: "integer", Minimum: &occMin, Maximum: &occMax, Description: "Occupants, 1 to 20"}
	setpoint := number("Usual comfort temperature, °C, 10 to 30", 10)
	setpoint.Maximum = &spMax
	gasPrice, elecPrice := number("EUR/kWh, > 0; default 0.1100", 0), number("EUR/kWh, > 0; default 0.2516", 0)
	gasPrice.ExclusiveMinimum, gasPrice.Minimum = gasPrice.Minimum, nil
	elecPrice.ExclusiveMinimum, elecPrice.Minimum = elecPrice.Minimum, nil
	input := &huma.Schema{
		Type:                 "object",
		Description:          "Housing inputs, all optional but at least one known key; unknown keys are listed in context.unknownInputs",
		AdditionalProperties: true,
		Properties: map[string]*huma.Schema{
			string(advices.KeyGasHeatingKwh):  number("kWh of gas used for space heating last year, ≥ 0", 0),
			string(advices.KeyElecHeatingKwh): number("kWh of electricity used for space heating last year, ≥ 0", 0),
			string(advices.KeyElecKwh):        number("kWh of electricity last year, all uses, ≥ 0", 0),
			string(advices.KeyHousingType):    enum("Home type", "HOUSE", "APARTMENT"),
			string(advices.KeySurface):        surface,
			string(advices.KeyOccupants):      occupants,
			string(advices.KeySetpoint):       setpoint,
			string(advices.KeyHeatingSystem):  enum("Heating system", "GAS_BOILER", "GAS_CONDENSING_BOILER", "ELEC_CONVECTOR", "HEAT_PUMP"),
			string(advices.KeyThermostat):     boolean("A programmable thermostat is installed"),
			string(advices.KeyRoofInsulated):  boolean("The roof is insulated"),
			string(advices.KeyWindows):        enum("Glazing", "SINGLE", "DOUBLE", "TRIPLE"),
			string(advices.KeyWaterHeater):    enum("Water heater", "GAS", "ELEC_TANK", "HEAT_PUMP"),
			string(advices.KeyGasPrice):       gasPrice,
			string(advices.KeyElecPrice):      elecPrice,
			string(advices.KeySiteID):         {Type: "string", MinLength: ptr(1), Description: "A site of your tenant whose data fills the missing heating consumption"},
		},
	}
	minItems, maxItems := 1, advices.MaxElements
	return &huma.Schema{
		Type: "array", MinItems: &minItems, MaxItems: &maxItems,
		Items: &huma.Schema{
			Type: "object", Required: []string{"input"}, AdditionalProperties: false,
			Properties: map[string]*huma.Schema{"input": input},
		},
	}
}

func ptr[T any](v T) *T { return &v }
