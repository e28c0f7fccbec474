package ledger

import (
	"context"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/ent/invoice"
	"github.com/debtql/debtql/internal/scalar"
)

// The lookups of many records by id that a federation gateway asks for
// (Query._entities, docs/federation.md): one statement for all the ids of
// a type, however many. Their tenancy is that of the single lookups
// (client, debtor, invoice, debt): the tenant filter under ent keeps a
// CLIENT key's statements inside its client, so another client's record
// is not found, exactly as an id that does not exist is not, and both are
// nil in the answer; whether an id exists never leaks across clients. An
// ADMIN key finds every client's records.
//
// Each returns the records in the order of ids, with nil where an id is not
// found. shape, when given, adds to the query what the caller will read of
// the records (eager loading); it may change the query in place.

// ClientsByID reads the clients of ids.
func (s *Service) ClientsByID(ctx context.Context, ids []string, shape func(*ent.CreditorQuery) error) ([]*ent.Creditor, error) {
	return byID(ctx, ids, s.db(ctx).Creditor.Query().Where(creditor.IDIn(distinct(ids)...)), shape,
		func(c *ent.Creditor) string { return c.ID })
}

// DebtorsByID reads the debtors of ids.
func (s *Service) DebtorsByID(ctx context.Context, ids []string, shape func(*ent.DebtorQuery) error) ([]*ent.Debtor, error) {
	return byID(ctx, ids, s.db(ctx).Debtor.Query().Where(debtor.IDIn(distinct(ids)...)), shape,
		func(d *ent.Debtor) string { return d.ID })
}

// InvoicesByID reads the invoices of ids.
func (s *Service) InvoicesByID(ctx context.Context, ids []string, shape func(*ent.InvoiceQuery) error) ([]*ent.Invoice, error) {
	return byID(ctx, ids, s.db(ctx).Invoice.Query().Where(invoice.IDIn(distinct(ids)...)), shape,
		func(i *ent.Invoice) string { return i.ID })
}

// DebtsByID reads the debts of ids.
func (s *Service) DebtsByID(ctx context.Context, ids []scalar.IntID, shape func(*ent.DebtQuery) error) ([]*ent.Debt, error) {
	return byID(ctx, ids, s.db(ctx).Debt.Query().Where(debt.IDIn(distinct(ids)...)), shape,
		func(d *ent.Debt) scalar.IntID { return d.ID })
}

// byID runs q (shaped by shape) and returns its rows in the order of ids,
// nil where no row has the id. No ids: no statement.
func byID[Q interface {
	All(context.Context) ([]*T, error)
}, T any, K comparable](ctx context.Context, ids []K, q Q, shape func(Q) error, key func(*T) K) ([]*T, error) {
	out := make([]*T, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	if shape != nil {
		if err := shape(q); err != nil {
			return nil, err
		}
	}
	rows, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	found := make(map[K]*T, len(rows))
	for _, r := range rows {
		found[key(r)] = r
	}
	for i, id := range ids {
		out[i] = found[id]
	}
	return out, nil
}

// distinct returns ids without repeats, in their first order.
func distinct[K comparable](ids []K) []K {
	seen := make(map[K]bool, len(ids))
	out := make([]K, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
