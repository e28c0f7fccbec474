package graph

import (
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// What a payment's answer may select to be answered from what the
// statement that books it returns (bookPayments), and a hand-over's from
// the debt's row it wrote, with no further query and nothing that can
// fail: the payment's own fields, and its debt's and item's fields that
// are columns or computed from them. Anything else (the debtor, the
// debt's items, payments or events, the item's invoice) is loaded with
// queries, which must run in the mutation's transaction.
var (
	loadedPaymentFields = fieldSet("__typename", "id", "amount", "transactionDate", "bookedDate", "source", "createdAt", "debt", "invoice")
	loadedDebtFields    = fieldSet("__typename", "id", "originalAmount", "paidAmount", "remainingAmount", "overpaidAmount",
		"paymentStatus", "mainStatus", "underStatus", "activeStatus", "isCompleted", "withdrawnAt", "withdrawComment", "createdAt", "updatedAt")
	loadedItemFields = fieldSet("__typename", "id", "invoiceNumber", "description", "invoiceDate", "dueDate", "reminderDate",
		"amount", "paidAmount", "remainingAmount", "createdAt")
)

func fieldSet(names ...string) map[string]bool {
	s := make(map[string]bool, len(names))
	for _, n := range names {
		s[n] = true
	}
	return s
}

// RunsAlone reports whether a mutation operation runs without the
// server's transaction around it, in the ledger's own, and is answered
// from what that wrote, so that nothing can fail once it has committed.
// Its only root field is
//
//   - addDebtPayment, which books on PostgreSQL with one statement
//     (atomic by itself: the payment, both paid amounts and the audit
//     event, or nothing; grouped with the payments on its debt that come
//     meanwhile), and whose answer selects only what that statement
//     returns (loadedPaymentFields); or
//   - createDebt, which the ledger hands over in a transaction of its
//     own, grouped with the calls of its client and key that come
//     meanwhile (ledger.HandsOverAlone), and whose answer selects only the
//     debt's row (loadedDebtFields).
//
// The server runs such an operation without BEGIN and COMMIT
// (ledger.Alone), unless it carries an Idempotency-Key, whose record must
// commit with the work. A payment saves two round trips, one of them
// inside the debt row's lock; a hand-over shares its statements and its
// commit with the others of its group (docs/performance.md).
func RunsAlone(opCtx *graphql.OperationContext) bool {
	if opCtx == nil || opCtx.Operation == nil || opCtx.Operation.Operation != ast.Mutation {
		return false
	}
	roots := graphql.CollectFields(opCtx, opCtx.Operation.SelectionSet, []string{"Mutation"})
	if len(roots) != 1 {
		return false
	}
	switch roots[0].Name {
	case "addDebtPayment":
		return selectsOnly(opCtx, roots[0].Selections, "Payment", loadedPaymentFields, func(f graphql.CollectedField) bool {
			switch f.Name {
			case "debt":
				return selectsOnly(opCtx, f.Selections, "Debt", loadedDebtFields, nil)
			case "invoice":
				return selectsOnly(opCtx, f.Selections, "DebtInvoice", loadedItemFields, nil)
			}
			return len(f.Selections) == 0
		})
	case "createDebt":
		return selectsOnly(opCtx, roots[0].Selections, "Debt", loadedDebtFields, nil)
	}
	return false
}

// selectsOnly reports whether a selection set of an object type selects
// only fields of allowed, each of which passes sub (when given) or selects
// nothing below it.
func selectsOnly(opCtx *graphql.OperationContext, set ast.SelectionSet, object string, allowed map[string]bool, sub func(graphql.CollectedField) bool) bool {
	for _, f := range graphql.CollectFields(opCtx, set, []string{object}) {
		if !allowed[f.Name] {
			return false
		}
		if sub != nil {
			if !sub(f) {
				return false
			}
		} else if len(f.Selections) != 0 {
			return false
		}
	}
	return true
}
