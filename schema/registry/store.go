package registry

import (
	"context"
	"errors"
	"time"

	"energy/schema"
	"energy/schema/tables"
)

// Store reads and writes reference data in ClickHouse.
type Store struct {
	db     *schema.DB
	auth   tokenCache
	rowVer schema.RowVersions
	// Versions counts data changes per site (bumped by ingest) for result caches; changes made
	// through other processes reach it while Versions.Watch runs.
	Versions *DataVersions
	// Directory answers the sites and tariffs that computed answers read, from memory.
	Directory *Directory
	// AfterChange, when set, hears each site and tariff written through this store, once
	// written: what is derived from them (the daily energy table's headings and days) is
	// rewritten there. It must not block: a long rewrite runs on its own.
	AfterChange func(ctx context.Context, c ReferenceChange)

	now func() time.Time
}

// ReferenceChange names the site (SiteID) or the tariff (TariffID) of a tenant just written.
type ReferenceChange struct{ TenantID, SiteID, TariffID string }

func (s *Store) changed(ctx context.Context, c ReferenceChange) {
	if s.AfterChange != nil {
		s.AfterChange(ctx, c)
	}
}

// New returns a store over db.
func New(db *schema.DB) *Store {
	s := &Store{db: db, now: time.Now, Versions: newRecordedDataVersions(db)}
	s.Directory = newDirectory(s)
	s.Versions.OnErased(s.Directory.forgetTenant)
	return s
}

// DB is the database the store writes to.
func (s *Store) DB() *schema.DB { return s.db }

// version returns the version of a row written now: the last write of a resource wins.
func (s *Store) version() uint64 { return s.rowVer.Next() }

// IDPattern is the rule of the identifiers used in paths (sites, tariffs, weather stations).
const IDPattern = `^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`

// isID tells whether id follows IDPattern. A loop, not the regular expression: the
// consumption endpoint checks its path's site id on every request, cached answers included.
func isID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == ':' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// validID checks an identifier used in paths: 1-128 characters, letters, digits, . _ : -.
func validID(field, id string) error {
	if !isID(id) {
		return fieldErr(field, "must be 1 to 128 characters among letters, digits, '.', '_', ':' and '-', starting with a letter or digit (got %q)", id)
	}
	return nil
}

// ValidID is validID for other packages.
func ValidID(field, id string) error { return validID(field, id) }

func (s *Store) ensureTenant(ctx context.Context, tenantID string) error {
	var n uint64
	if err := s.db.Conn.QueryRow(ctx, "SELECT count() FROM "+tables.Tenants+" WHERE tenant_id = ?", tenantID).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.Tenants+" (tenant_id, name, created_ts, version)")
	if err != nil {
		return err
	}
	if err := b.Append(tenantID, tenantID, s.now().UTC(), s.version()); err != nil {
		return err
	}
	return b.Send()
}

// existing is what a read found, for the audit trail's "before": nil when it found nothing.
func (s *Store) existing(v any, err error) (any, error) {
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}
