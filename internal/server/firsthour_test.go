package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
)

// What a new user of the API meets in the first hour: every broken field
// at once, a CORS preflight that explains itself, error messages that say
// `<` as `<`, and the version running.

// fields are the extensions.field of a response's errors, in order.
func fields(r *apitest.Response) []string {
	var out []string
	for _, e := range r.Errors {
		out = append(out, e.Extensions.Field)
	}
	return out
}

// wantFields fails unless the refusal is 400 BAD_USER_INPUT without data
// and has an error on each of want (and no other).
func wantFields(t *testing.T, r *apitest.Response, want ...string) {
	t.Helper()
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	got := fields(r)
	for _, f := range want {
		if !slices.Contains(got, f) {
			t.Errorf("no error on %s; errors: %s", f, r.Body)
		}
	}
	if len(got) != len(want) {
		t.Errorf("errors on %v, want exactly %v: %s", got, want, r.Body)
	}
	for _, e := range r.Errors {
		if e.Extensions.Code != "BAD_USER_INPUT" || e.Message == "" {
			t.Errorf("error %+v: want BAD_USER_INPUT with a message", e)
		}
	}
}

func TestRequiredFieldsAreAllReportedAtOnce(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin()
	clientID, _ := env.NewClient(t, "Required AB")

	t.Run("variables: three missing fields of one input", func(t *testing.T) {
		in := apitest.ClientInput("Acme AB")
		delete(in, "name")
		delete(in, "zipCode")
		in["city"] = nil
		r := admin.Do(t, apitest.CreateClientMutation, apitest.Vars{"input": in})
		wantFields(t, r, "input.name", "input.zipCode", "input.city")
		for _, e := range r.Errors {
			name := e.Extensions.Field[strings.LastIndex(e.Extensions.Field, ".")+1:]
			if !strings.Contains(e.Message, name) || !strings.Contains(e.Message, "ClientInput") {
				t.Errorf("the message does not name %s of ClientInput: %q", name, e.Message)
			}
		}
	})

	t.Run("variables: nested, in lists, and the scalars' own refusals", func(t *testing.T) {
		r := admin.Do(t, `mutation($c: UUID!, $in: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $in) { id } }`,
			apitest.Vars{"c": "not-a-uuid", "in": json.RawMessage(`{"isCorporation": "no", "identificationNumber": "811228-9874",
				"address": {"address1": "Vägen 2", "city": "Malmö", "countryCode": "SE"},
				"debts": [{"invoiceNumber": "F-1", "invoiceDate": "2026-09-01T00:00:00Z", "dueDate": "2026-10-01T00:00:00Z"},
				          {"invoiceNumber": "F-2", "invoiceDate": "yesterday", "dueDate": "2026-10-01T00:00:00Z", "amount": "1,5"},
				          null]}`)})
		wantFields(t, r, "c", "in.isCorporation", "in.name", "in.address.zipCode", "in.debts.0.amount",
			"in.debts.1.invoiceDate", "in.debts.1.amount", "in.debts.2")
	})

	t.Run("variables: a missing variable and an unknown field beside a missing one", func(t *testing.T) {
		in := apitest.Vars{"isCorporation": false, "identificationNumber": "811228-9874", "name": "Sven",
			"address": apitest.Vars{"adress1": "Vägen 2", "zipCode": "123 45", "city": "Malmö", "countryCode": "SE"}}
		r := admin.Do(t, `mutation($c: UUID!, $input: DebtorInput!) { createDebtor(clientId: $c, input: $input) { id } }`,
			apitest.Vars{"input": in})
		wantFields(t, r, "c", "input.address.adress1", "input.address.address1")
		if !hasMessage(r, `unknown field "adress1" of AddressInput; did you mean "address1"?`) {
			t.Errorf("the unknown field lost its suggestion: %s", r.Body)
		}
	})

	t.Run("literal: every missing, null or unknown field with its path", func(t *testing.T) {
		r := admin.Do(t, `mutation($c: UUID!) { createDebtor(clientId: $c, input: {isCorporation: false, identificationNumber: "811228-9874",
			address: {address1: "Vägen 2", city: null, countryCode: "SE", zipCod: "123 45"}}) { id } }`,
			apitest.Vars{"c": clientID})
		wantFields(t, r, "input.name", "input.address.zipCode", "input.address.zipCod", "input.address.city")
	})

	t.Run("literal: a missing argument", func(t *testing.T) {
		r := admin.Do(t, `mutation { createClient { id } }`, nil)
		wantFields(t, r, "input")
	})

	t.Run("a valid request is untouched", func(t *testing.T) {
		admin.Do(t, apitest.CreateClientMutation, apitest.Vars{"input": apitest.ClientInput("Valid AB")}).OK(t, nil)
	})
}

// A preflight needs no key: it is answered before authentication, and an
// origin that may not call says which setting lets it.
func TestCORSPreflightIsAnsweredBeforeAuthentication(t *testing.T) {
	for name, allowed := range map[string][]string{"no origins configured": nil, "another origin configured": {"https://app.example.se"}} {
		t.Run(name, func(t *testing.T) {
			var logs syncBuffer
			env := apitest.NewWith(t, func(o *server.Options) {
				o.AllowedOrigins = allowed
				o.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
			})
			origin := "http://localhost:5173"
			req, _ := http.NewRequest(http.MethodOptions, env.URL+"/graphql", nil)
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get("WWW-Authenticate") != "" ||
				resp.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Fatalf("preflight: %d %v %s, want 403 without CORS headers or an authentication challenge", resp.StatusCode, resp.Header, body)
			}
			var out apitest.Response
			if err := json.Unmarshal(body, &out); err != nil || len(out.Errors) != 1 {
				t.Fatalf("preflight body %s: %v", body, err)
			}
			e := out.Errors[0]
			if e.Extensions.Code != "FORBIDDEN" || !strings.Contains(e.Message, origin) ||
				!strings.Contains(e.Message, "--cors-origins") || !strings.Contains(e.Message, "DEBTQL_CORS_ORIGINS") {
				t.Errorf("preflight error %+v: want FORBIDDEN naming the origin and the setting", e)
			}
			var logged bool
			for _, line := range strings.Split(logs.String(), "\n") {
				if strings.Contains(line, "CORS preflight refused") && strings.Contains(line, origin) && strings.Contains(line, "DEBTQL_CORS_ORIGINS") {
					logged = true
				}
			}
			if !logged {
				t.Errorf("no log line names the origin and the setting:\n%s", logs.String())
			}
			// An ordinary request without a key is still refused 401.
			env.As("").Do(t, `{ viewer { role } }`, nil, "Origin", origin).Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
		})
	}
	// A listed origin's preflight is answered without a key either.
	env := apitest.NewWith(t, func(o *server.Options) { o.AllowedOrigins = []string{"http://localhost:5173"} })
	if resp := preflight(t, env, "http://localhost:5173"); resp.StatusCode != http.StatusNoContent {
		t.Errorf("preflight of a listed origin: %d, want 204", resp.StatusCode)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Error messages quote the caller's input as written: `<`, `>` and `&`,
// not \u003c, \u003e and \u0026.
func TestErrorMessagesAreNotHTMLEscaped(t *testing.T) {
	env := apitest.New(t)
	escaped := []string{`\u003c`, `\u003e`, `\u0026`}
	check := func(t *testing.T, what string, body []byte, want string) {
		t.Helper()
		for _, e := range escaped {
			if bytes.Contains(body, []byte(e)) {
				t.Errorf("%s: the body holds %s: %s", what, e, body)
			}
		}
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("%s: the body lacks %s: %s", what, want, body)
		}
	}

	in := apitest.ClientInput("Acme AB", apitest.Vars{"<b>&x</b>": "1"})
	r := env.Admin().Do(t, apitest.CreateClientMutation, apitest.Vars{"input": in})
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.<b>&x</b>")
	check(t, "unknown field", r.Body, `unknown field \"<b>&x</b>\" of ClientInput`)

	r = env.Admin().Do(t, `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret } }`,
		apitest.Vars{"in": apitest.Vars{"name": "k", "role": "<ADMIN> & co"}})
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "in.role")
	check(t, "enum", r.Body, `not the string \"<ADMIN> & co\"`)

	// Data: as gqlgen writes it, and beside an error (several root fields,
	// one refused), where the answer is encoded again with the error.
	env.NewClient(t, "Smith & <Sons>")
	r = env.Admin().Do(t, `{ clients { nodes { name } } }`, nil)
	r.OK(t, nil)
	check(t, "data", r.Body, `"Smith & <Sons>"`)
	r = env.Admin().Do(t, `query($id: UUID!) { clients { nodes { name } } client(id: $id) { name } }`, apitest.Vars{"id": "<not a uuid>"})
	if r.Status != http.StatusOK || len(r.Errors) != 1 || !r.HasData() {
		t.Fatalf("want 200 with data and one error: %s", r)
	}
	check(t, "data beside an error", r.Body, `"Smith & <Sons>"`)

	// The CORS refusal quotes the origin.
	req, _ := http.NewRequest(http.MethodOptions, env.URL+"/graphql", nil)
	req.Header.Set("Origin", "https://a.example?x=<y>&z")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	check(t, "CORS", body, "https://a.example?x=<y>&z")
}

// GET /healthz answers "ok" as it always has; asked for JSON, it adds the
// version and commit running.
func TestHealthzVersion(t *testing.T) {
	env := apitest.New(t)
	resp, body := get(t, env, "/healthz")
	if resp.StatusCode != http.StatusOK || body != "ok\n" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("/healthz: %d %q %s, want 200 ok as text", resp.StatusCode, body, resp.Header.Get("Content-Type"))
	}
	for _, accept := range []string{"application/json", "application/json, text/plain;q=0.5"} {
		req, _ := http.NewRequest(http.MethodGet, env.URL+"/healthz", nil)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("/healthz as JSON (%s): %d %v %v", accept, resp.StatusCode, out, err)
		}
		for _, key := range []string{"status", "version", "commit", "go"} {
			if s, _ := out[key].(string); s == "" {
				t.Errorf("/healthz JSON lacks %s: %v", key, out)
			}
		}
		if out["status"] != "ok" {
			t.Errorf("/healthz JSON status = %v, want ok", out["status"])
		}
	}
}
