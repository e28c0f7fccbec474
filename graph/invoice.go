package graph

import (
	"context"
	"sort"

	"entgo.io/contrib/entgql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/invoice"
	"github.com/debtql/debtql/ent/invoicearticle"
	"github.com/debtql/debtql/ent/predicate"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
)

// defaultInvoiceOrder is newest first (api.md §7).
var defaultInvoiceOrder = &ent.InvoiceOrder{Direction: entgql.OrderDirectionDesc, Field: ent.InvoiceOrderFieldCreatedAt}

// invoiceCursorValues are the cursor value types of the invoice orders.
var invoiceCursorValues = map[string]cursorValue{
	"CREATED_AT":     timeValue,
	"INVOICE_NUMBER": stringValue,
	"INVOICE_DATE":   dateValue,
	"DUE_DATE":       dateValue,
	"TOTAL_AMOUNT":   moneyValue,
}

// invoices lists a client's invoices; the caller has authorized the client.
func (r *Resolver) invoices(ctx context.Context, clientID string, filter *InvoiceFilter, orderBy *ent.InvoiceOrder, args pageArgs) (*ent.InvoiceConnection, error) {
	q, p, lo, order, err := r.invoiceListQuery(ctx, filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	r.loaders(ctx).invoiceDebt.add(nodeSelection(ctx, "debt"))
	conn, err := q.Where(invoice.ClientID(clientID)).Page(ctx, p, ent.WithInvoiceOrder(order))
	if err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		lo.tagCursors(&e.Cursor)
	}
	r.loaders(ctx).invoiceFacts.prime(conn.Nodes()...)
	return conn, nil
}

// invoiceListQuery checks an invoice list's arguments and returns the query
// of the invoices (of every client) that match the filter, the page to read
// and its order.
func (r *Resolver) invoiceListQuery(ctx context.Context, filter *InvoiceFilter, orderBy *ent.InvoiceOrder, args pageArgs) (*ent.InvoiceQuery, ent.Paging, listOrder, *ent.InvoiceOrder, error) {
	order := defaultInvoiceOrder
	if orderBy != nil {
		order = orderBy
	}
	lo := newListOrder("invoices", order.Field.String(), order.Direction, invoiceCursorValues[order.Field.String()], true)
	p, err := args.paging(lo)
	if err != nil {
		return nil, p, lo, nil, err
	}
	preds, err := invoiceFilter(filter, r.clock.At())
	if err != nil {
		return nil, p, lo, nil, err
	}
	return r.db(ctx).Invoice.Query().Where(preds...), p, lo, order, nil
}

// invoiceFilter builds the predicates of an InvoiceFilter (api.md §7). Each
// status filter compares the SQL form of the same projection the field
// resolvers use.
func invoiceFilter(f *InvoiceFilter, now collection.Now) ([]predicate.Invoice, error) {
	if f == nil {
		return nil, nil
	}
	var preds []predicate.Invoice
	status := func(value func(collection.InvoiceSQL) collection.Expr, code int) {
		preds = append(preds, statusIs[collection.InvoiceSQL, predicate.Invoice](now, collection.NewInvoiceSQL, value, code))
	}
	if f.PaymentStatus != nil {
		status(collection.InvoiceSQL.Payment, int(*f.PaymentStatus))
	}
	if f.InvoiceStatus != nil {
		status(collection.InvoiceSQL.Status, int(*f.InvoiceStatus))
	}
	if f.InvoiceProcessStatus != nil {
		status(collection.InvoiceSQL.Process, int(*f.InvoiceProcessStatus))
	}
	if f.ReceivableMainStatus != nil {
		status(collection.InvoiceSQL.ReceivableMain, int(*f.ReceivableMainStatus))
	}
	if f.ReceivableSubStatus != nil {
		status(collection.InvoiceSQL.ReceivableSub, int(*f.ReceivableSubStatus))
	}
	if f.ActiveStatus != nil {
		status(collection.InvoiceSQL.Active, int(*f.ActiveStatus))
	}
	if f.IsCompleted != nil {
		preds = append(preds, flagIs[collection.InvoiceSQL, predicate.Invoice](now, collection.NewInvoiceSQL, collection.InvoiceSQL.IsCompleted, *f.IsCompleted))
	}
	if f.InvoiceCreatedDate != nil {
		preds = append(preds, invoice.CreatedAtGTE(f.InvoiceCreatedDate.UTC()))
	}
	if f.ClientNumber != nil {
		preds = append(preds, invoice.HasClientWith(creditor.ClientNumber(*f.ClientNumber)))
	}
	s, err := newSearch(f.SearchType, f.SearchTerm)
	if err != nil {
		return nil, err
	}
	if s != nil {
		byNumber := invoice.InvoiceNumberKeyContains(collection.NumberKey(s.term))
		byArticle := invoice.HasArticlesWith(invoicearticle.NameKeyContains(collection.SearchKey(s.term)))
		switch s.typ {
		case SearchTypeAll:
			preds = append(preds, invoice.Or(byNumber, byArticle))
		case SearchTypeInvoiceNumber:
			preds = append(preds, byNumber)
		case SearchTypeName:
			preds = append(preds, byArticle)
		default:
			return nil, apierr.Invalid("filter.searchType", "invoices can be searched by ALL, INVOICE_NUMBER or NAME (article names), not %s", s.typ)
		}
	}
	return preds, nil
}

// invoiceProjection is the invoice's statuses at the current date.
func (r *Resolver) invoiceProjection(ctx context.Context, inv *ent.Invoice) (collection.InvoiceProjection, error) {
	facts, err := r.loaders(ctx).invoiceFacts.get(ctx, inv)
	if err != nil {
		return collection.InvoiceProjection{}, err
	}
	return r.ledger.InvoiceStatuses(inv, facts), nil
}

// invoicePaid is what was paid on the invoice: the exact sum, or the
// largest amount int64 holds (92 233 720 368 547 758.07) when it is more
// (docs/decisions.md, "Money ceiling").
func (r *Resolver) invoicePaid(ctx context.Context, inv *ent.Invoice) (collection.Money, error) {
	facts, err := r.loaders(ctx).invoiceFacts.get(ctx, inv)
	return facts.Paid.Clamped(), err
}

// sortArticles puts articles in the order they were given.
func sortArticles(a []*ent.InvoiceArticle) []*ent.InvoiceArticle {
	sort.Slice(a, func(i, j int) bool { return a[i].Position < a[j].Position })
	return a
}
