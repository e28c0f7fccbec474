package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

func get(t *testing.T, env *apitest.Env, path string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(env.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestHealthAndReadiness(t *testing.T) {
	env := apitest.New(t)
	if resp, _ := get(t, env, "/healthz"); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %d", resp.StatusCode)
	}
	if resp, _ := get(t, env, "/readyz"); resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz: %d", resp.StatusCode)
	}
	// Without its database the server is alive but not ready.
	_ = env.DB.SQL.Close()
	if resp, _ := get(t, env, "/readyz"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz without a database: %d, want 503", resp.StatusCode)
	}
	if resp, _ := get(t, env, "/healthz"); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz without a database: %d, want 200", resp.StatusCode)
	}
}

func TestAuthentication(t *testing.T) {
	env := apitest.New(t)
	body := []byte(`{"query":"{ viewer { role } }"}`)
	for name, header := range map[string]string{
		"missing":      "",
		"not bearer":   "Basic " + apitest.AdminKey,
		"empty bearer": "Bearer ",
		"unknown key":  "Bearer dq_thisisnotakey0000000000000000000000000000",
	} {
		t.Run(name, func(t *testing.T) {
			h := http.Header{"Content-Type": {"application/json"}}
			if header != "" {
				h.Set("Authorization", header)
			}
			r := env.As("").Send(t, apitest.Request{Header: h, Body: body})
			r.Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
			if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate is %q", r.Header.Get("WWW-Authenticate"))
			}
		})
	}
	t.Run("lower-case scheme is accepted", func(t *testing.T) {
		h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"bearer " + apitest.AdminKey}}
		env.As("").Send(t, apitest.Request{Header: h, Body: body}).OK(t, nil)
	})
}

func TestRequestErrorsAre400WhateverTheAccept(t *testing.T) {
	env := apitest.New(t)
	for _, accept := range []string{"", "application/json", "application/graphql-response+json", "application/graphql-response+json, application/json;q=0.9"} {
		for name, body := range map[string]string{
			"malformed JSON":   `{"query": `,
			"not an object":    `"query"`,
			"no query":         `{"variables": {}}`,
			"syntax error":     `{"query": "{ viewer { role }"}`,
			"unknown field":    `{"query": "{ viewer { nope } }"}`,
			"missing argument": `{"query": "{ client { id } }"}`,
			"wrong variable":   `{"query": "query($n: Int) { clients(page: $n) { totalCount } }", "variables": {"n": "one"}}`,
			"unknown op name":  `{"query": "query A { viewer { role } }", "operationName": "B"}`,
			"batch":            `[{"query": "{ viewer { role } }"}]`,
		} {
			t.Run(name+" accept "+accept, func(t *testing.T) {
				h := http.Header{"Content-Type": {"application/json"}}
				if accept != "" {
					h.Set("Accept", accept)
				}
				r := env.Admin().Send(t, apitest.Request{Header: h, Body: []byte(body)})
				r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
				if strings.Contains(string(r.Body), "goroutine") || strings.Contains(string(r.Body), ".go:") {
					t.Errorf("the error shows internals: %s", r.Body)
				}
			})
		}
	}
}

func TestContentNegotiation(t *testing.T) {
	env := apitest.New(t)
	q := []byte(`{"query":"{ viewer { role } }"}`)
	for accept, want := range map[string]string{
		"":                                  "application/json",
		"application/json":                  "application/json",
		"*/*":                               "application/json",
		"application/graphql-response+json": "application/graphql-response+json",
	} {
		h := http.Header{"Content-Type": {"application/json"}}
		if accept != "" {
			h.Set("Accept", accept)
		}
		r := env.Admin().Send(t, apitest.Request{Header: h, Body: q})
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), want) {
			t.Errorf("Accept %q: %d %q, want 200 %s", accept, r.Status, r.Header.Get("Content-Type"), want)
		}
		if r.Header.Get("X-Content-Type-Options") != "nosniff" || r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("API response headers: %v", r.Header)
		}
	}
	r := env.Admin().Send(t, apitest.Request{Header: http.Header{"Content-Type": {"text/plain"}}, Body: q})
	r.Refused(t, http.StatusUnsupportedMediaType, "BAD_USER_INPUT", "")
}

func TestGetQueriesAndMethods(t *testing.T) {
	env := apitest.New(t)
	qs := url.Values{"query": {"query Who { viewer { role } }"}, "operationName": {"Who"}}
	r := env.Admin().Send(t, apitest.Request{Method: http.MethodGet, RawPath: "/graphql?" + qs.Encode()})
	r.OK(t, nil)
	if !strings.Contains(string(r.Data), "ADMIN") {
		t.Errorf("GET query answered %s", r.Body)
	}
	vars := url.Values{"query": {"query($p: Int) { clients(page: $p) { totalCount } }"}, "variables": {`{"p": 1}`}}
	env.Admin().Send(t, apitest.Request{Method: http.MethodGet, RawPath: "/graphql?" + vars.Encode()}).OK(t, nil)

	mut := url.Values{"query": {`mutation { revokeApiKey(id: "6f1c0a47-1f7e-4bd4-9a53-000000000000") { id } }`}}
	r = env.Admin().Send(t, apitest.Request{Method: http.MethodGet, RawPath: "/graphql?" + mut.Encode()})
	r.Refused(t, http.StatusMethodNotAllowed, "BAD_USER_INPUT", "")
	if r.Header.Get("Allow") != "POST" {
		t.Errorf("Allow is %q, want POST", r.Header.Get("Allow"))
	}
	r = env.Admin().Send(t, apitest.Request{Method: http.MethodPut, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"query":"{ viewer { role } }"}`)})
	r.Refused(t, http.StatusMethodNotAllowed, "BAD_USER_INPUT", "")
}

func TestBodyLimit(t *testing.T) {
	env := apitest.New(t)
	pad := strings.Repeat(" ", 1<<20)
	r := env.Admin().Send(t, apitest.Request{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"query":"{ viewer { role } }"` + pad + `}`)})
	r.Refused(t, http.StatusRequestEntityTooLarge, "BAD_USER_INPUT", "")
	// Just under the limit is fine.
	small := `{"query":"{ viewer { role } }"` + strings.Repeat(" ", 1<<20-40) + `}`
	env.Admin().Send(t, apitest.Request{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(small)}).OK(t, nil)
}

func TestRequestID(t *testing.T) {
	env := apitest.New(t)
	r := env.Admin().Do(t, `{ viewer { role } }`, nil, "X-Request-Id", "trace-123")
	if r.Header.Get("X-Request-Id") != "trace-123" {
		t.Errorf("X-Request-Id %q, want the caller's", r.Header.Get("X-Request-Id"))
	}
	r = env.Admin().Do(t, `{ viewer { role } }`, nil, "X-Request-Id", "bad id with spaces")
	if id := r.Header.Get("X-Request-Id"); id == "" || strings.Contains(id, " ") {
		t.Errorf("X-Request-Id %q, want a generated one", id)
	}
}

func TestRefusalStatusesAndPartialResults(t *testing.T) {
	env := apitest.New(t)
	clientID, own := env.ClientCaller(t, "Own")
	otherID, _ := env.NewClient(t, "Other")

	// One root field refused: the code's status, no data.
	own.Do(t, `{ clients { totalCount } }`, nil).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
	env.Admin().Do(t, `mutation { revokeApiKey(id: "6f1c0a47-1f7e-4bd4-9a53-000000000000") { id } }`, nil).
		Refused(t, http.StatusNotFound, "NOT_FOUND", "")

	// Several root fields, some succeeding: 200 with data and errors.
	r := own.Do(t, `query($id: UUID!, $other: UUID!) { me: client(id: $id) { id } other: client(id: $other) { id } }`,
		apitest.Vars{"id": clientID, "other": otherID})
	if r.Status != http.StatusOK || !r.HasData() || len(r.Errors) != 1 || r.Errors[0].Extensions.Code != "FORBIDDEN" {
		t.Fatalf("partial result: %s", r)
	}
	var data struct {
		Me    *struct{ ID string }
		Other *struct{ ID string }
	}
	if err := json.Unmarshal(r.Data, &data); err != nil || data.Me == nil || data.Me.ID != clientID || data.Other != nil {
		t.Errorf("partial data %s", r.Data)
	}

	// A non-null root field that fails takes the data with it: no data, the
	// error's status.
	own.Do(t, `query($id: UUID!) { me: client(id: $id) { id } all: clients { totalCount } }`, apitest.Vars{"id": clientID}).
		Refused(t, http.StatusForbidden, "FORBIDDEN", "")
}

func TestRefusedMutationWritesNothing(t *testing.T) {
	env := apitest.New(t)
	in := apitest.ClientInput("First")
	bad := apitest.ClientInput("Second", apitest.Vars{"countryCode": "XX"})
	r := env.Admin().Do(t, `mutation($a: ClientInput!, $b: ClientInput!) { a: createClient(input: $a) { id } b: createClient(input: $b) { id } }`,
		apitest.Vars{"a": in, "b": bad})
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.countryCode")
	var out struct{ Clients struct{ TotalCount int } }
	env.Admin().Do(t, `{ clients { totalCount } }`, nil).OK(t, &out)
	if out.Clients.TotalCount != 0 {
		t.Errorf("a refused mutation left %d clients behind", out.Clients.TotalCount)
	}
}

func TestIntrospection(t *testing.T) {
	env := apitest.New(t)
	var out struct {
		Schema struct {
			Types []struct{ Name string }
		} `json:"__schema"`
	}
	env.Admin().Do(t, `{ __schema { types { name } } }`, nil).OK(t, &out)
	names := map[string]bool{}
	for _, ty := range out.Schema.Types {
		names[ty.Name] = true
	}
	for _, want := range []string{"Client", "UUID", "Date", "DateTime", "Decimal", "ApiKey", "Viewer"} {
		if !names[want] {
			t.Errorf("introspection lacks %s", want)
		}
	}
	if names["Creditor"] {
		t.Error("the internal name Creditor leaks into the schema")
	}
	// Introspection needs a key like every operation.
	env.As("").Do(t, `{ __schema { queryType { name } } }`, nil).Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
}

func TestGraphiQLIsServedOffline(t *testing.T) {
	env := apitest.New(t)
	resp, page := get(t, env, "/")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Errorf("the GraphiQL page refers to another origin:\n%s", page)
	}
	if !bytes.Contains([]byte(page), []byte("/graphiql/graphiql.js")) {
		t.Errorf("the page does not load the embedded GraphiQL:\n%s", page)
	}
	if resp, _ := get(t, env, "/graphiql/graphiql.js"); resp.StatusCode != http.StatusOK {
		t.Errorf("GraphiQL script: %d", resp.StatusCode)
	}
	if resp, _ := get(t, env, "/nope"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path: %d", resp.StatusCode)
	}
}

// A body that is not UTF-8 is refused as such, instead of having its bad
// bytes turned into U+FFFD by the JSON decoder.
func TestBodyMustBeUTF8(t *testing.T) {
	env := apitest.New(t)
	h := http.Header{"Content-Type": {"application/json"}}
	r := env.Admin().Send(t, apitest.Request{Header: h, Body: []byte("{\"query\":\"{ clients(search: \\\"a\xffb\\\") { totalCount } }\"}")})
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	if !strings.Contains(string(r.Body), "not valid UTF-8 (at byte 31)") {
		t.Errorf("the refusal does not name the byte: %s", r.Body)
	}
}
