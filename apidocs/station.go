package apidocs

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"energy/schema/registry"
)

// stationHandler serves the weather station resource (scope admin).
type stationHandler struct{ reg *registry.Store }

func registerStations(api huma.API, reg *registry.Store) {
	h := &stationHandler{reg: reg}
	registerPutGet(api, registryResource{operation: "weather-station", name: "weather station", path: "/v1/weather-stations/{stationId}",
		readScopes: []registry.Scope{registry.ScopeAdmin},
	}, h.put, h.get)
}

// StationBody is a weather station as sent to and returned by PUT/GET /v1/weather-stations/{stationId}.
type StationBody struct {
	StationID string  `json:"stationId,omitempty" doc:"Station id; when given it must equal the path's" example:"07149"`
	Name      string  `json:"name" doc:"Station name" example:"Paris-Orly"`
	Latitude  float64 `json:"latitude" minimum:"-90" maximum:"90" example:"48.72"`
	Longitude float64 `json:"longitude" minimum:"-180" maximum:"180" example:"2.38"`
}

// putStationInput declares the identifier rule the store enforces on the id it creates.
type putStationInput struct {
	StationID string `path:"stationId" pattern:"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$" maxLength:"128" doc:"Weather station identifier: 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit" example:"07149"`
	Body      StationBody
}

func (h *stationHandler) put(ctx context.Context, in *putStationInput) (*stationOutput, error) {
	if err := pathID("stationId", in.StationID, in.Body.StationID); err != nil {
		return nil, err
	}
	st := registry.Station{TenantID: Caller(ctx).TenantID, StationID: in.StationID, Name: in.Body.Name, Latitude: in.Body.Latitude, Longitude: in.Body.Longitude}
	if err := h.reg.PutStation(ctx, st); err != nil {
		return nil, err
	}
	return &stationOutput{Body: stationBody(st)}, nil
}

type StationIDParam struct {
	StationID string `path:"stationId" doc:"Weather station identifier" example:"07149"`
}

func (h *stationHandler) get(ctx context.Context, in *StationIDParam) (*stationOutput, error) {
	st, err := h.reg.Station(ctx, Caller(ctx).TenantID, in.StationID)
	if err != nil {
		return nil, notFound(err, "weather station", in.StationID)
	}
	return &stationOutput{Body: stationBody(st)}, nil
}

type stationOutput struct {
	Body StationBody
}

func stationBody(st registry.Station) StationBody {
	return StationBody{StationID: st.StationID, Name: st.Name, Latitude: st.Latitude, Longitude: st.Longitude}
}
