package registry

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"
)

// Bounds of the directory's copy of a tenant's sites and tariffs.
const (
	// DirectoryMaxAge bounds how long an edit may go unseen when no data version announces it
	// (a process that does not watch versions, a replica whose copy of the registry tables lags
	// behind its data_versions): a copy this old is reloaded before it answers.
	DirectoryMaxAge = 5 * time.Second
	// directoryRefreshAge is the age from which a copy still answers while it is reloaded in the
	// background, so that a tenant in use is never reloaded on a request's path for age alone.
	directoryRefreshAge = DirectoryMaxAge / 2
	// directoryReloadTimeout bounds a background reload.
	directoryReloadTimeout = 30 * time.Second
)

// Directory keeps the tenants' sites and tariffs in memory, so that an answer finds its site and
// tariff without a ClickHouse query. A tenant's records are loaded whole (its sites and its
// tariffs, two concurrent queries; Warm loads every tenant at once) and loaded again:
//   - at once when the tenant's reference version (Versions.Get(tenant, "")) changed since: an
//     edit through this store is seen by the next lookup, one through another process (another
//     energyd, energyctl) once Versions.Watch has applied it;
//   - in the background when the copy is older than DirectoryMaxAge/2, and before answering
//     when it is older than DirectoryMaxAge; unless the tenant's registry rows are unchanged
//     (their fingerprint, one small query): then the copy is kept and its age restarts, so that
//     a tenant of 10,000 sites in use is not read whole every few seconds.
//
// A record missing from the copy is read from the registry (one query) and kept: a site created
// a moment ago through another replica is found; an unknown one is ErrNotFound every time.
// Records handed out are shared: callers must not modify them.
type Directory struct {
	store *Store
	// Now is the clock that ages copies; tests replace it.
	Now func() time.Time

	mu      sync.RWMutex
	tenants map[string]*tenantRecords
	loads   singleflight.Group
}

// tenantRecords is one tenant's copy, valid while the tenant's reference version is version.
type tenantRecords struct {
	version uint64
	loaded  time.Time
	sites   map[string]Site
	tariffs map[string]Tariff
	// fingerprint is that of the registry rows the copy was read from; nil when unknown (Warm).
	fingerprint *fingerprint
	// refreshing is set once a background reload of this copy has started: one at a time.
	refreshing atomic.Bool
}

func newDirectory(s *Store) *Directory {
	return &Directory{store: s, Now: time.Now, tenants: map[string]*tenantRecords{}}
}

// Site returns a site of the tenant, or ErrNotFound (also when another tenant has that id).
// Its Contact is nil, as from Store.Site.
func (d *Directory) Site(ctx context.Context, tenantID, siteID string) (Site, error) {
	return lookUp(ctx, d, tenantID, siteID, func(r *tenantRecords) map[string]Site { return r.sites }, d.store.Site)
}

// Tariff returns a tariff of the tenant, or ErrNotFound.
func (d *Directory) Tariff(ctx context.Context, tenantID, tariffID string) (Tariff, error) {
	return lookUp(ctx, d, tenantID, tariffID, func(r *tenantRecords) map[string]Tariff { return r.tariffs }, d.store.Tariff)
}

// lookUp finds id in the tenant's copy (records picks the map), or reads it with read and keeps
// it in the copy.
func lookUp[V any](ctx context.Context, d *Directory, tenantID, id string, records func(*tenantRecords) map[string]V,
	read func(context.Context, string, string) (V, error)) (V, error) {
	recs, err := d.current(ctx, tenantID)
	if err != nil {
		var zero V
		return zero, err
	}
	d.mu.RLock()
	v, ok := records(recs)[id]
	d.mu.RUnlock()
	if ok {
		return v, nil
	}
	v, err = read(ctx, tenantID, id)
	if err != nil {
		return v, err
	}
	// Kept in the copy it was missing from: a newer copy holds it anyway, and an edit since the
	// read bumped the version, which discards this copy.
	d.mu.Lock()
	records(recs)[id] = v
	d.mu.Unlock()
	return v, nil
}

// current returns the tenant's copy for its current reference version, loading it when there is
// none, when the version moved, or when the copy is too old.
func (d *Directory) current(ctx context.Context, tenantID string) (*tenantRecords, error) {
	// The version is read before loading: an edit during the load bumps it, and the copy
	// stored under the old version is never used again.
	version := d.store.Versions.Get(tenantID, "")
	d.mu.RLock()
	recs := d.tenants[tenantID]
	d.mu.RUnlock()
	if recs != nil && recs.version == version {
		switch age := d.Now().Sub(recs.loaded); {
		case age < directoryRefreshAge:
			return recs, nil
		case age < DirectoryMaxAge:
			if recs.refreshing.CompareAndSwap(false, true) {
				go d.reloadInBackground(tenantID, version, recs)
			}
			return recs, nil
		}
	}
	return d.load(ctx, tenantID, version, recs)
}

// reloadInBackground replaces the tenant's aging copy stale, detached from any request. A
// failure leaves the copy to age into a reload on a request's path.
func (d *Directory) reloadInBackground(tenantID string, version uint64, stale *tenantRecords) {
	ctx, cancel := context.WithTimeout(context.Background(), directoryReloadTimeout)
	defer cancel()
	_, _ = d.load(ctx, tenantID, version, stale)
}

// load reads the tenant's sites and tariffs as of version, unless a load of the same tenant
// and version already runs (its result is shared) or the copy was replaced since stale was read.
// A stale copy of the same version whose registry rows have the same fingerprint is kept
// instead, its age restarted.
func (d *Directory) load(ctx context.Context, tenantID string, version uint64, stale *tenantRecords) (*tenantRecords, error) {
	key := tenantID + "\x00" + strconv.FormatUint(version, 10)
	v, err, _ := d.loads.Do(key, func() (any, error) {
		d.mu.RLock()
		recs := d.tenants[tenantID]
		d.mu.RUnlock()
		if recs != stale && recs != nil && recs.version == version {
			return recs, nil // loaded by a call that finished meanwhile
		}
		// One caller's cancellation must not fail the others waiting on this load.
		ctx := context.WithoutCancel(ctx)
		loaded := d.Now()
		// Read before the rows: an edit in between makes the next fingerprint differ.
		fp, err := d.store.tenantFingerprint(ctx, tenantID)
		if err != nil {
			return nil, err
		}
		if stale != nil && stale.version == version && stale.fingerprint != nil && *stale.fingerprint == fp {
			recs = &tenantRecords{version: version, loaded: loaded, sites: stale.sites, tariffs: stale.tariffs, fingerprint: &fp}
			d.keep(tenantID, recs)
			return recs, nil
		}
		var sites []Site
		var tariffs []Tariff
		g, gctx := errgroup.WithContext(ctx)
		g.Go(func() (err error) {
			sites, err = d.store.querySites(gctx, "tenant_id = ?", tenantID)
			return err
		})
		g.Go(func() (err error) {
			tariffs, _, err = d.store.queryTariffs(gctx, "tenant_id = ?", tenantID)
			return err // a corrupt tariff stays out of the copy: reading it alone reports it
		})
		if err := g.Wait(); err != nil {
			return nil, err
		}
		recs = newTenantRecords(version, loaded, sites, tariffs)
		recs.fingerprint = &fp
		d.keep(tenantID, recs)
		return recs, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*tenantRecords), nil
}

func newTenantRecords(version uint64, loaded time.Time, sites []Site, tariffs []Tariff) *tenantRecords {
	recs := &tenantRecords{version: version, loaded: loaded,
		sites: make(map[string]Site, len(sites)), tariffs: make(map[string]Tariff, len(tariffs))}
	for _, s := range sites {
		recs.sites[s.SiteID] = s
	}
	for _, t := range tariffs {
		recs.tariffs[t.TariffID] = t
	}
	return recs
}

// keep stores a tenant's copy unless the one there is of a later version or loaded later.
func (d *Directory) keep(tenantID string, recs *tenantRecords) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if cur := d.tenants[tenantID]; cur != nil && (cur.version > recs.version || cur.version == recs.version && cur.loaded.After(recs.loaded)) {
		return
	}
	d.tenants[tenantID] = recs
}

// Warm loads every tenant's sites and tariffs (two queries), so that no first view of a site
// waits on the registry.
func (d *Directory) Warm(ctx context.Context) error {
	versions := d.store.Versions.tenantVersions()
	loaded := d.Now()
	var sites []Site
	var tariffs []Tariff
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		sites, err = d.store.querySites(gctx, "1 = 1")
		return err
	})
	g.Go(func() (err error) {
		tariffs, _, err = d.store.queryTariffs(gctx, "1 = 1")
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	sitesOf, tariffsOf := map[string][]Site{}, map[string][]Tariff{}
	for _, s := range sites {
		sitesOf[s.TenantID] = append(sitesOf[s.TenantID], s)
	}
	for _, t := range tariffs {
		tariffsOf[t.TenantID] = append(tariffsOf[t.TenantID], t)
	}
	for tenant := range sitesOf {
		d.keep(tenant, newTenantRecords(versions[tenant], loaded, sitesOf[tenant], tariffsOf[tenant]))
	}
	for tenant := range tariffsOf {
		if sitesOf[tenant] == nil {
			d.keep(tenant, newTenantRecords(versions[tenant], loaded, nil, tariffsOf[tenant]))
		}
	}
	return nil
}
