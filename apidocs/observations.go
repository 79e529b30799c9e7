package apidocs

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"energy/query/weather"
	"energy/schema/registry"
)

// ObservationBody is one item of PUT /v1/weather-stations/{stationId}/observations.
type ObservationBody struct {
	Date        time.Time `json:"date" doc:"Date-time of the value, RFC 3339 with offset, whole seconds" example:"2024-01-01T12:00:00+01:00"`
	Temperature float64   `json:"temperature" minimum:"-90" maximum:"70" doc:"Air temperature, °C" example:"3.2"`
	Wind        float64   `json:"wind" minimum:"0" maximum:"500" doc:"Wind speed, km/h" example:"12.5"`
	Cloudiness  float64   `json:"cloudiness" minimum:"0" maximum:"8" doc:"Sky cover, okta" example:"6"`
	Picto       string    `json:"picto,omitempty" doc:"Pictogram code such as P7; when absent: P1 + okta rounded (0 okta P1 clear sky .. 4 P5 partly cloudy .. 8 P9 overcast)" example:"P7"`
}

// ObservationsStored answers a PUT of observations.
type ObservationsStored struct {
	StationID string `json:"stationId" example:"07149"`
	Stored    int    `json:"stored" doc:"Number of items stored (each replaced the station's value at its date, if any)" example:"24"`
}

type observationsStoredOutput struct {
	Body ObservationsStored
}

type putObservationsInput struct {
	StationIDParam
	Body []ObservationBody `maxItems:"100000"`
}

type getObservationsInput struct {
	StationIDParam
	WeatherRange
}

// registerObservations registers the operations on what a weather station holds (scope admin).
func registerObservations(api huma.API, h *weatherHandler) {
	huma.Register(api, huma.Operation{
		OperationID: "put-weather-observations", Method: http.MethodPut, Path: "/v1/weather-stations/{stationId}/observations", Tags: []string{"Admin"},
		Summary: "Store observations and forecasts of a station",
		Description: "Upserts by date: each item replaces the station's value at its date (the latest received wins, also within one body), " +
			"other dates are never deleted. At most 100,000 items per request. Items are validated one by one; the first bad item is " +
			"named by its index and field in the 400 and nothing is stored. The station must exist (404 NOT_FOUND otherwise).",
		Security: requireScopes(registry.ScopeAdmin), MaxBodyBytes: 16 << 20,
	}, h.putObservations)
	huma.Register(api, huma.Operation{
		OperationID: "get-weather-observations", Method: http.MethodGet, Path: "/v1/weather-stations/{stationId}/observations", Tags: []string{"Admin"},
		Summary:     "Read what a station holds",
		Description: "The station's values with date in [beginDate, endDate), oldest first, dates in UTC.",
		Security:    requireScopes(registry.ScopeAdmin),
	}, h.getObservations)
}

func (h *weatherHandler) putObservations(ctx context.Context, in *putObservationsInput) (*observationsStoredOutput, error) {
	if err := pathID("stationId", in.StationID, ""); err != nil {
		return nil, err
	}
	tenant := Caller(ctx).TenantID
	if _, err := h.reg.Station(ctx, tenant, in.StationID); err != nil {
		return nil, notFound(err, "weather station", in.StationID)
	}
	obs := make([]weather.Observation, len(in.Body))
	for i, b := range in.Body {
		obs[i] = weather.Observation{Date: b.Date, Temperature: b.Temperature, Wind: b.Wind, Cloudiness: b.Cloudiness, Picto: b.Picto}
	}
	if err := weather.ValidateObservations(obs); err != nil {
		var oe *weather.ObservationError
		if errors.As(err, &oe) {
			return nil, BadParam("body[%d].%s: %s", oe.Index, oe.Field, oe.Message)
		}
		return nil, err
	}
	if err := h.store.Put(ctx, tenant, in.StationID, obs); err != nil {
		return nil, err
	}
	// Heating budgets are fitted on the weather: answers cached before must not be served again.
	h.reg.Versions.Bump(tenant, "")
	return &observationsStoredOutput{Body: ObservationsStored{StationID: in.StationID, Stored: len(obs)}}, nil
}

func (h *weatherHandler) getObservations(ctx context.Context, in *getObservationsInput) (*weatherOutput, error) {
	begin, end, err := in.parse()
	if err != nil {
		return nil, err
	}
	tenant := Caller(ctx).TenantID
	if _, err := h.reg.Station(ctx, tenant, in.StationID); err != nil {
		return nil, notFound(err, "weather station", in.StationID)
	}
	obs, err := h.store.Observations(ctx, tenant, in.StationID, begin, end)
	if err != nil {
		return nil, err
	}
	return &weatherOutput{Body: weatherItems(obs, time.UTC)}, nil
}
