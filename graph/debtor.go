package graph

import (
	"context"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtinvoice"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/ent/predicate"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
	"github.com/debtql/debtql/internal/store"
)

// defaultDebtorOrder is newest first (api.md §7).
var defaultDebtorOrder = &ent.DebtorOrder{Direction: entgql.OrderDirectionDesc, Field: ent.DebtorOrderFieldCreatedAt}

// debtors lists a client's debtors; the caller has authorized the client.
func (r *Resolver) debtors(ctx context.Context, clientID string, filter *DebtorFilter, orderBy *ent.DebtorOrder, args pageArgs) (*ent.DebtorConnection, error) {
	q, p, lo, order, err := r.debtorListQuery(ctx, filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	p.Total = nameSearchTotal(clientID, filter)
	conn, err := q.Where(debtor.ClientID(clientID)).Page(ctx, p, ent.WithDebtorOrder(order))
	if err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		lo.tagCursors(&e.Cursor)
	}
	r.primeDebtors(ctx, clientID, conn.Nodes())
	return conn, nil
}

// nameSearchTotal is the total of a client's debtors when the filter is a
// NAME search and nothing else, read on PostgreSQL from the name suffixes
// the database keeps (store.NameSuffixTotal). Any other filter, and
// SQLite, count the rows.
func nameSearchTotal(clientID string, f *DebtorFilter) func(dialect string) *sql.Selector {
	if f == nil || f.SearchType == nil || *f.SearchType != SearchTypeName || blankTerm(f.SearchTerm) ||
		*f != (DebtorFilter{SearchType: f.SearchType, SearchTerm: f.SearchTerm}) {
		return nil
	}
	key := collection.SearchKey(*f.SearchTerm)
	return func(d string) *sql.Selector {
		if d != dialect.Postgres {
			return nil
		}
		return store.NameSuffixTotal(clientID, key)
	}
}

// debtorListQuery checks a debtor list's arguments and returns the query of
// the debtors (of every client) that match the filter, the page to read and
// its order.
func (r *Resolver) debtorListQuery(ctx context.Context, filter *DebtorFilter, orderBy *ent.DebtorOrder, args pageArgs) (*ent.DebtorQuery, ent.Paging, listOrder, *ent.DebtorOrder, error) {
	order, value := defaultDebtorOrder, cursorValue(timeValue)
	if orderBy != nil {
		order = orderBy
		if order.Field.String() == "NAME" {
			value = stringValue
		}
	}
	lo := newListOrder("debtors", order.Field.String(), order.Direction, value, true)
	p, err := args.paging(lo)
	if err != nil {
		return nil, p, lo, nil, err
	}
	preds, err := debtorFilter(filter, r.clock.At())
	if err != nil {
		return nil, p, lo, nil, err
	}
	return r.db(ctx).Debtor.Query().Where(preds...), p, lo, order, nil
}

// debtorFilter builds the predicates of a DebtorFilter (api.md §7). Each
// status filter compares the SQL form of the same projection the field
// resolvers use.
func debtorFilter(f *DebtorFilter, now collection.Now) ([]predicate.Debtor, error) {
	if f == nil {
		return nil, nil
	}
	var preds []predicate.Debtor
	status := func(value func(collection.DebtorSQL) collection.Expr, code int) {
		preds = append(preds, statusIs[collection.DebtorSQL, predicate.Debtor](now, collection.NewDebtorSQL, value, code))
	}
	if f.PaymentStatus != nil {
		status(collection.DebtorSQL.Payment, int(*f.PaymentStatus))
	}
	if f.ErrandStatus != nil {
		status(collection.DebtorSQL.ErrandStatus, int(*f.ErrandStatus))
	}
	if f.ErrandProcessStatus != nil {
		status(collection.DebtorSQL.ErrandProcessStatus, int(*f.ErrandProcessStatus))
	}
	if f.IsCompleted != nil {
		preds = append(preds, flagIs[collection.DebtorSQL, predicate.Debtor](now, collection.NewDebtorSQL, collection.DebtorSQL.IsCompleted, *f.IsCompleted))
	}
	if f.InvoiceCreatedDate != nil {
		preds = append(preds, debtor.HasDebtsWith(debt.HasInvoicesWith(debtinvoice.CreatedAtGTE(f.InvoiceCreatedDate.UTC()))))
	}
	if f.ClientNumber != nil {
		preds = append(preds, debtor.HasClientWith(creditor.ClientNumber(*f.ClientNumber)))
	}
	s, err := newSearch(f.SearchType, f.SearchTerm)
	if err != nil {
		return nil, err
	}
	if s != nil {
		p, err := match(s, debtorSearch)
		if err != nil {
			return nil, err
		}
		preds = append(preds, p)
	}
	return preds, nil
}

// debtorSearch matches debtors by name, identification number, e-mail, the
// invoice numbers of their debts' items, or their debts' ids.
var debtorSearch = searchFields[predicate.Debtor]{
	name:           debtor.NameKeyContains,
	email:          debtor.EmailKeyContains,
	identification: debtor.IdentificationKeyContains,
	invoiceNumber: func(k string) predicate.Debtor {
		return debtor.HasDebtsWith(debt.HasInvoicesWith(debtinvoice.InvoiceNumberKeyContains(k)))
	},
	debtID: func(id scalar.IntID) predicate.Debtor { return debtor.HasDebtsWith(debt.ID(id)) },
	or:     debtor.Or,
}

// debtorProjection is the debtor's statuses over its debts.
func (r *Resolver) debtorProjection(ctx context.Context, d *ent.Debtor) (collection.DebtorProjection, error) {
	debts, err := r.loaders(ctx).debtorDebts.get(ctx, d)
	if err != nil {
		return collection.DebtorProjection{}, err
	}
	return collection.ProjectDebtor(debts, r.clock.At()), nil
}
