package apidocs

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"energy/query/export"
	"energy/schema/audit"
	"energy/schema/registry"
)

type exportInput struct {
	SiteIDParam
	StartTs string `query:"startTs" doc:"First instant exported (RFC 3339, 2024-01-01T00:00:00Z or with an offset); default: the first reading" example:"2024-01-01T00:00:00Z"`
	EndTs   string `query:"endTs" doc:"Instant where the export stops, excluded (RFC 3339); default: after the last reading" example:"2025-01-01T00:00:00Z"`
}

func registerExport(api huma.API, reg *registry.Store) {
	huma.Register(api, huma.Operation{
		OperationID: "export-site", Method: http.MethodGet, Path: "/v2/sites/{siteId}/export", Tags: []string{"Admin"},
		Summary: "Export a site's data as an intake archive", Security: requireScopes(registry.ScopeAdmin),
		Description: "Streams a .tar.gz (application/gzip) in the archive intake format itself (GDPR article 20): site.json, the site's registry " +
			"description ({\"site\": the body of GET /v2/sites/{siteId}}), then readings-0001.json … holding the latest generation of each " +
			"reading of both fluids (an _INVALID reading included), the max powers and the load curves, at most 5,000 indexes and 1,000 load " +
			"curves per file. Submitted with POST /v2/indexes-collect-jobs to a tenant that has the site (PUT site.json's site first), it " +
			"reproduces the same consumption answers; site.json holds none of the record arrays, so the intake counts no operation for it. " +
			"An archive of more than 5 files (over about 20,000 indexes) must be split before it is submitted again.",
		Responses: map[string]*huma.Response{"200": {Description: "the archive", Content: map[string]*huma.MediaType{"application/gzip": {}}}},
	}, func(ctx context.Context, in *exportInput) (*huma.StreamResponse, error) {
		var p export.Period
		for _, b := range []struct {
			name, value string
			into        *time.Time
		}{{"startTs", in.StartTs, &p.From}, {"endTs", in.EndTs, &p.To}} {
			if b.value == "" {
				continue
			}
			t, err := time.Parse(time.RFC3339, b.value)
			if err != nil {
				return nil, BadParam("query parameter %s: %q is not an RFC 3339 instant such as 2024-01-01T00:00:00Z", b.name, b.value)
			}
			*b.into = t
		}
		if !p.From.IsZero() && !p.To.IsZero() && !p.From.Before(p.To) {
			return nil, BadParam("query parameter endTs: must be after startTs")
		}
		s, err := reg.SiteWithContact(ctx, Caller(ctx).TenantID, in.SiteID)
		if errors.Is(err, registry.ErrNotFound) {
			return nil, SiteNotFound(in.SiteID)
		} else if err != nil {
			return nil, err
		}
		if err := audit.Record(ctx, reg.DB(), s.TenantID, audit.SiteExport, "sites/"+s.SiteID, nil, nil); err != nil {
			return nil, err
		}
		return &huma.StreamResponse{Body: func(hctx huma.Context) {
			hctx.SetHeader("Content-Type", "application/gzip")
			hctx.SetHeader("Content-Disposition", `attachment; filename="`+s.SiteID+`.tar.gz"`)
			hctx.SetStatus(http.StatusOK)
			// Once the status is sent a failure can only cut the stream: the gzip stream is
			// then incomplete, which every reader of it detects.
			if err := export.Write(ctx, reg.DB(), s.TenantID, s.SiteID, siteBody(s), p, hctx.BodyWriter()); err != nil {
				classify(ctx, err)
			}
		}}, nil
	})
}
