package graph_test

import (
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
			"name": fmt.Sprintf("Debitor %d", i),
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
      debt { id mainStatus debtor { id name } invoices { id } } } } }`
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

var statementCases = []statementCase{
	{"debts", debtsQuery, []string{"debts", "edges"}, 0},
	{"debts by cursor", debtsByCursorQuery, []string{"debts", "nodes"}, 0},
	{"client debts", clientDebtsQuery, []string{"client", "debts", "nodes"}, 0},
	{"debtors", debtorsQuery, []string{"debtors", "nodes"}, 0},
	{"invoices", invoicesQuery, []string{"invoices", "nodes"}, 0},
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
				if n == 100 {
					for i, s := range env.Statements.Log() {
						t.Logf("  %d: %.200s", i+1, s)
					}
				}
			}
			if counts[10] != counts[100] {
				t.Errorf("a page of 10 issues %d statements, a page of 100 %d: want the same", counts[10], counts[100])
			}
			if counts[100] != tc.want {
				t.Errorf("%d statements, want %d", counts[100], tc.want)
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
