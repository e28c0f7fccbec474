package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// CORS headers of the API. Callers authenticate with a bearer token, never
// with cookies, so credentials are not allowed (no
// Access-Control-Allow-Credentials), and "*" is a valid allowed origin.
const (
	corsMethods = "GET, POST"
	corsHeaders = "Authorization, Content-Type, Accept, Idempotency-Key, X-Request-Id"
	corsExpose  = "X-Request-Id, Retry-After"
	corsMaxAge  = "600"
)

// cors lets browser frontends on the allowed origins call next: it answers
// preflight requests and marks responses to allowed origins. A request from
// another origin gets no CORS headers (the browser then withholds the
// response); its preflight is refused with 403.
func cors(allowed []string, next http.Handler) http.Handler {
	if len(allowed) == 0 {
		return next
	}
	anyOrigin := slices.Contains(allowed, "*")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		ok := anyOrigin || slices.Contains(allowed, origin)
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if preflight {
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			if !ok {
				w.WriteHeader(http.StatusForbidden)
				return
			}
			h.Set("Access-Control-Allow-Origin", allowOrigin(anyOrigin, origin))
			h.Set("Access-Control-Allow-Methods", corsMethods)
			h.Set("Access-Control-Allow-Headers", corsHeaders)
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if ok {
			h.Set("Access-Control-Allow-Origin", allowOrigin(anyOrigin, origin))
			h.Set("Access-Control-Expose-Headers", corsExpose)
		}
		next.ServeHTTP(w, r)
	})
}

func allowOrigin(anyOrigin bool, origin string) string {
	if anyOrigin {
		return "*"
	}
	return origin
}

// ParseOrigins reads a comma-separated list of origins
// (https://app.example.se, http://localhost:5173) or "*".
func ParseOrigins(s string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(s, ",") {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		if o == "" {
			continue
		}
		if o != "*" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" {
				return nil, fmt.Errorf("%q is not an origin: write scheme://host[:port], e.g. https://app.example.se", o)
			}
		}
		out = append(out, o)
	}
	return out, nil
}
