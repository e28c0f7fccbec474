package graph_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
)

// API tests of the federation subgraph (federation.graphqls,
// docs/federation.md): _service { sdl }, _entities with the tenancy of the
// single lookups, its statements (one query per type, however many
// representations) and its cost.

// entityTypes are the types with @key(fields: "id").
var entityTypes = []string{"Client", "Debtor", "Invoice", "Debt"}

func repoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// _service { sdl } is the subgraph's schema: schema.graphqls, the keys of
// federation.graphqls and datarights.graphqls (gqlgen.yml's order), for
// every key; the schema download stays the API alone (schema.graphqls and
// datarights.graphqls).
func TestFederationServiceSDL(t *testing.T) {
	env := apitest.New(t)
	_, client := env.ClientCaller(t, "Federation AB")
	want := repoFile(t, "schema.graphqls") + "\n" + repoFile(t, "federation.graphqls") + "\n" + repoFile(t, "datarights.graphqls") + "\n" + repoFile(t, "events.graphqls")
	api := repoFile(t, "schema.graphqls") + repoFile(t, "datarights.graphqls") + repoFile(t, "events.graphqls")
	for name, c := range map[string]*apitest.Caller{"ADMIN": env.Admin(), "CLIENT": client} {
		t.Run(name, func(t *testing.T) {
			var out struct {
				Service struct{ SDL string } `json:"_service"`
			}
			c.Do(t, `{ _service { sdl } }`, nil).OK(t, &out)
			sdl := out.Service.SDL
			if sdl != want {
				t.Errorf("_service.sdl (%d bytes) is not schema.graphqls, federation.graphqls and datarights.graphqls (%d bytes)", len(sdl), len(want))
			}
			if !strings.Contains(sdl, `@link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])`) {
				t.Error("_service.sdl does not link Federation v2.3")
			}
			for _, typ := range entityTypes {
				if !strings.Contains(sdl, "extend type "+typ+` @key(fields: "id")`) {
					t.Errorf("_service.sdl has no @key on %s", typ)
				}
			}
		})
	}
	r := env.Admin().Send(t, apitest.Request{Method: http.MethodGet, RawPath: "/graphql/schema.graphql"})
	if r.Status != http.StatusOK || string(r.Body) != api || strings.Contains(string(r.Body), "@key") {
		t.Errorf("GET /graphql/schema.graphql: %d, %d bytes: want schema.graphqls, datarights.graphqls and events.graphqls, without @key", r.Status, len(r.Body))
	}
	if server.SDL() != api {
		t.Error("server.SDL() (debtql schema) is not schema.graphqls, datarights.graphqls and events.graphqls")
	}
}

// The subgraph's schema is introspection: off with it, NOT_FOUND as the
// schema download is.
func TestFederationServiceFollowsIntrospection(t *testing.T) {
	env := apitest.NewWith(t, func(o *server.Options) { o.DisableIntrospection = true })
	r := env.Admin().Do(t, `{ _service { sdl } }`, nil)
	if len(r.Errors) != 1 || r.Errors[0].Extensions.Code != "NOT_FOUND" || strings.Contains(string(r.Body), "type Query") {
		t.Errorf("_service with introspection off: %s", r)
	}
	// _entities is no introspection: it answers.
	if got := entities(t, env.Admin(), entitiesQuery, []apitest.Vars{rep("Debt", 1)}); got[0] != nil {
		t.Errorf("_entities: %v", got)
	}
}

// entityRecords are one client's records, by type.
type entityRecords map[string]any

// entityFixture creates, as ADMIN, a debt (and so its debtor) and an
// invoice of the client.
func entityFixture(t *testing.T, env *apitest.Env, clientID, prefix string) entityRecords {
	t.Helper()
	var out struct {
		CreateDebt struct {
			ID     int
			Debtor struct{ ID string }
		}
		CreateInvoice struct{ ID string }
	}
	env.Admin().Do(t, `mutation($c: UUID!, $d: DebtorWithDebtsInput!, $i: InvoiceInput!) {
	  createDebt(clientId: $c, input: $d) { id debtor { id } }
	  createInvoice(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": clientID,
			"d": debtCaseForeign("NO-"+prefix, "Debitor "+prefix, debtCaseItemInput(prefix+"-1", "100.00")),
			"i": debtCaseInvoiceInput(prefix+"-2", "250.00", "2026-09-01", "2026-10-01")}).OK(t, &out)
	return entityRecords{"Client": clientID, "Debtor": out.CreateDebt.Debtor.ID,
		"Invoice": out.CreateInvoice.ID, "Debt": out.CreateDebt.ID}
}

// rep is the representation of the record of typ with id.
func rep(typ string, id any) apitest.Vars { return apitest.Vars{"__typename": typ, "id": id} }

// A debt's id is an Int, the others' a UUID: one selection asks for both
// under different names (as a gateway's query planner does).
const entitiesQuery = `query($r: [_Any!]!) { _entities(representations: $r) { __typename
  ... on Client { id name }
  ... on Debtor { id name paymentStatus }
  ... on Invoice { id invoiceNumber status debt { id } }
  ... on Debt { debtId: id originalAmount mainStatus debtor { id } } } }`

// entities asks _entities for reps and returns its entries (nil for null),
// failing on any error: a record that is not found is null without one.
func entities(t *testing.T, c *apitest.Caller, query string, reps []apitest.Vars) []map[string]any {
	t.Helper()
	var out struct {
		Entities []map[string]any `json:"_entities"`
	}
	c.Do(t, query, apitest.Vars{"r": reps}).OK(t, &out)
	if len(out.Entities) != len(reps) {
		t.Fatalf("%d entities for %d representations", len(out.Entities), len(reps))
	}
	return out.Entities
}

// sameID reports whether an entity's id (a debt's under debtId when the
// selection renames it) is id.
func sameID(e map[string]any, id any) bool {
	if e == nil {
		return false
	}
	got, ok := e["id"]
	if !ok {
		got = e["debtId"]
	}
	return fmt.Sprint(got) == fmt.Sprint(id)
}

// _entities finds what the key's single lookups find: an ADMIN key every
// client's records, a CLIENT key its own; another client's record and one
// that does not exist are null, without an error, for each of the four
// types, alone and mixed in one request.
func TestEntitiesTenancy(t *testing.T) {
	env := apitest.New(t)
	ownID, own := env.ClientCaller(t, "Own AB")
	otherID, _ := env.NewClient(t, "Other AB")
	mine := entityFixture(t, env, ownID, "OWN")
	theirs := entityFixture(t, env, otherID, "THEIRS")
	const unknown = "6f1c0a47-1f7e-4bd4-9a53-000000000000"
	missing := entityRecords{"Client": unknown, "Debtor": unknown, "Invoice": unknown, "Debt": 2_000_000_000}

	for _, key := range []struct {
		name   string
		caller *apitest.Caller
		theirs bool // whether the key sees the other client's records
	}{{"ADMIN", env.Admin(), true}, {"CLIENT", own, false}} {
		t.Run(key.name, func(t *testing.T) {
			var mixed []apitest.Vars
			var want []any
			for _, typ := range entityTypes {
				t.Run(typ, func(t *testing.T) {
					got := entities(t, key.caller, entitiesQuery, []apitest.Vars{rep(typ, mine[typ]), rep(typ, theirs[typ]), rep(typ, missing[typ])})
					if !sameID(got[0], mine[typ]) || got[0]["__typename"] != typ {
						t.Errorf("own %s: %v, want id %v", typ, got[0], mine[typ])
					}
					if key.theirs != sameID(got[1], theirs[typ]) || (!key.theirs && got[1] != nil) {
						t.Errorf("the other client's %s: %v (want it found: %v, else null)", typ, got[1], key.theirs)
					}
					if got[2] != nil {
						t.Errorf("a %s that does not exist: %v, want null", typ, got[2])
					}
				})
				mixed = append(mixed, rep(typ, theirs[typ]), rep(typ, mine[typ]), rep(typ, missing[typ]))
				if key.theirs {
					want = append(want, theirs[typ])
				} else {
					want = append(want, nil)
				}
				want = append(want, mine[typ], nil)
			}
			t.Run("mixed", func(t *testing.T) {
				got := entities(t, key.caller, entitiesQuery, mixed)
				for i, w := range want {
					if (w == nil) != (got[i] == nil) || (w != nil && (!sameID(got[i], w) || got[i]["__typename"] != mixed[i]["__typename"])) {
						t.Errorf("entity %d (%v): %v, want id %v", i, mixed[i], got[i], w)
					}
				}
			})
		})
	}

	t.Run("a UUID in any case, and repeats", func(t *testing.T) {
		upper := strings.ToUpper(mine["Debtor"].(string))
		got := entities(t, own, entitiesQuery, []apitest.Vars{rep("Debtor", upper), rep("Debtor", mine["Debtor"]), rep("Debt", mine["Debt"]), rep("Debt", mine["Debt"])})
		for i, want := range []any{mine["Debtor"], mine["Debtor"], mine["Debt"], mine["Debt"]} {
			if !sameID(got[i], want) {
				t.Errorf("entity %d: %v, want id %v", i, got[i], want)
			}
		}
	})
	t.Run("nested fields keep the tenancy", func(t *testing.T) {
		// The debtor's debts under the own debtor: its own only.
		got := entities(t, own, `query($r: [_Any!]!) { _entities(representations: $r) {
		  ... on Debtor { debts { totalCount nodes { id } } } ... on Client { debts { totalCount } } } }`,
			[]apitest.Vars{rep("Debtor", mine["Debtor"]), rep("Client", ownID)})
		b, _ := json.Marshal(got)
		if want := fmt.Sprintf(`[{"debts":{"nodes":[{"id":%v}],"totalCount":1}},{"debts":{"totalCount":1}}]`, mine["Debt"]); string(b) != want {
			t.Errorf("nested debts: %s, want %s", b, want)
		}
	})
}

// entityCase is a type whose representations are resolved in a batch, with
// a selection that reaches other tables from each entity.
type entityCase struct {
	typ, selection string
	// want is the statements of one request, whatever the number of
	// representations (PostgreSQL, the key read from the key cache).
	want int
}

var entityCases = []entityCase{
	// The clients, then each nested page of all of them at once: the
	// debts' counts and rows, the debtors' rows: 4.
	{"Client", `id name debts(rowsPerPage: 5) { totalCount nodes { id } } debtors(rowsPerPage: 2) { nodes { id } }`, 4},
	// The debtors, their debts' facts (statuses), and their nested debts
	// pages (count, rows) with the debts' items: 5.
	{"Debtor", `id name paymentStatus isCompleted debts(rowsPerPage: 5) { totalCount nodes { id invoices { id } } }`, 5},
	// The invoices, their articles, the items carrying their numbers, the
	// items' debts, and the debts' debtors: 5.
	{"Invoice", `id invoiceNumber status paidAmount articles { name } debt { id debtor { name } }`, 5},
	// The debts, their debtors, items, items' payments, payments, events
	// and the events' records, the debtors' debts (statuses), the items'
	// registered invoices, and those invoices' facts (the items carrying
	// their numbers, and the items' debts): 11.
	{"Debt", `id originalAmount mainStatus underStatus debtor { id name paymentStatus }
	  invoices { id payments { id } invoice { id status } } payments { id amount } events { id records { recordType recordId } }`, 11},
}

// _entities reads the representations of a type with a fixed number of
// statements: the same for 2 and for 20 (no query per representation).
func TestEntitiesStatementCountIsFixed(t *testing.T) {
	env := apitest.New(t)
	clientID := listFixture(t, env, 20)
	var lists struct {
		Debts    struct{ Nodes []struct{ ID int } }
		Debtors  struct{ Nodes []struct{ ID string } }
		Invoices struct{ Nodes []struct{ ID string } }
	}
	env.Admin().Do(t, `query($c: UUID!) { debts(clientId: $c, rowsPerPage: 20) { nodes { id } }
	  debtors(clientId: $c, rowsPerPage: 20) { nodes { id } } invoices(clientId: $c, rowsPerPage: 20) { nodes { id } } }`,
		apitest.Vars{"c": clientID}).OK(t, &lists)
	ids := map[string][]any{"Client": {clientID}}
	for i := 0; i < 20; i++ {
		ids["Debt"] = append(ids["Debt"], lists.Debts.Nodes[i].ID)
		ids["Debtor"] = append(ids["Debtor"], lists.Debtors.Nodes[i].ID)
		ids["Invoice"] = append(ids["Invoice"], lists.Invoices.Nodes[i].ID)
		if i > 0 {
			id, _ := env.NewClient(t, fmt.Sprintf("Entity %d AB", i))
			ids["Client"] = append(ids["Client"], id)
		}
	}
	for _, tc := range entityCases {
		t.Run(tc.typ, func(t *testing.T) {
			query := `query($r: [_Any!]!) { _entities(representations: $r) { ... on ` + tc.typ + ` { ` + tc.selection + ` } } }`
			counts := map[int]int{}
			for _, n := range []int{2, 2, 20} { // the first request warms the key's lastUsedAt
				var reps []apitest.Vars
				for _, id := range ids[tc.typ][:n] {
					reps = append(reps, rep(tc.typ, id))
				}
				env.Statements.Reset()
				got := entities(t, env.Admin(), query, reps)
				counts[n] = env.Statements.Count()
				for i, e := range got {
					if !sameID(e, reps[i]["id"]) {
						t.Fatalf("entity %d: %v, want id %v", i, e, reps[i]["id"])
					}
				}
				t.Logf("%s, %d representations: %d statements", tc.typ, n, counts[n])
			}
			if counts[2] != counts[20] {
				t.Errorf("2 representations issue %d statements, 20 issue %d: want the same", counts[2], counts[20])
			}
			if want := tc.want + env.KeyStatements(); counts[20] != want {
				t.Errorf("%d statements, want %d", counts[20], want)
			}
			if t.Failed() {
				for i, s := range env.Statements.Log() {
					t.Logf("  %d: %.300s", i+1, s)
				}
			}
		})
	}
}

// _entities costs its selection once per representation, like a list, so
// that a long list of representations is refused before it runs;
// _service costs little.
func TestEntitiesCountAgainstTheQueryCost(t *testing.T) {
	limits := apitest.TestLimits()
	limits.MaxComplexity = 1000
	env := apitest.NewWithLimits(t, limits)
	query := `query($r: [_Any!]!) { _entities(representations: $r) { ... on Debt { id originalAmount mainStatus debtor { id name } } } }`
	reps := func(n int) []apitest.Vars {
		out := make([]apitest.Vars, n)
		for i := range out {
			out[i] = rep("Debt", i+1)
		}
		return out
	}
	entities(t, env.Admin(), query, reps(100)) // about 100 × 5
	env.Admin().Do(t, query, apitest.Vars{"r": reps(300)}).Refused(t, http.StatusBadRequest, "QUERY_TOO_COMPLEX", "")
	env.Admin().Do(t, `{ _service { sdl } }`, nil).OK(t, nil)
}

// A representation that names no entity type, or no id of its type, is
// BAD_USER_INPUT on that representation; a well-formed id that finds
// nothing is null.
func TestEntitiesRefuseMalformedRepresentations(t *testing.T) {
	env := apitest.New(t)
	for _, tc := range []struct {
		rep   apitest.Vars
		field string
	}{
		{apitest.Vars{"__typename": "Debtor", "id": "not-a-uuid"}, "representations.1.id"},
		{apitest.Vars{"__typename": "Invoice"}, "representations.1.id"},
		{apitest.Vars{"__typename": "Debt", "id": 1.5}, "representations.1.id"},
		{apitest.Vars{"__typename": "Payment", "id": 1}, "representations.1.__typename"},
		{apitest.Vars{"id": 1}, "representations.1.__typename"},
	} {
		r := env.Admin().Do(t, entitiesQuery, apitest.Vars{"r": []apitest.Vars{rep("Debt", 1), tc.rep}})
		r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", tc.field)
	}
	if got := entities(t, env.Admin(), entitiesQuery, []apitest.Vars{rep("Debt", "12")}); got[0] != nil {
		t.Errorf("a debt id that does not exist, as a string: %v", got[0])
	}
}
