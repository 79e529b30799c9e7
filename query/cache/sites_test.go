package cache

import (
	"context"
	"errors"
	"testing"

	"energy/schema/chtest"
	"energy/schema/registry"
)

// TestSites: a site is read once, an edit through the registry is seen at once, and an
// unknown site is ErrNotFound every time (misses are not cached: a site created by another
// process is found at once).
func TestSites(t *testing.T) {
	db := chtest.DB(t)
	reg := registry.New(db)
	ctx := context.Background()
	site := registry.Site{TenantID: "T1", SiteID: "S1", Timezone: "Europe/Paris"}
	if err := reg.PutSite(ctx, site); err != nil {
		t.Fatal(err)
	}
	sites := NewSites(reg)
	s, err := sites.Site(ctx, "T1", "S1")
	if err != nil || s.Timezone != "Europe/Paris" {
		t.Fatalf("Site = %+v, %v", s, err)
	}
	site.Timezone = "America/New_York"
	if err := reg.PutSite(ctx, site); err != nil {
		t.Fatal(err)
	}
	if s, err = sites.Site(ctx, "T1", "S1"); err != nil || s.Timezone != "America/New_York" {
		t.Fatalf("after an edit: Site = %+v, %v", s, err)
	}
	if _, err := sites.Site(ctx, "T1", "S2"); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("unknown site: %v, want ErrNotFound", err)
	}
	if err := registry.New(db).PutSite(ctx, registry.Site{TenantID: "T1", SiteID: "S2", Timezone: "Europe/Paris"}); err != nil {
		t.Fatal(err)
	}
	if _, err := sites.Site(ctx, "T1", "S2"); err != nil {
		t.Fatalf("a site created by another process: %v", err)
	}
	if _, err := sites.Site(ctx, "other", "S1"); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("another tenant's site: %v, want ErrNotFound", err)
	}
}
