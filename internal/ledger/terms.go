package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/fee"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// ClientTerms are the collection terms a client's new debts copy.
func ClientTerms(c *ent.Creditor) collection.Terms {
	return storedTerms(string(c.InterestRule), c.CollectionFee, c.LateCompensation)
}

// DebtTerms are a debt's collection terms.
func DebtTerms(d *ent.Debt) collection.Terms {
	return storedTerms(string(d.InterestRule), d.CollectionFee, d.LateCompensation)
}

// storedTerms reads terms as the clients and debts tables keep them; the
// rule's column allows only the rules' names, so an unknown one cannot
// occur.
func storedTerms(rule string, fee collection.Money, late bool) collection.Terms {
	t := collection.Terms{CollectionFee: fee, LateCompensation: late}
	_ = t.Interest.UnmarshalGQL(rule)
	return t
}

// SetCollectionTerms sets the terms a client's new debts copy (ADMIN
// only); the client's existing debts keep theirs.
func (s *Service) SetCollectionTerms(ctx context.Context, a Actor, clientID string, t collection.Terms) (*ent.Creditor, error) {
	ctx = a.scope(ctx)
	if err := auth.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if err := s.ClientExists(ctx, clientID); err != nil {
		return nil, err
	}
	if err := t.Check(); err != nil {
		return nil, apierr.Prefix(err, "input")
	}
	return inTx(ctx, s, func(ctx context.Context) (*ent.Creditor, error) {
		c, err := s.db(ctx).Creditor.UpdateOneID(clientID).
			SetInterestRule(creditor.InterestRule(t.Interest.String())).
			SetCollectionFee(t.CollectionFee).
			SetLateCompensation(t.LateCompensation).
			Save(ctx)
		if err != nil {
			return nil, err
		}
		return recorded(s, ctx, c, event{a, OpSetCollectionTerms}, &clientID, nil, touched(auditeventrecord.RecordTypeCLIENT, clientID))
	})
}

// handoverFees are a new debt's hand-over fees (api.md §10): the items'
// reminder fees and the collection fee, or the late-payment compensation
// for a corporate debtor, dated the day the demand was sent.
func handoverFees(in collection.DebtorWithDebtsRecord, terms collection.Terms, demandDay scalar.Date) []collection.Fee {
	reminders := make([]collection.Money, 0, len(in.Debts))
	for _, it := range in.Debts {
		if it.ReminderFee != nil {
			reminders = append(reminders, *it.ReminderFee)
		}
	}
	return collection.HandoverFees(terms, reminders, in.IsCorporation, demandDay)
}

// chargeFees writes fees charged on a debt and returns their ids.
func (s *Service) chargeFees(ctx context.Context, clientID string, debtID scalar.IntID, fees []collection.Fee) ([]scalar.IntID, error) {
	if len(fees) == 0 {
		return nil, nil
	}
	db := s.db(ctx)
	creates := make([]*ent.FeeCreate, len(fees))
	for i, f := range fees {
		creates[i] = feeCreate(db, clientID, debtID, f)
	}
	saved, err := db.Fee.CreateBulk(creates...).Save(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]scalar.IntID, len(saved))
	for i, x := range saved {
		ids[i] = x.ID
	}
	return ids, nil
}

// feeCreate is the insert of a fee charged on a debt.
func feeCreate(db *ent.Client, clientID string, debtID scalar.IntID, f collection.Fee) *ent.FeeCreate {
	return db.Fee.Create().SetClientID(clientID).SetDebtID(debtID).
		SetKind(fee.Kind(f.Kind.String())).SetAmount(f.Amount).SetChargedOn(f.ChargedOn)
}

// handoverFactsWithout are the claim facts of a debt about to be created
// from in, without the reference rates (which the caller adds when the
// terms' interest is statutory): its items and opening payments numbered
// in the order they will be inserted (their ids grow in that order, which
// is all the claim uses ids for), its terms and fees.
func handoverFactsWithout(in collection.DebtorWithDebtsRecord, terms collection.Terms, fees []collection.Fee) collection.ClaimFacts {
	f := collection.ClaimFacts{Terms: terms, Fees: fees}
	for i, it := range in.Debts {
		f.Items = append(f.Items, collection.ClaimItem{ID: i + 1, Due: scalar.DateOf(it.DueDate), Amount: it.Amount, InterestRate: it.InterestRate})
		for _, p := range it.Payments {
			f.Payments = append(f.Payments, collection.ClaimPayment{ID: len(f.Payments) + 1, Date: scalar.DateOf(p.TransactionDate),
				Amount: p.Amount, Item: i + 1, Opening: true})
		}
	}
	return f
}

// dayIn is the calendar day of t in the service's time zone.
func (s *Service) dayIn(t time.Time) scalar.Date { return scalar.DateOf(t.In(s.clock.At().Location)) }

// Claim is what the debtor owes on d on asOf (today when nil): api.md §10,
// with its items' claims and its payments' allocations.
func (s *Service) Claim(ctx context.Context, d *ent.Debt, asOf *scalar.Date) (collection.Claim, error) {
	return s.claimOf(ctx, d.ID, func() (*ent.Debt, error) { return d, nil }, onDay(s.dayOr(asOf)))
}

// ClaimTotals is Claim without the items' claims and the payments'
// allocations (Debt.claim): for most debts it follows from their kept
// amounts (plainClaim), without reading their facts.
func (s *Service) ClaimTotals(ctx context.Context, d *ent.Debt, asOf *scalar.Date) (collection.Claim, error) {
	day := s.dayOr(asOf)
	if c, ok := plainClaim(d, day); ok {
		return c, nil
	}
	c, err := s.claimOf(ctx, d.ID, func() (*ent.Debt, error) { return d, nil }, onDay(day))
	c.Items, c.Allocations = nil, nil
	return c, err
}

// dayOr is *asOf, or today when nil.
func (s *Service) dayOr(asOf *scalar.Date) scalar.Date {
	if asOf != nil {
		return *asOf
	}
	return s.clock.At().Today
}

// plainClaim is d's claim on day from its kept amounts as d was read,
// when they decide it (collection.KeptClaim.PlainClaim). A page of such
// debts then reads no facts at all.
func plainClaim(d *ent.Debt, day scalar.Date) (collection.Claim, bool) {
	return collection.KeptClaim{
		Original: d.OriginalAmount, Charged: d.ChargedAmount, Paid: d.PaidAmount,
		InterestBearing: d.InterestBearing, Withdrawn: d.WithdrawnAt != nil, LastPaymentOn: d.LastPaymentOn,
	}.PlainClaim(day)
}

// Outstanding is d's remainingAmount and overpaidAmount (api.md §10,
// "Part-one fields under part two"): the claim's outstanding total and
// credit on its summary day (collection.ClaimFacts.SummaryDay). Unless
// interest accrues on d, its kept summary has them.
func (s *Service) Outstanding(ctx context.Context, d *ent.Debt) (remaining, overpaid collection.Money, err error) {
	if !d.InterestBearing {
		return d.KeptRemaining(), d.KeptOverpaid(), nil
	}
	today := s.clock.At().Today
	c, err := s.claimOf(ctx, d.ID, func() (*ent.Debt, error) { return d, nil },
		claimDay{key: "summary", of: func(f collection.ClaimFacts) scalar.Date { return f.SummaryDay(today) }})
	if err != nil {
		return 0, 0, err
	}
	return c.Total.Outstanding, c.Overpaid, nil
}

// Allocation is how payment p was applied on its date.
func (s *Service) Allocation(ctx context.Context, p *ent.Payment) (collection.Allocation, error) {
	day := s.clock.At().Today
	if day.Before(p.TransactionDate) {
		day = p.TransactionDate
	}
	c, err := s.claimOf(ctx, p.DebtID, func() (*ent.Debt, error) { return p.Debt(ctx) }, onDay(day))
	if err != nil {
		return collection.Allocation{}, err
	}
	a, ok := c.Allocations[int(p.ID)]
	if !ok {
		// Dated after the debt's withdrawal: applied to nothing, all of
		// it reads as credit.
		return collection.Allocation{Credit: p.Amount}, nil
	}
	return a, nil
}

// ItemClaim is an item's part of its debt's claim on asOf (today when nil).
func (s *Service) ItemClaim(ctx context.Context, it *ent.DebtItem, asOf *scalar.Date) (*collection.ItemClaim, error) {
	c, err := s.claimOf(ctx, it.DebtID, func() (*ent.Debt, error) { return it.Debt(ctx) }, onDay(s.dayOr(asOf)))
	if err != nil {
		return nil, err
	}
	for i := range c.Items {
		if c.Items[i].ID == int(it.ID) {
			return &c.Items[i], nil
		}
	}
	return nil, fmt.Errorf("ledger: item %d is not in its debt's claim", it.ID)
}

// claimDay is the day a claim is read on, from the debt's facts; key
// names it in the claim cache.
type claimDay struct {
	key string
	of  func(collection.ClaimFacts) scalar.Date
}

// onDay is the claim day of a fixed date.
func onDay(d scalar.Date) claimDay {
	return claimDay{key: d.String(), of: func(collection.ClaimFacts) scalar.Date { return d }}
}

// resummarize recomputes d's kept summary (its charged amount) from its
// facts as they are now, after a payment or a charge, and writes it; the
// caller holds d's row lock, so that the facts are whole.
func (s *Service) resummarize(ctx context.Context, d *ent.Debt) error {
	f, err := s.ClaimFacts(ctx, d)
	if err != nil {
		return err
	}
	charged, err := f.Summary(s.clock.At().Today)
	if err != nil {
		return err
	}
	if charged == d.ChargedAmount {
		return nil
	}
	if err := s.db(ctx).Debt.UpdateOneID(d.ID).SetChargedAmount(charged).Exec(ctx); err != nil {
		return err
	}
	d.ChargedAmount = charged
	return nil
}

// lockedCharged reads the charged amount of a debt whose row lock the
// caller holds.
func (s *Service) lockedCharged(ctx context.Context, id scalar.IntID) (collection.Money, error) {
	d, err := s.db(ctx).Debt.Query().Where(debt.ID(id)).Select(debt.FieldChargedAmount).Only(ctx)
	if err != nil {
		return 0, err
	}
	return d.ChargedAmount, nil
}
