package ledger

import (
	"context"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// CreateDebt hands a debtor's receivables over: reuse or create the
// debtor, then write the debt, its items and opening payments, all or
// nothing (handOver, with one entry). Run alone (HandsOverAlone), it
// joins the hand-overs of its client and API key that arrive while one
// runs (handoverGroups) and commits with them.
func (s *Service) CreateDebt(ctx context.Context, a Actor, clientID string, in collection.DebtorWithDebtsRecord) (*ent.Debt, error) {
	ctx = a.scope(ctx)
	if s.HandsOverAlone(ctx) {
		m := &handoverMember{in: in, actor: a}
		if err := s.handovers.do(ctx, handoverKey{clientID: clientID, keyID: a.KeyID}, m); err != nil {
			return nil, err
		}
		return m.debt, nil
	}
	return inTx(ctx, s, func(ctx context.Context) (*ent.Debt, error) {
		debts, err := s.handOverOf(ctx, clientID, []*handoverMember{{in: in, actor: a}})
		if err != nil {
			return nil, err
		}
		return debts[0], nil
	})
}

// lockedDebt reads a debt of the client and locks its row for the rest of
// the transaction (on PostgreSQL), so that payments and withdrawals on one
// debt happen one after the other.
func (s *Service) lockedDebt(ctx context.Context, clientID string, id scalar.IntID) (*ent.Debt, error) {
	d, err := s.db(ctx).Debt.Query().
		Where(debt.ClientID(clientID), debt.ID(id)).
		Modify(s.store.LockRows).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierr.New(apierr.NotFound, "debt %d does not exist", id)
	}
	return d, err
}

// WithdrawDebtRecord is a withdrawal of a debt: its id, the client it
// names (when given, the client of the call), and a comment.
type WithdrawDebtRecord struct {
	ID       scalar.IntID
	ClientID *string
	Comment  *string
}

// WithdrawDebt withdraws a debt of the client: a withdrawn or closed debt
// is CONFLICT. Input errors name the fields under "input".
func (s *Service) WithdrawDebt(ctx context.Context, a Actor, clientID string, in WithdrawDebtRecord) (*ent.Debt, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) (*ent.Debt, error) {
		if err := s.forClient(ctx, clientID); err != nil {
			return nil, err
		}
		if in.ClientID != nil && *in.ClientID != clientID {
			return nil, apierr.Invalid("input.clientId", "must be the clientId argument (%s) when given", clientID)
		}
		comment, err := collection.Comment(in.Comment, "input.comment")
		if err != nil {
			return nil, err
		}
		return s.withdrawDebt(ctx, a, clientID, in.ID, comment)
	})
}

func (s *Service) withdrawDebt(ctx context.Context, a Actor, clientID string, id scalar.IntID, comment *string) (*ent.Debt, error) {
	d, err := s.lockedDebt(ctx, clientID, id)
	if err != nil {
		return nil, err
	}
	switch p := collection.ProjectDebt(d.Facts(), s.clock.At()); {
	case d.WithdrawnAt != nil:
		return nil, apierr.New(apierr.Conflict, "debt %d is already withdrawn", d.ID)
	case p.Main == collection.StageClosed:
		return nil, apierr.New(apierr.Conflict, "debt %d is paid in full and closed: it cannot be withdrawn", d.ID)
	}
	withdrawn, err := s.db(ctx).Debt.UpdateOne(d).
		SetWithdrawnAt(time.Now().UTC().Truncate(time.Microsecond)).
		SetNillableWithdrawComment(comment).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	if withdrawn.InterestBearing {
		// Interest stops on the day of withdrawal: the summary is the
		// claim of that day.
		if err := s.resummarize(ctx, withdrawn); err != nil {
			return nil, err
		}
	}
	debtRecord := touchedInt(auditeventrecord.RecordTypeDEBT, d.ID)
	debtRecord.before, debtRecord.after = s.debtStatuses(d), s.debtStatuses(withdrawn)
	return recorded(s, ctx, withdrawn, event{a, OpWithdrawDebt}, &clientID, &d.ID, debtRecord)
}
