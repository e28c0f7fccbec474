package graph_test

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
)

// Every other test runs with the planned path's check on (apitest): each
// query whose field the planned path answered is run again without it and
// the two answers must be equal byte for byte. The tests here run the server as
// in production (no check) and show which path answered and at what cost.

// queryPaths reads debtql_graphql_query_paths_total from /metrics.
func queryPaths(t *testing.T, env *apitest.Env) (planned, executor int) {
	t.Helper()
	resp, err := http.Get(env.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	count := func(path string) int {
		m := regexp.MustCompile(`debtql_graphql_query_paths_total\{path="` + path + `"\} (\d+)`).FindSubmatch(body)
		if m == nil {
			return 0
		}
		n, err := strconv.Atoi(string(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return count("planned"), count("executor")
}

// q1PageQuery is the benchmark's Q1 (bench/queries/debtql/q1.graphql) with the
// page size as a variable.
const q1PageQuery = `query($c: UUID!, $n: Int!) {
  debts(clientId: $c, filter: {mainStatus: COLLECTION}, orderBy: {field: ID, direction: DESC}, first: $n) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges { cursor node {
      id mainStatus underStatus paymentStatus originalAmount paidAmount createdAt
      debtor { name identificationNumber }
      invoices { invoiceNumber amount }
    } }
  }
}`

// The planned path answers Q1 with the same fixed number of statements as
// gqlgen's executor, for a page of 10 and of 100: no statement per row.
func TestPlannedPathStatementsAreFixed(t *testing.T) {
	env := apitest.NewWith(t, func(o *server.Options) { o.CheckPlanned = false })
	clientID := listFixture(t, env, 110)
	planned0, executor0 := queryPaths(t, env)
	counts := map[int]int{}
	for _, n := range []int{10, 10, 100} { // the first request warms the key's lastUsedAt
		env.Statements.Reset()
		r := env.Admin().Do(t, q1PageQuery, apitest.Vars{"c": clientID, "n": n})
		counts[n] = env.Statements.Count()
		if got := rows(t, r, []string{"debts", "edges"}); got != n {
			t.Fatalf("page of %d has %d rows: %s", n, got, r.Body)
		}
	}
	planned, executor := queryPaths(t, env)
	if planned-planned0 != 3 || executor != executor0 {
		t.Errorf("planned path answered %d of 3 queries (executor %d)", planned-planned0, executor-executor0)
	}
	// (key,) page with count, debtors, items.
	if want := 3 + env.KeyStatements(); counts[10] != want || counts[100] != want {
		t.Errorf("%d statements for a page of 10, %d for 100: want %d", counts[10], counts[100], want)
		for i, s := range env.Statements.Log() {
			t.Logf("  %d: %.300s", i+1, s)
		}
	}

	// An invoices page with its statuses, articles and debt (with debtor
	// and items) on the planned path: as many statements for 10 as for 100.
	const invoices = `query($c: UUID!, $n: Int!) { invoices(clientId: $c, first: $n) { totalCount edges { cursor node {
		id status paymentStatus receivableMainStatus paidAmount articles { name discount } debt { id underStatus debtor { name } invoices { amount } } } } } }`
	planned0, executor0 = queryPaths(t, env)
	for _, n := range []int{10, 100} {
		env.Statements.Reset()
		r := env.Admin().Do(t, invoices, apitest.Vars{"c": clientID, "n": n})
		counts[n] = env.Statements.Count()
		if got := rows(t, r, []string{"invoices", "edges"}); got != n {
			t.Fatalf("page of %d has %d rows: %s", n, got, r.Body)
		}
	}
	if planned, executor := queryPaths(t, env); planned-planned0 != 2 || executor != executor0 {
		t.Errorf("planned path answered %d of 2 invoices queries", planned-planned0)
	}
	if counts[10] != counts[100] {
		t.Errorf("invoices: %d statements for a page of 10, %d for 100: want the same", counts[10], counts[100])
	}
}

// plannedFragments select every field the planned path knows, through
// fragments, aliases and __typename.
var plannedFragments = map[string]string{
	"P": `fragment P on PageInfo { __typename hasNextPage hasPreviousPage startCursor endCursor }`,
	"A": `fragment A on Debtor {
  __typename id isCorporation identificationNumber name
  address { __typename address1 address2 careOf zipCode city countryCode }
  contactInformation { __typename email phone }
  paymentStatus errandStatus errandProcessStatus isCompleted createdAt updatedAt
}`,
	"I": `fragment I on Invoice {
  __typename id invoiceNumber invoiceDate daysUntilExpiration dueDate interestRate totalExcludingVAT totalVATAmount
  totalAmountIncludingVAT reminderDate reminderFee paidAmount remainingAmount status processStatus paymentStatus
  receivableMainStatus receivableSubStatus activeStatus isCompleted withdrawnAt withdrawComment createdAt updatedAt
  articles { __typename name description priceExcludingVAT totalVATAmount totalAmountIncludingVAT totalAmountExcludingVAT quantity vatPercentage discount }
  debt { ...D }
}`,
	"D": `fragment D on Debt {
  __typename id debtor { ...A } originalAmount paidAmount remainingAmount overpaidAmount
  paymentStatus mainStatus underStatus activeStatus isCompleted withdrawnAt withdrawComment createdAt updatedAt paymentReference
  items: invoices { __typename id invoiceNumber description invoiceDate dueDate reminderDate amount paidAmount remainingAmount createdAt interestRate reminderFee }
  invoices { amount }
}`,
}

// withFragments appends the fragments that query spreads.
func withFragments(query string) string {
	used := map[string]bool{}
	for name, f := range plannedFragments {
		if strings.Contains(query, "..."+name+" ") {
			used[name] = true
			query += "\n" + f
		}
	}
	// I spreads D, D spreads A.
	if used["I"] && !used["D"] {
		used["D"] = true
		query += "\n" + plannedFragments["D"]
	}
	if used["D"] && !used["A"] {
		query += "\n" + plannedFragments["A"]
	}
	return query
}

// The planned path answers every field it knows exactly as gqlgen's
// executor does (the check of apitest compares the two answers byte for
// byte), and gqlgen's executor answers the rest.
func TestPlannedPathMatchesExecutor(t *testing.T) {
	env := apitest.New(t) // CheckPlanned: a difference is an error
	clientID := listFixture(t, env, 30)
	// Some variety: a withdrawn debt, a debtor with contact information
	// and no address line 2, payments.
	var list struct {
		Debts struct{ Nodes []struct{ ID int } }
	}
	env.Admin().Do(t, `query($c: UUID!) { debts(clientId: $c, first: 3) { nodes { id } } }`, apitest.Vars{"c": clientID}).OK(t, &list)
	env.Admin().Do(t, `mutation($c: UUID!, $id: Int!) { withdrawDebt(clientId: $c, input: {id: $id, comment: "Betald direkt"}) { id } }`,
		apitest.Vars{"c": clientID, "id": list.Debts.Nodes[0].ID}).OK(t, nil)

	// A debtor with every optional field, and an item with a description
	// (with a tab and a line break, which JSON escapes) and a reminder date.
	env.Admin().Do(t, `mutation($c: UUID!, $d: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $d) { id } }`, apitest.Vars{"c": clientID,
		"d": apitest.Vars{"isCorporation": true, "identificationNumber": "NO-99999", "name": "\"Citat\" & Co AS",
			"address": apitest.Vars{"address1": "Storgata 2", "address2": "Bakgården", "careOf": "Kari", "zipCode": "0151", "city": "Oslo", "countryCode": "NO"},
			"email":   "kari@example.no", "phone": "+47 22 00 00 00",
			"debts": []apitest.Vars{{"invoiceNumber": "F-Ω-1", "description": "Tjänster\t<mars>\r\nrad 2", "invoiceDate": "2026-09-01T10:00:00+02:00",
				"dueDate": "2026-10-01T10:00:00+02:00", "reminderDate": "2026-10-15T10:00:00+02:00", "amount": "1000.50",
				"interestRate": "9.5", "reminderFee": "60"}}}}).OK(t, nil)

	// An invoice with every optional field and a discounted article.
	env.Admin().Do(t, `mutation($c: UUID!, $i: InvoiceInput!) { createInvoice(clientId: $c, input: $i) { id } }`, apitest.Vars{"c": clientID,
		"i": apitest.Vars{"invoiceNumber": "F-Ω-2", "invoiceDate": "2026-03-01", "daysUntilExpiration": 30, "dueDate": "2026-03-31",
			"interestRate": "8.125", "reminderDate": "2026-04-14", "reminderFee": "60.00",
			"totalExcludingVAT": "1000.50", "totalVATAmount": "250.13", "totalAmountIncludingVAT": "1250.63",
			"articles": []apitest.Vars{invoiceArticle("Konsulttimmar", apitest.Vars{"description": "Mars", "quantity": "2.5", "vatPercentage": "12",
				"priceExcludingVAT": "400.40", "totalAmountExcludingVAT": "1000.50", "totalVATAmount": "250.13", "totalAmountIncludingVAT": "1250.63", "discount": "0.50"})}}}).OK(t, nil)

	planned := []string{
		`query($c: UUID!) { debts(clientId: $c, first: 7) { __typename totalCount pageInfo { ...P } edges { __typename cursor node { ...D } } nodes { ...D } } }`,
		`query($c: UUID!) { debts(clientId: $c, rowsPerPage: 4, page: 3, orderBy: {field: ORIGINAL_AMOUNT, direction: ASC}) { totalCount pageInfo { ...P } nodes { ...D } } }`,
		`query($c: UUID!) { debts(clientId: $c, last: 5, filter: {mainStatus: CLOSED}) { totalCount pageInfo { ...P } edges { cursor node { id mainStatus underStatus withdrawnAt withdrawComment } } } }`,
		`query($c: UUID!) { debts(clientId: $c, filter: {mainStatus: COLLECTION}, orderBy: {field: ID, direction: DESC}, first: 50) { totalCount edges { node { id } } } }`,
		`query($c: UUID!) { debts(clientId: $c, filter: {searchType: NAME, searchTerm: "nobody at all"}) { totalCount pageInfo { ...P } edges { cursor } nodes { id } } }`,
		`query($c: UUID!) { __typename first: debtors(clientId: $c, first: 6) { totalCount pageInfo { ...P } edges { cursor node { ...A } } }
			second: debtors(clientId: $c, orderBy: {field: NAME, direction: DESC}, rowsPerPage: 5, page: 2) { nodes { ...A } }
			debts(clientId: $c, rowsPerPage: 2) { nodes { d: debtor { n: name } } } }`,
		`query($c: UUID!, $yes: Boolean!, $no: Boolean!) { debtors(clientId: $c, filter: {searchType: NAME, searchTerm: "debitor 1"}, first: 20) {
			totalCount nodes { id name @include(if: $yes) isCorporation @skip(if: $yes) createdAt @include(if: $no) ... on Debtor { updatedAt } } } }`,
		`query($c: UUID!) { invoices(clientId: $c, first: 8) { __typename totalCount pageInfo { ...P } edges { __typename cursor node { ...I } } nodes { ...I } } }`,
		`query($c: UUID!) { invoices(clientId: $c, rowsPerPage: 5, page: 2, orderBy: {field: DUE_DATE, direction: ASC}) { totalCount nodes { id status debt { id } } } }`,
	}
	for i, q := range planned {
		p0, e0 := queryPaths(t, env)
		var data map[string]any
		env.Admin().Do(t, withFragments(q), apitest.Vars{"c": clientID, "yes": true, "no": false}).OK(t, &data)
		// Each root list field counts once: query 5 has three.
		want := 1
		if i == 5 {
			want = 3
		}
		if p, e := queryPaths(t, env); p-p0 != want || e != e0 {
			t.Errorf("query %d: planned path answered %d, executor %d; want the planned path %d times", i, p-p0, e-e0, want)
		}
	}
	// Beside another root field, each list field is still planned.
	p0, e0 := queryPaths(t, env)
	env.Admin().Do(t, `query($c: UUID!) { client(id: $c) { name } debts(clientId: $c) { nodes { id } } }`, apitest.Vars{"c": clientID}).OK(t, nil)
	if p, e := queryPaths(t, env); p-p0 != 1 || e != e0 {
		t.Errorf("debts beside client: planned path answered %d, executor %d; want the planned path", p-p0, e-e0)
	}

	// Fields the planned path does not know, and errors: gqlgen's executor
	// answers, as before.
	executor := []struct {
		query string
		code  string
	}{
		{`query($c: UUID!) { debts(clientId: $c) { nodes { id payments { id } } } }`, ""},
		{`query($c: UUID!) { debtors(clientId: $c) { nodes { debts { totalCount } } } }`, ""},
		{`query($c: UUID!) { invoices(clientId: $c) { nodes { id client { name } } } }`, ""},
		{`query($c: UUID!) { debts(clientId: $c, rowsPerPage: 101) { totalCount } }`, "BAD_USER_INPUT"},
		{`query { debts(clientId: "00000000-0000-4000-8000-000000000000") { totalCount } }`, "NOT_FOUND"},
	}
	for i, tc := range executor {
		p0, e0 := queryPaths(t, env)
		r := env.Admin().Do(t, tc.query, apitest.Vars{"c": clientID})
		if tc.code == "" {
			r.OK(t, nil)
		} else if !strings.Contains(string(r.Body), `"code":"`+tc.code+`"`) {
			t.Errorf("query %d: want %s, got %s", i, tc.code, r.Body)
		}
		if p, e := queryPaths(t, env); p != p0 || e-e0 != 1 {
			t.Errorf("query %d: planned path answered %d, executor %d; want the executor", i, p-p0, e-e0)
		}
	}
	// A CLIENT key for another client: FORBIDDEN, from the executor.
	_, other := env.ClientCaller(t, "Annan AB")
	other.Do(t, `query($c: UUID!) { debts(clientId: $c) { totalCount } }`, apitest.Vars{"c": clientID}).Refused(t, 403, "FORBIDDEN", "")
}
