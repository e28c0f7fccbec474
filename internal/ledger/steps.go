package ledger

import (
	"context"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debtstep"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// StepRecord is a step of a debt's collection process (api.md §11): which
// debt, and the comment given.
type StepRecord struct {
	ID      scalar.IntID
	Comment *string
}

// DisputeDebt records that the debtor disputes an open debt that is not
// already disputed (else CONFLICT); the comment is required.
func (s *Service) DisputeDebt(ctx context.Context, a Actor, clientID string, in StepRecord) (*ent.Debt, error) {
	return s.step(ctx, a, clientID, in, true, OpDisputeDebt, debtstep.KindDISPUTE,
		func(d *ent.Debt, p collection.DebtProjection) error {
			switch {
			case p.IsCompleted:
				return apierr.New(apierr.Conflict, "debt %d is closed: it cannot be disputed", d.ID)
			case d.DisputedAt != nil:
				return apierr.New(apierr.Conflict, "debt %d is already disputed", d.ID)
			}
			return nil
		},
		func(u *ent.DebtUpdateOne, at time.Time, comment *string) *ent.DebtUpdateOne {
			return u.SetDisputedAt(at).SetNillableDisputeComment(comment)
		})
}

// ResolveDispute records that a disputed debt's dispute is resolved (a debt
// not disputed is CONFLICT); the comment is required. A closed debt may
// still have its dispute resolved.
func (s *Service) ResolveDispute(ctx context.Context, a Actor, clientID string, in StepRecord) (*ent.Debt, error) {
	return s.step(ctx, a, clientID, in, true, OpResolveDispute, debtstep.KindRESOLVE_DISPUTE,
		func(d *ent.Debt, _ collection.DebtProjection) error {
			if d.DisputedAt == nil {
				return apierr.New(apierr.Conflict, "debt %d is not disputed", d.ID)
			}
			return nil
		},
		func(u *ent.DebtUpdateOne, _ time.Time, _ *string) *ent.DebtUpdateOne {
			return u.ClearDisputedAt().ClearDisputeComment()
		})
}

// ApplyForPaymentOrder applies for a payment order on a DEMAND_EXPIRED debt
// that is not disputed (else CONFLICT): the debt moves to LEGAL and is
// charged the payment-order fees (the service's PaymentOrderAmounts),
// dated today.
func (s *Service) ApplyForPaymentOrder(ctx context.Context, a Actor, clientID string, in StepRecord) (*ent.Debt, error) {
	return s.step(ctx, a, clientID, in, false, OpPaymentOrder, debtstep.KindPAYMENT_ORDER,
		func(d *ent.Debt, p collection.DebtProjection) error {
			switch {
			case d.DisputedAt != nil:
				return apierr.New(apierr.Conflict, "debt %d is disputed: resolve the dispute before escalating", d.ID)
			case p.Under != collection.SubDemandExpired:
				return apierr.New(apierr.Conflict, "debt %d is %s: a payment order can be applied for only when the demand has expired (DEMAND_EXPIRED)", d.ID, p.Under)
			}
			return nil
		},
		func(u *ent.DebtUpdateOne, at time.Time, _ *string) *ent.DebtUpdateOne {
			return u.SetPaymentOrderAppliedAt(at)
		})
}

// step runs a process step on a debt of the client: under the debt's row
// lock, allowed reports why the step is refused (nothing is written then);
// else the debt is changed (change), the step recorded, the step's fees
// (the payment order's) charged and the debt's summary recomputed, and the
// event written with the debt's statuses before and after and the fees.
func (s *Service) step(ctx context.Context, a Actor, clientID string, in StepRecord, commentRequired bool, op string, kind debtstep.Kind,
	allowed func(*ent.Debt, collection.DebtProjection) error,
	change func(u *ent.DebtUpdateOne, at time.Time, comment *string) *ent.DebtUpdateOne) (*ent.Debt, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) (*ent.Debt, error) {
		if err := s.forClient(ctx, clientID); err != nil {
			return nil, err
		}
		comment, err := collection.Comment(in.Comment, "input.comment")
		if err != nil {
			return nil, err
		}
		if comment == nil && commentRequired {
			return nil, apierr.Invalid("input.comment", "is required and must not be blank")
		}
		d, err := s.lockedDebt(ctx, clientID, in.ID)
		if err != nil {
			return nil, err
		}
		now := s.clock.At()
		if err := allowed(d, collection.ProjectDebt(d.Facts(), now)); err != nil {
			return nil, err
		}
		at := time.Now().UTC().Truncate(time.Microsecond)
		db := s.db(ctx)
		changed, err := change(db.Debt.UpdateOne(d), at, comment).Save(ctx)
		if err != nil {
			return nil, err
		}
		if _, err := db.DebtStep.Create().SetClientID(clientID).SetDebtID(d.ID).SetKind(kind).SetCreatedAt(at).
			SetNillableAPIKeyID(nonEmpty(a.KeyID)).SetNillableComment(comment).Save(ctx); err != nil {
			return nil, err
		}
		debtRecord := touchedInt(auditeventrecord.RecordTypeDEBT, d.ID)
		debtRecord.before = s.debtStatuses(d)
		records := []auditRecord{debtRecord}
		if kind == debtstep.KindPAYMENT_ORDER {
			ids, err := s.chargeFees(ctx, clientID, d.ID, collection.PaymentOrderFees(s.paymentOrder, now.Today))
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				records = append(records, touchedInt(auditeventrecord.RecordTypeFEE, id))
			}
			if err := s.resummarize(ctx, changed); err != nil {
				return nil, err
			}
		}
		records[0].after = s.debtStatuses(changed)
		return recorded(s, ctx, changed, event{a, op}, &clientID, &d.ID, records...)
	})
}

// nonEmpty is s, or nil when s is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Steps are a debt's process steps, oldest first.
func (s *Service) Steps(ctx context.Context, d *ent.Debt) ([]*ent.DebtStep, error) {
	return s.db(ctx).DebtStep.Query().Where(debtstep.DebtID(d.ID)).Order(ent.Asc(debtstep.FieldID)).All(ctx)
}

// DemandSentOn is the day d's collection demand was sent, in the service's
// time zone.
func (s *Service) DemandSentOn(d *ent.Debt) scalar.Date { return s.dayIn(d.DemandSentAt) }
