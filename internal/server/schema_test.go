package server_test

import (
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
)

// The schema as committed: what the download must be, schema.graphqls
// and the files that extend it (datarights.graphqls, events.graphqls), in that order.
func committedSchema(t *testing.T) string {
	t.Helper()
	var text string
	for _, name := range []string{"schema.graphqls", "datarights.graphqls", "events.graphqls"} {
		b, err := os.ReadFile("../../" + name)
		if err != nil {
			t.Fatal(err)
		}
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += string(b)
	}
	return text
}

func TestSDLIsTheCommittedSchema(t *testing.T) {
	if server.SDL() != committedSchema(t) {
		t.Fatal("server.SDL() differs from schema.graphqls, datarights.graphqls and events.graphqls: run go generate ./... (gqlgen compiles the file into graph)")
	}
	if _, err := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: server.SDL()}); err != nil {
		t.Fatalf("the SDL does not load as a schema: %v", err)
	}
}

func TestSchemaDownload(t *testing.T) {
	env := apitest.New(t)
	want := server.SDL() // TestSDLIsTheCommittedSchema: schema.graphqls
	clientID, _ := env.NewClient(t, "Acme AB")
	_, clientKey := env.NewKey(t, "CLIENT", clientID)

	for name, key := range map[string]string{"ADMIN key": apitest.AdminKey, "CLIENT key": clientKey} {
		t.Run(name, func(t *testing.T) {
			r := env.As(key).Send(t, apitest.Request{Method: http.MethodGet, RawPath: "/graphql/schema.graphql"})
			if r.Status != http.StatusOK {
				t.Fatalf("GET /graphql/schema.graphql: %s", r)
			}
			if ct := r.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if string(r.Body) != want {
				t.Errorf("the body (%d bytes) is not the schema (%d bytes)", len(r.Body), len(want))
			}
			if r.Header.Get("X-Request-Id") == "" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("the API's headers are missing: %v", r.Header)
			}
		})
	}

	// The same authentication as the API: no key, a wrong key.
	for name, header := range map[string]string{"no key": "", "unknown key": "Bearer dq_thisisnotakey0000000000000000000000000000"} {
		t.Run(name, func(t *testing.T) {
			h := http.Header{}
			if header != "" {
				h.Set("Authorization", header)
			}
			r := env.As("").Send(t, apitest.Request{Method: http.MethodGet, RawPath: "/graphql/schema.graphql", Header: h})
			r.Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
			if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate is %q", r.Header.Get("WWW-Authenticate"))
			}
			if strings.Contains(string(r.Body), "type Query") {
				t.Error("the refusal shows the schema")
			}
		})
	}

	t.Run("HEAD", func(t *testing.T) {
		r := env.Admin().Send(t, apitest.Request{Method: http.MethodHead, RawPath: "/graphql/schema.graphql"})
		if r.Status != http.StatusOK || len(r.Body) != 0 || r.Header.Get("Content-Length") != strconv.Itoa(len(want)) {
			t.Errorf("HEAD: %d, %d bytes, Content-Length %q", r.Status, len(r.Body), r.Header.Get("Content-Length"))
		}
	})
	t.Run("POST", func(t *testing.T) {
		r := env.Admin().Send(t, apitest.Request{Method: http.MethodPost, RawPath: "/graphql/schema.graphql"})
		r.Refused(t, http.StatusMethodNotAllowed, "BAD_USER_INPUT", "")
		if r.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("Allow is %q", r.Header.Get("Allow"))
		}
	})

	t.Run("counted under its route", func(t *testing.T) {
		resp, err := http.Get(env.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(b), `debtql_http_requests_total{path="/graphql/schema.graphql",status="200"}`) {
			t.Error("/metrics does not count the downloads under their route")
		}
	})
}

// A browser tool on an allowed origin may fetch the schema like the API.
func TestSchemaDownloadCORS(t *testing.T) {
	env := apitest.NewWith(t, func(o *server.Options) { o.AllowedOrigins = []string{"https://app.example.se"} })
	h := http.Header{"Origin": {"https://app.example.se"}, "Access-Control-Request-Method": {"GET"},
		"Access-Control-Request-Headers": {"authorization"}}
	r := env.As("").Send(t, apitest.Request{Method: http.MethodOptions, RawPath: "/graphql/schema.graphql", Header: h})
	if r.Status != http.StatusNoContent || r.Header.Get("Access-Control-Allow-Origin") != "https://app.example.se" {
		t.Errorf("preflight: %d %v", r.Status, r.Header)
	}
	r = env.Admin().Send(t, apitest.Request{Method: http.MethodGet, RawPath: "/graphql/schema.graphql",
		Header: http.Header{"Origin": {"https://app.example.se"}}})
	if r.Status != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != "https://app.example.se" {
		t.Errorf("GET from the origin: %d %v", r.Status, r.Header)
	}
}

// With introspection off, the schema is not handed out either; a caller
// without a key still learns nothing but 401.
func TestSchemaDownloadFollowsIntrospection(t *testing.T) {
	env := apitest.NewWith(t, func(o *server.Options) { o.DisableIntrospection = true })
	env.Admin().Send(t, apitest.Request{Method: http.MethodGet, RawPath: "/graphql/schema.graphql"}).
		Refused(t, http.StatusNotFound, "NOT_FOUND", "")
	env.As("").Send(t, apitest.Request{Method: http.MethodGet, RawPath: "/graphql/schema.graphql"}).
		Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
	// Introspection itself answers the same, never 500.
	for _, q := range []string{`{ __schema { queryType { name } } }`, `{ __type(name: "Debt") { name } }`} {
		env.Admin().Do(t, q, nil).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
	}
	env.Admin().Do(t, `{ __typename }`, nil).OK(t, nil)
}
