package server_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

// A body that is not JSON is answered with what is wrong and where, so that
// a caller who pasted a multi-line document into a JSON string (the usual
// mistake with curl -d) sees the character; a body that is JSON but not a
// request says so in words of its own. Both stay 400 BAD_USER_INPUT.
func TestMalformedBodies(t *testing.T) {
	env := apitest.New(t)
	for name, c := range map[string]struct{ body, message string }{
		"a newline in a string": {
			"{\n  \"query\": \"query {\n viewer { role } }\"\n}",
			`the request body is not valid JSON: invalid character '\n' in string literal at offset 21 (line 2, column 20)`,
		},
		"columns count characters": {
			`{"query": "{ clients(search: \"Malmö\") { totalCount } }",}`,
			`the request body is not valid JSON: invalid character '}' looking for beginning of object key string at offset 59 (line 1, column 59)`,
		},
		"cut short": {
			"{\"query\": \"{ viewer { role } }\",\n \"variables\": {",
			`the request body is not valid JSON: unexpected end of JSON input at offset 48 (line 2, column 16)`,
		},
		"not JSON at all": {
			`query { viewer { role } }`,
			`the request body is not valid JSON: invalid character 'q' looking for beginning of value at offset 0 (line 1, column 1)`,
		},
		"data after the object": {
			`{"query": "{ viewer { role } }"} {"query": "{ viewer { role } }"}`,
			`the request body is not valid JSON: unexpected data after the JSON value at offset 33 (line 1, column 34)`,
		},
		"empty": {
			" \n",
			`the request body is empty: send a JSON object {"query": ..., "operationName": ..., "variables": {...}}`,
		},
		"a string": {
			`"{ viewer { role } }"`,
			`the request body must be a JSON object {"query": ..., "operationName": ..., "variables": {...}}, not a string`,
		},
		"null": {
			`null`,
			`the request body must be a JSON object {"query": ..., "operationName": ..., "variables": {...}}, not null`,
		},
		"query of another type": {
			`{"query": 42}`,
			`in the request body, "query" must be a string, not a number`,
		},
		"variables as a string": {
			`{"query": "query($p: Int) { clients(page: $p) { totalCount } }", "variables": "{\"p\": 1}"}`,
			`in the request body, "variables" must be a JSON object, not a string`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := http.Header{"Content-Type": {"application/json"}}
			r := env.Admin().Send(t, apitest.Request{Header: h, Body: []byte(c.body)})
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
			if len(r.Errors) != 1 || r.Errors[0].Message != c.message {
				t.Errorf("got  %s\nwant %s", r.Body, c.message)
			}
		})
	}
}

// GET's variables and extensions are JSON too, and explained the same way.
func TestMalformedGetVariables(t *testing.T) {
	env := apitest.New(t)
	for vars, message := range map[string]string{
		`{"p": 1`: `variables is not valid JSON: unexpected end of JSON input at offset 7 (line 1, column 8)`,
		`[1]`:     `variables must be a JSON object, not an array`,
	} {
		q := url.Values{"query": {"query($p: Int) { clients(page: $p) { totalCount } }"}, "variables": {vars}}
		r := env.Admin().Send(t, apitest.Request{Method: http.MethodGet, RawPath: "/graphql?" + q.Encode()})
		r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
		if len(r.Errors) != 1 || r.Errors[0].Message != message {
			t.Errorf("variables %s: got %s, want %s", vars, r.Body, message)
		}
	}
}
