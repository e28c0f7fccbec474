package ledger

import (
	"context"
	stdsql "database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtitem"
	"github.com/debtql/debtql/ent/payment"
	"github.com/debtql/debtql/internal/audit"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// paymentMember is one payment of a booking: the request's record and
// actor, and the payment booked for it (with its debt and item as they
// were right after it), nil when nothing was booked for it (the debt is not
// the client's, is withdrawn, or the item is not one of its own: the
// caller says which).
type paymentMember struct {
	in    collection.PaymentRecord
	event event
	p     *ent.Payment
}

// bookPayments books payments on one debt of a client on PostgreSQL, in
// one statement, as if one after another in the order given.
//
// Payments on one debt queue on its row lock, held from the debt's update
// to COMMIT, so the work inside that hold is what bounds payments per
// second on one debt (docs/performance.md); booking several in one
// statement takes the lock, and commits, once for all of them. The
// statement's data-modifying CTEs update the debt by their sum (taking its
// lock, and re-checking that it is not withdrawn), then each item by its
// members' sum, insert the payments, one audit event per payment and its
// records, in one round trip. Each member's paid amount before and after
// is the running sum in the members' order from the amount the locked
// update found; its event's statuses are computed from them in the same
// statement (audit.DebtSQL, which mirrors ProjectDebt), so they are exact
// however payments race, and the events, whose ids are drawn in the
// members' order, read in id order as the payments' sequence. What follows
// inside the hold is the answer's resolution (no query for the debt and
// item) and the commit; or, when the statement runs alone
// (RunsAlone), its own commit only.
//
// A member whose item is not one of the debt's books nothing and the others
// still book; when the debt is not the client's, is withdrawn, or bears
// interest (a payment changes its claim's charges: bookAccruing books it),
// none books; nor when the members' sum would take the debt's paid amount above
// the money ceiling (collection.MaxAmount), a condition of the debt's
// update, so that it holds under the row lock (the sum is numeric, which
// cannot overflow; bookBatch then books the members one by one). All
// sub-statements run on one snapshot taken before the lock is granted; the
// updates still add to the newest committed amounts, and the conditions
// are checked on them, since PostgreSQL re-reads a row that changed while
// it waited (READ COMMITTED).
func (s *Service) bookPayments(ctx context.Context, tx querier, clientID string, debtID scalar.IntID, members []*paymentMember) error {
	return s.bookPaymentsAs(ctx, tx, clientID, debtID, members, nil)
}

// accrual is what a payment on a debt that bears interest books beyond
// the others: the debt's new charged amount, computed from the facts seen
// with the paid and charged amounts they had (bookAccruingFast). The
// statement books only if the debt still has those amounts: both only
// grow (payments add to one, fees and interest to the other), so any
// change of the facts meanwhile changes one of them.
type accrual struct {
	seenPaid, seenCharged, charged collection.Money
}

// bookPaymentsAs is bookPayments; with acc, one payment on a debt that
// bears interest, as acc says.
func (s *Service) bookPaymentsAs(ctx context.Context, tx querier, clientID string, debtID scalar.IntID, members []*paymentMember, acc *accrual) error {
	now := time.Now().UTC().Truncate(time.Microsecond)
	at := s.clock.At()
	n := len(members)
	amounts, items := make([]int64, n), make([]int64, n)
	dates, keyIDs, keyNames, roles, operations, requestIDs := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, m := range members {
		if m.in.DebtID != debtID {
			return fmt.Errorf("ledger: a payment on debt %d in a booking of debt %d", m.in.DebtID, debtID)
		}
		amounts[i], items[i], dates[i] = int64(m.in.Amount), int64(m.in.InvoiceID), m.in.TransactionDate.String()
		keyIDs[i], keyNames[i], roles[i], operations[i], requestIDs[i] = m.event.KeyID, m.event.KeyName, m.event.Role.String(), m.event.operation, m.event.RequestID
		m.p = nil
	}
	// The arguments, each once ($1 … $11, with an accrual $12 … $14), then
	// the statuses' (DebtSQL).
	args := []any{amounts, items, dates, keyIDs, keyNames, roles, operations, requestIDs, now, int64(debtID), clientID}
	// Which debts the update books on, what it sets their charged amount
	// to, and what the statuses before compare with.
	which, setCharged, chargedBefore := " AND NOT interest_bearing", "", "d.charged_amount"
	if acc != nil {
		if n != 1 {
			return fmt.Errorf("ledger: %d payments in one booking on a debt that bears interest", n)
		}
		args = append(args, int64(acc.charged), int64(acc.seenPaid), int64(acc.seenCharged))
		which, setCharged, chargedBefore = " AND paid_amount = $13 AND charged_amount = $14", ", charged_amount = $12", "$14::bigint"
	}
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
				panic("ledger: bad part of the payment statement")
			}
		}
	}
	// m: the members whose item is the debt's, numbered in their order.
	w("WITH m AS (SELECT u.* FROM unnest($1::bigint[], $2::bigint[], $3::date[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[])",
		" WITH ORDINALITY AS u(amount, invoice_id, transaction_date, key_id, key_name, role, operation, request_id, n)",
		" WHERE EXISTS (SELECT 1 FROM debt_invoices WHERE id = u.invoice_id AND debt_id = $10)),\n")
	w("d AS (UPDATE debts SET paid_amount = paid_amount + (SELECT sum(amount) FROM m),",
		" last_payment_on = greatest(last_payment_on, (SELECT max(transaction_date) FROM m)), updated_at = $9", setCharged,
		" WHERE id = $10 AND client_id = $11::uuid AND withdrawn_at IS NULL", which, " AND EXISTS (SELECT 1 FROM m)",
		" AND paid_amount + (SELECT sum(amount) FROM m) <= ", maxAmountSQL,
		" RETURNING ", cols("", debt.Columns), ", paid_amount - (SELECT sum(amount) FROM m) AS paid_before),\n")
	// o: the members booked (none when the debt was not updated), with the
	// debt's paid amount after each; mm: their payment's and event's ids,
	// drawn in the members' order.
	w("o AS (SELECT m.*, d.paid_before + sum(m.amount) OVER (ORDER BY m.n) AS paid_after FROM m, d ORDER BY m.n),\n")
	w("mm AS (SELECT o.*, ", nextID("payments"), " AS payment_id, ", nextID("audit_events"), " AS event_id FROM o),\n")
	w("i AS (UPDATE debt_invoices AS t SET paid_amount = t.paid_amount + s.total",
		" FROM (SELECT invoice_id, sum(amount) AS total FROM mm GROUP BY invoice_id) AS s",
		" WHERE t.id = s.invoice_id RETURNING ", cols("t", debtitem.Columns), "),\n")
	w("p AS (INSERT INTO payments (id, created_at, client_id, amount, transaction_date, source, debt_id, debt_invoice_id)",
		" SELECT payment_id, $9, $11::uuid, amount, transaction_date, '", payment.SourceREPORTED.String(), "', $10, invoice_id FROM mm ORDER BY n",
		" RETURNING ", cols("", payment.Columns), "),\n")
	w("e AS (INSERT INTO audit_events (id, created_at, client_id, api_key_id, api_key_name, role, operation, request_id, debt_id)",
		" SELECT event_id, $9, $11::uuid, key_id, key_name, role, operation, request_id, $10 FROM mm ORDER BY n RETURNING id),\n")
	// Each event's records in the order the other mutations write them:
	// the payment, the debt (with its statuses), the item.
	w("r AS (INSERT INTO audit_event_records (client_id, event_id, record_type, record_id, before, after)",
		" SELECT $11::uuid, mm.event_id, x.record_type, x.record_id, x.before, x.after FROM mm, d, LATERAL (",
		"SELECT 1 AS k, '", auditeventrecord.RecordTypePAYMENT.String(), "' AS record_type, mm.payment_id::text AS record_id, NULL::jsonb AS before, NULL::jsonb AS after",
		" UNION ALL SELECT 2, '", auditeventrecord.RecordTypeDEBT.String(), "', d.id::text, ",
		audit.DebtSQL(chargedBefore, "(mm.paid_after - mm.amount)", "d", at), ", ",
		audit.DebtSQL("d.charged_amount", "mm.paid_after", "d", at),
		" UNION ALL SELECT 3, '", auditeventrecord.RecordTypeDEBT_INVOICE.String(), "', mm.invoice_id::text, NULL, NULL",
		") x ORDER BY mm.n, x.k RETURNING id)\n")
	// Per member: its number, the debt's and its item's paid amounts right
	// after it, the debt, the item and the payment.
	w("SELECT mm.n, mm.paid_after, i.paid_amount - coalesce(sum(mm.amount) OVER (PARTITION BY mm.invoice_id ORDER BY mm.n DESC",
		" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0), ",
		cols("d", debt.Columns), ", ", cols("i", debtitem.Columns), ", ", cols("p", payment.Columns),
		" FROM mm, d, i, p WHERE i.id = mm.invoice_id AND p.id = mm.payment_id")

	query, exprArgs := b.Query()
	rows, err := tx.QueryContext(ctx, query, append(args, exprArgs...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	db := s.db(ctx)
	for rows.Next() {
		var row ent.RowScanner
		var k, paid, itemPaid int64
		row.Dest = append(row.Dest, &k, &paid, &itemPaid)
		d, err := row.ScanDebt(db, debt.Columns)
		if err != nil {
			return err
		}
		item, err := row.ScanDebtItem(db, debtitem.Columns)
		if err != nil {
			return err
		}
		p, err := row.ScanPayment(db, payment.Columns)
		if err != nil {
			return err
		}
		if err := row.Read(rows); err != nil {
			return err
		}
		if k < 1 || k > int64(n) || members[k-1].p != nil {
			return fmt.Errorf("ledger: the payment statement answered for member %d of %d twice or out of range", k, n)
		}
		d.PaidAmount, item.PaidAmount = collection.Money(paid), collection.Money(itemPaid)
		p.SetLoadedEdges(d, item)
		members[k-1].p = p
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if slices.ContainsFunc(members, func(m *paymentMember) bool { return m.p != nil }) {
		s.afterCommit(ctx)
	}
	return nil
}

// maxAmountSQL is the money ceiling as an SQL literal (in öre).
var maxAmountSQL = strconv.FormatInt(int64(collection.MaxAmount), 10)

// querier runs a hand-written query: the mutation's transaction, or the
// client outside one (RunsAlone).
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*stdsql.Rows, error)
}

// bookAccruingFast books a payment on a debt that bears interest on
// PostgreSQL without holding the debt's lock while the claim is computed:
// one statement reads the debt's paid and charged amounts with the claim's
// facts (accrualFacts), the engine computes the charged amount with the
// payment, and the booking statement writes it only if the debt's amounts
// are still those seen. It answers false when the amounts changed
// meanwhile, or when the debt cannot be booked this way (not the client's,
// withdrawn, an item without its due day): the caller then books it under
// the lock (bookAccruing), which also says why it cannot.
func (s *Service) bookAccruingFast(ctx context.Context, q querier, e event, clientID string, in collection.PaymentRecord) (*ent.Payment, bool, error) {
	f, paid, charged, ok, err := s.accrualFacts(ctx, q, clientID, in.DebtID)
	if err != nil || !ok {
		return nil, false, err
	}
	if !slices.ContainsFunc(f.Items, func(it collection.ClaimItem) bool { return it.ID == int(in.InvoiceID) }) ||
		!collection.PaidWithin(paid, in.Amount) {
		return nil, false, nil // refused: the locked path says why
	}
	// The payment's id is drawn by the booking; it is the debt's newest.
	f.Payments = append(f.Payments, collection.ClaimPayment{ID: math.MaxInt, Date: in.TransactionDate, Amount: in.Amount,
		Item: int(in.InvoiceID)})
	after, err := f.Summary(s.clock.At().Today)
	if err != nil {
		return nil, false, err
	}
	m := &paymentMember{in: in, event: e}
	if err := s.bookPaymentsAs(ctx, q, clientID, in.DebtID, []*paymentMember{m}, &accrual{seenPaid: paid, seenCharged: charged, charged: after}); err != nil {
		return nil, false, err
	}
	return m.p, m.p != nil, nil
}

// accrualFacts reads, in one statement, the claim facts of a debt of the
// client that bears interest (its items, payments and fees, the reference
// rates), and its paid and charged amounts; ok is false when the debt is
// not the client's, is withdrawn, or has an item without its due day.
func (s *Service) accrualFacts(ctx context.Context, q querier, clientID string, id scalar.IntID) (f collection.ClaimFacts, paid, charged collection.Money, ok bool, err error) {
	query := claimFactsUnion(func(int) string { return "debt_id = $1 AND client_id = $2::uuid" }) +
		" UNION ALL SELECT " + strconv.Itoa(factRate) + ", 0, 0, rate, valid_from, CAST(NULL AS BIGINT), CAST(NULL AS TEXT) FROM reference_rates" +
		" UNION ALL SELECT " + strconv.Itoa(factDebt) + ", id, 0, paid_amount, CAST(NULL AS DATE), charged_amount, interest_rule FROM debts" +
		" WHERE id = $1 AND client_id = $2::uuid AND withdrawn_at IS NULL AND interest_bearing" +
		" ORDER BY 1, 3"
	rows, err := q.QueryContext(ctx, query, int64(id), clientID)
	if err != nil {
		return f, 0, 0, false, err
	}
	defer rows.Close()
	var rates []collection.ReferenceRate
	dated, found := true, false
	for rows.Next() {
		r, err := scanFactRow(rows)
		if err != nil {
			return f, 0, 0, false, err
		}
		switch r.kind {
		case factRate:
			rates = append(rates, collection.ReferenceRate{ValidFrom: r.day.V, Rate: collection.Rate(r.amount)})
		case factDebt:
			found, paid, charged = true, r.amount, collection.Money(r.num.Int64)
			f.Terms = storedTerms(r.label.String, 0, false)
		default:
			d, err := r.applyTo(&f)
			if err != nil {
				return f, 0, 0, false, err
			}
			dated = dated && d
		}
	}
	if err := rows.Close(); err != nil {
		return f, 0, 0, false, err
	}
	if f.Terms.Interest == collection.InterestStatutory {
		f.Rates = rates
	}
	return f, paid, charged, found && dated, nil
}
