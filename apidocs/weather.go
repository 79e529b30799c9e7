package apidocs

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"energy/query/weather"
	"energy/schema/registry"
)

// weatherDateLayout is yyyy-MM-dd'T'HH:mm:ss.SSSZ (2024-01-01T00:00:00.000+0100), the format
// the weather operation's parameters are documented with.
const weatherDateLayout = "2006-01-02T15:04:05.000-0700"

// WeatherItem is one observation or forecast of the site's weather station.
type WeatherItem struct {
	Date        string  `json:"date" doc:"Date-time of the value, RFC 3339 with the site's UTC offset" example:"2024-01-01T12:00:00+01:00"`
	Picto       string  `json:"picto" doc:"Pictogram code P1..P9; when the loader gave none, derived from cloudiness: okta rounded + 1 (P1 clear sky .. P5 partly cloudy .. P9 overcast)" example:"P7"`
	Temperature float64 `json:"temperature" doc:"Air temperature, °C" example:"3.2"`
	Wind        float64 `json:"wind" doc:"Wind speed, km/h" example:"12.5"`
	Cloudiness  float64 `json:"cloudiness" doc:"Sky cover, okta (0 clear .. 8 overcast)" example:"6"`
}

type weatherOutput struct {
	Body []WeatherItem
}

// WeatherRange is the period of a weather read.
type WeatherRange struct {
	BeginDate string `query:"beginDate" required:"true" doc:"First date (included), format yyyy-MM-dd'T'HH:mm:ss.SSSZ; a '+' left unencoded (read as a space) is accepted" example:"2024-01-01T00:00:00.000+0100"`
	EndDate   string `query:"endDate" required:"true" doc:"End date (excluded), same format, after beginDate" example:"2024-01-02T00:00:00.000+0100"`
}

// parse checks both dates: each in the exact format, the end after the begin.
func (r WeatherRange) parse() (begin, end time.Time, err error) {
	if begin, err = parseWeatherDate("beginDate", r.BeginDate); err != nil {
		return
	}
	if end, err = parseWeatherDate("endDate", r.EndDate); err != nil {
		return
	}
	if !end.After(begin) {
		err = BadParam("query parameter endDate: %s must be after beginDate %s", r.EndDate, r.BeginDate)
	}
	return
}

func parseWeatherDate(name, raw string) (time.Time, error) {
	v := strings.ReplaceAll(raw, " ", "+") // an unencoded '+' arrives as a space
	t, err := time.Parse(weatherDateLayout, v)
	if err != nil || len(v) != len(weatherDateLayout) {
		return time.Time{}, BadParam("query parameter %s: %q is not a date in the format yyyy-MM-dd'T'HH:mm:ss.SSSZ (for example 2024-01-01T00:00:00.000+0100)", name, raw)
	}
	return t, nil
}

type siteWeatherInput struct {
	SiteID string `path:"site-id" doc:"Site identifier" example:"SITE-1"`
	WeatherRange
}

// weatherHandler serves the weather of a site's station (scope read) and, in observations.go,
// what a weather station holds (scope admin).
type weatherHandler struct {
	reg   *registry.Store
	store *weather.Store
}

// registerWeather registers the site weather operation and the station observations ones.
func registerWeather(api huma.API, reg *registry.Store) {
	h := &weatherHandler{reg: reg, store: weather.NewStore(reg.DB())}
	registerObservations(api, h)
	huma.Register(api, huma.Operation{
		OperationID: "get-site-weathers", Method: http.MethodGet, Path: "/v1/sites/{site-id}/weathers", Tags: []string{"Weather"},
		Summary: "Weather of the site's station",
		Description: "Values (measures and forecasts share one series; the latest received value of a date wins) of the site's weather station " +
			"with date in [beginDate, endDate), oldest first, dates rendered with the site's UTC offset. A site without a weather station gets [].",
		Security: requireScopes(registry.ScopeRead),
	}, h.siteWeather)
	documentCSV(api, "/v1/sites/{site-id}/weathers", "One row per value: date, picto, temperature, wind, cloudiness.")
}

func (h *weatherHandler) siteWeather(ctx context.Context, in *siteWeatherInput) (*weatherOutput, error) {
	begin, end, err := in.parse()
	if err != nil {
		return nil, err
	}
	s, err := site(ctx, h.reg, in.SiteID)
	if err != nil {
		return nil, err
	}
	items := []WeatherItem{}
	if s.WeatherStationID == "" {
		return &weatherOutput{Body: items}, nil
	}
	obs, err := h.store.Observations(ctx, s.TenantID, s.WeatherStationID, begin, end)
	if err != nil {
		return nil, err
	}
	return &weatherOutput{Body: weatherItems(obs, s.Location())}, nil
}

func weatherItems(obs []weather.Observation, loc *time.Location) []WeatherItem {
	items := make([]WeatherItem, len(obs))
	for i, o := range obs {
		items[i] = WeatherItem{Date: o.Date.In(loc).Format(time.RFC3339), Picto: o.Picto, Temperature: o.Temperature, Wind: o.Wind, Cloudiness: o.Cloudiness}
	}
	return items
}
