package graph

import (
	"context"
	"fmt"
	"sort"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/ledger"
	"github.com/debtql/debtql/internal/scalar"
)

// debts lists a client's debts; the caller has authorized the client.
func (r *Resolver) debts(ctx context.Context, clientID string, filter *ledger.DebtFilter, orderBy *ent.DebtOrder, args ledger.Page) (*ent.DebtConnection, error) {
	l, err := r.ledger.DebtList(ctx, clientID, filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	conn, err := l.Query.Page(ctx, l.Paging, ent.WithDebtOrder(l.Order))
	if err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		l.TagCursors(&e.Cursor)
	}
	r.primeDebts(ctx, clientID, conn.Nodes())
	return conn, nil
}

// debtProjection is the debt's statuses at the current date.
func (r *Resolver) debtProjection(d *ent.Debt) collection.DebtProjection {
	return collection.ProjectDebt(d.Facts(), r.clock.At())
}

// step runs a step of the collection process and answers the debt as
// the selection asks for it.
func (r *Resolver) step(ctx context.Context, run func(context.Context, ledger.Actor, string, ledger.StepRecord) (*ent.Debt, error),
	clientID string, id int, comment *string) (*ent.Debt, error) {
	d, err := run(ctx, r.actor(ctx), clientID, ledger.StepRecord{ID: scalar.IntID(id), Comment: comment})
	if err != nil {
		return nil, err
	}
	return r.reloadDebt(ctx, d.ID)
}

// sortItems puts a debt's items in the order they were given.
func sortItems(items []*ent.DebtItem) []*ent.DebtItem {
	sort.Slice(items, func(i, j int) bool { return items[i].Position < items[j].Position })
	return items
}

// sortPayments puts payments oldest first.
func sortPayments(p []*ent.Payment) []*ent.Payment {
	sort.Slice(p, func(i, j int) bool { return p[i].ID < p[j].ID })
	return p
}

// reloadDebts reads debts just written, with the fields the mutation's
// selection asks for eager-loaded, in the order given: one statement for
// the debts and one per eager-loaded edge, however many they are.
func (r *Resolver) reloadDebts(ctx context.Context, written []*ent.Debt) ([]*ent.Debt, error) {
	ids := make([]scalar.IntID, len(written))
	for i, d := range written {
		ids[i] = d.ID
	}
	q, err := r.db(ctx).Debt.Query().Where(debt.IDIn(ids...)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	read, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[scalar.IntID]*ent.Debt, len(read))
	for _, d := range read {
		byID[d.ID] = d
	}
	out := make([]*ent.Debt, len(ids))
	for i, id := range ids {
		if out[i] = byID[id]; out[i] == nil {
			return nil, fmt.Errorf("graph: debt %d just written is not there", id)
		}
	}
	return out, nil
}

// reloadDebt reads a debt just written, with the fields the mutation's
// selection asks for eager-loaded.
func (r *Resolver) reloadDebt(ctx context.Context, id scalar.IntID) (*ent.Debt, error) {
	debts, err := r.reloadDebts(ctx, []*ent.Debt{{ID: id}})
	if err != nil {
		return nil, err
	}
	return debts[0], nil
}
