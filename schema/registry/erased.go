package registry

// Erased is told by an erasure (on the energyd that runs it, and on every other energyd once it
// has seen the erasure DONE) that the site's data is gone: the site's data version moves, so an
// answer being computed from the old data is not stored (see cache.Results), then everything
// registered with OnErased drops what it keeps of the site (the result caches their answers,
// the directory the tenant's copy). The change is not recorded in data_versions: a row there
// would name the erased site again; other energyd learn of it from the erasure itself.
func (v *DataVersions) Erased(tenantID, siteID string) {
	v.mu.Lock()
	v.byID[[2]string{tenantID, siteID}]++
	listeners := v.onErased
	v.mu.Unlock()
	for _, f := range listeners {
		f(tenantID, siteID)
	}
}

// OnErased registers f to be called with each site erased (see Erased); f must be safe for
// concurrent use and not call back into v.
func (v *DataVersions) OnErased(f func(tenantID, siteID string)) {
	v.mu.Lock()
	v.onErased = append(v.onErased, f)
	v.mu.Unlock()
}

// forgetTenant drops the tenant's copy, which holds the erased site's record: the next lookup
// loads the tenant again, without it.
func (d *Directory) forgetTenant(tenantID, _ string) {
	d.mu.Lock()
	delete(d.tenants, tenantID)
	d.mu.Unlock()
}
