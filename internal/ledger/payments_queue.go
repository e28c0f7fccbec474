package ledger

import (
	"context"
	"slices"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// paymentGroups books together the payments on one debt that arrive while
// a booking of that debt is running (groupCommit): those that waited are
// booked by one statement (bookPayments), which takes the debt's row lock
// and commits once for all of them, where one booking each would queue on
// that lock one commit at a time.
//
// It serves the payments that run as one statement without a transaction
// (RunsAlone): a payment with an Idempotency-Key, whose record must
// commit with it, is booked on its own in its transaction. Each payment of
// a booking gets its own answer: booked with the debt as it was right after
// it, or not booked (its item is not the debt's; the debt is withdrawn or
// not the client's), which the caller explains as for one payment.
type paymentGroups = groupCommit[paymentKey, *paymentMember]

type paymentKey struct {
	clientID string
	debtID   scalar.IntID
}

// maxPaymentBatch bounds the payments one statement books.
const maxPaymentBatch = 64

func (s *Service) newPaymentGroups() *paymentGroups {
	return &paymentGroups{max: maxPaymentBatch, run: s.bookBatch}
}

// bookBatch books the payments of members with one statement and answers
// each. An error of the statement is every payment's answer. When it books
// none of several payments (the debt is withdrawn, or their sum would take
// its paid amount above the money ceiling, though some of them may fit),
// each is booked on its own, in order, as if it had come alone: those that
// fit are booked and the others refused one by one.
func (s *Service) bookBatch(ctx context.Context, k paymentKey, members []*paymentMember) []error {
	book := func(members []*paymentMember) error {
		return guard(func() error { return s.bookPayments(ctx, s.orm, k.clientID, k.debtID, members) })
	}
	errs := oneOutcome(book(members), len(members))
	if errs[0] == nil && len(members) > 1 && !slices.ContainsFunc(members, func(m *paymentMember) bool { return m.p != nil }) {
		for i, m := range members {
			errs[i] = book([]*paymentMember{m})
		}
	}
	return errs // with an error, the caller does not look at the member's p
}

// queuedBooker decorates the PostgreSQL booker with group commit: a
// payment booked alone (no transaction) joins its debt's group (paymentGroups);
// one in a transaction is booked by the statement on its own.
type queuedBooker struct{ pgBooker }

func (b queuedBooker) book(ctx context.Context, e event, clientID string, in collection.PaymentRecord) (*ent.Payment, error) {
	if ent.TxFromContext(ctx) != nil || b.s.accruing.has(in.DebtID) {
		return b.pgBooker.book(ctx, e, clientID, in)
	}
	m := &paymentMember{in: in, event: e}
	if err := b.s.payments.do(ctx, paymentKey{clientID: clientID, debtID: in.DebtID}, m); err != nil {
		return nil, err
	}
	return b.s.booked(ctx, clientID, m)
}
