package apidocs

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
)

// update rewrites the committed descriptions: `make openapi` (go test ./apidocs -run
// '^TestOpenAPI' -update). Other packages' tests may share it for their golden files.
var update = flag.Bool("update", false, "rewrite committed golden files (apidocs/openapi*.yaml)")

// TestOpenAPICommitted fails when apidocs/openapi.yaml (or openapi-advice.yaml) differs from
// what the code describes: whoever adds or changes an operation runs `make openapi` and
// commits the result.
func TestOpenAPICommitted(t *testing.T) {
	for file, doc := range map[string]*huma.OpenAPI{"openapi.yaml": MainOpenAPI(), "openapi-advice.yaml": AdviceOpenAPI()} {
		got, err := doc.YAML()
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("apidocs/%s is missing: run `make openapi` and commit it (%v)", file, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("apidocs/%s is stale: run `make openapi` and commit it.\n%s", file, firstDifference(want, got))
		}
	}
}

func firstDifference(committed, generated []byte) string {
	a, b := strings.Split(string(committed), "\n"), strings.Split(string(generated), "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("first difference at line %d:\n  committed: %q\n  generated: %q", i+1, x, y)
		}
	}
	return ""
}

// TestOpenAPIDescribesTheContract checks what the description promises its readers: the
// version, the bearer scheme and its scopes, the error model, and a security requirement on
// every operation but the public ones.
func TestOpenAPIDescribesTheContract(t *testing.T) {
	doc := MainOpenAPI()
	if doc.Info.Version != "0.0.1" {
		t.Errorf("info.version %q, want 0.0.1", doc.Info.Version)
	}
	for _, must := range []string{"Bearer", "energyctl token create", "collect", "read", "targets", "advices", "admin",
		"errorCode", "errorDescription", "INVALID_PARAMETER", "INVALID_AUTHORIZATION_HEADER_VALUE", "ACCESS_DENIED",
		"SITE_NOT_FOUND", "METHOD_NOT_ALLOWED", "INTERNAL_ERROR", "STORAGE_UNAVAILABLE", "Retry-After", "X-Request-Id"} {
		if !strings.Contains(doc.Info.Description, must) {
			t.Errorf("info.description does not mention %q", must)
		}
	}
	if s := doc.Components.SecuritySchemes[bearerScheme]; s == nil || s.Type != "http" || s.Scheme != "bearer" {
		t.Errorf("no http bearer security scheme: %+v", s)
	}
	public := map[string]bool{"/healthz": true, "/readyz": true}
	for path, item := range doc.Paths {
		for method, op := range map[string]*huma.Operation{"GET": item.Get, "PUT": item.Put, "POST": item.Post, "DELETE": item.Delete, "PATCH": item.Patch} {
			if op == nil {
				continue
			}
			if public[path] != (len(op.Security) == 0) {
				t.Errorf("%s %s: security %v (public paths have none, every other one needs a token)", method, path, op.Security)
			}
		}
	}
	errSchema, _ := json.Marshal(doc.Components.Schemas.Map()["APIError"])
	if !strings.Contains(string(errSchema), "errorCode") || !strings.Contains(string(errSchema), "errorDescription") {
		t.Errorf("components.schemas.APIError is not the error model: %s", errSchema)
	}
	for _, p := range []string{"/v2/sites/{siteId}", "/v2/tariffs/{tariffId}", "/v1/weather-stations/{stationId}", "/v2/indexes-collect-jobs"} {
		if doc.Paths[p] == nil {
			t.Errorf("the description lacks %s", p)
		}
	}
}

func TestOpenAPIServed(t *testing.T) {
	h := newHarness(t)
	st, b, hdr := h.do("GET", "/openapi.json", "", "")
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct{ Version string }
	}
	if st != http.StatusOK || json.Unmarshal(b, &doc) != nil || doc.Info.Version != "0.0.1" || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("/openapi.json: %d %s %.200s", st, hdr.Get("Content-Type"), b)
	}
	st, b, _ = h.do("GET", "/openapi.yaml", "", "")
	if st != http.StatusOK || !bytes.Contains(b, []byte("version: 0.0.1")) {
		t.Fatalf("/openapi.yaml: %d %.200s", st, b)
	}
}

// TestDocsRenderOffline checks that /docs is an HTML page whose scripts and styles are all
// served by the service itself (no CDN) and that it loads the service's /openapi.json.
func TestDocsRenderOffline(t *testing.T) {
	h := newHarness(t)
	st, page, hdr := h.do("GET", "/docs", "", "")
	if st != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") {
		t.Fatalf("/docs: %d %s", st, hdr.Get("Content-Type"))
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(string(page), -1)
	if len(refs) < 2 {
		t.Fatalf("/docs references no script or style: %s", page)
	}
	wantType := map[string]string{".js": "javascript", ".css": "text/css", ".png": "image/png", ".yaml": "", ".json": ""}
	for _, r := range refs {
		ref := r[1]
		if strings.Contains(ref, "//") {
			t.Errorf("/docs loads %s from another host: it must render offline", ref)
			continue
		}
		st, body, hdr := h.do("GET", "/"+strings.TrimPrefix(ref, "/"), "", "")
		if st != http.StatusOK || len(body) == 0 {
			t.Errorf("/docs asset %s: %d", ref, st)
		}
		for ext, ct := range wantType {
			if strings.HasSuffix(ref, ext) && !strings.Contains(hdr.Get("Content-Type"), ct) {
				t.Errorf("%s served as %q", ref, hdr.Get("Content-Type"))
			}
		}
	}
	if !strings.Contains(string(page), `url: "openapi.json"`) {
		t.Error("/docs does not load the service's openapi.json")
	}
	st, b, hdr := h.do("GET", "/docs/nope.js", "", "")
	h.wantError(st, b, hdr, http.StatusNotFound, CodeNotFound, "/docs/nope.js")
}

// TestOpenAPIPathsInREADME keeps the "API at a glance" of apidocs/README.md true: every path of the main
// API appears there.
func TestOpenAPIPathsInREADME(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range MainOpenAPI().Paths {
		for method, op := range map[string]*huma.Operation{"GET": item.Get, "PUT": item.Put, "POST": item.Post, "DELETE": item.Delete, "PATCH": item.Patch} {
			if op != nil && !strings.Contains(string(readme), method+" "+path) {
				t.Errorf("apidocs/README.md's API at a glance lacks %s %s (%s): add a row with its scope", method, path, op.Summary)
			}
		}
	}
}
