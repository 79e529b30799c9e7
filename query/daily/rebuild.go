package daily

import (
	"context"
	"errors"
	"fmt"
	"time"

	"energy/query/consumption"

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
// after each with the spans done and the days computed so far. The rows go in inserts of about
// rebuildBatch rows: a row per insert per site would make ClickHouse merge thousands of small
// parts. Sites no longer in the registry are skipped. Rewriting a day that is already right
// changes nothing a reader sees.
func (t *Table) Rebuild(ctx context.Context, spans []Span, progress func(done, rows int)) (int, error) {
	var pending []siteRows
	fluid, buffered, rows := "", 0, 0
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := t.insert(ctx, fluid, pending)
		pending, buffered = nil, 0
		return err
	}
	for i, s := range spans {
		if s.Fluid != fluid {
			if err := flush(); err != nil {
				return rows, err
			}
			fluid = s.Fluid
		}
		site, err := t.reg.Directory.Site(ctx, s.TenantID, s.SiteID)
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			return rows, err
		}
		for from := s.First; err == nil && !from.After(s.Last); {
			// The version is taken before the engine reads: a later write of the same day, which
			// reads at least the readings this one read, wins.
			version := t.versions.Reserve(1)
			days, err := t.engine.Days(ctx, site, s.Fluid, from, s.Last)
			if err != nil {
				return rows, fmt.Errorf("daily energy of %s: %w", s.SiteID, err)
			}
			if len(days) == 0 {
				break
			}
			pending = append(pending, siteRows{consumption.SiteDays{Site: site, Days: days}, version})
			buffered += len(days)
			rows += len(days)
			last := days[len(days)-1].Day
			from = time.Date(last.Year(), last.Month(), last.Day()+1, 0, 0, 0, 0, last.Location())
		}
		if buffered >= rebuildBatch || i == len(spans)-1 {
			if err := flush(); err != nil {
				return rows, err
			}
		}
		if progress != nil {
			progress(i+1, rows)
		}
	}
	return rows, nil
}

// rebuildBatch is about the rows of one insert of Rebuild.
const rebuildBatch = 50_000
