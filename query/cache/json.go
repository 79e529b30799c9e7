package cache

import (
	"context"
	"encoding/json"

	"energy/schema/registry"
)

// JSON answers request from c, or on a miss resolves the site and the validated request,
// computes the answer and stores its JSON: the cached path of the analyses whose answers are
// plain JSON of one engine call. Errors of resolve and compute are returned as they are and
// never cached.
func JSON[Req, Res any](ctx context.Context, c *Results, tenantID, siteID, request string,
	resolve func(context.Context) (registry.Site, Req, error),
	compute func(context.Context, registry.Site, Req) (Res, error)) (body []byte, hit bool, err error) {
	return c.Get(ctx, tenantID, siteID, request, func(ctx context.Context) ([]byte, error) {
		site, req, err := resolve(ctx)
		if err != nil {
			return nil, err
		}
		res, err := compute(ctx, site, req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	})
}
