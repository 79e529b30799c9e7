package cache

import (
	"context"
	"strconv"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"energy/schema/registry"
)

// Bounds of the caches of reference records (sites, tariffs) read by computed answers.
const (
	referenceEntries = 10000
	// ReferenceTTL bounds how long an edit made by another process (another energyd, or
	// energyctl) may go unseen; edits through this process's registry are seen at once.
	ReferenceTTL = 5 * time.Second
)

// Reference keeps reference records (sites, tariffs) that every computed answer reads,
// saving a ClickHouse round trip (a FINAL read of a small table) per answer. An entry is keyed
// by the tenant's reference version (registry.DataVersions Get(tenant, ""), bumped by PutSite
// and PutTariff), so this process's edits are seen by the next request, and it expires after
// ReferenceTTL. Only records found are kept: a missing one is looked up every time.
type Reference[V any] struct {
	lru      *lru.Cache[string, referenceEntry[V]]
	versions *registry.DataVersions
	// Now is the clock that ages entries; tests replace it.
	Now func() time.Time
}

type referenceEntry[V any] struct {
	value  V
	loaded time.Time
}

// NewReference returns an empty cache whose entries follow versions.
func NewReference[V any](versions *registry.DataVersions) *Reference[V] {
	c, err := lru.New[string, referenceEntry[V]](referenceEntries)
	if err != nil {
		panic(err) // only for a size < 1
	}
	return &Reference[V]{lru: c, versions: versions, Now: time.Now}
}

// Get returns the record id of the tenant, from the cache or from load.
func (c *Reference[V]) Get(ctx context.Context, tenantID, id string, load func(context.Context) (V, error)) (V, error) {
	// The version is read before loading: an edit during the load bumps it, and the entry
	// stored under the old version is never read again.
	key := tenantID + "\x00" + id + "\x00" + strconv.FormatUint(c.versions.Get(tenantID, ""), 10)
	now := c.Now()
	if e, ok := c.lru.Get(key); ok && now.Sub(e.loaded) < ReferenceTTL {
		return e.value, nil
	}
	v, err := load(ctx)
	if err != nil {
		return v, err
	}
	c.lru.Add(key, referenceEntry[V]{v, now})
	return v, nil
}
