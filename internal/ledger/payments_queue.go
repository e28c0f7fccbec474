package ledger

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// paymentQueues books together the payments on one debt that arrive while
// a booking of that debt is running (group commit): when it ends, those
// that waited are booked by one statement (bookPayments), which takes the
// debt's row lock and commits once for all of them, where one booking each
// would queue on that lock one commit at a time (docs/performance.md). A
// payment that finds no booking of its debt running is booked at once, on
// its own: queueing adds no wait where there is no contention.
//
// It serves the payments that run as one statement without a transaction
// (SingleStatement): a payment with an Idempotency-Key, whose record must
// commit with it, is booked on its own in its transaction. Each payment of
// a booking gets its own answer: booked with the debt as it was right after
// it, or not booked (its item is not the debt's; the debt is withdrawn or
// not the client's), which the caller explains as for one payment. The
// payments of one process are queued; across replicas each process's
// bookings still queue on the row.
type paymentQueues struct {
	mu sync.Mutex
	// waiting holds, for each debt with a booking running, the payments
	// waiting for it to end; a debt without one has no entry.
	waiting map[paymentQueueKey][]*queuedPayment
}

type paymentQueueKey struct {
	clientID string
	debtID   scalar.IntID
}

// queuedPayment is a payment waiting for, or in, a booking.
type queuedPayment struct {
	m   *paymentMember
	ctx context.Context
	// taken is set (under paymentQueues.mu) when a booking takes it: from
	// then on it is answered by that booking's outcome.
	taken bool
	done  chan error // the booking's outcome, once
}

// maxPaymentBatch bounds the payments one statement books.
const maxPaymentBatch = 64

// maxPaymentBooking bounds a booking whose first payment's request has no
// deadline.
const maxPaymentBooking = 30 * time.Second

// bookQueued books m on its debt (PostgreSQL, no transaction): at once when
// no booking of the debt is running, else with the payments that wait for
// the running one to end. m.p is the payment booked, nil when none was.
// When ctx ends before a booking took m, nothing is booked and ctx's error
// returned; once taken, m is answered by the booking's outcome.
func (s *Service) bookQueued(ctx context.Context, clientID string, m *paymentMember) error {
	qs := s.payments
	k := paymentQueueKey{clientID: clientID, debtID: m.in.DebtID}
	q := &queuedPayment{m: m, ctx: ctx, done: make(chan error, 1)}
	qs.mu.Lock()
	if w, running := qs.waiting[k]; running {
		qs.waiting[k] = append(w, q)
		qs.mu.Unlock()
		select {
		case err := <-q.done:
			return err
		case <-ctx.Done():
			qs.mu.Lock()
			if !q.taken {
				qs.waiting[k] = slices.DeleteFunc(qs.waiting[k], func(x *queuedPayment) bool { return x == q })
				qs.mu.Unlock()
				return ctx.Err()
			}
			qs.mu.Unlock()
			return <-q.done
		}
	}
	if qs.waiting == nil {
		qs.waiting = map[paymentQueueKey][]*queuedPayment{}
	}
	qs.waiting[k] = nil
	q.taken = true
	qs.mu.Unlock()
	s.runPaymentBookings(k, []*queuedPayment{q})
	return <-q.done
}

// runPaymentBookings books batch, then hands the payments that waited
// meanwhile to a new booking, or ends the debt's run when none did.
func (s *Service) runPaymentBookings(k paymentQueueKey, batch []*queuedPayment) {
	s.bookBatch(k, batch)
	qs := s.payments
	qs.mu.Lock()
	var next []*queuedPayment
	for len(next) == 0 {
		w := qs.waiting[k]
		if len(w) == 0 {
			delete(qs.waiting, k)
			qs.mu.Unlock()
			return
		}
		n := min(len(w), maxPaymentBatch)
		qs.waiting[k] = slices.Clone(w[n:])
		for _, q := range w[:n] {
			q.taken = true
			if err := q.ctx.Err(); err != nil {
				q.done <- err // its request has ended: not booked
				continue
			}
			next = append(next, q)
		}
	}
	qs.mu.Unlock()
	go s.runPaymentBookings(k, next)
}

// bookBatch books the payments of batch with one statement and answers
// each. The statement runs under the first payment's context without its
// cancellation (one request that goes away must not undo the others), up
// to that request's deadline. An error of the statement is every
// payment's answer. When it books none of several payments (the debt is
// withdrawn, or their sum would take its paid amount above the money
// ceiling, though some of them may fit), each is booked on its own, in
// order, as if it had come alone: those that fit are booked and the others
// refused one by one.
func (s *Service) bookBatch(k paymentQueueKey, batch []*queuedPayment) {
	first := batch[0].ctx
	deadline, ok := first.Deadline()
	if !ok {
		deadline = time.Now().Add(maxPaymentBooking)
	}
	ctx, cancel := context.WithDeadline(context.WithoutCancel(first), deadline)
	defer cancel()
	members := make([]*paymentMember, len(batch))
	for i, q := range batch {
		members[i] = q.m
	}
	book := func(members []*paymentMember) (err error) {
		// A panic here would otherwise end the process (this may run in a
		// goroutine of its own) or leave the batch's requests waiting.
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("ledger: booking payments: panic: %v", p)
			}
		}()
		return s.bookPayments(ctx, s.orm, k.clientID, k.debtID, members)
	}
	errs := make([]error, len(batch))
	err := book(members)
	for i := range errs {
		errs[i] = err
	}
	if err == nil && len(members) > 1 && !slices.ContainsFunc(members, func(m *paymentMember) bool { return m.p != nil }) {
		for i, m := range members {
			errs[i] = book([]*paymentMember{m})
		}
	}
	for i, q := range batch {
		q.done <- errs[i] // with an error, the caller does not look at q.m.p
	}
}

// queuedBooker decorates the PostgreSQL booker with group commit: a
// payment booked alone (no transaction) joins its debt's queue (bookQueued);
// one in a transaction is booked by the statement on its own.
type queuedBooker struct{ pgBooker }

func (b queuedBooker) book(ctx context.Context, e event, clientID string, in collection.PaymentRecord) (*ent.Payment, error) {
	if ent.TxFromContext(ctx) != nil || b.s.accruing.has(in.DebtID) {
		return b.pgBooker.book(ctx, e, clientID, in)
	}
	m := &paymentMember{in: in, event: e}
	if err := b.s.bookQueued(ctx, clientID, m); err != nil {
		return nil, err
	}
	return b.s.booked(ctx, clientID, m)
}
