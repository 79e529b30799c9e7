package apidocs

import (
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"

	"github.com/go-chi/chi/v5"
)

// docsFiles is the /docs page and the Swagger UI bundle it loads (see docs/README.md): no CDN,
// so the page renders offline and behind a firewall.
//
//go:embed docs/index.html docs/swagger-ui-bundle.js docs/swagger-ui.css docs/favicon-32x32.png docs/LICENSE docs/NOTICE
var docsFiles embed.FS

// addDocs serves GET /docs (the page) and /docs/* (its assets). The page reads /openapi.json.
func addDocs(router chi.Router) {
	page, err := docsFiles.ReadFile("docs/index.html")
	if err != nil {
		panic(err) // embedded at build time
	}
	router.Get("/docs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(page)
	})
	router.Get("/docs/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "../docs", http.StatusMovedPermanently)
	})
	router.Get("/docs/{asset}", func(w http.ResponseWriter, r *http.Request) {
		name := chi.URLParam(r, "asset")
		b, err := fs.ReadFile(docsFiles, "docs/"+name)
		if err != nil || name == "index.html" {
			writeError(w, Fail(http.StatusNotFound, CodeNotFound, "no resource at %s %s", r.Method, r.URL.Path))
			return
		}
		ct := mime.TypeByExtension(path.Ext(name))
		if ct == "" {
			ct = "text/plain; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Cache-Control", "public, max-age=86400")
		_, _ = w.Write(b)
	})
}
