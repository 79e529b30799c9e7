package targets

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"energy/schema"
	"energy/schema/audit"
	"energy/schema/tables"
)

// The stored names of the updatable fields (rows of target_settings).
const (
	settingValue    = "targetValue"
	settingChannels = "notificationChannels"
	settingType     = "notificationType"
)

// Store keeps targets in ClickHouse: the fixed fields in one row, each updatable field in a
// row of its own so that concurrent updates of different fields never lose one.
type Store struct {
	db     *schema.DB
	rowVer schema.RowVersions
	now    func() time.Time
}

// NewStore returns a target store over db.
func NewStore(db *schema.DB) *Store { return &Store{db: db, now: time.Now} }

// Create stores a new target of t's tenant and site (which the caller has checked exist) and
// returns it with its id and generation time set.
func (s *Store) Create(ctx context.Context, t Target) (Target, error) {
	if t.NotificationType == "" {
		t.NotificationType = NotifyNone
	}
	if t.NotificationChannels == nil {
		t.NotificationChannels = []string{}
	}
	if err := t.Validate(); err != nil {
		return t, err
	}
	t.TargetID = uuid.NewString()
	t.GenerationTS = s.now().UTC().Truncate(time.Second)
	version := s.rowVer.Next()
	t.ValueRevision = version
	def := math.NaN()
	if t.DefaultTargetValue != nil {
		def = *t.DefaultTargetValue
	}
	// Settings first: a target row is only visible once its settings are stored.
	if err := s.putSettings(ctx, t, map[string]string{
		settingValue:    formatValue(t.TargetValue),
		settingChannels: strings.Join(t.NotificationChannels, ","),
		settingType:     t.NotificationType,
	}, version); err != nil {
		return t, err
	}
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.Targets+" (tenant_id, site_id, target_id, generation_ts, begin_ts, end_ts, type, unit, default_target_value, name, version)")
	if err != nil {
		return t, err
	}
	if err := b.Append(t.TenantID, t.SiteID, t.TargetID, t.GenerationTS, t.Begin.UTC(), t.End.UTC(), t.Type, t.Unit, def, t.Name, version); err != nil {
		return t, err
	}
	if err := b.Send(); err != nil {
		return t, err
	}
	return t, audit.Record(ctx, s.db, t.TenantID, audit.TargetCreate, "sites/"+t.SiteID+"/targets/"+t.TargetID, nil, t)
}

// Update applies u to a stored target: a change to a field that may not change fails with
// *NotUpdatableError and a bad value with a field error, both storing nothing. Only the
// fields that change are written.
func (s *Store) Update(ctx context.Context, tenantID, siteID, targetID string, u Update) (Target, error) {
	if err := u.validate(); err != nil {
		return Target{}, err
	}
	t, err := s.Get(ctx, tenantID, siteID, targetID)
	if err != nil {
		return t, err
	}
	if fields := u.frozenChanges(t); len(fields) > 0 {
		return t, &NotUpdatableError{Fields: fields}
	}
	changes := u.changedSettings(t)
	if len(changes) == 0 {
		return t, nil
	}
	version := s.rowVer.Next()
	if err := s.putSettings(ctx, t, changes, version); err != nil {
		return t, err
	}
	after, err := s.Get(ctx, tenantID, siteID, targetID)
	if err != nil {
		return after, err
	}
	return after, audit.Record(ctx, s.db, tenantID, audit.TargetUpdate, "sites/"+siteID+"/targets/"+targetID, t, after)
}

func (s *Store) putSettings(ctx context.Context, t Target, fields map[string]string, version uint64) error {
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.TargetSettings+" (tenant_id, site_id, target_id, field, value, version)")
	if err != nil {
		return err
	}
	for _, f := range []string{settingValue, settingChannels, settingType} {
		if v, ok := fields[f]; ok {
			if err := b.Append(t.TenantID, t.SiteID, t.TargetID, f, v, version); err != nil {
				return err
			}
		}
	}
	return b.Send()
}

// Get returns a target of the tenant's site, or ErrNotFound.
func (s *Store) Get(ctx context.Context, tenantID, siteID, targetID string) (Target, error) {
	ts, err := s.query(ctx, tenantID, siteID, targetID)
	if err != nil {
		return Target{}, err
	}
	if len(ts) == 0 {
		return Target{}, ErrNotFound
	}
	return ts[0], nil
}

// List returns the targets of the tenant's site in creation order.
func (s *Store) List(ctx context.Context, tenantID, siteID string) ([]Target, error) {
	return s.query(ctx, tenantID, siteID, "")
}

// ListTenant returns every target of the tenant (support tools), by site then creation.
func (s *Store) ListTenant(ctx context.Context, tenantID string) ([]Target, error) {
	return s.query(ctx, tenantID, "", "")
}

// Find returns a target of the tenant by its id alone, whatever its site.
func (s *Store) Find(ctx context.Context, tenantID, targetID string) (Target, error) {
	ts, err := s.query(ctx, tenantID, "", targetID)
	if err != nil {
		return Target{}, err
	}
	if len(ts) == 0 {
		return Target{}, ErrNotFound
	}
	return ts[0], nil
}

// query reads the tenant's targets (of one site, and one target, when those are not empty)
// with their settings.
func (s *Store) query(ctx context.Context, tenantID, siteID, targetID string) ([]Target, error) {
	where, args := "tenant_id = ?", []any{tenantID}
	if siteID != "" {
		where, args = where+" AND site_id = ?", append(args, siteID)
	}
	if targetID != "" {
		where, args = where+" AND target_id = ?", append(args, targetID)
	}
	rows, err := s.db.Conn.Query(ctx, "SELECT site_id, target_id, generation_ts, begin_ts, end_ts, type, unit, default_target_value, name FROM "+tables.Targets+" FINAL WHERE "+
		where+" ORDER BY site_id, version, target_id", args...)
	if err != nil {
		return nil, err
	}
	var out []Target
	for rows.Next() {
		t := Target{TenantID: tenantID}
		var def float64
		if err := rows.Scan(&t.SiteID, &t.TargetID, &t.GenerationTS, &t.Begin, &t.End, &t.Type, &t.Unit, &def, &t.Name); err != nil {
			rows.Close()
			return nil, err
		}
		if !math.IsNaN(def) {
			t.DefaultTargetValue = &def
		}
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	settings, err := s.db.Conn.Query(ctx, "SELECT site_id, target_id, field, argMax(value, version), max(version) FROM "+tables.TargetSettings+" WHERE "+
		where+" GROUP BY site_id, target_id, field", args...)
	if err != nil {
		return nil, err
	}
	defer settings.Close()
	type key struct{ site, target string }
	byID := map[key]*Target{}
	for i := range out {
		byID[key{out[i].SiteID, out[i].TargetID}] = &out[i]
	}
	for settings.Next() {
		var site, id, field, value string
		var version uint64
		if err := settings.Scan(&site, &id, &field, &value, &version); err != nil {
			return nil, err
		}
		t := byID[key{site, id}]
		if t == nil {
			continue
		}
		switch field {
		case settingValue:
			if t.TargetValue, err = strconv.ParseFloat(value, 64); err != nil {
				return nil, fmt.Errorf("target %s: stored targetValue %q: %w", id, value, err)
			}
			t.ValueRevision = version
		case settingChannels:
			t.NotificationChannels = splitChannels(value)
		case settingType:
			t.NotificationType = value
		}
	}
	return out, settings.Err()
}

func splitChannels(v string) []string {
	if v == "" {
		return []string{}
	}
	return strings.Split(v, ",")
}

func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
