package apidocs

import (
	"context"

	"energy/schema/registry"
)

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

func (h *registryHandler) putStation(ctx context.Context, in *putStationInput) (*resourceOutput[StationBody], error) {
	if err := pathID("stationId", in.StationID, in.Body.StationID); err != nil {
		return nil, err
	}
	st := registry.Station{TenantID: Caller(ctx).TenantID, StationID: in.StationID, Name: in.Body.Name, Latitude: in.Body.Latitude, Longitude: in.Body.Longitude}
	if err := h.reg.PutStation(ctx, st); err != nil {
		return nil, err
	}
	return &resourceOutput[StationBody]{Body: stationBody(st)}, nil
}

type StationIDParam struct {
	StationID string `path:"stationId" doc:"Weather station identifier" example:"07149"`
}

func (h *registryHandler) getStation(ctx context.Context, in *StationIDParam) (*resourceOutput[StationBody], error) {
	return readResource(ctx, "weather station", in.StationID, h.reg.Station, stationBody)
}

func stationBody(st registry.Station) StationBody {
	return StationBody{StationID: st.StationID, Name: st.Name, Latitude: st.Latitude, Longitude: st.Longitude}
}
