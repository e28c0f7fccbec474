package graph_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

// listFixture seeds a client through the API with n debtors, each with one
// debt of two items (each item with a payment received before hand-over);
// every other debtor has a second debt, and every first item's invoice
// number is also a registered invoice of the client with two articles. The
// mutations go ten to a request, as aliases, to keep the seeding quick.
func listFixture(t testing.TB, env *apitest.Env, n int) (clientID string) {
	t.Helper()
	clientID, _ = env.NewClient(t, "Lists AB")
	item := func(number string) apitest.Vars {
		return apitest.Vars{"invoiceNumber": number, "invoiceDate": "2026-09-01T10:00:00+02:00",
			"dueDate": "2026-10-01T10:00:00+02:00", "amount": "1000.00",
			"payments": []apitest.Vars{{"amount": "100.00", "transactionDate": "2026-09-10T10:00:00+02:00"}}}
	}
	debtor := func(i int, suffix string) apitest.Vars {
		return apitest.Vars{"isCorporation": false, "identificationNumber": fmt.Sprintf("NO-%05d", i),
			"name":    fmt.Sprintf("Debitor %d", i),
			"address": apitest.Vars{"address1": "Storgata 1", "zipCode": "0150", "city": "Oslo", "countryCode": "NO"},
			"debts":   []apitest.Vars{item(fmt.Sprintf("F-%05d-%s1", i, suffix)), item(fmt.Sprintf("F-%05d-%s2", i, suffix))}}
	}
	invoice := func(i int) apitest.Vars {
		return apitest.Vars{"invoiceNumber": fmt.Sprintf("F-%05d-A1", i), "invoiceDate": "2026-03-01",
			"daysUntilExpiration": 30, "dueDate": "2026-03-31",
			"totalExcludingVAT": "1000", "totalVATAmount": "250", "totalAmountIncludingVAT": "1250",
			"articles": []apitest.Vars{invoiceArticle("Konsulttimmar"), invoiceArticle("Resa")}}
	}
	const perRequest = 6
	for start := 0; start < n; start += perRequest {
		var doc strings.Builder
		vars := apitest.Vars{"c": clientID}
		var params []string
		for i := start; i < min(start+perRequest, n); i++ {
			params = append(params, fmt.Sprintf("$d%d: DebtorWithDebtsInput!, $i%d: InvoiceInput!", i, i))
			fmt.Fprintf(&doc, "d%d: createDebt(clientId: $c, input: $d%d) { id }\n", i, i)
			fmt.Fprintf(&doc, "i%d: createInvoice(clientId: $c, input: $i%d) { id }\n", i, i)
			vars[fmt.Sprintf("d%d", i)] = debtor(i, "A")
			vars[fmt.Sprintf("i%d", i)] = invoice(i)
			if i%2 == 0 {
				params = append(params, fmt.Sprintf("$e%d: DebtorWithDebtsInput!", i))
				fmt.Fprintf(&doc, "e%d: createDebt(clientId: $c, input: $e%d) { id }\n", i, i)
				vars[fmt.Sprintf("e%d", i)] = debtor(i, "B")
			}
		}
		q := "mutation($c: UUID!, " + strings.Join(params, ", ") + ") {\n" + doc.String() + "}"
		env.Admin().Do(t, q, vars).OK(t, nil)
	}
	return clientID
}

// The list queries whose statement counts are fixed: each nests every
// field that reaches another table.
const (
	debtNodeSelection = `id originalAmount paidAmount remainingAmount mainStatus underStatus paymentStatus
      debtor { id name paymentStatus errandStatus isCompleted }
      invoices { id invoiceNumber paidAmount remainingAmount payments { id amount } invoice { id status debt { id } } }
      payments { id amount transactionDate invoice { id invoiceNumber } debt { id } }`

	debtsQuery = `query($c: UUID!, $n: Int!) { debts(clientId: $c, rowsPerPage: $n) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { cursor node { ` + debtNodeSelection + ` } } } }`

	debtsByCursorQuery = `query($c: UUID!, $n: Int!) { debts(clientId: $c, first: $n) {
    totalCount pageInfo { hasNextPage endCursor }
    nodes { ` + debtNodeSelection + ` } } }`

	clientDebtsQuery = `query($c: UUID!, $n: Int!) { client(id: $c) { id name debts(rowsPerPage: $n) {
    totalCount nodes { ` + debtNodeSelection + ` } } } }`

	debtorsQuery = `query($c: UUID!, $n: Int!) { debtors(clientId: $c, rowsPerPage: $n) {
    totalCount pageInfo { hasNextPage }
    nodes { id name paymentStatus errandStatus errandProcessStatus isCompleted address { city } contactInformation { email }
      debts(rowsPerPage: 5) { totalCount pageInfo { hasNextPage } nodes { id originalAmount mainStatus
        invoices { id invoiceNumber payments { id } } payments { id amount } } } } } }`

	invoicesQuery = `query($c: UUID!, $n: Int!) { invoices(clientId: $c, rowsPerPage: $n) {
    totalCount pageInfo { hasNextPage }
    nodes { id invoiceNumber paidAmount remainingAmount status processStatus paymentStatus
      receivableMainStatus receivableSubStatus activeStatus isCompleted
      articles { name quantity }
      debt { id mainStatus invoices { id }
        debtor { id name paymentStatus errandStatus errandProcessStatus isCompleted debts(rowsPerPage: 2) { totalCount nodes { id } } } } } } }`
)

// statementCase is a list query, the path of its connection in the
// response, and the statements a request of it issues, whatever the page
// size.
type statementCase struct {
	name  string
	query string
	path  []string
	want  int
}

// Every request starts with 1 statement to read the API key, unless the
// server's key cache holds it (PostgreSQL: env.KeyStatements; a list under
// a clientId checks that the client exists only when its page is empty: a
// row proves it); the list itself is one statement, the page with its
// COUNT (totalCount) as a column (a second statement counts only when the
// page is empty); then each nested table is 1 query for the whole page (ent's eager loading, or the batches of
// graph/loaders.go and graph/listloaders.go).
var statementCases = []statementCase{
	// key, page with count, debtor, items, items' payments, payments,
	// payments' debt, payments' item, the debtor's debts (statuses), the
	// items' registered invoices, and those invoices' facts (the items
	// carrying their numbers, with their debts): 12.
	{"debts", debtsQuery, []string{"debts", "edges"}, 12},
	{"debts by cursor", debtsByCursorQuery, []string{"debts", "nodes"}, 12},
	// key, client (the lookup), then the client's debts as a nested
	// connection (PageEach: count and page apart) and the same 10 as above
	// after the page.
	{"client debts", clientDebtsQuery, []string{"client", "debts", "nodes"}, 14},
	// key, page with count, the debtors' debts (statuses), then the nested
	// debts pages of all debtors at once: their counts, their rows (a
	// window function numbers each debtor's debts), items, items' payments
	// and payments: 8.
	{"debtors", debtorsQuery, []string{"debtors", "nodes"}, 8},
	// key, page with count, articles, the items carrying the invoices'
	// numbers, their debts, and under Invoice.debt the debtors and items,
	// the debtors' debts (statuses) and their nested debts pages (counts
	// and rows): 10.
	{"invoices", invoicesQuery, []string{"invoices", "nodes"}, 10},
}

// A list request issues the same number of SQL statements for a page of 10
// and a page of 100, however deep the nesting: nested records are loaded
// for the whole page at once (eager loading and batches), never one query
// per row (N+1).
func TestListStatementCountIsFixed(t *testing.T) {
	env := apitest.New(t)
	clientID := listFixture(t, env, 110)
	for _, tc := range statementCases {
		t.Run(tc.name, func(t *testing.T) {
			counts := map[int]int{}
			for _, n := range []int{10, 10, 100} { // the first request warms the key's lastUsedAt
				env.Statements.Reset()
				r := env.Admin().Do(t, tc.query, apitest.Vars{"c": clientID, "n": n})
				counts[n] = env.Statements.Count()
				if got := rows(t, r, tc.path); got != n {
					t.Fatalf("page of %d has %d rows: %s", n, got, r.Body)
				}
				t.Logf("%s, page of %d: %d statements", tc.name, n, counts[n])
			}
			if counts[10] != counts[100] {
				t.Errorf("a page of 10 issues %d statements, a page of 100 %d: want the same", counts[10], counts[100])
			}
			if want := tc.want - 1 + env.KeyStatements(); counts[100] != want {
				t.Errorf("%d statements, want %d", counts[100], want)
			}
			if t.Failed() {
				for i, s := range env.Statements.Log() {
					t.Logf("  %d: %.300s", i+1, s)
				}
			}
		})
	}
}

// rows counts the entries of the list at path in the response's data.
func rows(t testing.TB, r *apitest.Response, path []string) int {
	t.Helper()
	var data any
	r.OK(t, &data)
	for _, p := range path {
		m, ok := data.(map[string]any)
		if !ok {
			t.Fatalf("no %s in %s", p, r.Body)
		}
		data = m[p]
	}
	list, ok := data.([]any)
	if !ok {
		t.Fatalf("%v is not a list in %s", path, r.Body)
	}
	return len(list)
}

// Debtor.debts under a debtors list is read for all the page's debtors at
// once (a window function numbers each debtor's debts): each debtor's page
// is the one its own list gives, in every paging mode and order.
func TestNestedDebtorDebtsPages(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Nested AB")
	// Debtors with 3, 1, 2 and 0 debts (the last one's debts are in
	// another client), created interleaved.
	other, _ := env.NewClient(t, "Other AB")
	amounts := map[string][]string{"A": {"300", "100", "200"}, "B": {"50"}, "C": {"20", "10"}}
	for round := 0; round < 3; round++ {
		for _, who := range []string{"A", "B", "C"} {
			if round < len(amounts[who]) {
				in := debtCaseForeign("NO-"+who, "Debitor "+who, debtCaseItemInput(fmt.Sprintf("%s-%d", who, round), amounts[who][round]))
				debtCaseCreate(t, env.Admin(), clientID, in).OK(t, nil)
			}
		}
	}
	debtCaseCreate(t, env.Admin(), other, debtCaseForeign("NO-A", "Debitor A", debtCaseItemInput("X-1", "5"))).OK(t, nil)
	env.Admin().Do(t, `mutation($c: UUID!, $i: DebtorInput!) { createDebtor(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": clientID, "i": apitest.Vars{"isCorporation": false, "identificationNumber": "NO-D", "name": "Debitor D",
			"address": apitest.Vars{"address1": "Storgata 1", "zipCode": "0150", "city": "Oslo", "countryCode": "NO"}}}).OK(t, nil)

	type page struct {
		TotalCount int
		PageInfo   struct{ HasNextPage, HasPreviousPage bool }
		Nodes      []struct {
			ID             int
			OriginalAmount string
		}
	}
	// all is each debtor's debts in the list's default order, read one
	// debtor at a time.
	var all struct {
		Debtors struct {
			Nodes []struct {
				ID, Name string
			}
		}
	}
	env.Admin().Do(t, `query($c: UUID!) { debtors(clientId: $c) { nodes { id name } } }`, apitest.Vars{"c": clientID}).OK(t, &all)
	if len(all.Debtors.Nodes) != 4 {
		t.Fatalf("%d debtors, want 4", len(all.Debtors.Nodes))
	}
	for _, args := range []string{
		`rowsPerPage: 2`, `rowsPerPage: 2, page: 2`, `rowsPerPage: 2, page: 3`, `rowsPerPage: 1, page: 3`,
		`first: 2`, `last: 2`, `first: 1`,
		`orderBy: {field: ORIGINAL_AMOUNT}, rowsPerPage: 2`, `orderBy: {field: ORIGINAL_AMOUNT, direction: DESC}, last: 1`,
		`filter: {searchTerm: "A-1", searchType: INVOICE_NUMBER}`,
	} {
		sel := `debts(` + args + `) { totalCount pageInfo { hasNextPage hasPreviousPage } nodes { id originalAmount } }`
		var list struct {
			Debtors struct {
				Nodes []struct {
					ID    string
					Debts page
				}
			}
		}
		env.Statements.Reset()
		env.Admin().Do(t, `query($c: UUID!) { debtors(clientId: $c) { nodes { id `+sel+` } } }`, apitest.Vars{"c": clientID}).OK(t, &list)
		if n, want := env.Statements.Count(), 3+env.KeyStatements(); n != want { // (key,) page, then the nested pages: counts and rows
			t.Errorf("%s: %d statements, want %d", args, n, want)
		}
		for i, d := range list.Debtors.Nodes {
			// The same page from the client's debts list, which pages one
			// list on its own (Page, not PageEach), searched by the
			// debtor's name; or, with a filter of its own, from the
			// debtor alone.
			var want page
			if strings.Contains(args, "filter") {
				var one struct{ Debtor struct{ Debts page } }
				env.Admin().Do(t, `query($c: UUID!, $id: UUID!) { debtor(clientId: $c, id: $id) { `+sel+` } }`,
					apitest.Vars{"c": clientID, "id": d.ID}).OK(t, &one)
				want = one.Debtor.Debts
			} else {
				var alone struct{ Debts page }
				q := `query($c: UUID!, $name: String!) { debts(clientId: $c, filter: {searchType: NAME, searchTerm: $name}, ` + args +
					`) { totalCount pageInfo { hasNextPage hasPreviousPage } nodes { id originalAmount } } }`
				env.Admin().Do(t, q, apitest.Vars{"c": clientID, "name": all.Debtors.Nodes[i].Name}).OK(t, &alone)
				want = alone.Debts
			}
			if got, want := fmt.Sprintf("%+v", d.Debts), fmt.Sprintf("%+v", want); got != want {
				t.Errorf("%s, debtor %s: in the list %s, alone %s", args, all.Debtors.Nodes[i].Name, got, want)
			}
		}
	}
}

// clientsNestedQuery lists clients with each client's connections, nested
// as deep as the lists above. A batch serves one of the connections only
// (the debtors' statuses are under debtors, the invoices' facts under
// invoices): a batch that fields of two connections share loads when its
// first field asks, so it may load once or twice depending on which
// connection's fields the server resolves first (never once per client),
// and the test wants an exact count.
const clientsNestedQuery = `query($n: Int!) { clients(rowsPerPage: $n) { totalCount nodes { id name
    debts(rowsPerPage: 5) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node {
      id originalAmount paidAmount remainingAmount mainStatus underStatus paymentStatus debtor { id name }
      invoices { id invoiceNumber paidAmount payments { id amount } } payments { id amount transactionDate debt { id } } } } }
    debtors(rowsPerPage: 5) { totalCount pageInfo { hasNextPage endCursor } nodes { id name paymentStatus errandStatus isCompleted
      debts(rowsPerPage: 2) { totalCount nodes { id originalAmount mainStatus invoices { id invoiceNumber payments { id } } payments { id amount } } } } }
    invoices(rowsPerPage: 5) { totalCount pageInfo { hasNextPage endCursor } nodes { id invoiceNumber paidAmount status paymentStatus
      articles { name quantity } debt { id mainStatus debtor { id name } invoices { id } } } } } } }`

// The clients list with each client's debts, debtors and invoices issues
// the same statements for a page of 2 clients and a page of 7: each
// client's connection is read with those of the other clients of the page.
func TestClientsListStatementCountIsFixed(t *testing.T) {
	env := apitest.New(t)
	for range 7 {
		listFixture(t, env, 3)
	}
	counts := map[int]int{}
	for _, n := range []int{2, 2, 7} { // the first request warms the key's lastUsedAt
		env.Statements.Reset()
		r := env.Admin().Do(t, clientsNestedQuery, apitest.Vars{"n": n})
		counts[n] = env.Statements.Count()
		if got := rows(t, r, []string{"clients", "nodes"}); got != n {
			t.Fatalf("page of %d has %d rows: %s", n, got, r.Body)
		}
		t.Logf("clients, page of %d: %d statements", n, counts[n])
	}
	// (key,) the clients' page with count; debts of all clients: count,
	// page, debtors, items, items' payments, payments, payments' debt (7);
	// debtors: count, page, their debts (statuses), the nested debts'
	// count and rows, their items, items' payments, payments (8); invoices:
	// count, page, articles, the items carrying their numbers, their
	// debts, and under Invoice.debt the debtors and items (7): 24.
	want := 23 + env.KeyStatements()
	if counts[2] != counts[7] {
		t.Errorf("a page of 2 clients issues %d statements, a page of 7 %d: want the same", counts[2], counts[7])
	}
	if counts[7] != want {
		t.Errorf("%d statements, want %d", counts[7], want)
	}
	if t.Failed() {
		for i, s := range env.Statements.Log() {
			t.Logf("  %d: %.300s", i+1, s)
		}
	}
}

// The connections of the clients of a clients list are read for all of
// them at once (a window function numbers each client's records): each
// client's page is the one its own lists give (client(id) and the
// top-level list under its clientId), with the same cursors and errors, in
// every paging mode, order and filter.
func TestNestedClientPages(t *testing.T) {
	env := apitest.New(t)
	// Clients with 4, 1 and 0 debtors (and their debts and invoices).
	big := listFixture(t, env, 4)
	small := listFixture(t, env, 1)
	empty, _ := env.NewClient(t, "Empty AB")
	ids := []string{big, small, empty}

	// first is the end cursor of the first two rows of the big client's
	// list in the given order, for after and before.
	first := func(list, order string) string {
		var out map[string]struct{ PageInfo struct{ EndCursor string } }
		env.Admin().Do(t, `query($c: UUID!) { `+list+`(clientId: $c, first: 2`+order+`) { pageInfo { endCursor } } }`,
			apitest.Vars{"c": big}).OK(t, &out)
		return out[list].PageInfo.EndCursor
	}
	type mode struct{ args, cursorOrder string }
	lists := []struct {
		list, fields string
		modes        []mode
	}{
		{"debts", `id originalAmount debtor { id name }`, []mode{
			{`rowsPerPage: 2`, ""}, {`rowsPerPage: 2, page: 2`, ""}, {`rowsPerPage: 2, page: 3`, ""},
			{`first: 2`, ""}, {`last: 3`, ""}, {`first: 2, after: $cur`, "-"}, {`last: 1, before: $cur`, "-"},
			{`orderBy: {field: ORIGINAL_AMOUNT, direction: ASC}, first: 2, after: $cur`, ", orderBy: {field: ORIGINAL_AMOUNT, direction: ASC}"},
			{`orderBy: {field: ID, direction: DESC}, last: 2`, ""},
			{`filter: {searchType: INVOICE_NUMBER, searchTerm: "A1"}, rowsPerPage: 2`, ""},
		}},
		{"debtors", `id name`, []mode{
			{`rowsPerPage: 2`, ""}, {`rowsPerPage: 3, page: 2`, ""}, {`first: 3`, ""}, {`last: 2`, ""},
			{`first: 2, after: $cur`, "-"}, {`last: 2, before: $cur`, "-"},
			{`orderBy: {field: NAME, direction: DESC}, first: 1, after: $cur`, ", orderBy: {field: NAME, direction: DESC}"},
			{`filter: {paymentStatus: PARTIALLY_PAID}, rowsPerPage: 2`, ""},
		}},
		{"invoices", `id invoiceNumber articles { name }`, []mode{
			{`rowsPerPage: 2`, ""}, {`rowsPerPage: 2, page: 2`, ""}, {`first: 2`, ""}, {`last: 3`, ""},
			{`first: 1, after: $cur`, "-"}, {`last: 1, before: $cur`, "-"},
			{`orderBy: {field: INVOICE_NUMBER, direction: DESC}, first: 2, after: $cur`, ", orderBy: {field: INVOICE_NUMBER, direction: DESC}"},
			{`filter: {searchType: INVOICE_NUMBER, searchTerm: "00002"}`, ""},
		}},
	}
	for _, l := range lists {
		for _, m := range l.modes {
			vars := apitest.Vars{}
			params := ""
			if m.cursorOrder != "" {
				order := m.cursorOrder
				if order == "-" {
					order = ""
				}
				vars["cur"] = first(l.list, order)
				params = "$cur: String!"
			}
			sel := l.list + `(` + m.args + `) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
			    edges { cursor node { ` + l.fields + ` } } }`
			decl := func(more string) string {
				all := strings.Trim(params+", "+more, ", ")
				if all == "" {
					return ""
				}
				return "(" + all + ")"
			}
			var list struct {
				Clients struct {
					Nodes []map[string]json.RawMessage
				}
			}
			env.Statements.Reset()
			env.Admin().Do(t, `query`+decl("")+` { clients(rowsPerPage: 10) { nodes { id `+sel+` } } }`, vars).OK(t, &list)
			// key, clients' page, then the nested pages: counts, rows and
			// (invoices) their articles or (debts) their debtors.
			if n, want := env.Statements.Count(), map[string]int{"debts": 4, "debtors": 3, "invoices": 4}[l.list]+env.KeyStatements(); n != want {
				t.Errorf("%s(%s): %d statements, want %d", l.list, m.args, n, want)
			}
			if len(list.Clients.Nodes) != len(ids) {
				t.Fatalf("%d clients, want %d", len(list.Clients.Nodes), len(ids))
			}
			for _, c := range list.Clients.Nodes {
				var id string
				_ = json.Unmarshal(c["id"], &id)
				got := string(c[l.list])
				v := apitest.Vars{"c": id}
				for k, x := range vars {
					v[k] = x
				}
				var one struct{ Client map[string]json.RawMessage }
				env.Admin().Do(t, `query`+decl("$c: UUID!")+` { client(id: $c) { `+sel+` } }`, v).OK(t, &one)
				var top map[string]json.RawMessage
				topSel := strings.Replace(sel, l.list+`(`, l.list+`(clientId: $c, `, 1)
				env.Admin().Do(t, `query`+decl("$c: UUID!")+` { `+topSel+` }`, v).OK(t, &top)
				if want := string(one.Client[l.list]); got != want {
					t.Errorf("%s(%s), client %s: in the clients list %s, in client(id) %s", l.list, m.args, id, got, want)
				}
				if want := string(top[l.list]); got != want {
					t.Errorf("%s(%s), client %s: in the clients list %s, in its own list %s", l.list, m.args, id, got, want)
				}
				if id == big && !strings.Contains(got, `"node"`) {
					t.Errorf("%s(%s): the big client's page is empty: %s", l.list, m.args, got)
				}
			}
		}
	}

	// A bad argument is refused on each client's field, as on a single
	// client's, and reads nothing.
	for _, l := range lists {
		for _, args := range []string{`page: 0`, `first: 2, after: "nonsense"`, `first: -1`} {
			sel := l.list + `(` + args + `) { totalCount nodes { id } }`
			env.Statements.Reset()
			r := env.Admin().Do(t, `{ clients(rowsPerPage: 10) { nodes { id `+sel+` } } }`, nil)
			if n, want := env.Statements.Count(), 1+env.KeyStatements(); n != want { // (key and) clients' page
				t.Errorf("%s(%s): %d statements, want %d", l.list, args, n, want)
			}
			one := env.Admin().Do(t, `query($c: UUID!) { client(id: $c) { `+sel+` } }`, apitest.Vars{"c": big})
			if len(one.Errors) != 1 || fmt.Sprint(one.Errors[0].Path) != fmt.Sprint([]any{"client", l.list}) {
				t.Fatalf("%s(%s) under client(id): want one error on client.%s: %s", l.list, args, l.list, one.Body)
			}
			if len(r.Errors) != len(ids) {
				t.Fatalf("%s(%s): want one error per client: %s", l.list, args, r.Body)
			}
			paths := map[string]bool{}
			for _, e := range r.Errors {
				want := one.Errors[0]
				paths[fmt.Sprint(e.Path)] = true
				if e.Extensions != want.Extensions || e.Message != want.Message {
					t.Errorf("%s(%s): error %+v, want %+v", l.list, args, e, want)
				}
			}
			for i := range ids {
				if path := fmt.Sprint([]any{"clients", "nodes", float64(i), l.list}); !paths[path] {
					t.Errorf("%s(%s): no error at %s: %s", l.list, args, path, r.Body)
				}
			}
		}
	}
}
