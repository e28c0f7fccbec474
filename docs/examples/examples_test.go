// Package examples_test runs the example documents of docs/examples against
// the real server over HTTP, so that what the documentation shows works, and
// checks that every list of the schema has an example.
package examples_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// mutations make the fixture the lists show, in this order; every other
// document of the directory is a list, run after them.
var mutations = []string{"createDebt", "addDebtPayment"}

// example is a document of this directory and its variables file.
type example struct {
	name     string
	document string
	vars     string
}

func examples(t *testing.T) []example {
	t.Helper()
	paths, err := filepath.Glob("*.graphql")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example documents: %v", err)
	}
	var out []example
	for _, p := range paths {
		doc, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(p, ".graphql")
		vars, err := os.ReadFile(name + ".variables.json")
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		out = append(out, example{name: name, document: string(doc), vars: string(vars)})
	}
	return out
}

// withIDs puts the fixture's ids in for the placeholders, as a reader does:
// "<clientId>" becomes the client's id, "<debtId>" (quotes included) the
// debt's number.
func withIDs(t *testing.T, e example, ids map[string]any) apitest.Vars {
	t.Helper()
	if strings.TrimSpace(e.vars) == "" {
		return nil
	}
	vars := e.vars
	for name, v := range ids {
		b, _ := json.Marshal(v)
		vars = strings.ReplaceAll(vars, `"<`+name+`>"`, string(b))
	}
	if strings.Contains(vars, `"<`) {
		t.Fatalf("%s.variables.json: a placeholder the test has no id for: %s", e.name, vars)
	}
	var v apitest.Vars
	if err := json.Unmarshal([]byte(vars), &v); err != nil {
		t.Fatalf("%s.variables.json is not JSON: %v", e.name, err)
	}
	return v
}

// connection is what every list answers, whichever fields the example asks.
type connection struct {
	TotalCount *int              `json:"totalCount"`
	Nodes      []json.RawMessage `json:"nodes"`
	Edges      []json.RawMessage `json:"edges"`
}

func TestExamples(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 11, 10, 12, 0, 0, 0, apitest.Stockholm))
	admin := env.Admin()

	// The fixture: a client with an invoice that createDebt takes into
	// collection (the same invoice number) and one it keeps.
	clientID, _ := env.NewClient(t, "Acme AB")
	for _, number := range []string{"F-2026-0042", "F-2026-0043"} {
		admin.Do(t, `mutation($c: UUID!, $in: InvoiceInput!) { createInvoice(clientId: $c, input: $in) { id } }`, apitest.Vars{
			"c": clientID, "in": json.RawMessage(`{"invoiceNumber": "` + number + `", "invoiceDate": "2026-09-01",
				"daysUntilExpiration": 30, "dueDate": "2026-10-01", "totalExcludingVAT": "1000.00",
				"totalVATAmount": "250.00", "totalAmountIncludingVAT": "1250.00",
				"articles": [{"name": "Konsulttimmar", "priceExcludingVAT": 500, "totalVATAmount": 250,
				"totalAmountIncludingVAT": 1250, "totalAmountExcludingVAT": 1000, "quantity": 2,
				"vatPercentage": 25, "discount": 0}]}`),
		}).OK(t, nil)
	}
	_, clientKey := env.NewKey(t, "CLIENT", clientID)
	// A webhook endpoint of the client, registered before the mutations so
	// that their events are queued for it (nothing listens at its URL:
	// the attempts fail, which the log shows).
	var hook struct {
		CreateWebhookEndpoint struct{ Endpoint struct{ ID string } }
	}
	admin.Do(t, `mutation($c: UUID, $in: WebhookEndpointInput!) { createWebhookEndpoint(clientId: $c, input: $in) { endpoint { id } } }`,
		apitest.Vars{"c": clientID, "in": apitest.Vars{"url": "http://127.0.0.1:9/hooks"}}).OK(t, &hook)
	ids := map[string]any{"clientId": clientID, "endpointId": hook.CreateWebhookEndpoint.Endpoint.ID}

	all := examples(t)
	byName := map[string]example{}
	for _, e := range all {
		byName[e.name] = e
	}
	ran := map[string]bool{}

	for _, name := range mutations {
		e, ok := byName[name]
		if !ok {
			t.Fatalf("no %s.graphql", name)
		}
		var data struct {
			CreateDebt *struct {
				ID       int
				Invoices []struct{ ID int }
			}
		}
		admin.Do(t, e.document, withIDs(t, e, ids)).OK(t, &data)
		if d := data.CreateDebt; d != nil {
			if len(d.Invoices) == 0 {
				t.Fatal("createDebt answered no items")
			}
			ids["debtId"], ids["itemId"] = d.ID, d.Invoices[0].ID
		}
		ran[name] = true
	}

	for _, e := range all {
		if ran[e.name] {
			continue
		}
		t.Run(e.name, func(t *testing.T) {
			vars := withIDs(t, e, ids)
			var data map[string]json.RawMessage
			admin.Do(t, e.document, vars).OK(t, &data)
			for field, raw := range data {
				var c connection
				if err := json.Unmarshal(raw, &c); err != nil || c.TotalCount == nil {
					t.Fatalf("%s: not a list: %s", field, raw)
				}
				// The fixture has a row for every example: an empty page
				// would prove nothing about the filters and fields.
				if *c.TotalCount == 0 || len(c.Nodes)+len(c.Edges) == 0 {
					t.Errorf("%s answered an empty list: %s", field, raw)
				}
			}
			// A BFF holding the client's own key sends the same documents.
			if _, ok := vars["clientId"]; ok {
				env.As(clientKey).Do(t, e.document, vars).OK(t, nil)
			}
		})
		ran[e.name] = true
	}
}

// Every list of the schema (a Query field answering a connection) has an
// example, and every variables file has its document.
func TestEveryListHasAnExample(t *testing.T) {
	schema, err := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphqls", Input: server.SDL()})
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, e := range examples(t) {
		doc, err := parser.ParseQuery(&ast.Source{Name: e.name, Input: e.document})
		if err != nil {
			t.Fatalf("%s.graphql: %v", e.name, err)
		}
		for _, op := range doc.Operations {
			for _, sel := range op.SelectionSet {
				if f, ok := sel.(*ast.Field); ok && op.Operation == ast.Query {
					shown[f.Name] = true
				}
			}
		}
	}
	var lists []string
	for _, f := range schema.Query.Fields {
		if strings.HasSuffix(f.Type.Name(), "Connection") {
			lists = append(lists, f.Name)
			if !shown[f.Name] {
				t.Errorf("the list %s has no example in docs/examples", f.Name)
			}
		}
	}
	if !slices.Contains(lists, "debts") || len(lists) < 6 {
		t.Errorf("found the lists %v; the schema has more", lists)
	}

	vars, _ := filepath.Glob("*.variables.json")
	for _, v := range vars {
		if _, err := os.Stat(strings.TrimSuffix(v, ".variables.json") + ".graphql"); err != nil {
			t.Errorf("%s has no document", v)
		}
	}
}
