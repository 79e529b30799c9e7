package registry

import (
	"context"
	"math"

	"energy/schema/audit"
	"energy/schema/tables"
)

// Station is a weather station whose observations serve the tenant's sites.
type Station struct {
	TenantID  string  `json:"-"`
	StationID string  `json:"stationId"`
	Name      string  `json:"name"`
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// Validate checks the station's fields.
func (st Station) Validate() error {
	if err := validID("stationId", st.StationID); err != nil {
		return err
	}
	if st.Name == "" || len(st.Name) > 256 {
		return fieldErr("name", "is required and at most 256 characters")
	}
	if math.IsNaN(st.Latitude) || st.Latitude < -90 || st.Latitude > 90 {
		return fieldErr("latitude", "must be between -90 and 90 (got %v)", st.Latitude)
	}
	if math.IsNaN(st.Longitude) || st.Longitude < -180 || st.Longitude > 180 {
		return fieldErr("longitude", "must be between -180 and 180 (got %v)", st.Longitude)
	}
	return nil
}

// PutStation creates or replaces a station.
func (s *Store) PutStation(ctx context.Context, st Station) error {
	if err := st.Validate(); err != nil {
		return err
	}
	if err := s.ensureTenant(ctx, st.TenantID); err != nil {
		return err
	}
	before, err := s.existing(s.Station(ctx, st.TenantID, st.StationID))
	if err != nil {
		return err
	}
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.WeatherStations+" (tenant_id, station_id, name, latitude, longitude, updated_ts, version)")
	if err != nil {
		return err
	}
	if err := b.Append(st.TenantID, st.StationID, st.Name, st.Latitude, st.Longitude, s.now().UTC(), s.version()); err != nil {
		return err
	}
	if err := b.Send(); err != nil {
		return err
	}
	return audit.Record(ctx, s.db, st.TenantID, audit.StationPut, "weather-stations/"+st.StationID, before, st)
}

// Station returns a station of the tenant or ErrNotFound.
func (s *Store) Station(ctx context.Context, tenantID, stationID string) (Station, error) {
	rows, err := s.db.Conn.Query(ctx, "SELECT station_id, name, latitude, longitude FROM "+tables.WeatherStations+" FINAL WHERE tenant_id = ? AND station_id = ?", tenantID, stationID)
	if err != nil {
		return Station{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		return Station{}, notFoundOr(rows.Err())
	}
	st := Station{TenantID: tenantID}
	err = rows.Scan(&st.StationID, &st.Name, &st.Latitude, &st.Longitude)
	return st, err
}
