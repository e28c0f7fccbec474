package graphiql_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/server/graphiql"
)

func get(t *testing.T, h http.Handler, target string, header http.Header) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return string(b)
}

var assetRef = regexp.MustCompile(`(?:src|href)="(/graphiql/[^"]+)"`)

// pageAssets fetches the page and returns the asset URLs it references.
func pageAssets(t *testing.T, h http.Handler) (page string, refs []string) {
	t.Helper()
	resp := get(t, h, "/", nil)
	page = readBody(t, resp)
	for _, m := range assetRef.FindAllStringSubmatch(page, -1) {
		refs = append(refs, m[1])
	}
	return page, refs
}

func TestPage(t *testing.T) {
	h := graphiql.Handler("/graphql")
	resp := get(t, h, "/", nil)
	body := readBody(t, resp)

	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %d, want 200", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type = %q, want text/html", ct)
	}
	for _, want := range []string{
		"<title>DebtQL GraphiQL</title>",
		`href="/graphiql/graphiql.css`,
		`src="/graphiql/graphiql.js`,
		`data-endpoint="/graphql"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q:\n%s", want, body)
		}
	}
	for _, bad := range []string{"http://", "https://"} {
		if strings.Contains(body, bad) {
			t.Errorf("page references a remote origin (%q):\n%s", bad, body)
		}
	}
	if strings.Contains(body, "<script>") || regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]`).MatchString(body) {
		t.Errorf("page has an inline script:\n%s", body)
	}
	if got := resp.Header.Get("Content-Security-Policy"); got != graphiql.ContentSecurityPolicy() {
		t.Errorf("Content-Security-Policy = %q, want %q", got, graphiql.ContentSecurityPolicy())
	}
}

func TestPageEscapesEndpoint(t *testing.T) {
	h := graphiql.Handler(`/x"><script>alert(1)</script>`)
	body := readBody(t, get(t, h, "/", nil))
	if strings.Contains(body, "<script>alert") {
		t.Fatalf("endpoint not escaped:\n%s", body)
	}
}

func TestAssets(t *testing.T) {
	h := graphiql.Handler("/graphql")
	_, refs := pageAssets(t, h)
	if len(refs) != 2 {
		t.Fatalf("page references %d assets (%v), want 2", len(refs), refs)
	}
	wantType := map[string]string{
		"/graphiql/graphiql.js":  "text/javascript",
		"/graphiql/graphiql.css": "text/css",
	}
	for _, ref := range refs {
		path, _, _ := strings.Cut(ref, "?")
		want, ok := wantType[path]
		if !ok {
			t.Errorf("unexpected asset reference %q", ref)
			continue
		}
		delete(wantType, path)

		for _, target := range []string{ref, path} {
			resp := get(t, h, target, nil)
			body := readBody(t, resp)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s = %d, want 200", target, resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, want) {
				t.Errorf("GET %s: Content-Type = %q, want %s", target, ct, want)
			}
			if len(body) < 10_000 {
				t.Errorf("GET %s: only %d bytes", target, len(body))
			}
			if resp.Header.Get("ETag") == "" {
				t.Errorf("GET %s: no ETag", target)
			}
			for _, host := range []string{"cdn.jsdelivr", "unpkg.com", "esm.sh", "cdnjs", "fonts.googleapis", "fonts.gstatic"} {
				if strings.Contains(body, host) {
					t.Errorf("GET %s: references %q", target, host)
				}
			}
			if strings.HasSuffix(path, ".css") && regexp.MustCompile(`url\(\s*["']?(?:https?:)?//`).MatchString(body) {
				t.Errorf("GET %s: CSS loads a remote url()", target)
			}
		}

		// The versioned URL is cacheable for long; the bare one revalidates.
		if cc := get(t, h, ref, nil).Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=31536000") {
			t.Errorf("GET %s: Cache-Control = %q, want a long max-age", ref, cc)
		}
		if cc := get(t, h, path, nil).Header.Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("GET %s: Cache-Control = %q, want no-cache", path, cc)
		}
	}
	for path := range wantType {
		t.Errorf("page does not reference %s", path)
	}
}

func TestAssetConditionalAndGzip(t *testing.T) {
	h := graphiql.Handler("/graphql")
	plain := get(t, h, "/graphiql/graphiql.js", nil)
	plainBody := readBody(t, plain)

	notModified := get(t, h, "/graphiql/graphiql.js", http.Header{"If-None-Match": {plain.Header.Get("ETag")}})
	if notModified.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", notModified.StatusCode)
	}

	gz := get(t, h, "/graphiql/graphiql.js", http.Header{"Accept-Encoding": {"gzip, deflate, br"}})
	if gz.StatusCode != http.StatusOK || gz.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip request: status %d, Content-Encoding %q", gz.StatusCode, gz.Header.Get("Content-Encoding"))
	}
	if gz.Header.Get("ETag") == plain.Header.Get("ETag") {
		t.Errorf("gzip and identity representations share ETag %s", gz.Header.Get("ETag"))
	}
	zr, err := gzip.NewReader(gz.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if string(unzipped) != plainBody {
		t.Errorf("gzip body differs from identity body")
	}

	noGzip := get(t, h, "/graphiql/graphiql.js", http.Header{"Accept-Encoding": {"gzip;q=0, identity"}})
	if ce := noGzip.Header.Get("Content-Encoding"); ce != "" {
		t.Errorf("gzip;q=0: Content-Encoding = %q, want none", ce)
	}
}

func TestNotFound(t *testing.T) {
	h := graphiql.Handler("/graphql")
	for _, target := range []string{
		"/graphiql/nope.js",
		"/graphiql/",
		"/graphiql/../graphiql.go",
		"/graphiql/assets/graphiql.js",
		"/index.html",
		"/graphiql.js",
	} {
		if resp := get(t, h, target, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", target, resp.StatusCode)
		}
	}
}

func TestMethodNotAllowed(t *testing.T) {
	h := graphiql.Handler("/graphql")
	for _, target := range []string{"/", "/graphiql/graphiql.js"} {
		req := httptest.NewRequest(http.MethodPost, target, strings.NewReader("{}"))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("POST %s = %d, want 405", target, rec.Code)
		}
	}
}

func TestContentSecurityPolicy(t *testing.T) {
	csp := graphiql.ContentSecurityPolicy()
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "connect-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "http:", "https:", "*"} {
		if strings.Contains(csp, bad) {
			t.Errorf("CSP %q contains %q", csp, bad)
		}
	}
}
