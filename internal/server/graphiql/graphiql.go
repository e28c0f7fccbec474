// Package graphiql serves the GraphiQL IDE fully offline.
//
// DebtQL must run on machines without internet access, and a GraphQL IDE that
// pulls React and GraphiQL from a CDN shows a blank page there (and leaks the
// user's browsing to a third party). This package therefore embeds a
// self-contained build of GraphiQL in the Go binary: one JavaScript file and
// one CSS file, bundled with esbuild from the npm packages pinned in web/.
// The HTML page carries no inline script and references no remote origin, so
// it works under the strict Content-Security-Policy returned by
// ContentSecurityPolicy.
//
// The files in assets/ are generated and committed. To rebuild them after
// changing web/ (for example to update GraphiQL), run in the web/ directory:
//
//	npm ci && npm run build
//
// DebtQL answers every operation, introspection included, with 401 until the
// request carries an API key, so the page does not introspect on load: it
// asks the user to paste the key into the Headers tab and fetches the schema
// (docs, autocompletion) as soon as the headers hold one, and again whenever
// the key changes (see SchemaWatcher in web/src/index.jsx).
//
// scripts/graphiql-browser-check.sh checks a running server with headless
// Chromium: the editor renders and no request leaves the page's origin; with
// CHECK_KEY set to a valid API key, also that the schema loads once the key
// is typed, that a query runs with it, and that a subscription runs over
// the WebSocket at the same path with the key of the Headers tab in
// connection_init (web/src/index.jsx: fetcher), showing its events.
package graphiql

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"
)

// AssetPrefix is the URL path under which the bundled assets are served.
const AssetPrefix = "/graphiql/"

//go:embed assets/graphiql.js assets/graphiql.css
var assetFS embed.FS

// contentSecurityPolicy is the policy the page is known to work under (checked
// with scripts/graphiql-browser-check.sh, which enforces it):
//
//   - scripts, styles, fonts and fetches only from the page's own origin;
//   - img-src also allows data: because GraphiQL's stylesheet carries a few
//     tiny data: PNGs (the CodeMirror lint underlines and markers), and the
//     page's empty data: favicon spares the browser a /favicon.ico request;
//   - no 'unsafe-inline' and no 'unsafe-eval': the bundle uses neither inline
//     scripts nor eval, and its dynamic styles are set through the CSSOM,
//     which style-src does not govern (the <style> element that
//     react-remove-scroll would inject for GraphiQL's dialogs is replaced by
//     a constructed stylesheet at build time, see web/build.mjs);
//   - no workers: GraphiQL 3 uses CodeMirror 5, which needs none.
const contentSecurityPolicy = "default-src 'self'; " +
	"script-src 'self'; " +
	"style-src 'self'; " +
	"img-src 'self' data:; " +
	"font-src 'self'; " +
	"connect-src 'self'; " +
	"object-src 'none'; " +
	"base-uri 'none'; " +
	"form-action 'self'; " +
	"frame-ancestors 'none'"

// ContentSecurityPolicy returns the Content-Security-Policy header value that
// the GraphiQL page works under. Handler already sends it with the HTML page;
// it is exported for servers that set the header in a middleware.
func ContentSecurityPolicy() string {
	return contentSecurityPolicy
}

type asset struct {
	contentType string
	body        []byte
	etag        string // strong ETag, quoted
	version     string // short content hash, used as ?v= cache buster

	gzipOnce sync.Once
	gzipped  []byte // nil when compression does not pay off
}

func (a *asset) gzipBody() []byte {
	a.gzipOnce.Do(func() {
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return
		}
		if _, err := zw.Write(a.body); err != nil {
			return
		}
		if err := zw.Close(); err != nil {
			return
		}
		if buf.Len() < len(a.body) {
			a.gzipped = buf.Bytes()
		}
	})
	return a.gzipped
}

var assets = loadAssets()

func loadAssets() map[string]*asset {
	types := map[string]string{
		"graphiql.js":  "text/javascript; charset=utf-8",
		"graphiql.css": "text/css; charset=utf-8",
	}
	m := make(map[string]*asset, len(types))
	for name, ctype := range types {
		body, err := fs.ReadFile(assetFS, "assets/"+name)
		if err != nil {
			panic("graphiql: embedded asset missing: " + err.Error())
		}
		sum := sha256.Sum256(body)
		version := hex.EncodeToString(sum[:8])
		m[name] = &asset{
			contentType: ctype,
			body:        body,
			etag:        `"` + hex.EncodeToString(sum[:16]) + `"`,
			version:     version,
		}
	}
	return m
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>DebtQL GraphiQL</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{{.CSS}}">
</head>
<body>
<div id="root" data-endpoint="{{.Endpoint}}">Loading GraphiQL…</div>
<noscript>GraphiQL needs JavaScript.</noscript>
<script src="{{.JS}}" defer></script>
</body>
</html>
`))

// Handler returns an http.Handler that serves the GraphiQL page at "/" (that
// exact path) and its assets under /graphiql/ (graphiql.js, graphiql.css).
// Every other path answers 404, so the handler can be mounted at "/" next to
// more specific routes. endpoint is the URL path of the GraphQL API on the
// same origin, normally "/graphql"; a cross-origin URL would be refused by
// ContentSecurityPolicy's connect-src 'self'.
//
// The page links the assets with a ?v=<content hash> query; requests carrying
// the current hash are cacheable for a year, others must revalidate through
// the ETag.
func Handler(endpoint string) http.Handler {
	var page bytes.Buffer
	err := pageTemplate.Execute(&page, struct{ Endpoint, JS, CSS string }{
		Endpoint: endpoint,
		JS:       AssetPrefix + "graphiql.js?v=" + assets["graphiql.js"].version,
		CSS:      AssetPrefix + "graphiql.css?v=" + assets["graphiql.css"].version,
	})
	if err != nil {
		panic("graphiql: rendering page: " + err.Error())
	}
	return &handler{page: page.Bytes()}
}

type handler struct {
	page []byte
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/":
		h.servePage(w, r)
	case strings.HasPrefix(r.URL.Path, AssetPrefix):
		a, ok := assets[strings.TrimPrefix(r.URL.Path, AssetPrefix)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		serveAsset(w, r, a)
	default:
		http.NotFound(w, r)
	}
}

func allowGetHead(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	return false
}

func (h *handler) servePage(w http.ResponseWriter, r *http.Request) {
	if !allowGetHead(w, r) {
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("Content-Security-Policy", contentSecurityPolicy)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(h.page))
}

func serveAsset(w http.ResponseWriter, r *http.Request, a *asset) {
	if !allowGetHead(w, r) {
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", a.contentType)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Vary", "Accept-Encoding")
	if r.URL.Query().Get("v") == a.version {
		hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hdr.Set("Cache-Control", "no-cache")
	}
	body := a.body
	etag := a.etag
	if acceptsGzip(r) {
		if gz := a.gzipBody(); gz != nil {
			body = gz
			// A distinct validator per representation, as RFC 9110 asks.
			etag = strings.TrimSuffix(a.etag, `"`) + `-gz"`
			hdr.Set("Content-Encoding", "gzip")
		}
	}
	hdr.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// acceptsGzip reports whether the request's Accept-Encoding lists gzip with a
// non-zero quality.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
				continue
			}
			params = strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			if params == "q=0" || params == "q=0.0" || params == "q=0.00" || params == "q=0.000" {
				return false
			}
			return true
		}
	}
	return false
}
