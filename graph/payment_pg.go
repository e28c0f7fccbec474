package graph

import (
	"context"
	stdsql "database/sql"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtinvoice"
	"github.com/debtql/debtql/ent/payment"
	"github.com/debtql/debtql/internal/audit"
	"github.com/debtql/debtql/internal/collection"
)

// bookPayment books a payment on PostgreSQL in one statement and returns
// it with its debt and item, or nil when nothing was booked (the debt is
// not the client's, is withdrawn, or the item is not one of its own: the
// caller says which).
//
// Payments on one debt queue on its row lock, held from the debt's update
// to COMMIT, so the work inside that hold is what bounds payments per
// second on one debt (docs/performance.md). The statement's data-modifying
// CTEs update the debt (taking its lock, and re-checking that it is not
// withdrawn), then its item, insert the payment, the audit event and its
// records, in one round trip; the debt's statuses before and after, for
// the event, are computed in the same statement from the sum the locked
// update wrote (audit.DebtSQL, which mirrors ProjectDebt), so they are exact
// however payments race. What follows inside the hold is the answer's
// resolution (no query for the debt and item) and the commit; or, when
// the statement runs alone (SingleStatement), its own commit only.
//
// All sub-statements run on one snapshot taken before the lock is granted;
// the updates still add to the newest committed amounts, since PostgreSQL
// re-reads a row that changed while it waited (READ COMMITTED).
func (r *Resolver) bookPayment(ctx context.Context, tx querier, clientID string, in collection.PaymentRecord) (*ent.Payment, error) {
	actor, err := r.auditActor(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	at := r.clock.At()
	amount := int64(in.Amount)

	// The arguments, each once ($1 … $11), then the statuses' (DebtSQL).
	args := []any{amount, now, int64(in.DebtID), clientID, int64(in.InvoiceID), in.TransactionDate.String(),
		actor.keyID, actor.keyName, actor.role.String(), actor.operation, actor.requestID}
	b := &sql.Builder{}
	b.SetDialect(dialect.Postgres)
	b.SetTotal(len(args))
	cols := func(alias string, columns []string) string {
		if alias == "" {
			return strings.Join(columns, ", ")
		}
		return alias + "." + strings.Join(columns, ", "+alias+".")
	}
	w := func(parts ...any) {
		for _, p := range parts {
			switch p := p.(type) {
			case string:
				b.WriteString(p)
			case collection.Expr:
				p(b)
			default:
				panic("graph: bad part of the payment statement")
			}
		}
	}
	w("WITH d AS (UPDATE debts SET paid_amount = paid_amount + $1, updated_at = $2",
		" WHERE id = $3 AND client_id = $4::uuid AND withdrawn_at IS NULL",
		" AND EXISTS (SELECT 1 FROM debt_invoices WHERE id = $5 AND debt_id = $3)",
		" RETURNING ", cols("", debt.Columns), ", paid_amount - $1 AS paid_before),\n")
	w("i AS (UPDATE debt_invoices SET paid_amount = paid_amount + $1",
		" WHERE id = $5 AND debt_id = (SELECT id FROM d)",
		" RETURNING ", cols("", debtinvoice.Columns), "),\n")
	w("p AS (INSERT INTO payments (created_at, client_id, amount, transaction_date, source, debt_id, debt_invoice_id)",
		" SELECT $2, $4::uuid, $1, $6::date, '", payment.SourceREPORTED.String(), "', i.debt_id, i.id FROM i",
		" RETURNING ", cols("", payment.Columns), "),\n")
	w("e AS (INSERT INTO audit_events (created_at, client_id, api_key_id, api_key_name, role, operation, request_id, debt_id)",
		" SELECT $2, $4::uuid, $7::uuid, $8, $9, $10, $11, d.id FROM d RETURNING id),\n")
	// The event's records in the order the other mutations write them:
	// the payment, the debt (with its statuses), the item.
	w("r AS (INSERT INTO audit_event_records (client_id, event_id, record_type, record_id, before, after)",
		" SELECT $4::uuid, e.id, x.record_type, x.record_id, x.before, x.after FROM e, (",
		"SELECT 1 AS n, '", auditeventrecord.RecordTypePAYMENT.String(), "' AS record_type, p.id::text AS record_id, NULL::jsonb AS before, NULL::jsonb AS after FROM p",
		" UNION ALL SELECT 2, '", auditeventrecord.RecordTypeDEBT.String(), "', d.id::text, ",
		audit.DebtSQL("d.original_amount", "d.paid_before", "d.withdrawn_at", "d.created_at", at), ", ",
		audit.DebtSQL("d.original_amount", "d.paid_amount", "d.withdrawn_at", "d.created_at", at), " FROM d",
		" UNION ALL SELECT 3, '", auditeventrecord.RecordTypeDEBT_INVOICE.String(), "', i.id::text, NULL, NULL FROM i",
		") x ORDER BY x.n RETURNING id)\n")
	w("SELECT ", cols("d", debt.Columns), ", ", cols("i", debtinvoice.Columns), ", ", cols("p", payment.Columns), " FROM d, i, p")

	query, exprArgs := b.Query()
	rows, err := tx.QueryContext(ctx, query, append(args, exprArgs...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	db := r.db(ctx)
	var row ent.RowScanner
	d, err := row.ScanDebt(db, debt.Columns)
	if err != nil {
		return nil, err
	}
	item, err := row.ScanDebtInvoice(db, debtinvoice.Columns)
	if err != nil {
		return nil, err
	}
	p, err := row.ScanPayment(db, payment.Columns)
	if err != nil {
		return nil, err
	}
	if err := rows.Scan(row.Dest...); err != nil {
		return nil, err
	}
	if err := row.Done(); err != nil {
		return nil, err
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	p.SetLoadedEdges(d, item)
	return p, nil
}

// querier runs a hand-written query: the mutation's transaction, or the
// client outside one (SingleStatement).
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*stdsql.Rows, error)
}
