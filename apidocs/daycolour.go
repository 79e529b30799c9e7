package apidocs

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"energy/schema/registry"
)

// DayColourCalendarBody is a calendar as sent to and returned by PUT/GET /v1/day-colour-calendars/{calendarId}.
type DayColourCalendarBody struct {
	CalendarID  string `json:"calendarId,omitempty" doc:"Calendar id; when given it must equal the path's" example:"TEMPO"`
	Name        string `json:"name" maxLength:"256" doc:"A name for people" example:"Tempo"`
	DayStartsAt string `json:"dayStartsAt" doc:"Local time (HH:MM, site's time zone) at which a colour day starts on its date; it ends at the same time the next date (RTE's Tempo day runs 06:00 to 06:00)" example:"06:00"`
}

type CalendarIDParam struct {
	CalendarID string `path:"calendarId" doc:"Calendar identifier: 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit" example:"TEMPO"`
}

type putCalendarInput struct {
	CalendarIDParam
	Body DayColourCalendarBody
}

type putDayColoursInput struct {
	CalendarIDParam
	Body []registry.DayColour `maxItems:"1500"`
}

type getDayColoursInput struct {
	CalendarIDParam
	From string `query:"from" required:"true" doc:"First date (yyyy-MM-dd), included" example:"2025-01-01"`
	To   string `query:"to" required:"true" doc:"Last date (yyyy-MM-dd), excluded" example:"2025-02-01"`
}

// DayColoursStored answers a PUT of dates.
type DayColoursStored struct {
	CalendarID string `json:"calendarId" example:"TEMPO"`
	Stored     int    `json:"stored" doc:"Number of dates stored (each replaced the date's colour, if any)" example:"31"`
}

type dayColoursOutput struct{ Body []registry.DayColour }

type dayColoursStoredOutput struct{ Body DayColoursStored }

// dayColourHandler serves the day-colour calendars (scope admin).
type dayColourHandler struct{ reg *registry.Store }

// registerDayColourCalendars registers the calendars of colour days that TEMPO tariffs name.
func registerDayColourCalendars(api huma.API, reg *registry.Store) {
	h := &dayColourHandler{reg: reg}
	registerPutGet(api, registryResource{operation: "day-colour-calendar", name: "day-colour calendar", path: "/v1/day-colour-calendars/{calendarId}",
		putDescription: "A calendar of colour days (BLUE, WHITE, RED) that TEMPO tariffs name in dayColourCalendarId. Its dates are kept when it is replaced. " +
			"Answers that depend on it are invalidated.",
		readScopes: []registry.Scope{registry.ScopeAdmin},
	}, h.putCalendar, h.getCalendar)
	huma.Register(api, huma.Operation{
		OperationID: "put-day-colours", Method: http.MethodPut, Path: "/v1/day-colour-calendars/{calendarId}/days", Tags: []string{"Admin"},
		Summary: "Set the colours of dates of a day-colour calendar",
		Description: "Creates or replaces the colour of each date given (a date given twice takes its last colour); other dates are kept. " +
			"At most 1,500 dates per request. The first bad item is named by its index and field in the 400 and nothing is stored. " +
			"The calendar must exist (404 NOT_FOUND otherwise). Answers that depend on the calendar are invalidated.",
		Security: requireScopes(registry.ScopeAdmin),
	}, h.putDays)
	huma.Register(api, huma.Operation{
		OperationID: "get-day-colours", Method: http.MethodGet, Path: "/v1/day-colour-calendars/{calendarId}/days", Tags: []string{"Admin"},
		Summary:     "Read the colours of a calendar's dates",
		Description: "The calendar's dates in [from, to), in date order.",
		Security:    requireScopes(registry.ScopeAdmin),
	}, h.getDays)
}

func (h *dayColourHandler) putCalendar(ctx context.Context, in *putCalendarInput) (*resourceOutput[DayColourCalendarBody], error) {
	if err := pathID("calendarId", in.CalendarID, in.Body.CalendarID); err != nil {
		return nil, err
	}
	c := registry.DayColourCalendar{TenantID: Caller(ctx).TenantID, CalendarID: in.CalendarID, Name: in.Body.Name, DayStartsAt: in.Body.DayStartsAt}
	if err := h.reg.PutDayColourCalendar(ctx, c); err != nil {
		return nil, err
	}
	return &resourceOutput[DayColourCalendarBody]{Body: calendarBody(c)}, nil
}

func (h *dayColourHandler) getCalendar(ctx context.Context, in *CalendarIDParam) (*resourceOutput[DayColourCalendarBody], error) {
	return readResource(ctx, "day-colour calendar", in.CalendarID, h.reg.DayColourCalendar, calendarBody)
}

func calendarBody(c registry.DayColourCalendar) DayColourCalendarBody {
	return DayColourCalendarBody{CalendarID: c.CalendarID, Name: c.Name, DayStartsAt: c.DayStartsAt}
}

func (h *dayColourHandler) putDays(ctx context.Context, in *putDayColoursInput) (*dayColoursStoredOutput, error) {
	if err := pathID("calendarId", in.CalendarID, ""); err != nil {
		return nil, err
	}
	err := h.reg.PutDayColours(ctx, Caller(ctx).TenantID, in.CalendarID, in.Body)
	var fe *registry.FieldError
	switch {
	case errors.As(err, &fe):
		return nil, BadParam("body%s: %s", fe.Field, fe.Message)
	case err != nil:
		return nil, notFound(err, "day-colour calendar", in.CalendarID)
	}
	return &dayColoursStoredOutput{Body: DayColoursStored{CalendarID: in.CalendarID, Stored: len(in.Body)}}, nil
}

func (h *dayColourHandler) getDays(ctx context.Context, in *getDayColoursInput) (*dayColoursOutput, error) {
	for name, v := range map[string]string{"from": in.From, "to": in.To} {
		if _, err := time.Parse(time.DateOnly, v); err != nil {
			return nil, BadParam("query parameter %s: must be a date yyyy-MM-dd (got %q)", name, v)
		}
	}
	tenant := Caller(ctx).TenantID
	if _, err := h.reg.DayColourCalendar(ctx, tenant, in.CalendarID); err != nil {
		return nil, notFound(err, "day-colour calendar", in.CalendarID)
	}
	days, err := h.reg.DayColoursBetween(ctx, tenant, in.CalendarID, in.From, in.To)
	if err != nil {
		return nil, err
	}
	return &dayColoursOutput{Body: days}, nil
}
