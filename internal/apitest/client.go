package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Vars are the variables of a GraphQL request.
type Vars map[string]any

// Caller sends GraphQL requests with one API key (or none).
type Caller struct {
	env *Env
	key string
}

// Admin calls with the bootstrap ADMIN key.
func (e *Env) Admin() *Caller { return &Caller{env: e, key: AdminKey} }

// As calls with the given secret ("" sends no Authorization header).
func (e *Env) As(secret string) *Caller { return &Caller{env: e, key: secret} }

// Request is one HTTP request to /graphql, for tests that need more than a
// plain POST: headers, GET, a raw body.
type Request struct {
	Method  string
	Header  http.Header
	Body    []byte
	RawPath string // path and query, for GET
}

// Response is an answer of the server.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// Parsed body; Data is nil when the body has no data entry.
	Data    json.RawMessage `json:"data"`
	Errors  []Error         `json:"errors"`
	hasData bool
}

// Error is a GraphQL error as the contract shapes it.
type Error struct {
	Message    string `json:"message"`
	Path       []any  `json:"path"`
	Extensions struct {
		Code  string `json:"code"`
		Field string `json:"field"`
	} `json:"extensions"`
}

// Do posts a GraphQL operation.
func (c *Caller) Do(t testing.TB, query string, vars Vars, header ...string) *Response {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(header); i += 2 {
		h.Add(header[i], header[i+1])
	}
	return c.Send(t, Request{Method: http.MethodPost, Header: h, Body: body})
}

// Send sends a request as it is, with the caller's key.
func (c *Caller) Send(t testing.TB, r Request) *Response {
	t.Helper()
	method := r.Method
	if method == "" {
		method = http.MethodPost
	}
	path := r.RawPath
	if path == "" {
		path = "/graphql"
	}
	req, err := http.NewRequest(method, c.env.URL+path, bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
	if strings.Contains(resp.Header.Get("Content-Type"), "json") {
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(b, &probe); err != nil {
			t.Fatalf("response is not JSON: %v\n%s", err, b)
		}
		_, out.hasData = probe["data"]
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("decoding response: %v\n%s", err, b)
		}
	}
	return out
}

// OK fails the test unless the response is 200 without errors, and decodes
// its data into v (when v is not nil).
func (r *Response) OK(t testing.TB, v any) {
	t.Helper()
	if r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("want 200 without errors, got %d: %s", r.Status, r.Body)
	}
	if v != nil {
		if err := json.Unmarshal(r.Data, v); err != nil {
			t.Fatalf("decoding data: %v\n%s", err, r.Data)
		}
	}
}

// Refused fails the test unless the response is a refusal with the HTTP
// status and code, no data entry, and (when field is not "") an error on
// that field.
func (r *Response) Refused(t testing.TB, status int, code, field string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("want HTTP %d, got %d: %s", status, r.Status, r.Body)
	}
	if r.hasData {
		t.Fatalf("a refusal must have no data entry: %s", r.Body)
	}
	if len(r.Errors) == 0 {
		t.Fatalf("want errors, got none: %s", r.Body)
	}
	for _, e := range r.Errors {
		if e.Extensions.Code == code && (field == "" || e.Extensions.Field == field) {
			if e.Message == "" {
				t.Fatalf("error without a message: %s", r.Body)
			}
			return
		}
	}
	t.Fatalf("want an error with code %s on field %q, got: %s", code, field, r.Body)
}

// HasData reports whether the body has a data entry.
func (r *Response) HasData() bool { return r.hasData }

// String is the response for failure messages.
func (r *Response) String() string { return fmt.Sprintf("%d %s", r.Status, r.Body) }
