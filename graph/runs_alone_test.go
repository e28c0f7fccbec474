package graph

import (
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// TestRunsAlone: which mutations run without the server's transaction:
// one addDebtPayment whose answer is what its statement returns, and one
// createDebt whose answer is its debt's row.
func TestRunsAlone(t *testing.T) {
	const create = `createDebt(clientId: "c0a80101-0000-4000-8000-000000000001", input: {isCorporation: true, identificationNumber: "5560360793", name: "A", address: {address1: "G 1", zipCode: "11122", city: "S", countryCode: "SE"}, debts: [{invoiceNumber: "1", invoiceDate: "2026-01-01T00:00:00Z", dueDate: "2026-02-01T00:00:00Z", amount: "1.00"}]})`
	const pay = `addDebtPayment(clientId: "c0a80101-0000-4000-8000-000000000001", input: {debtId: 1, invoiceId: 1, amount: "1.00", transactionDate: "2026-11-20"})`
	for _, tc := range []struct {
		query string
		want  bool
	}{
		{`mutation { ` + pay + ` { id amount transactionDate bookedDate source createdAt debt { id } invoice { id } } }`, true},
		{`mutation { p: ` + pay + ` { __typename id debt { paidAmount remainingAmount paymentStatus mainStatus underStatus isCompleted } invoice { invoiceNumber paidAmount remainingAmount } } }`, true},
		{`mutation { ` + pay + ` { ...P } } fragment P on Payment { id debt { id } }`, true},
		{`mutation($skip: Boolean!) { ` + pay + ` { id debt @skip(if: $skip) { debtor { name } } } }`, true},
		// Fields that need queries: in the transaction.
		{`mutation { ` + pay + ` { id debt { debtor { name } } } }`, false},
		{`mutation { ` + pay + ` { id debt { events { id } } } }`, false},
		{`mutation { ` + pay + ` { id debt { invoices { id } } } }`, false},
		{`mutation { ` + pay + ` { id invoice { payments { id } } } }`, false},
		{`mutation { ` + pay + ` { id invoice { invoice { id } } } }`, false},
		{`mutation { ` + pay + ` { ...P } } fragment P on Payment { id debt { client { id } } }`, false},
		{`mutation { ` + create + ` { id } }`, true},
		{`mutation { d: ` + create + ` { __typename id originalAmount paidAmount remainingAmount paymentStatus mainStatus createdAt } }`, true},
		{`mutation { ` + create + ` { id debtor { id } } }`, false},
		{`mutation { ` + create + ` { id invoices { id } } }`, false},
		{`mutation { ` + create + ` { id claim { total { outstanding } } } }`, false},
		// Two root fields share one transaction.
		{`mutation { a: ` + pay + ` { id } b: ` + pay + ` { id } }`, false},
		{`mutation { a: ` + create + ` { id } b: ` + create + ` { id } }`, false},
		// Other mutations, and queries.
		{`mutation { withdrawDebt(clientId: "c0a80101-0000-4000-8000-000000000001", input: {id: 1}) { id } }`, false},
		{`query { viewer { role } }`, false},
	} {
		doc, errs := gqlparser.LoadQueryWithRules(parsedSchema, tc.query, rules.NewDefaultRules())
		if errs != nil {
			t.Fatalf("%s: %v", tc.query, errs)
		}
		opCtx := &graphql.OperationContext{RawQuery: tc.query, Doc: doc, Operation: doc.Operations[0], Variables: map[string]any{"skip": true}}
		if got := RunsAlone(opCtx); got != tc.want {
			t.Errorf("RunsAlone(%s) = %v, want %v", tc.query, got, tc.want)
		}
	}
}
