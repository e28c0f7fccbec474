package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

// TestSQLiteSmoke runs the walking skeleton on the embedded database that
// `go run ./cmd/debtql` uses, whichever database the rest of the suite is on.
func TestSQLiteSmoke(t *testing.T) {
	env := apitest.NewSQLite(t)
	if env.Postgres {
		t.Fatal("NewSQLite started PostgreSQL")
	}
	id, number := env.NewClient(t, "Smoke AB")
	if number != 1001 {
		t.Errorf("first client number %d", number)
	}
	env.Admin().Do(t, `mutation($id: UUID!, $input: ClientInput!) { updateClient(id: $id, input: $input) { id } }`,
		apitest.Vars{"id": id, "input": apitest.ClientInput("Smoke 2 AB")}).OK(t, nil)

	vars := apitest.Vars{"input": apitest.ClientInput("Keyed AB")}
	r1 := env.Admin().Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "smoke")
	r2 := env.Admin().Do(t, apitest.CreateClientMutation, vars, "Idempotency-Key", "smoke")
	if r1.Status != http.StatusOK || !bytes.Equal(r1.Body, r2.Body) {
		t.Fatalf("idempotent replay on SQLite: %s / %s", r1, r2)
	}
	for i := range 3 {
		env.NewClient(t, fmt.Sprintf("More %d", i))
	}
	var page struct {
		TotalCount int
		Nodes      []struct{ Name string }
		PageInfo   struct{ EndCursor string }
	}
	env.Admin().Do(t, `{ clients(first: 2) { totalCount nodes { name } pageInfo { endCursor } } }`, nil).Field(t, "clients", &page)
	if page.TotalCount != 5 || len(page.Nodes) != 2 || page.Nodes[0].Name != "More 2" {
		t.Fatalf("clients on SQLite: %+v", page)
	}
	var next struct{ Nodes []struct{ Name string } }
	env.Admin().Do(t, `query($a: String) { clients(first: 10, after: $a) { nodes { name } } }`, apitest.Vars{"a": page.PageInfo.EndCursor}).
		Field(t, "clients", &next)
	if len(next.Nodes) != 3 || next.Nodes[2].Name != "Smoke 2 AB" {
		t.Fatalf("second cursor page on SQLite: %+v", next)
	}
	_, c := env.ClientCaller(t, "Tenant AB")
	c.Do(t, `{ clients { totalCount } }`, nil).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
}
