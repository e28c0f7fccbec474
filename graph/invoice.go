package graph

import (
	"context"
	"sort"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/ledger"
)

// invoices lists a client's invoices; the caller has authorized the client.
func (r *Resolver) invoices(ctx context.Context, clientID string, filter *ledger.InvoiceFilter, orderBy *ent.InvoiceOrder, args ledger.Page) (*ent.InvoiceConnection, error) {
	l, err := r.ledger.InvoiceList(ctx, clientID, filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	r.loaders(ctx).invoiceDebt.add(nodeSelection(ctx, "debt"))
	conn, err := l.Query.Page(ctx, l.Paging, ent.WithInvoiceOrder(l.Order))
	if err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		l.TagCursors(&e.Cursor)
	}
	r.loaders(ctx).invoiceFacts.prime(conn.Nodes()...)
	return conn, nil
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
