package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/debtql/debtql/internal/apierr"
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
// response). A preflight is answered here, before authentication, whatever
// the configuration: a browser never sends a key with it, so passing it on
// would answer "an API key is required" to what is a question about the
// origin. An origin that is not allowed gets 403 with the origin and the
// setting to change, and a log line for the operator.
func (s *Server) cors(allowed []string, next http.Handler) http.Handler {
	anyOrigin := slices.Contains(allowed, "*")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if origin == "" || (len(allowed) == 0 && !preflight) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		ok := anyOrigin || slices.Contains(allowed, origin)
		if preflight {
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			if !ok {
				s.refuseOrigin(w, r, origin, allowed)
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

// originSetting names the setting that lists the allowed origins, as
// cmd/debtql reads it.
const originSetting = "--cors-origins (environment DEBTQL_CORS_ORIGINS)"

// refuseOrigin answers the preflight of an origin that is not allowed. The
// browser shows the caller only that the preflight failed, so the body
// (in the browser's network tab) and the log line both say what to change.
func (s *Server) refuseOrigin(w http.ResponseWriter, r *http.Request, origin string, allowed []string) {
	if len(origin) > 200 { // a header of any length must not fill the log
		origin = origin[:200] + "…"
	}
	why := "this server allows no browser origins"
	if len(allowed) > 0 {
		why = "it is not among the origins this server allows"
	}
	s.log.WarnContext(r.Context(), "CORS preflight refused: origin not allowed; add it to "+originSetting,
		"origin", origin, "allowed_origins", strings.Join(allowed, ","), "setting", originSetting)
	writeErrors(w, r, http.StatusForbidden, apierr.New(apierr.Forbidden,
		"the origin %s may not call this API from a browser: %s; the operator adds it to %s, a comma-separated list of origins such as https://app.example.se",
		origin, why, originSetting))
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
