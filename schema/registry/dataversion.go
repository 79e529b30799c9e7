package registry

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"energy/schema"
	"energy/schema/tables"
)

// DataVersions counts, per site, how many times its readings changed (site "" of a tenant: its
// sites and tariffs). Result caches key on it: ingest bumps a site's version after inserting
// its rows, so a cached answer computed before the insert is never served again.
//
// With a database, each Bump is also recorded in the data_versions table, and Watch applies the
// changes recorded by other processes (other energyd replicas, energyctl) to this one, so their
// changes invalidate this process's caches within one watch interval.
type DataVersions struct {
	mu   sync.RWMutex
	byID map[[2]string]uint64

	db      *schema.DB // nil: changes of this process only
	rowVer  schema.RowVersions
	pending map[[2]string]bool   // changes whose recording failed, retried by Watch
	applied map[[2]string]uint64 // highest recorded version applied here (or written), by key
	seen    uint64               // highest recorded version seen by Watch
	since   uint64               // recorded versions up to this one predate the process

	onErased  []func(tenantID, siteID string)        // see OnErased
	listeners []func(tenantID, siteID string)        // told of every change, local or watched
	preparers []func(tenantID, siteID string) func() // asked before each Bump of a site's data
	bumping   sync.Mutex                             // one prepared Bump at a time
}

// NewDataVersions returns an empty counter set that sees this process's changes only.
func NewDataVersions() *DataVersions { return &DataVersions{byID: map[[2]string]uint64{}} }

// newRecordedDataVersions returns a counter set whose changes are recorded in db's
// data_versions table.
func newRecordedDataVersions(db *schema.DB) *DataVersions {
	v := NewDataVersions()
	v.db, v.pending, v.applied = db, map[[2]string]bool{}, map[[2]string]uint64{}
	v.since = uint64(time.Now().UnixNano())
	return v
}

// Get returns the site's current version.
func (v *DataVersions) Get(tenantID, siteID string) uint64 {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.byID[[2]string{tenantID, siteID}]
}

// tenantVersions returns every tenant's reference version (site ""), for a load of all tenants.
func (v *DataVersions) tenantVersions() map[string]uint64 {
	v.mu.RLock()
	defer v.mu.RUnlock()
	out := map[string]uint64{}
	for k, ver := range v.byID {
		if k[1] == "" {
			out[k[0]] = ver
		}
	}
	return out
}

// OnChange has f told of every change of a version, after it is counted: this process's
// (Bump) and, with a database, the ones Watch applies from other processes. f runs on the
// changer's goroutine (an ingest worker, the watcher), so it must return fast; it may call Get.
func (v *DataVersions) OnChange(f func(tenantID, siteID string)) {
	v.mu.Lock()
	v.listeners = append(v.listeners, f)
	v.mu.Unlock()
}

// OnPrepare has f asked before this process counts a change of a site's data (Bump with a
// site): f may compute, on the data already written, what the change's new version will need,
// and returns what to do once the change is counted (nil: nothing). Prepared Bumps run one at a
// time: two ingest jobs writing to one site would otherwise both prepare for the same next
// version, and the second's work would be lost.
func (v *DataVersions) OnPrepare(f func(tenantID, siteID string) (counted func())) {
	v.mu.Lock()
	v.preparers = append(v.preparers, f)
	v.mu.Unlock()
}

// changed tells the listeners of the changes of keys; v.mu must not be held.
func (v *DataVersions) changed(keys ...[2]string) {
	v.mu.RLock()
	listeners := v.listeners
	v.mu.RUnlock()
	for _, k := range keys {
		for _, f := range listeners {
			f(k[0], k[1])
		}
	}
}

// Bump records a change to the site's data, once the preparers (OnPrepare) have made ready what
// the new version needs.
func (v *DataVersions) Bump(tenantID, siteID string) {
	key := [2]string{tenantID, siteID}
	v.mu.RLock()
	preparers := v.preparers
	v.mu.RUnlock()
	var counted []func()
	if siteID != "" && len(preparers) > 0 {
		v.bumping.Lock()
		for _, p := range preparers {
			if f := p(tenantID, siteID); f != nil {
				counted = append(counted, f)
			}
		}
	}
	v.mu.Lock()
	v.byID[key]++
	v.mu.Unlock()
	if siteID != "" && len(preparers) > 0 {
		for _, f := range counted {
			f()
		}
		v.bumping.Unlock()
	}
	v.changed(key)
	if v.db == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := v.record(ctx, []([2]string){key}); err != nil {
		v.mu.Lock()
		v.pending[key] = true // Watch retries; other processes see the change late, not never
		v.mu.Unlock()
	}
}

func (v *DataVersions) record(ctx context.Context, keys [][2]string) error {
	b, err := v.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.DataVersions+" (tenant_id, site_id, version, changed_ts)")
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	first := v.rowVer.Reserve(len(keys))
	for i, k := range keys {
		if err := b.Append(k[0], k[1], first+uint64(i), now); err != nil {
			return err
		}
	}
	// These rows are this process's changes, already counted: mark them applied before they
	// become visible, or a poll running while Send returns would count them a second time.
	v.mu.Lock()
	before := make([]uint64, len(keys))
	for i, k := range keys {
		before[i] = v.applied[k]
		v.applied[k] = max(v.applied[k], first+uint64(i))
	}
	v.mu.Unlock()
	if err := b.Send(); err != nil {
		v.mu.Lock()
		for i, k := range keys {
			if v.applied[k] == first+uint64(i) { // nothing newer applied meanwhile
				v.applied[k] = before[i]
			}
		}
		v.mu.Unlock()
		return err
	}
	return nil
}

// watchLookBack is how far behind the newest change seen a change may arrive (a writer's clock
// behind, a replica's lag) and still be applied.
const watchLookBack = 30 * time.Second

// Watch polls data_versions every interval until ctx ends and bumps the local version of every
// key that another process changed, so that this process's cached answers for it are dropped.
// It also retries the recording of changes that Bump could not record. Without a database it
// returns at once.
func (v *DataVersions) Watch(ctx context.Context, every time.Duration, log *slog.Logger) {
	if v.db == nil {
		return
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		v.flushPending(ctx)
		if err := v.poll(ctx); err != nil {
			log.Debug("data versions poll failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (v *DataVersions) flushPending(ctx context.Context) {
	v.mu.Lock()
	keys := make([][2]string, 0, len(v.pending))
	for k := range v.pending {
		keys = append(keys, k)
	}
	v.mu.Unlock()
	if len(keys) == 0 || v.record(ctx, keys) != nil {
		return
	}
	v.mu.Lock()
	for _, k := range keys {
		delete(v.pending, k)
	}
	v.mu.Unlock()
}

// poll applies the changes recorded since the newest one seen (less watchLookBack). Changes
// recorded before this process started are only noted: it has cached nothing older.
func (v *DataVersions) poll(ctx context.Context) error {
	from := uint64(0)
	if v.seen > uint64(watchLookBack) {
		from = v.seen - uint64(watchLookBack)
	}
	// Read whole before taking the lock: rows arrive as ClickHouse computes them, and every
	// cached answer's key reads the versions under that lock (under ingest the query took tens
	// of milliseconds, and so did every cached read that came meanwhile).
	type recorded struct {
		key [2]string
		ver uint64
	}
	var got []recorded
	rows, err := v.db.Conn.Query(ctx, "SELECT tenant_id, site_id, max(version) FROM "+tables.DataVersions+" WHERE version > ? GROUP BY tenant_id, site_id", from)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r recorded
		if err := rows.Scan(&r.key[0], &r.key[1], &r.ver); err != nil {
			return err
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	var changed [][2]string
	v.mu.Lock()
	for _, r := range got {
		k, ver := r.key, r.ver
		if ver > v.seen {
			v.seen = ver
		}
		if ver <= v.applied[k] {
			continue
		}
		v.applied[k] = ver
		if ver > v.since {
			v.byID[k]++
			changed = append(changed, k)
		}
	}
	v.mu.Unlock()
	v.changed(changed...)
	return nil
}
