package graph

import (
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// TestSingleStatement: which mutations run without a transaction of their
// own: one addDebtPayment whose answer is what its statement returns.
func TestSingleStatement(t *testing.T) {
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
		// Two root fields share one transaction.
		{`mutation { a: ` + pay + ` { id } b: ` + pay + ` { id } }`, false},
		// Other mutations, and queries.
		{`mutation { withdrawDebt(clientId: "c0a80101-0000-4000-8000-000000000001", input: {id: 1}) { id } }`, false},
		{`query { viewer { role } }`, false},
	} {
		doc, errs := gqlparser.LoadQueryWithRules(parsedSchema, tc.query, rules.NewDefaultRules())
		if errs != nil {
			t.Fatalf("%s: %v", tc.query, errs)
		}
		opCtx := &graphql.OperationContext{RawQuery: tc.query, Doc: doc, Operation: doc.Operations[0], Variables: map[string]any{"skip": true}}
		if got := SingleStatement(opCtx); got != tc.want {
			t.Errorf("SingleStatement(%s) = %v, want %v", tc.query, got, tc.want)
		}
	}
}
