package graph

import (
	"context"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/ledger"
)

// debtors lists a client's debtors; the caller has authorized the client.
func (r *Resolver) debtors(ctx context.Context, clientID string, filter *ledger.DebtorFilter, orderBy *ent.DebtorOrder, args ledger.Page) (*ent.DebtorConnection, error) {
	l, err := r.ledger.DebtorList(ctx, clientID, filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	conn, err := l.Query.Page(ctx, l.Paging, ent.WithDebtorOrder(l.Order))
	if err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		l.TagCursors(&e.Cursor)
	}
	r.primeDebtors(ctx, clientID, conn.Nodes())
	return conn, nil
}

// debtorProjection is the debtor's statuses over its debts.
func (r *Resolver) debtorProjection(ctx context.Context, d *ent.Debtor) (collection.DebtorProjection, error) {
	debts, err := r.loaders(ctx).debtorDebts.get(ctx, d)
	if err != nil {
		return collection.DebtorProjection{}, err
	}
	return collection.ProjectDebtor(debts, r.clock.At()), nil
}
