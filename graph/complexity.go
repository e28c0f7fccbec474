package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/ledger"
)

// ListWeight is the cost factor of a list that has no page size of its own
// (a debt's items and payments, an invoice's articles): a typical length.
const ListWeight = 10

// pageSize is the number of rows a list field asks for: its page size, or
// the default page.
func pageSize(rowsPerPage, first, last *int) int {
	for _, n := range []*int{rowsPerPage, first, last} {
		if n != nil && *n > 0 {
			return *n
		}
	}
	return ledger.DefaultRowsPerPage
}

// paged is the cost of a connection: its selection once per row.
func paged(child int, rowsPerPage, first, last *int) int {
	return times(pageSize(rowsPerPage, first, last), child)
}

// times is 1 + n*child, saturating instead of overflowing, so that no query
// can wrap its cost around to a small number.
func times(n, child int) int {
	const maxInt = int(^uint(0) >> 1)
	if child > 0 && n > (maxInt-1)/child {
		return maxInt
	}
	return 1 + n*child
}

// Complexity weights every list field by the rows it can return, so that a
// query's complexity grows with what it makes the server load: a page of
// 100 debts with their debtors costs about 100 times one debt (api.md's
// abuse limits are set on this figure).
func Complexity() ComplexityRoot {
	var c ComplexityRoot
	c.Query.Clients = func(child int, _ *string, page, rows, first *int, _ *string, last *int, _ *string) int {
		return paged(child, rows, first, last)
	}
	c.Query.APIKeys = func(child int, page, rows, first *int, _ *string, last *int, _ *string) int {
		return paged(child, rows, first, last)
	}
	c.Query.Debtors = func(child int, _ string, _ *ledger.DebtorFilter, _ *ent.DebtorOrder, page, rows, first *int, _ *string, last *int, _ *string) int {
		return paged(child, rows, first, last)
	}
	c.Query.Invoices = func(child int, _ string, _ *ledger.InvoiceFilter, _ *ent.InvoiceOrder, page, rows, first *int, _ *string, last *int, _ *string) int {
		return paged(child, rows, first, last)
	}
	c.Query.Debts = func(child int, _ string, _ *ledger.DebtFilter, _ *ent.DebtOrder, page, rows, first *int, _ *string, last *int, _ *string) int {
		return paged(child, rows, first, last)
	}
	c.Client.Debtors = func(child int, _ *ledger.DebtorFilter, _ *ent.DebtorOrder, page, rows, first *int, _ *string, last *int, _ *string) int {
		return paged(child, rows, first, last)
	}
	c.Client.Invoices = func(child int, _ *ledger.InvoiceFilter, _ *ent.InvoiceOrder, page, rows, first *int, _ *string, last *int, _ *string) int {
		return paged(child, rows, first, last)
	}
	c.Client.Debts = func(child int, _ *ledger.DebtFilter, _ *ent.DebtOrder, page, rows, first *int, _ *string, last *int, _ *string) int {
		return paged(child, rows, first, last)
	}
	c.Debtor.Debts = func(child int, _ *ledger.DebtFilter, _ *ent.DebtOrder, page, rows, first *int, _ *string, last *int, _ *string) int {
		return paged(child, rows, first, last)
	}
	c.Query.AuditEvents = func(child int, _ *ledger.AuditEventFilter, page, rows, first *int, _ *string, last *int, _ *string) int {
		return paged(child, rows, first, last)
	}
	// Federation's _entities (docs/federation.md) is a list of one entity
	// per representation: its selection once per representation.
	// _service keeps the default cost: one field and its text.
	c.Query.__resolve_entities = func(child int, representations []map[string]any) int {
		return times(len(representations), child)
	}
	// createDebts is weighed by Costed, from its input as sent.
	list := func(child int) int { return times(ListWeight, child) }
	c.Debt.Events = list
	c.AuditEvent.Records = list
	c.Debt.Invoices = list
	c.Debt.Payments = list
	c.DebtInvoice.Payments = list
	c.Invoice.Articles = list
	return c
}

// Costed is es with the cost of createDebts: its selection once per entry
// of its input, counted in the arguments as sent. A typed ComplexityRoot
// function would be handed the input unmarshalled, and gqlgen unmarshals
// it for the cost on top of the run (each of up to 500 entries decoded,
// checked and normalised twice; about a tenth of the server's time for a
// batch of 500).
func Costed(es graphql.ExecutableSchema) graphql.ExecutableSchema { return costed{es} }

type costed struct{ graphql.ExecutableSchema }

func (c costed) Complexity(ctx context.Context, typeName, field string, child int, args map[string]any) (int, bool) {
	if typeName == "Mutation" && field == "createDebts" {
		return times(entries(args["input"]), child), true
	}
	return c.ExecutableSchema.Complexity(ctx, typeName, field, child, args)
}

// entries is the length of a list argument as sent: a single value stands
// for a list of one (GraphQL's input coercion), null for none.
func entries(v any) int {
	switch v := v.(type) {
	case nil:
		return 0
	case []any:
		return len(v)
	default:
		return 1
	}
}
