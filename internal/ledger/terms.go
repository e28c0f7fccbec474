package ledger

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/fee"
	"github.com/debtql/debtql/ent/payment"
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

// chargeHandoverFees charges a new debt's hand-over fees (api.md §10): the
// items' reminder fees and the collection fee, or the late-payment
// compensation for a corporate debtor, dated the demand's day: the day of
// the hand-over.
func (s *Service) chargeHandoverFees(ctx context.Context, clientID string, d *ent.Debt, in collection.DebtorWithDebtsRecord, terms collection.Terms) error {
	reminders := make([]collection.Money, 0, len(in.Debts))
	for _, it := range in.Debts {
		if it.ReminderFee != nil {
			reminders = append(reminders, *it.ReminderFee)
		}
	}
	fees := collection.HandoverFees(terms, reminders, in.IsCorporation, s.clock.At().Today)
	if len(fees) == 0 {
		return nil
	}
	db := s.db(ctx)
	creates := make([]*ent.FeeCreate, len(fees))
	for i, f := range fees {
		creates[i] = db.Fee.Create().SetClientID(clientID).SetDebtID(d.ID).
			SetKind(fee.Kind(f.Kind.String())).SetAmount(f.Amount).SetChargedOn(f.ChargedOn)
	}
	return db.Fee.CreateBulk(creates...).Exec(ctx)
}

// dayIn is the calendar day of t in the service's time zone.
func (s *Service) dayIn(t time.Time) scalar.Date { return scalar.DateOf(t.In(s.clock.At().Location)) }

// ClaimFacts gathers what a debt's claim is computed from: its items,
// terms, payments and fees, and the reference rates.
func (s *Service) ClaimFacts(ctx context.Context, d *ent.Debt) (collection.ClaimFacts, error) {
	f := collection.ClaimFacts{Terms: DebtTerms(d)}
	db := s.db(ctx)
	items, err := db.Debt.QueryInvoices(d).All(ctx)
	if err != nil {
		return f, err
	}
	for _, it := range items {
		due := s.dayIn(it.DueDate)
		if it.DueOn != nil {
			due = *it.DueOn
		}
		f.Items = append(f.Items, collection.ClaimItem{ID: int(it.ID), Due: due, Amount: it.Amount, InterestRate: it.InterestRate})
	}
	payments, err := db.Payment.Query().Where(payment.DebtID(d.ID)).All(ctx)
	if err != nil {
		return f, err
	}
	for _, p := range payments {
		f.Payments = append(f.Payments, collection.ClaimPayment{ID: int(p.ID), Date: p.TransactionDate, Amount: p.Amount,
			Item: int(p.DebtItemID), Opening: p.Source == payment.SourceBEFORE_HANDOVER})
	}
	fees, err := db.Fee.Query().Where(fee.DebtID(d.ID)).Order(ent.Asc(fee.FieldID)).All(ctx)
	if err != nil {
		return f, err
	}
	for _, x := range fees {
		var k collection.FeeKind
		if err := k.UnmarshalGQL(string(x.Kind)); err != nil {
			return f, err
		}
		f.Fees = append(f.Fees, collection.Fee{Kind: k, Amount: x.Amount, ChargedOn: x.ChargedOn})
	}
	if f.Terms.Interest == collection.InterestStatutory {
		if f.Rates, err = s.RatesInForce(ctx); err != nil {
			return f, err
		}
	}
	if d.WithdrawnAt != nil {
		w := s.dayIn(*d.WithdrawnAt)
		f.WithdrawnOn = &w
	}
	return f, nil
}

// Claim is what the debtor owes on d on asOf (today when nil): api.md §10.
func (s *Service) Claim(ctx context.Context, d *ent.Debt, asOf *scalar.Date) (collection.Claim, error) {
	day := s.clock.At().Today
	if asOf != nil {
		day = *asOf
	}
	return s.claimOf(ctx, d.ID, func() (*ent.Debt, error) { return d, nil }, day)
}

// Allocation is how payment p was applied on its date.
func (s *Service) Allocation(ctx context.Context, p *ent.Payment) (collection.Allocation, error) {
	day := s.clock.At().Today
	if day.Before(p.TransactionDate) {
		day = p.TransactionDate
	}
	c, err := s.claimOf(ctx, p.DebtID, func() (*ent.Debt, error) { return p.Debt(ctx) }, day)
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
	day := s.clock.At().Today
	if asOf != nil {
		day = *asOf
	}
	c, err := s.claimOf(ctx, it.DebtID, func() (*ent.Debt, error) { return it.Debt(ctx) }, day)
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

// claimOf computes a debt's claim on a day once per claim cache
// (WithClaimCache): a debt's items and payments each ask for the same
// claim, which reads the debt's facts with three statements.
func (s *Service) claimOf(ctx context.Context, id scalar.IntID, debtOf func() (*ent.Debt, error), day scalar.Date) (collection.Claim, error) {
	compute := func() (collection.Claim, error) {
		d, err := debtOf()
		if err != nil {
			return collection.Claim{}, err
		}
		f, err := s.ClaimFacts(ctx, d)
		if err != nil {
			return collection.Claim{}, err
		}
		return f.Claim(day)
	}
	cache, ok := ctx.Value(claimCacheKey{}).(*claimCache)
	if !ok {
		return compute()
	}
	cache.mu.Lock()
	k := claimKey{id, day.String()}
	e := cache.m[k]
	if e == nil {
		e = &claimEntry{}
		cache.m[k] = e
	}
	cache.mu.Unlock()
	e.once.Do(func() { e.claim, e.err = compute() })
	return e.claim, e.err
}

type (
	claimCacheKey struct{}
	claimKey      struct {
		debt scalar.IntID
		day  string
	}
	claimEntry struct {
		once  sync.Once
		claim collection.Claim
		err   error
	}
	claimCache struct {
		mu sync.Mutex
		m  map[claimKey]*claimEntry
	}
)

// WithClaimCache gives ctx a cache of the claims computed under it; the
// caller's work must not change the debts it reads meanwhile (a query
// operation, or one root field of a mutation).
func WithClaimCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, claimCacheKey{}, &claimCache{m: map[claimKey]*claimEntry{}})
}
