package apidocs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"energy/schema/registry"
)

// HeatingScheduleBody is a site's heating schedule: set points by mode and the weekly calendar.
type HeatingScheduleBody struct {
	Temperatures   map[string]float64   `json:"temperatures" doc:"Mode name to set point in °C (5..30): COMFORT and ECO required with ECO ≤ COMFORT; FROST_PROTECTION optional on PUT (7 when absent), always returned" example:"{\"COMFORT\":19,\"ECO\":16,\"FROST_PROTECTION\":7}"`
	WeeklyCalendar []ScheduleSwitchBody `json:"weeklyCalendar" minItems:"1" doc:"Mode switches in the site's local time, offsets strictly increasing; a mode holds until the next switch and the week wraps (before the first switch the last one's mode holds)"`
}

// ScheduleSwitchBody switches the schedule to a mode.
type ScheduleSwitchBody struct {
	Offset      int    `json:"offset" minimum:"0" maximum:"10079" doc:"Minutes after Monday 00:00 local time" example:"360"`
	Temperature string `json:"temperature" doc:"Mode that starts here: a key of temperatures" example:"COMFORT"`
}

// HeatingScheduleAnswer is the GET (and PUT) answer.
type HeatingScheduleAnswer struct {
	HeatingSchedule HeatingScheduleBody `json:"heatingSchedule"`
}

type heatingScheduleOutput struct {
	Body HeatingScheduleAnswer
}

type getHeatingScheduleInput struct {
	SiteID string `path:"site-id" doc:"Site identifier" example:"SITE-1"`
}

// The PUT names its path parameter like the GET: one path may not have two parameter names.
type putHeatingScheduleInput struct {
	SiteID  string `path:"site-id" doc:"Site identifier" example:"SITE-1"`
	RawBody []byte
}

// heatingScheduleHandler serves the heating schedule of a site.
type heatingScheduleHandler struct {
	reg *registry.Store
}

func registerHeatingSchedule(api huma.API, reg *registry.Store) {
	h := &heatingScheduleHandler{reg: reg}
	huma.Register(api, huma.Operation{
		OperationID: "get-heating-schedule", Method: http.MethodGet, Path: "/v1/sites/{site-id}/heating-schedule", Tags: []string{"Heating"},
		Summary: "Heating schedule of a site",
		Description: "The site's schedule, or until an admin sets one the default: COMFORT 19 °C every day from 06:00, ECO 16 °C from 22:00, " +
			"FROST_PROTECTION 7 °C (14 switches, offsets d×1440+360 and d×1440+1320 for d = 0..6).",
		Security: requireScopes(registry.ScopeRead),
	}, h.get)

	// The body is the schedule, bare or wrapped: both shapes are described, and the handler
	// validates it itself so that every error names the element (weeklyCalendar[3].offset).
	bare := api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(HeatingScheduleBody{}), true, "")
	wrapped := api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(HeatingScheduleAnswer{}), true, "")
	schema := &huma.Schema{OneOf: []*huma.Schema{bare, wrapped}}
	huma.Register(api, huma.Operation{
		OperationID: "put-heating-schedule", Method: http.MethodPut, Path: "/v1/sites/{site-id}/heating-schedule", Tags: []string{"Admin"},
		Summary: "Replace the heating schedule of a site",
		Description: "Takes the heatingSchedule object, bare or wrapped in {\"heatingSchedule\": …}. Every field is checked; the first bad one is " +
			"named in the 400 (for example weeklyCalendar[3].offset) and nothing is changed. Answers what was stored, in the GET shape. " +
			"Budgets of the site are recomputed with the new schedule.",
		Security:         requireScopes(registry.ScopeAdmin),
		RequestBody:      &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"application/json": {Schema: schema}}},
		SkipValidateBody: true,
	}, h.put)
}

func (h *heatingScheduleHandler) get(ctx context.Context, in *getHeatingScheduleInput) (*heatingScheduleOutput, error) {
	s, err := site(ctx, h.reg, in.SiteID)
	if err != nil {
		return nil, err
	}
	sched, _, err := h.reg.HeatingSchedule(ctx, s.TenantID, s.SiteID)
	if err != nil {
		return nil, err
	}
	return &heatingScheduleOutput{Body: HeatingScheduleAnswer{HeatingSchedule: HeatingScheduleJSON(sched)}}, nil
}

func (h *heatingScheduleHandler) put(ctx context.Context, in *putHeatingScheduleInput) (*heatingScheduleOutput, error) {
	if err := pathID("siteId", in.SiteID, ""); err != nil {
		return nil, err
	}
	s, err := site(ctx, h.reg, in.SiteID)
	if err != nil {
		return nil, err
	}
	sched, err := DecodeHeatingSchedule(in.RawBody)
	if err != nil {
		return nil, err
	}
	stored, err := h.reg.PutHeatingSchedule(ctx, s.TenantID, s.SiteID, sched)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, SiteNotFound(in.SiteID)
	} else if err != nil {
		return nil, err
	}
	return &heatingScheduleOutput{Body: HeatingScheduleAnswer{HeatingSchedule: HeatingScheduleJSON(stored)}}, nil
}

// DecodeHeatingSchedule (also used by energyctl) reads a schedule, bare or wrapped in {"heatingSchedule": …}; unknown
// members, missing ones and values of the wrong type are 400s naming the field.
func DecodeHeatingSchedule(raw []byte) (registry.HeatingSchedule, error) {
	var top map[string]json.RawMessage
	if err := strictJSON(raw, &top); err != nil || top == nil {
		return registry.HeatingSchedule{}, BadParam("body: must be a JSON object holding temperatures and weeklyCalendar")
	}
	if inner, ok := top["heatingSchedule"]; ok {
		if len(top) > 1 {
			return registry.HeatingSchedule{}, BadParam("body: next to heatingSchedule no other member is allowed")
		}
		top = nil
		if err := strictJSON(inner, &top); err != nil || top == nil {
			return registry.HeatingSchedule{}, BadParam("body field heatingSchedule: must be an object holding temperatures and weeklyCalendar")
		}
	}
	for name := range top {
		if name != "temperatures" && name != "weeklyCalendar" {
			return registry.HeatingSchedule{}, BadParam("body field %s: unknown member (a schedule has temperatures and weeklyCalendar)", name)
		}
	}
	var temps map[string]json.RawMessage
	if err := strictJSON(top["temperatures"], &temps); err != nil || temps == nil {
		return registry.HeatingSchedule{}, BadParam("body field temperatures: is required, an object of mode name to set point in °C")
	}
	out := registry.HeatingSchedule{Temperatures: map[string]float64{}}
	for mode, v := range temps {
		var c float64
		if err := strictJSON(v, &c); err != nil {
			return registry.HeatingSchedule{}, BadParam("body field temperatures.%s: must be a number of °C", mode)
		}
		out.Temperatures[mode] = c
	}
	var cal []json.RawMessage
	if err := strictJSON(top["weeklyCalendar"], &cal); err != nil || cal == nil {
		return registry.HeatingSchedule{}, BadParam("body field weeklyCalendar: is required, an array of {offset, temperature}")
	}
	for i, item := range cal {
		var sw struct {
			Offset      json.RawMessage `json:"offset"`
			Temperature *string         `json:"temperature"`
		}
		if err := strictJSON(item, &sw); err != nil {
			return registry.HeatingSchedule{}, BadParam("body field weeklyCalendar[%d]: must be an object {offset, temperature} (%s)", i, jsonProblem(err))
		}
		if sw.Offset == nil || string(sw.Offset) == "null" {
			return registry.HeatingSchedule{}, BadParam("body field weeklyCalendar[%d].offset: is required (minutes after Monday 00:00)", i)
		}
		var offset int
		if err := strictJSON(sw.Offset, &offset); err != nil {
			return registry.HeatingSchedule{}, BadParam("body field weeklyCalendar[%d].offset: must be an integer number of minutes (got %s)", i, sw.Offset)
		}
		if sw.Temperature == nil {
			return registry.HeatingSchedule{}, BadParam("body field weeklyCalendar[%d].temperature: is required (a mode of temperatures)", i)
		}
		out.WeeklyCalendar = append(out.WeeklyCalendar, registry.ScheduleSwitch{Offset: offset, Temperature: *sw.Temperature})
	}
	return out, nil
}

// strictJSON decodes one JSON value, refusing unknown members and trailing data.
func strictJSON(raw []byte, v any) error {
	if len(raw) == 0 {
		return errors.New("no value")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the value")
	}
	return nil
}

// jsonProblem says what is wrong with a body in words naming the field where it can.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %s must be a %s (got a JSON %s)", te.Field, te.Type.Kind(), te.Value)
	}
	return err.Error()
}

// HeatingScheduleJSON is the API shape of a schedule.
func HeatingScheduleJSON(s registry.HeatingSchedule) HeatingScheduleBody {
	b := HeatingScheduleBody{Temperatures: s.Temperatures, WeeklyCalendar: make([]ScheduleSwitchBody, len(s.WeeklyCalendar))}
	for i, sw := range s.WeeklyCalendar {
		b.WeeklyCalendar[i] = ScheduleSwitchBody{Offset: sw.Offset, Temperature: sw.Temperature}
	}
	return b
}
