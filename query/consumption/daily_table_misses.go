package consumption

import (
	"sync"
	"time"

	"energy/schema/registry"
)

// tableMisses remembers the sites whose daily table rows cannot answer, until their data
// changes, so that their requests read the readings in one query rather than two. Only what
// holds for the site whatever the period is remembered: the table held none of its days
// (never written, or written before an upgrade and not rebuilt), or a day made of several
// reading intervals (readings not at midnight, or several a day; a meter change inside a day
// counts too, until the site's data changes). A gap, an estimated day or
// a period past the data concern that period only: they are not remembered. A memory is
// forgotten after tableMissAge too: `energyctl daily rebuild`, run by another process, writes
// rows without changing the data versions.
type tableMisses struct {
	mu    sync.Mutex
	sites map[[2]string]tableMiss
}

// tableMiss is when the table was found unable to answer a site, at which versions.
type tableMiss struct {
	at    siteVersions
	since time.Time
}

// tableMissAge is how long a site is sent to the readings without trying the table again.
const tableMissAge = 10 * time.Minute

// siteVersions are a site's data version and its tenant's reference version.
type siteVersions [2]uint64

// maxTableMisses bounds the memory: past it, it starts over (the cost is a table read per site).
const maxTableMisses = 100_000

func versionsOf(v *registry.DataVersions, site registry.Site) siteVersions {
	return siteVersions{v.Get(site.TenantID, site.SiteID), v.Get(site.TenantID, "")}
}

// holds tells whether the table was found unable to answer the site at these versions, less
// than tableMissAge before now.
func (m *tableMisses) holds(site registry.Site, at siteVersions, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.sites[[2]string{site.TenantID, site.SiteID}]
	return ok && v.at == at && now.Sub(v.since) < tableMissAge
}

// remember notes that the table cannot answer the site at versions at (read before the table
// was): a change of its data since makes it try again.
func (m *tableMisses) remember(site registry.Site, at siteVersions, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sites == nil || len(m.sites) >= maxTableMisses {
		m.sites = map[[2]string]tableMiss{}
	}
	m.sites[[2]string{site.TenantID, site.SiteID}] = tableMiss{at, now}
}
