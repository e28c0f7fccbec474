package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
)

func preflight(t *testing.T, env *apitest.Env, origin string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodOptions, env.URL+"/graphql", nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, idempotency-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestCORS(t *testing.T) {
	env := apitest.NewWith(t, func(o *server.Options) { o.AllowedOrigins = []string{"https://app.example.se"} })

	resp := preflight(t, env, "https://app.example.se")
	h := resp.Header
	if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "https://app.example.se" ||
		!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Idempotency-Key") ||
		h.Get("Access-Control-Allow-Credentials") != "" || h.Get("Access-Control-Max-Age") == "" {
		t.Errorf("preflight from an allowed origin: %d %v", resp.StatusCode, h)
	}
	if resp := preflight(t, env, "https://evil.example"); resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin: %d %v", resp.StatusCode, resp.Header)
	}

	r := env.Admin().Do(t, `{ viewer { role } }`, nil, "Origin", "https://app.example.se")
	r.OK(t, nil)
	if r.Header.Get("Access-Control-Allow-Origin") != "https://app.example.se" || !strings.Contains(r.Header.Get("Vary"), "Origin") ||
		!strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "X-Request-Id") {
		t.Errorf("response to an allowed origin: %v", r.Header)
	}
	r = env.Admin().Do(t, `{ viewer { role } }`, nil, "Origin", "https://evil.example")
	if r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("response to another origin carries CORS headers: %v", r.Header)
	}
	// Without an Origin (server to server) nothing changes.
	if r := env.Admin().Do(t, `{ viewer { role } }`, nil); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS headers without an Origin: %v", r.Header)
	}
}

func TestCORSOffByDefault(t *testing.T) {
	env := apitest.New(t)
	if resp := preflight(t, env, "https://app.example.se"); resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS is on without configuration: %v", resp.Header)
	}
}

func TestCORSAnyOrigin(t *testing.T) {
	env := apitest.NewWith(t, func(o *server.Options) { o.AllowedOrigins = []string{"*"} })
	if resp := preflight(t, env, "https://anywhere.example"); resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight with *: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestParseOrigins(t *testing.T) {
	got, err := server.ParseOrigins(" https://app.example.se/ , http://localhost:5173")
	if err != nil || strings.Join(got, "|") != "https://app.example.se|http://localhost:5173" {
		t.Errorf("ParseOrigins = %v, %v", got, err)
	}
	for _, bad := range []string{"app.example.se", "ftp://x.se", "https://x.se/path", "https://"} {
		if _, err := server.ParseOrigins(bad); err == nil {
			t.Errorf("ParseOrigins(%q) accepted", bad)
		}
	}
}
