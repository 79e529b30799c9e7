package apidocs

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"energy/schema/erasure"
	"energy/schema/registry"
)

// erasuresPath is where an erasure's state and report are read.
const erasuresPath = "/v2/site-erasures"

// ErasureBody is an erasure of a site's data and where it stands.
type ErasureBody struct {
	ID          string            `json:"id" doc:"Erasure id (UUID)" example:"7d0c5b3e-2f1a-4c8e-9b6d-3a2e1f0c4d5b"`
	SiteID      string            `json:"siteId" doc:"The site erased" example:"SITE-1"`
	State       string            `json:"state" enum:"SUBMITTED,IN_PROGRESS,DONE,ERROR" doc:"SUBMITTED, IN_PROGRESS (also while a failed step is retried, error says why), DONE, or ERROR once a step failed 5 times in a row (error says why; a new DELETE of the site retries it)"`
	RequestedTS string            `json:"requestedTs" doc:"Timestamp-Z of the request" example:"2026-12-07T17:00:00Z"`
	StateTS     string            `json:"stateTs" doc:"Timestamp-Z of the last change of state or report" example:"2026-12-07T17:00:03Z"`
	RowsRemoved map[string]uint64 `json:"rowsRemoved" doc:"Rows of the site removed, by table (every version of a row counts)" example:"{\"elec_indexes\": 8760, \"sites\": 1}"`
	Error       string            `json:"error,omitempty" doc:"The last failure of a step being retried, or that ended the erasure in ERROR"`
	Links       SelfLinks         `json:"_links"`
}

type eraseInput struct {
	requestOrigin
	SiteIDParam
}

type eraseOutput struct {
	Status int
	Body   struct {
		Links SelfLinks `json:"_links" doc:"self: the erasure, to poll for its report"`
	}
}

type erasureInput struct {
	requestOrigin
	ErasureID string `path:"erasureId" doc:"Erasure id" example:"7d0c5b3e-2f1a-4c8e-9b6d-3a2e1f0c4d5b"`
}

type erasureOutput struct{ Body ErasureBody }

type erasureHandler struct {
	reg       *registry.Store
	svc       *erasure.Service
	publicURL string
}

func registerErasure(api huma.API, cfg Config) {
	h := &erasureHandler{reg: cfg.Registry, svc: cfg.Erasures, publicURL: cfg.PublicURL}
	huma.Register(api, huma.Operation{
		OperationID: "erase-site", Method: http.MethodDelete, Path: "/v2/sites/{siteId}", Tags: []string{"Admin"},
		Summary: "Erase a site and all its data", DefaultStatus: http.StatusAccepted, Security: requireScopes(registry.ScopeAdmin),
		Description: "Starts the erasure of the site (GDPR article 17) and answers 202 with the link of the erasure. The site is removed first: " +
			"from then on every endpoint answers 404 SITE_NOT_FOUND for it and archives naming it are refused like an unknown site's (UNKNOWN_SITE). " +
			"Once the tenant's archive jobs submitted before the request are final and no accepted archive holding readings of the site waits any more " +
			"(such an archive is processed as usual: other sites' readings in it land, the erased site's operations are refused, and its file is deleted), " +
			"every row of the site is removed from every table " +
			"(readings of both fluids, max powers, load curves and their by-site copies, points of delivery, contact, heating schedule, targets, " +
			"notifications, data versions), cached answers are dropped on every energyd, and the erasure is DONE with the rows removed per table. " +
			"An erasure interrupted by a stop or a crash resumes when energyd starts again (or on another energyd once its lease expired). " +
			"A step that fails 5 times in a row ends the erasure in ERROR; a new DELETE of the site then retries that erasure (202 with its link). " +
			"The audit trail keeps that the site was erased.",
	}, h.erase)
	huma.Register(api, huma.Operation{
		OperationID: "get-site-erasure", Method: http.MethodGet, Path: erasuresPath + "/{erasureId}", Tags: []string{"Admin"},
		Summary: "Read an erasure of a site: its state and the rows removed per table", Security: requireScopes(registry.ScopeAdmin),
	}, h.get)
}

func (h *erasureHandler) erase(ctx context.Context, in *eraseInput) (*eraseOutput, error) {
	out := &eraseOutput{Status: http.StatusAccepted}
	if e, ok, err := h.svc.Retry(ctx, Caller(ctx).TenantID, in.SiteID); err != nil {
		return nil, err
	} else if ok {
		out.Body.Links.Self.Href = in.base(h.publicURL) + erasuresPath + "/" + e.ID
		return out, nil
	}
	s, err := h.reg.SiteWithContact(ctx, Caller(ctx).TenantID, in.SiteID)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, SiteNotFound(in.SiteID)
	} else if err != nil {
		return nil, err
	}
	e, err := h.svc.Request(ctx, Caller(ctx).TokenID, s)
	if err != nil {
		return nil, err
	}
	out.Body.Links.Self.Href = in.base(h.publicURL) + erasuresPath + "/" + e.ID
	return out, nil
}

func (h *erasureHandler) get(ctx context.Context, in *erasureInput) (*erasureOutput, error) {
	e, err := h.svc.Get(ctx, Caller(ctx).TenantID, in.ErasureID)
	if errors.Is(err, erasure.ErrNotFound) {
		return nil, Fail(http.StatusNotFound, CodeNotFound, "erasure %q does not exist", in.ErasureID)
	} else if err != nil {
		return nil, err
	}
	body := ErasureBody{ID: e.ID, SiteID: e.SiteID, State: e.State, RequestedTS: formatTS(e.RequestedTS), StateTS: formatTS(e.StateTS),
		RowsRemoved: e.RowsRemoved, Error: e.Error}
	body.Links.Self.Href = in.base(h.publicURL) + erasuresPath + "/" + e.ID
	return &erasureOutput{Body: body}, nil
}
