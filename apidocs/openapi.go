package apidocs

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"energy/schema"
	"energy/schema/registry"
)

// apiOverview opens both API descriptions: what holds for every operation (authentication,
// scopes, the error model, request ids, time zones).
const apiOverview = `
## Authentication

Every operation requires ` + "`Authorization: Bearer <token>`" + ` except ` + "`/healthz`, `/readyz`, `/metrics`, `/openapi.json`, `/openapi.yaml`" + ` and ` + "`/docs`" + `.
The scheme word is case-insensitive. A token is an opaque secret (` + "`etk_<id>_<random>`" + `, 32 random bytes)
created with ` + "`energyctl token create --tenant T --scopes read,collect [--expires 720h]`" + `, which prints it once;
the service stores only its SHA-256, compares it in constant time, and honours expiry and revocation
(` + "`energyctl token revoke ID`" + `; effective at once on the process that revokes and within 5 seconds on the others).

A token belongs to one tenant (a marketer) and sees only that tenant's sites, jobs and targets:
another tenant's site answers 404 SITE_NOT_FOUND, exactly like a site that does not exist.

| scope | grants |
|---|---|
| ` + "`collect`" + ` | submit archives, read own jobs |
| ` + "`read`" + ` | site data endpoints (consumption, comparison, heating, budget, weather) and job reads |
| ` + "`targets`" + ` | create and update targets |
| ` + "`advices`" + ` | recommendation jobs |
| ` + "`admin`" + ` | sites, tariffs, weather stations and heating settings; implies every other scope within its tenant |

Each operation lists the scopes it accepts; any one of them is enough.

## Errors

Every error has the body ` + "`{\"errorCode\": \"...\", \"errorDescription\": \"...\"}`" + ` with ` + "`Content-Type: application/json`" + `
(except 413 on archive submission, which has no body). The description names the parameter or field and what is wrong.
Routing comes before authentication: an unknown path is 404 and a wrong method 405 whatever the token.

| status | errorCode | when |
|---|---|---|
| 400 | INVALID_PARAMETER | a query, path or body value is missing, malformed or out of range; unknown JSON fields in bodies |
| 400 | PERIOD_TOO_LONG | job listing range over 30 days; withGlobalConsumption period over one year |
| 401 | INVALID_AUTHORIZATION_HEADER_VALUE | Authorization header missing, not ` + "`Bearer <token>`" + `, or token unknown, revoked or expired |
| 403 | ACCESS_DENIED | valid token without a scope the operation accepts |
| 404 | SITE_NOT_FOUND | unknown site, or a site of another tenant |
| 404 | JOB_NOT_FOUND, TARGET_NOT_FOUND, NOT_FOUND | unknown job, target, other resource or route |
| 405 | METHOD_NOT_ALLOWED | wrong method on a known path (the ` + "`Allow`" + ` header lists the right ones) |
| 413 | (no body) | archive file part larger than 2,500,000 bytes |
| 422 | TARGET_FIELD_NOT_UPDATABLE | a target update changes a field that cannot change |
| 500 | INTERNAL_ERROR | a bug; the description carries the request id to quote, never a stack trace or SQL |
| 503 | STORAGE_UNAVAILABLE | ClickHouse unreachable; retry after the ` + "`Retry-After`" + ` seconds |

## Request ids

Every response carries ` + "`X-Request-Id`" + `: the request's own when it sent a reasonable one (1 to 128 characters among
letters, digits and ` + "`._:/+=@-`" + `), otherwise a generated one. Logs carry the same id.

## Compression

A request whose ` + "`Accept-Encoding`" + ` accepts gzip (` + "`gzip`" + ` or ` + "`*`" + ` with a non-zero q-value; ` + "`gzip;q=0`" + ` refuses it)
gets its 200 answers of 1 KiB or more gzip-encoded, with ` + "`Content-Encoding: gzip`" + ` and ` + "`Vary: Accept-Encoding`" + `
(a year of daily consumption: 168 KiB of JSON, about 11 KiB compressed). Smaller answers, errors and requests
without it are sent as they are.

## Time

Timestamps in responses carry the site's UTC offset (` + "`2024-03-31T00:00:00+01:00`" + `), computed in the site's IANA time
zone (default Europe/Paris); input timestamps without an offset are read in the site's time zone.
`

// documentedConfig builds the APIs for their committed descriptions: NewMain and NewAdvice
// register every operation whatever the configuration, so none of the services is given. No
// handler runs while the description is generated; registration touches no dependency.
func documentedConfig() Config {
	return Config{Registry: registry.New(&schema.DB{}), Ready: func(context.Context) error { return nil }}
}

// MainOpenAPI returns the description of the full main API, as committed in openapi.yaml.
func MainOpenAPI() *huma.OpenAPI {
	_, api := NewMain(documentedConfig())
	return api.OpenAPI()
}

// AdviceOpenAPI returns the description of the recommendation API (openapi-advice.yaml).
func AdviceOpenAPI() *huma.OpenAPI {
	_, api := NewAdvice(documentedConfig())
	return api.OpenAPI()
}
