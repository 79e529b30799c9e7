package daily

import (
	"context"
	"errors"
	"time"

	"energy/schema"
	"energy/schema/registry"
	"energy/schema/tables"
)

// Span is the stored index readings of one fluid of one site: the days Rebuild writes.
type Span struct {
	TenantID, SiteID, Fluid string
	First, Last             time.Time
}

// Spans lists, per tenant, site and fluid, the span of the index readings stored, optionally
// of one tenant (tenantID "": all) and some of its sites (siteIDs empty: all).
func (t *Table) Spans(ctx context.Context, tenantID string, siteIDs []string) ([]Span, error) {
	where, args := "(? = '' OR tenant_id = ?)", []any{tenantID, tenantID}
	if len(siteIDs) > 0 { // an empty array would be Array(Nothing), which has() refuses
		where, args = where+" AND has(?, site_id)", append(args, siteIDs)
	}
	var out []Span
	for _, src := range []struct{ table, fluid string }{
		{tables.ElecIndexesBySite, registry.HeatingElec}, {tables.GasIndexesBySite, registry.HeatingGas},
	} {
		// table is one of two constants; every value is bound.
		spans, err := schema.ScanAll(ctx, t.db, func(r schema.RowScanner) (Span, error) {
			s := Span{Fluid: src.fluid}
			err := r.Scan(&s.TenantID, &s.SiteID, &s.First, &s.Last)
			return s, err
		}, "SELECT tenant_id, site_id, min(ts), max(ts) FROM "+src.table+
			" WHERE "+where+" GROUP BY tenant_id, site_id ORDER BY tenant_id, site_id", args...)
		if err != nil {
			return nil, err
		}
		out = append(out, spans...)
	}
	return out, nil
}

// Rebuild writes every day of the spans (Spans), one span after the other, and calls progress
// after each with the spans done and the rows written so far. Sites no longer in the registry
// are skipped. Rewriting a day that is already right changes nothing a reader sees.
func (t *Table) Rebuild(ctx context.Context, spans []Span, progress func(done, rows int)) (int, error) {
	rows := 0
	for i, s := range spans {
		site, err := t.reg.Directory.Site(ctx, s.TenantID, s.SiteID)
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			return rows, err
		}
		if err == nil {
			n, err := t.WriteDays(ctx, site, s.Fluid, s.First, s.Last)
			rows += n
			if err != nil {
				return rows, err
			}
		}
		if progress != nil {
			progress(i+1, rows)
		}
	}
	return rows, nil
}
