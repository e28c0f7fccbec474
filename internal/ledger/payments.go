package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtitem"
	"github.com/debtql/debtql/ent/payment"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// AddDebtPayment records a payment on a debt item.
//
// Every payment on a debt updates the debt's row and its item's, whose row
// locks are held until COMMIT, so payments on one debt queue behind one
// another for as long as those locks are held. The booking is the
// booker's (one per database, chosen in New): on PostgreSQL one statement
// takes the locks, inserts the payment and writes the audit event
// (bookPayments), and when the caller runs the use case alone (Alone: no
// transaction, the answer needs nothing more), payments on one debt that
// arrive while one is being booked are booked together by one such
// statement (queuedBooker). On SQLite, which runs one write transaction at
// a time, the checks, the reads and the insert come first, the two updates
// last, each one statement that returns the new amount; then the audit
// event (whose statuses come from those amounts). The debt's update
// re-checks that it is not withdrawn, so a withdrawal that commits in
// between still refuses the payment, and that the payment keeps its paid
// amount within the money ceiling (collection.MaxAmount), so that
// concurrent payments cannot pass it together: on every path the check
// holds under the row lock, and a payment refused by it writes nothing
// (BAD_USER_INPUT on input.amount).
func (s *Service) AddDebtPayment(ctx context.Context, a Actor, clientID string, in collection.PaymentRecord) (*ent.Payment, error) {
	ctx = a.scope(ctx)
	// Whether the client exists is asked only when the payment cannot be
	// booked (a debt of the client proves it exists).
	if err := auth.AuthorizeClient(ctx, clientID); err != nil {
		return nil, err
	}
	if err := in.Check(s.clock.At()); err != nil {
		// An unknown client is NOT_FOUND before its input is looked at.
		if err := s.ClientExists(ctx, clientID); err != nil {
			return nil, err
		}
		return nil, apierr.Prefix(err, "input")
	}
	e := event{a, OpAddDebtPayment}
	if s.BooksAlone(ctx) {
		return s.booker.book(ctx, e, clientID, in)
	}
	return inTx(ctx, s, func(ctx context.Context) (*ent.Payment, error) {
		return s.booker.book(ctx, e, clientID, in)
	})
}

// BooksAlone reports whether a payment of ctx is booked without a
// transaction: its caller runs it alone (Alone) and the database books a
// payment with one statement that commits by itself (RunsAlone).
// This is the one place that decides whether a payment needs a
// transaction.
func (s *Service) BooksAlone(ctx context.Context) bool {
	return alone(ctx) && ent.TxFromContext(ctx) == nil && s.RunsAlone()
}

// RunsAlone reports whether the database books a payment with one
// statement that commits by itself, and hands debts over in groups of
// their own transaction (PostgreSQL), so that a caller whose answer needs
// nothing more may run addDebtPayment or createDebt without a transaction
// (Alone).
func (s *Service) RunsAlone() bool { return s.booker.alone() }

// booker books one payment, or answers why not; a transaction of ctx, when
// there is one, holds its work.
type booker interface {
	book(ctx context.Context, e event, clientID string, in collection.PaymentRecord) (*ent.Payment, error)
	// alone reports whether book may run without a transaction.
	alone() bool
}

// pgBooker books with one statement (bookPayments), in the transaction of
// ctx or, alone, on its own.
type pgBooker struct{ s *Service }

func (b pgBooker) alone() bool { return true }

func (b pgBooker) book(ctx context.Context, e event, clientID string, in collection.PaymentRecord) (*ent.Payment, error) {
	if b.s.accruing.has(in.DebtID) {
		return b.s.bookAccruing(ctx, e, clientID, in)
	}
	var q querier = b.s.orm
	if tx := ent.TxFromContext(ctx); tx != nil {
		q = tx
	}
	m := &paymentMember{in: in, event: e}
	if err := b.s.bookPayments(ctx, q, clientID, in.DebtID, []*paymentMember{m}); err != nil {
		return nil, err
	}
	return b.s.booked(ctx, clientID, m)
}

// booked is the payment booked for m, or why none was; a payment on a debt
// that bears interest, which the statement leaves alone, is booked here by
// bookAccruing.
func (s *Service) booked(ctx context.Context, clientID string, m *paymentMember) (*ent.Payment, error) {
	if m.p != nil {
		return m.p, nil
	}
	err := s.unpayable(ctx, clientID, m.in)
	if errors.Is(err, errAccruing) {
		s.accruing.add(m.in.DebtID)
		return s.bookAccruing(ctx, m.event, clientID, m.in)
	}
	return nil, err
}

// errAccruing: the debt bears interest, so a payment changes what its claim
// charged, which the collection engine computes (bookAccruing).
var errAccruing = errors.New("ledger: the debt bears interest")

// bookAccruing books a payment on a debt that bears interest. On
// PostgreSQL it computes the claim first and books with one statement
// when the debt did not change meanwhile (bookAccruingFast), trying
// again a few times; else, and on SQLite, the plain path in a transaction
// (its caller's, or one of its own) recomputes the debt's charged amount
// under its row lock.
func (s *Service) bookAccruing(ctx context.Context, e event, clientID string, in collection.PaymentRecord) (*ent.Payment, error) {
	if s.booker.alone() {
		var q querier = s.orm
		if tx := ent.TxFromContext(ctx); tx != nil {
			q = tx
		}
		for range accrualAttempts {
			p, ok, err := s.bookAccruingFast(ctx, q, e, clientID, in)
			if err != nil || ok {
				return p, err
			}
		}
	}
	return inTx(ctx, s, func(ctx context.Context) (*ent.Payment, error) {
		return plainBooker{s}.book(ctx, e, clientID, in)
	})
}

// accrualAttempts is how often a payment on a debt that bears interest is
// tried without the lock before it waits for it: payments racing on one
// debt make all but one attempt fail.
const accrualAttempts = 3

// accruingDebts remembers ids of debts that bear interest (which never
// changes for a debt), so that their payments skip the statement that
// would leave them alone. It forgets everything when full.
type accruingDebts struct {
	mu  sync.Mutex
	ids map[scalar.IntID]struct{}
}

const maxAccruingDebts = 1 << 16

func (a *accruingDebts) add(id scalar.IntID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ids == nil || len(a.ids) >= maxAccruingDebts {
		a.ids = map[scalar.IntID]struct{}{}
	}
	a.ids[id] = struct{}{}
}

func (a *accruingDebts) has(id scalar.IntID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.ids[id]
	return ok
}

// plainBooker books with ent's statements in a transaction: the path every
// database can take (SQLite's).
type plainBooker struct{ s *Service }

func (b plainBooker) alone() bool { return false }

func (pb plainBooker) book(ctx context.Context, e event, clientID string, in collection.PaymentRecord) (*ent.Payment, error) {
	s := pb.s
	tx := ent.TxFromContext(ctx)
	if tx == nil {
		return nil, errNoTransaction
	}
	d, item, err := s.payableDebt(ctx, clientID, in)
	if err != nil {
		return nil, err
	}
	if !collection.PaidWithin(d.PaidAmount, in.Amount) {
		return nil, apierr.Prefix(collection.ErrPaidAboveCeiling(d.PaidAmount), "input")
	}
	db := s.db(ctx)
	p, err := db.Payment.Create().
		SetClientID(clientID).
		SetDebtID(d.ID).
		SetDebtItemID(item.ID).
		SetAmount(in.Amount).
		SetTransactionDate(in.TransactionDate).
		SetSource(payment.SourceREPORTED).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	// The locks, last.
	now := time.Now().UTC().Truncate(time.Microsecond)
	b := sql.Dialect(tx.Dialect())
	var paid collection.Money
	var last scalar.Date
	ok, err := updateReturning(ctx, tx, b.Update(debt.Table).
		Add(debt.FieldPaidAmount, int64(in.Amount)).
		Set(debt.FieldLastPaymentOn, sql.ExprFunc(func(b *sql.Builder) {
			// The later of the kept day and this payment's (either database).
			b.WriteString("CASE WHEN " + debt.FieldLastPaymentOn + " IS NULL OR " + debt.FieldLastPaymentOn + " < ")
			b.Arg(in.TransactionDate).WriteString(" THEN ").Arg(in.TransactionDate)
			b.WriteString(" ELSE " + debt.FieldLastPaymentOn + " END")
		})).
		Set(debt.FieldUpdatedAt, now).
		Where(sql.And(sql.EQ(debt.FieldID, d.ID), sql.EQ(debt.FieldClientID, clientID), sql.IsNull(debt.FieldWithdrawnAt),
			// The ceiling, without an overflow: in.Amount is within it.
			sql.LTE(debt.FieldPaidAmount, int64(collection.MaxAmount-in.Amount)))).
		Returning(debt.FieldPaidAmount, debt.FieldLastPaymentOn), &paid, &last)
	if err != nil {
		return nil, err
	}
	if !ok {
		// Withdrawn, or paid up to the ceiling, since it was read; the
		// transaction rolls back.
		return nil, s.unpayable(ctx, clientID, in)
	}
	d.PaidAmount, d.LastPaymentOn, d.UpdatedAt = paid, &last, now
	var itemPaid collection.Money
	ok, err = updateReturning(ctx, tx, b.Update(debtitem.Table).
		Add(debtitem.FieldPaidAmount, int64(in.Amount)).
		Where(sql.EQ(debtitem.FieldID, item.ID)).
		Returning(debtitem.FieldPaidAmount), &itemPaid)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("debt item %d vanished while paying it", item.ID)
	}
	item.PaidAmount = itemPaid
	// The debt's statuses around the payment, from the sum its update
	// returned under the row lock: exact even when payments race. (Written
	// after the updates, so it lengthens the lock's hold by the event's
	// inserts; an event with a guessed "before" would be wrong.)
	debtRecord := touchedInt(auditeventrecord.RecordTypeDEBT, d.ID)
	before := *d
	before.PaidAmount = paid - in.Amount
	if d.InterestBearing {
		// Under the row lock every earlier payment has committed: the
		// claim's facts are whole.
		if before.ChargedAmount, err = s.lockedCharged(ctx, d.ID); err != nil {
			return nil, err
		}
		if err := s.resummarize(ctx, d); err != nil {
			return nil, err
		}
	}
	debtRecord.before = s.debtStatuses(&before)
	debtRecord.after = s.debtStatuses(d)
	if err := s.record(ctx, e, &clientID, &d.ID,
		touchedInt(auditeventrecord.RecordTypePAYMENT, p.ID),
		debtRecord,
		touchedInt(auditeventrecord.RecordTypeDEBT_INVOICE, item.ID)); err != nil {
		return nil, err
	}
	// d has only this item loaded: hand out a copy without edges, whose
	// invoices (and the rest) load when asked for.
	paidDebt := *d
	paidDebt.Edges = ent.DebtEdges{}
	p.SetLoadedEdges(&paidDebt, item)
	return p, nil
}

// payableDebt reads the debt and the item a payment is for, without locks,
// and checks that the client and the debt exist, that the debt is not
// withdrawn and that the item is one of its own.
func (s *Service) payableDebt(ctx context.Context, clientID string, in collection.PaymentRecord) (*ent.Debt, *ent.DebtItem, error) {
	if err := s.ClientExists(ctx, clientID); err != nil {
		return nil, nil, err
	}
	d, err := s.db(ctx).Debt.Query().
		Where(debt.ClientID(clientID), debt.ID(in.DebtID)).
		WithInvoices(func(q *ent.DebtItemQuery) { q.Where(debtitem.ID(in.InvoiceID)) }).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil, apierr.New(apierr.NotFound, "debt %d does not exist", in.DebtID)
	}
	if err != nil {
		return nil, nil, err
	}
	if d.WithdrawnAt != nil {
		return nil, nil, debtWithdrawn(d.ID)
	}
	if len(d.Edges.Invoices) != 1 {
		return nil, nil, apierr.Invalid("input.invoiceId", "must be the id of an item (DebtInvoice) of debt %d", d.ID)
	}
	return d, d.Edges.Invoices[0], nil
}

// unpayable says why a payment was not booked: the debt or its item is
// not there, the debt is withdrawn, the payment would take its paid amount
// above the ceiling (as they are read now), or the debt bears interest
// (errAccruing); else the debt changed meanwhile.
func (s *Service) unpayable(ctx context.Context, clientID string, in collection.PaymentRecord) error {
	d, _, err := s.payableDebt(ctx, clientID, in)
	if err != nil {
		return err
	}
	if !collection.PaidWithin(d.PaidAmount, in.Amount) {
		return apierr.Prefix(collection.ErrPaidAboveCeiling(d.PaidAmount), "input")
	}
	if d.InterestBearing {
		return errAccruing
	}
	return apierr.New(apierr.Conflict, "debt %d changed while the payment was being booked: retry", in.DebtID)
}

// debtWithdrawn refuses a payment on a withdrawn debt.
func debtWithdrawn(id scalar.IntID) error {
	return apierr.New(apierr.Conflict, "debt %d is withdrawn: payments cannot be added", id)
}

// updateReturning runs an UPDATE that returns one row's columns into
// dest, and reports whether it updated a row.
func updateReturning(ctx context.Context, tx *ent.Tx, u *sql.UpdateBuilder, dest ...any) (bool, error) {
	query, args := u.Query()
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return false, rows.Err()
	}
	if err := rows.Scan(dest...); err != nil {
		return false, err
	}
	return true, rows.Close()
}
