package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.yaml.in/yaml/v3"

	"energy/schema/chtest"
)

// undocumentedRoutes are served beside the API and are not operations of its description:
// Prometheus metrics, the offline documentation page and its assets, the descriptions
// themselves and the JSON schemas they reference. Each must be served with GET; /metrics
// answers every method.
var undocumentedRoutes = []string{"/metrics", "/docs", "/docs/{}", "/openapi.json", "/openapi.yaml",
	"/openapi-3.0.json", "/openapi-3.0.yaml", "/schemas/{}"}

// TestServedRoutesAreDocumented wires energyd as run does (with --advice-listen, so that both
// APIs are served), walks the routes of the handlers it serves and compares them with the
// committed descriptions: a route served but not documented, or documented but not served,
// fails, whichever configuration left it out.
func TestServedRoutesAreDocumented(t *testing.T) {
	db := chtest.DB(t)
	cfg, err := loadConfig([]string{"--data-dir", t.TempDir(), "--advice-listen", "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithCancel(context.Background())
	svc, err := wire(ctx, cfg, db, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); svc.stopWithin(10*time.Second, log) })
	mainHandler, adviceHandler := svc.handlers()
	for _, api := range []struct {
		file    string
		handler http.Handler
	}{{"../../apidocs/openapi.yaml", mainHandler}, {"../../apidocs/openapi-advice.yaml", adviceHandler}} {
		routes, ok := api.handler.(chi.Routes)
		if !ok {
			t.Fatalf("%s: energyd's handler %T does not list its routes", api.file, api.handler)
		}
		served, beside := map[string]bool{}, map[string]bool{}
		err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
			route = normalizeRoute(route)
			if slices.Contains(undocumentedRoutes, route) {
				beside[method+" "+route] = true
			} else {
				served[method+" "+route] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		documented := documentedRoutes(t, api.file)
		for r := range served {
			if !documented[r] {
				t.Errorf("energyd serves %s but %s does not document it: run `make openapi`", r, api.file)
			}
		}
		for r := range documented {
			if !served[r] {
				t.Errorf("%s documents %s but energyd does not serve it", api.file, r)
			}
		}
		for _, r := range undocumentedRoutes {
			if !beside["GET "+r] {
				t.Errorf("%s: %s is listed as served beside the API but energyd does not serve it", api.file, r)
			}
		}
		if len(documented) < 3 {
			t.Fatalf("%s documents %d operations: not a description", api.file, len(documented))
		}
	}
}

// normalizeRoute writes path parameters as {} whatever their name, and drops a trailing slash.
func normalizeRoute(route string) string {
	route = regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(route, "{}")
	if len(route) > 1 {
		route = strings.TrimSuffix(route, "/")
	}
	return route
}

// documentedRoutes reads the operations of a committed description as "METHOD /path".
func documentedRoutes(t *testing.T, file string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	out := map[string]bool{}
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options":
				out[strings.ToUpper(method)+" "+normalizeRoute(path)] = true
			}
		}
	}
	return out
}
