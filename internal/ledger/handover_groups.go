package ledger

import (
	"context"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/store"
)

// handoverGroups hands over together the createDebt calls of one client
// and API key that arrive while a hand-over of theirs is running
// (groupCommit): those that waited are handed over by one transaction of
// handOver's fixed statements, where one transaction each would send
// those statements and commit once per debt (docs/performance.md, "Bulk
// hand-over"). The API key is part of the key so that a group runs as one
// actor: the tenancy of the first member's request is every member's.
//
// It serves the calls that run without a transaction of the request
// (HandsOverAlone): one with an Idempotency-Key, whose record must commit
// with it, is handed over on its own in its request's transaction.
type handoverGroups = groupCommit[handoverKey, *handoverMember]

type handoverKey struct {
	clientID string
	keyID    string
}

// handoverMember is one createDebt call of a group: its input and actor
// (its debt's event names its own request), and the debt it handed over.
type handoverMember struct {
	in    collection.DebtorWithDebtsRecord
	actor Actor
	debt  *ent.Debt
}

// maxHandoverGroup bounds the calls one transaction hands over. Half of
// the 16 connections the hand-over is measured with: their calls make two
// crowds that take turns, one in its transaction while the other's
// callers read their answers and send their next calls, where one crowd of
// 16 left the database idle while they did. 20,000 debts from 16
// connections: 2,224 and 2,327 debts/s against 2,073 and 2,036 with 16
// (docs/performance.md, "Bulk hand-over").
const maxHandoverGroup = 8

// handoverKeys is the number of locks a call takes (entryLocks): a group
// takes calls while their locks number at most maxFineLocks, so that it
// locks its debtors and numbers one by one rather than the whole client
// (lockKeys). 8 calls of two invoices each take 24.
func handoverKeys(m *handoverMember) int { return len(entryLocks(nil, "", m.in)) }

// handoverGather is how long a group that ends waits for its calls' next
// calls (groupCommit.gather). 16 connections of createDebt handed over
// 920 and 1,026 debts/s with it, 693 and 874 without (docs/performance.md).
const handoverGather = 10 * time.Millisecond

func (s *Service) newHandoverGroups() *handoverGroups {
	return &handoverGroups{max: maxHandoverGroup, gather: handoverGather, crowd: 4, parallel: 2, run: s.handOverGroup,
		weight: handoverKeys, maxWeight: maxFineLocks}
}

// HandsOverAlone reports whether createDebt of ctx runs without a
// transaction of its caller, in one of its own shared with the calls
// grouped with it (PostgreSQL; ctx marked Alone, which the server does
// when the answer needs nothing but the debt's row: graph.RunsAlone).
func (s *Service) HandsOverAlone(ctx context.Context) bool {
	return alone(ctx) && ent.TxFromContext(ctx) == nil && s.RunsAlone()
}

// handOverGroup hands members over in one transaction and answers each.
// When that fails and there were several, each is handed over on its own,
// in order, as if it had come alone: one member's refusal (an invoice
// number already in collection, an input error) is its own, not the
// others'.
func (s *Service) handOverGroup(ctx context.Context, k handoverKey, members []*handoverMember) []error {
	run := func(ms []*handoverMember) error {
		return guard(func() error {
			debts, err := s.handOverPiped(ctx, k.clientID, ms)
			if err != nil {
				return err
			}
			// Read after the commit: bound to the client, not the
			// closed transaction.
			for i, d := range debts {
				ms[i].debt = d.Unwrap()
			}
			return nil
		})
	}
	errs := oneOutcome(run(members), len(members))
	if errs[0] != nil && len(members) > 1 {
		for i, m := range members {
			errs[i] = run([]*handoverMember{m})
		}
	}
	return errs
}

// handOverPiped hands members over in a transaction of their own, as
// handOverOf does, in two round trips (store.BeginPiped): BEGIN with the
// client, the locks and what the client holds of the entries' numbers and
// identities; then the statement that writes the rows with COMMIT. It
// answers as handOverOf: the actor's access first, then NOT_FOUND for a
// client that does not exist, then the input's errors.
func (s *Service) handOverPiped(ctx context.Context, clientID string, members []*handoverMember) ([]*ent.Debt, error) {
	if err := auth.AuthorizeClient(ctx, clientID); err != nil {
		return nil, err
	}
	entries, ev, field := membersHandover(members)
	at := s.clock.At()
	hs, normalized, err := prepareHandover(at, entries, field)
	if err != nil {
		if _, cerr := s.clientFor(ctx, clientID); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	var client *ent.Creditor
	held := newHandoverHeld()
	first := &store.Pipeline{}
	first.Query(clientSQL, func(rows store.Rows) error {
		var err error
		client, err = scanClient(s.orm, rows)
		return err
	}, clientID)
	shared, exclusive := lockSet(clientID, handoverLocks(clientID, normalized))
	s.store.QueueLockKeys(first, shared, exclusive)
	numbers, keys := heldKeys(normalized)
	queueHeld(first, held, clientID, numbers, keys)
	tx, err := s.store.BeginPiped(ctx, first)
	if err != nil {
		return nil, err
	}
	return runTx(ctx, tx.Tx, func(ctx context.Context) ([]*ent.Debt, error) {
		if client == nil {
			return nil, noClient(clientID)
		}
		return s.writeHandover(ctx, at, client, hs, normalized, held, ev, field, tx)
	})
}

// handOverOf hands members over in the transaction of ctx, as createDebt
// does: its errors name the member's "input".
func (s *Service) handOverOf(ctx context.Context, clientID string, members []*handoverMember) ([]*ent.Debt, error) {
	client, err := s.clientFor(ctx, clientID)
	if err != nil {
		return nil, err
	}
	entries, ev, field := membersHandover(members)
	return s.handOver(ctx, client, entries, ev, field)
}

// membersHandover is what createDebt calls hand over: their inputs, each
// debt's event (its own call's actor), and the field that names an
// entry's place in its call ("input").
func membersHandover(members []*handoverMember) ([]collection.DebtorWithDebtsRecord, func(int) event, func(int) string) {
	entries := make([]collection.DebtorWithDebtsRecord, len(members))
	for i, m := range members {
		entries[i] = m.in
	}
	return entries, func(i int) event { return event{members[i].actor, OpCreateDebt} },
		func(int) string { return "input" }
}
