package server_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
)

func TestDepthLimit(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Deep AB")
	// Each "client { debtors { nodes {" adds three levels.
	nest := func(levels int, leaf string) string {
		q := leaf
		for range levels {
			q = "client { debtors(first: 1) { nodes { " + q + " } } }"
		}
		return q
	}
	ok := fmt.Sprintf(`query($c: UUID!) { debtors(clientId: $c) { nodes { %s } } }`, nest(3, "id")) // 2 + 3*3 + 1 = 12 levels
	env.Admin().Do(t, ok, apitest.Vars{"c": clientID}).OK(t, nil)
	deep := fmt.Sprintf(`query($c: UUID!) { debtors(clientId: $c) { nodes { %s } } }`, nest(3, "debts(first: 1) { totalCount }")) // 13
	env.Admin().Do(t, deep, apitest.Vars{"c": clientID}).Refused(t, http.StatusBadRequest, "QUERY_TOO_DEEP", "")
	// __typename and other introspection fields count like any other.
	env.Admin().Do(t, fmt.Sprintf(`query($c: UUID!) { debtors(clientId: $c) { nodes { %s } } }`, nest(3, "__typename")), apitest.Vars{"c": clientID}).OK(t, nil)
	env.Admin().Do(t, fmt.Sprintf(`query($c: UUID!) { debtors(clientId: $c) { nodes { %s } } }`, nest(3, "client { __typename }")), apitest.Vars{"c": clientID}).
		Refused(t, http.StatusBadRequest, "QUERY_TOO_DEEP", "")
	// ofType chains do not: GraphiQL's introspection query passes
	// (TestIntrospectionCountsInDepthAndCost).
	env.Admin().Do(t, `{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } }`, nil).OK(t, nil)
}

func TestComplexityLimit(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Complex AB")
	two := `query($c: UUID!) { debtors(clientId: $c, rowsPerPage: 100) { totalCount nodes { id name isCompleted
	  debts(rowsPerPage: 100) { totalCount nodes { id originalAmount paidAmount mainStatus underStatus paymentStatus createdAt } } } } }`
	env.Admin().Do(t, two, apitest.Vars{"c": clientID}).OK(t, nil)
	three := `query($c: UUID!) { debtors(clientId: $c, rowsPerPage: 100) { nodes { client { debtors(rowsPerPage: 100) {
	  nodes { debts(rowsPerPage: 100) { nodes { id } } } } } } } }`
	r := env.Admin().Do(t, three, apitest.Vars{"c": clientID})
	r.Refused(t, http.StatusBadRequest, "QUERY_TOO_COMPLEX", "")
	// Page sizes from variables count too.
	small := `query($c: UUID!, $n: Int) { debtors(clientId: $c, first: $n) { nodes { client { debtors(first: $n) {
	  nodes { debts(first: $n) { nodes { id } } } } } } } }`
	env.Admin().Do(t, small, apitest.Vars{"c": clientID, "n": 5}).OK(t, nil)
	env.Admin().Do(t, small, apitest.Vars{"c": clientID, "n": 100}).Refused(t, http.StatusBadRequest, "QUERY_TOO_COMPLEX", "")
}

func TestRootFieldLimit(t *testing.T) {
	env := apitest.New(t)
	fields := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "a%d: viewer { role } ", i)
		}
		return "{ " + b.String() + "}"
	}
	env.Admin().Do(t, fields(20), nil).OK(t, nil)
	env.Admin().Do(t, fields(21), nil).Refused(t, http.StatusBadRequest, "TOO_MANY_ROOT_FIELDS", "")
}

func TestDocumentSizeLimit(t *testing.T) {
	env := apitest.New(t)
	pad := strings.Repeat(" ", 32<<10)
	env.Admin().Do(t, "{ viewer { role } }"+pad, nil).Refused(t, http.StatusBadRequest, "DOCUMENT_TOO_LARGE", "")
	env.Admin().Do(t, "{ viewer { role } }"+pad[:32<<10-40], nil).OK(t, nil)
}

func TestRateLimitPerAPIKey(t *testing.T) {
	limits := apitest.TestLimits()
	limits.RatePerSecond, limits.RateBurst = 0.5, 3
	env := apitest.NewWithLimits(t, limits)
	_, other := env.NewKey(t, "ADMIN", "") // the bootstrap key spent one token here
	for i := range 2 {
		env.Admin().Do(t, `{ viewer { role } }`, nil).OK(t, nil)
		_ = i
	}
	r := env.Admin().Do(t, `{ viewer { role } }`, nil)
	r.Refused(t, http.StatusTooManyRequests, "RATE_LIMITED", "")
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 2 {
		t.Errorf("Retry-After %q, want whole seconds until the next token", r.Header.Get("Retry-After"))
	}
	// Another key has its own bucket.
	env.As(other).Do(t, `{ viewer { role } }`, nil).OK(t, nil)
}

func TestRequestDeadline(t *testing.T) {
	limits := apitest.TestLimits()
	limits.RequestTimeout = time.Nanosecond
	env := apitest.NewWithLimits(t, limits)
	// The deadline passes before the SQL runs: the request fails fast with
	// 503, it does not hang.
	env.Admin().Do(t, `{ clients { totalCount } }`, nil).Refused(t, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "")
}

// Unknown keys are limited per address before they reach the key lookup:
// past the burst they answer 429 with no statement, while a key the cache
// already holds goes on working.
func TestFailedAuthenticationsAreRateLimited(t *testing.T) {
	limits := apitest.TestLimits()
	limits.AuthFailuresPerSecond, limits.AuthFailureBurst = 0.5, 5
	env := apitest.NewWithLimits(t, limits)
	env.Admin().Do(t, `{ viewer { role } }`, nil).OK(t, nil)
	bad := env.As("dq_" + strings.Repeat("x", 43))
	for range 5 {
		bad.Do(t, `{ viewer { role } }`, nil).Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
	}
	env.Statements.Reset()
	for i := range 300 {
		r := bad.Do(t, `{ viewer { role } }`, nil)
		if i == 0 {
			r.Refused(t, http.StatusTooManyRequests, "RATE_LIMITED", "")
			if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 2 {
				t.Errorf("Retry-After %q, want whole seconds until the next token", r.Header.Get("Retry-After"))
			}
		} else if r.Status != http.StatusTooManyRequests {
			t.Fatalf("bad key %d answered %d, want 429", i, r.Status)
		}
	}
	if n := env.Statements.Count(); n != 0 {
		t.Errorf("the refused requests ran %d statements, want none: %v", n, env.Statements.Log())
	}
	// A malformed header costs no lookup and is refused as always.
	env.As("").Do(t, `{ viewer { role } }`, nil).Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
	if env.KeyStatements() == 0 {
		// PostgreSQL: the key cache answers a key it holds without a lookup.
		env.Admin().Do(t, `{ viewer { role } }`, nil).OK(t, nil)
	}
}

// A body trickled in slowly is cut at the request's deadline (408), not at
// the HTTP server's read timeout (30 s).
func TestSlowBodyIsCutAtTheDeadline(t *testing.T) {
	limits := apitest.TestLimits()
	limits.RequestTimeout = time.Second
	env := apitest.NewWithLimits(t, limits)
	conn, err := net.Dial("tcp", strings.TrimPrefix(env.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"query":"{ viewer { role } }"}`
	fmt.Fprintf(conn, "POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", apitest.AdminKey, len(body))
	start := time.Now()
	answered := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(conn)
		answered <- string(b)
	}()
	// One byte every 200 ms: the body would take 6 s.
	for i := 0; i < len(body); i++ {
		select {
		case got := <-answered:
			if !strings.HasPrefix(got, "HTTP/1.1 408") || !strings.Contains(got, `"REQUEST_TIMEOUT"`) {
				t.Fatalf("answered %q, want 408 REQUEST_TIMEOUT", got)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("cut after %s, want about the 1 s deadline", d)
			}
			return
		case <-time.After(200 * time.Millisecond):
		}
		if _, err := conn.Write([]byte{body[i]}); err != nil {
			break // the server closed the connection
		}
	}
	select {
	case got := <-answered:
		if !strings.HasPrefix(got, "HTTP/1.1 408") {
			t.Fatalf("answered %q, want 408", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cut after %s, want about the 1 s deadline", d)
	}
}

// The introspection query of GraphiQL and of code generators (graphql-js's
// getIntrospectionQuery with every option and nine levels of ofType) passes
// every limit; the same schema asked for many times over through aliases
// and repeated fragments costs what it would return, and is refused.
func TestIntrospectionCountsInDepthAndCost(t *testing.T) {
	env := apitest.New(t)
	full, err := os.ReadFile("testdata/introspection.graphql")
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Schema struct{ Types []struct{ Name string } } `json:"__schema"`
	}
	env.Admin().Do(t, string(full), nil).OK(t, &out)
	if len(out.Schema.Types) < 50 {
		t.Fatalf("the introspection answered %d types", len(out.Schema.Types))
	}

	// The review's document: 1.7 KB, 16 MB of answer.
	doc := introspectionAmplification()
	_, client := env.ClientCaller(t, "Introspect AB")
	r := client.Do(t, doc, nil)
	r.Refused(t, http.StatusBadRequest, "QUERY_TOO_COMPLEX", "")

	// Deep introspection is refused (gqlparser's validation limits nested
	// fields lists), and __ fields count in depth (the test above).
	deep := "name"
	for range 6 {
		deep = "fields { type { " + deep + " } }"
	}
	client.Do(t, `{ __type(name: "Debt") { `+deep+` } }`, nil).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	client.Do(t, `{ __type(name: "Debt") { name fields { name type { name kind ofType { name } } } } }`, nil).OK(t, nil)
}
