package server_test

import (
	"fmt"
	"net/http"
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
	// Introspection is not counted: GraphiQL's introspection query passes.
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
