package graph

import (
	"context"
	"sort"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtcount"
	"github.com/debtql/debtql/ent/debtinvoice"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/ent/predicate"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/ledger"
	"github.com/debtql/debtql/internal/scalar"
)

// defaultDebtOrder is newest first (api.md §7).
var defaultDebtOrder = &ent.DebtOrder{Direction: entgql.OrderDirectionDesc, Field: ent.DebtOrderFieldCreatedAt}

// debtCursorValues are the cursor value types of the debt orders.
var debtCursorValues = map[string]cursorValue{
	"CREATED_AT":      timeValue,
	"ID":              intIDValue,
	"ORIGINAL_AMOUNT": moneyValue,
}

// debts lists a client's debts (of one debtor when debtorID is set); the
// caller has authorized the client.
func (r *Resolver) debts(ctx context.Context, clientID, debtorID string, filter *DebtFilter, orderBy *ent.DebtOrder, args pageArgs) (*ent.DebtConnection, error) {
	q, p, lo, order, err := r.debtQuery(ctx, clientID, filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	if debtorID != "" {
		q.Where(debt.DebtorID(debtorID))
	} else {
		p.Total = keptDebtTotal(clientID, filter)
	}
	conn, err := q.Page(ctx, p, ent.WithDebtOrder(order))
	if err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		lo.tagCursors(&e.Cursor)
	}
	r.primeDebts(ctx, clientID, conn.Nodes())
	return conn, nil
}

// keptDebtTotal is the total of a client's debts that match filter as
// debt_counts keeps it, for the filters those counts answer: none, or open
// or closed debts by mainStatus or activeStatus (SelectsOpen), without a
// search. Any other filter is counted (nil).
func keptDebtTotal(clientID string, f *DebtFilter) func(dialect string) *sql.Selector {
	t := sql.Table(debtcount.Table)
	column := t.C(debtcount.FieldDebts)
	if f != nil {
		if f.UnderStatus != nil || f.PaymentStatus != nil || !blankTerm(f.SearchTerm) {
			return nil
		}
		var selects []func() (open, ok bool)
		if f.MainStatus != nil {
			selects = append(selects, f.MainStatus.SelectsOpen)
		}
		if f.ActiveStatus != nil {
			selects = append(selects, f.ActiveStatus.SelectsOpen)
		}
		var want *bool
		for _, sel := range selects {
			open, ok := sel()
			if !ok || (want != nil && *want != open) {
				return nil // a value no debt reads, or open and closed at once: counted
			}
			want = &open
		}
		switch {
		case want == nil:
		case *want:
			column = t.C(debtcount.FieldOpenDebts)
		default:
			column = t.C(debtcount.FieldDebts) + " - " + t.C(debtcount.FieldOpenDebts)
		}
	}
	return func(d string) *sql.Selector {
		return sql.Dialect(d).Select(sql.As(column, "n")).From(t).
			Where(sql.EQ(t.C(debtcount.FieldID), clientID))
	}
}

// debtQuery checks a debt list's arguments and returns the query of the
// client's debts that match the filter, the page to read and its order.
func (r *Resolver) debtQuery(ctx context.Context, clientID string, filter *DebtFilter, orderBy *ent.DebtOrder, args pageArgs) (*ent.DebtQuery, ent.Paging, listOrder, *ent.DebtOrder, error) {
	q, p, lo, order, err := r.debtListQuery(ctx, filter, orderBy, args)
	if err != nil {
		return nil, p, lo, nil, err
	}
	return q.Where(debt.ClientID(clientID)), p, lo, order, nil
}

// debtListQuery checks a debt list's arguments and returns the query of the
// debts (of every client) that match the filter, the page to read and its
// order.
func (r *Resolver) debtListQuery(ctx context.Context, filter *DebtFilter, orderBy *ent.DebtOrder, args pageArgs) (*ent.DebtQuery, ent.Paging, listOrder, *ent.DebtOrder, error) {
	order := defaultDebtOrder
	if orderBy != nil {
		order = orderBy
	}
	lo := newListOrder("debts", order.Field.String(), order.Direction, debtCursorValues[order.Field.String()], false)
	p, err := args.paging(lo)
	if err != nil {
		return nil, p, lo, nil, err
	}
	preds, err := debtFilter(filter, r.clock.At())
	if err != nil {
		return nil, p, lo, nil, err
	}
	return r.db(ctx).Debt.Query().Where(preds...), p, lo, order, nil
}

// debtFilter builds the predicates of a DebtFilter (api.md §7).
func debtFilter(f *DebtFilter, now collection.Now) ([]predicate.Debt, error) {
	if f == nil {
		return nil, nil
	}
	var preds []predicate.Debt
	is := func(p func(collection.DebtSQL) *sql.Predicate) {
		preds = append(preds, func(s *sql.Selector) { s.Where(p(collection.NewDebtSQL(s, now))) })
	}
	if v := f.ActiveStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.ActiveIs(*v) })
	}
	if v := f.MainStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.MainIs(*v) })
	}
	if v := f.UnderStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.UnderIs(*v) })
	}
	if v := f.PaymentStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.PaymentIs(*v) })
	}
	s, err := newSearch(f.SearchType, f.SearchTerm)
	if err != nil {
		return nil, err
	}
	if s != nil {
		p, err := match(s, debtSearch)
		if err != nil {
			return nil, err
		}
		preds = append(preds, p)
	}
	return preds, nil
}

// debtSearch matches debts by their debtor's name, identification number or
// e-mail, their items' invoice numbers, or their id.
var debtSearch = searchFields[predicate.Debt]{
	name:  func(k string) predicate.Debt { return debt.HasDebtorWith(debtor.NameKeyContains(k)) },
	email: func(k string) predicate.Debt { return debt.HasDebtorWith(debtor.EmailKeyContains(k)) },
	identification: func(k string) predicate.Debt {
		return debt.HasDebtorWith(debtor.IdentificationKeyContains(k))
	},
	invoiceNumber: func(k string) predicate.Debt { return debt.HasInvoicesWith(debtinvoice.InvoiceNumberKeyContains(k)) },
	debtID:        func(id scalar.IntID) predicate.Debt { return debt.ID(id) },
	or:            debt.Or,
}

// intIDValue accepts cursors of lists ordered by an integer id.
func intIDValue(v any) (any, bool) {
	m, ok := moneyValue(v)
	if !ok {
		return nil, false
	}
	return scalar.IntID(m.(collection.Money)), true
}

// debtProjection is the debt's statuses at the current date.
func (r *Resolver) debtProjection(d *ent.Debt) collection.DebtProjection {
	return collection.ProjectDebt(*ledger.DebtFacts(d), r.clock.At())
}

// sortItems puts a debt's items in the order they were given.
func sortItems(items []*ent.DebtInvoice) []*ent.DebtInvoice {
	sort.Slice(items, func(i, j int) bool { return items[i].Position < items[j].Position })
	return items
}

// sortPayments puts payments oldest first.
func sortPayments(p []*ent.Payment) []*ent.Payment {
	sort.Slice(p, func(i, j int) bool { return p[i].ID < p[j].ID })
	return p
}

// reloadDebt reads a debt just written, with the fields the mutation's
// selection asks for eager-loaded.
func (r *Resolver) reloadDebt(ctx context.Context, id scalar.IntID) (*ent.Debt, error) {
	q, err := r.db(ctx).Debt.Query().Where(debt.ID(id)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	return q.Only(ctx)
}
