package collection

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"

	"github.com/debtql/debtql/internal/scalar"
)

// What a debtor owes on a debt at a date: principal, interest and fees,
// and how each payment was applied. The claim is always recomputed from
// the facts (items, terms, reference rates, fees, payments), so a payment
// booked with an earlier date re-applies every later one by construction.
// Money stays exact throughout: interest accrues as an exact integer
// numerator and is rounded to öre only where it is read.

// Sentinel errors of Claim.
var (
	// ErrClaimFacts: the facts contradict themselves (a payment designated
	// to an item the debt does not hold, a repeated id, a non-positive
	// amount, ...). A stored debt never has such facts; the caller erred.
	ErrClaimFacts = errors.New("malformed claim facts")
	// ErrClaimCeiling: an amount of the claim would exceed MaxAmount.
	ErrClaimCeiling = errors.New("claim above the money ceiling")
)

// ClaimItem is one item of a debt.
type ClaimItem struct {
	ID           int // positive: 0 designates no item
	Due          scalar.Date
	Amount       Money
	InterestRate *Rate // the agreed rate, percent per year; nil: the terms decide
}

// ClaimPayment is one payment on a debt.
type ClaimPayment struct {
	ID     int
	Date   scalar.Date // the transaction date
	Amount Money
	Item   int // the item it is designated to; 0: none
	// Opening marks a payment received before hand-over (BEFORE_HANDOVER):
	// it pays its item's principal only.
	Opening bool
}

// ClaimFacts are what a debt's claim derives from. Fees are given as
// charged (HandoverFees, PaymentOrderFees); Terms decides interest only.
type ClaimFacts struct {
	Items       []ClaimItem
	Terms       Terms
	Rates       []ReferenceRate // in any order; one entry per ValidFrom
	Fees        []Fee           // ties of ChargedOn are paid in this order
	Payments    []ClaimPayment
	WithdrawnOn *scalar.Date // the debt was withdrawn on this day
}

// Part is one part of a claim. Outstanding = Charged − Paid ≥ 0.
type Part struct {
	Charged, Paid, Outstanding Money
}

// ItemClaim is the claim on one item.
type ItemClaim struct {
	ID                  int
	Principal, Interest Part
}

// Allocation is what a payment paid on its date; the parts sum to its
// amount. Credit is what was left over then, even if a later fee has
// consumed it since.
type Allocation struct {
	Fees, Interest, Principal, Credit Money
}

// Claim is a debt's claim as of a date.
type Claim struct {
	// AsOf is the date the claim is read at: the date asked for, or the
	// day of withdrawal when that is earlier.
	AsOf                             scalar.Date
	Principal, Interest, Fees, Total Part
	// Overpaid is the credit left: what was paid beyond what was charged.
	Overpaid Money
	// Charges are the fees charged on or before AsOf, oldest first.
	Charges []Fee
	// Items are the claims per item, in the order of the facts.
	Items []ItemClaim
	// Allocations maps the id of each payment dated on or before AsOf to
	// how it was applied; nil when there is none.
	Allocations map[int]Allocation
}

// PaidInFull reports whether nothing is outstanding: the PAID_IN_FULL
// closing condition.
func (c Claim) PaidInFull() bool { return c.Total.Outstanding == 0 }

// PaymentStatus compares what was paid with what was charged: UNPAID
// (nothing paid), PARTIALLY_PAID, PAID (nothing outstanding, no credit) or
// OVERPAID (credit left).
func (c Claim) PaymentStatus() PaymentStatus {
	// Credit exists only when nothing is outstanding (see apply), so the
	// sum of the payments against the charges tells all four apart.
	return PaymentOf(c.Total.Charged, c.Total.Paid+c.Overpaid)
}

// interestDenominator turns a numerator Σ öre × Rate × days into öre: a
// Rate is percent × 10^4, and every year has 365 days, leap years too.
const interestDenominator = 100 * rateScale * 365

var (
	bigDenominator = big.NewInt(interestDenominator)
	bigHalf        = big.NewInt(interestDenominator / 2) // the denominator is even
)

// dayOf numbers d's day, so that days subtract.
func dayOf(d scalar.Date) int64 { return d.Days() }

// rateStep is an annual rate in force from day on.
type rateStep struct {
	day  int64
	rate Rate
}

// itemState is an item while payments are applied.
type itemState struct {
	ClaimItem
	due   int64
	steps []rateStep // its rate day by day: steps[0].day is math.MinInt64; nil: no interest
	// unpaid is its principal not yet paid; accrued the exact interest
	// numerator Σ unpaid × rate × days through claimState.through; charged
	// that rounded to öre; interestPaid what payments paid of it.
	unpaid       Money
	accrued      big.Int
	charged      Money
	interestPaid Money
}

// feeState is a fee while payments are applied.
type feeState struct {
	Fee
	day    int64
	unpaid Money
}

// claimState is a debt's facts being applied in date order.
type claimState struct {
	given       []itemState        // in the facts' order
	items       []*itemState       // by (due, id): the order a payment reaches them in
	byID        map[int]*itemState // nil while the items are few: item scans given
	fees        []feeState         // the fees counted, oldest first
	charged     int                // fees[:charged] are charged so far
	firstUnpaid int                // fees[:firstUnpaid] are paid; they are paid in order
	credit      Money
	through     int64 // interest has accrued through this day
	x, y, r     big.Int
}

// fewItems is how many items item finds by scanning rather than by a map:
// most debts have one or two, and a map costs more than the scan.
const fewItems = 8

// item is the item of id, or nil when the debt holds none.
func (l *claimState) item(id int) *itemState {
	if l.byID != nil {
		return l.byID[id]
	}
	for i := range l.given {
		if l.given[i].ID == id {
			return &l.given[i]
		}
	}
	return nil
}

// Claim computes the claim as of asOf. It counts the payments dated on or
// before asOf and the fees charged on or before it; a withdrawn debt reads
// as of its day of withdrawal when asOf is later. It fails only on
// malformed facts (ErrClaimFacts) or an amount beyond MaxAmount
// (ErrClaimCeiling).
//
// Interest is simple, on principal only. An item's annual rate on day d
// is its agreed rate, else under STATUTORY the reference rate in force on
// d plus 8.00 (never below 0), else 0. Day d, for due < d ≤ asOf, adds
// P(d) × rate(d) / 100 / 365, where P(d) is the principal unpaid after the
// payments dated before d. It is computed per stretch of days over which
// both are constant, so any asOf (9999-12-31) costs the same.
//
// Payments apply in order of (date, id). A payment on day T pays the fees
// charged on or before T (oldest first), then its item's interest and
// principal, then every other item by (due, id), interest before
// principal; the rest is credit. An opening payment pays its item's
// principal only, and its excess is credit. Credit pays, at once, whatever
// is outstanding and every fee as it is charged, so that credit and debt
// never stand side by side.
func (f ClaimFacts) Claim(asOf scalar.Date) (Claim, error) {
	if f.WithdrawnOn != nil && asOf.After(*f.WithdrawnOn) {
		asOf = *f.WithdrawnOn
	}
	end := dayOf(asOf)
	l, pays, err := f.start(end)
	if err != nil {
		return Claim{}, err
	}
	c := Claim{AsOf: asOf}
	if len(pays) > 0 {
		c.Allocations = make(map[int]Allocation, len(pays))
	}
	for next := 0; next < len(pays) || l.charged < len(l.fees); {
		// The next day something happens: interest accrues through it
		// before its payments change any principal.
		day := int64(math.MaxInt64)
		if next < len(pays) {
			day = pays[next].day
		}
		if l.charged < len(l.fees) {
			day = min(day, l.fees[l.charged].day)
		}
		if err := l.accrue(day); err != nil {
			return Claim{}, err
		}
		for l.charged < len(l.fees) && l.fees[l.charged].day == day {
			l.charged++
		}
		if l.credit > 0 {
			var spent Allocation // shown as credit on the payments that left it
			l.credit = l.sweep(l.credit, nil, &spent)
		}
		for ; next < len(pays) && pays[next].day == day; next++ {
			c.Allocations[pays[next].ID] = l.apply(pays[next].ClaimPayment)
		}
	}
	if err := l.accrue(end); err != nil {
		return Claim{}, err
	}
	return l.claim(c)
}

// payment is a payment with its day number.
type payment struct {
	ClaimPayment
	day int64
}

// start checks the facts and sets up their application: the items in
// (due, id) order with their rates, the fees charged on or before day end
// oldest first, and the payments dated on or before it in (date, id)
// order.
func (f ClaimFacts) start(end int64) (*claimState, []payment, error) {
	malformed := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrClaimFacts}, args...)...)
	}
	ceiling := func(what string) error {
		return fmt.Errorf("%w: %s above %s", ErrClaimCeiling, what, MaxAmount)
	}
	if !f.Terms.Interest.known() {
		return nil, nil, malformed("unknown interest rule %d", int(f.Terms.Interest))
	}
	var statutory []rateStep
	if f.Terms.Interest == InterestStatutory {
		// Before the first entry the reference rate is 0.
		statutory = []rateStep{{day: math.MinInt64, rate: StatutoryMargin}}
		rates := slices.SortedFunc(slices.Values(f.Rates), func(a, b ReferenceRate) int {
			return cmp.Compare(dayOf(a.ValidFrom), dayOf(b.ValidFrom))
		})
		for i, r := range rates {
			if i > 0 && !rates[i-1].ValidFrom.Before(r.ValidFrom) {
				return nil, nil, malformed("two reference rates are valid from %s", r.ValidFrom)
			}
			// A negative reference rate below −8 would make interest run
			// backwards; a debtor never earns interest on a debt.
			statutory = append(statutory, rateStep{day: dayOf(r.ValidFrom), rate: max(r.Rate+StatutoryMargin, 0)})
		}
	}

	l := &claimState{given: make([]itemState, 0, len(f.Items)), through: math.MinInt64}
	if len(f.Items) > fewItems {
		l.byID = make(map[int]*itemState, len(f.Items))
	}
	var principal Money
	for _, it := range f.Items {
		switch {
		case it.ID <= 0:
			return nil, nil, malformed("item id %d is not positive", it.ID)
		case l.item(it.ID) != nil:
			return nil, nil, malformed("item id %d repeats", it.ID)
		case it.Amount <= 0:
			return nil, nil, malformed("item %d has amount %s, not above 0", it.ID, it.Amount)
		case it.InterestRate != nil && *it.InterestRate < 0:
			return nil, nil, malformed("item %d has a negative interest rate", it.ID)
		}
		var ok bool
		if principal, ok = principal.AddChecked(it.Amount); !ok || principal > MaxAmount {
			return nil, nil, ceiling("the items' amounts")
		}
		s := itemState{ClaimItem: it, due: dayOf(it.Due), unpaid: it.Amount, steps: statutory}
		if it.InterestRate != nil {
			s.steps = []rateStep{{day: math.MinInt64, rate: *it.InterestRate}}
		}
		l.given = append(l.given, s) // within its capacity: the pointers below stay valid
		if l.byID != nil {
			l.byID[it.ID] = &l.given[len(l.given)-1]
		}
	}
	l.items = make([]*itemState, len(l.given))
	for i := range l.given {
		l.items[i] = &l.given[i]
	}
	slices.SortFunc(l.items, func(a, b *itemState) int {
		return cmp.Or(cmp.Compare(a.due, b.due), cmp.Compare(a.ID, b.ID))
	})

	var fees Money
	for _, fee := range f.Fees {
		switch {
		case !fee.Kind.known():
			return nil, nil, malformed("unknown fee kind %d", int(fee.Kind))
		case fee.Amount < 0:
			return nil, nil, malformed("a %s of %s", fee.Kind, fee.Amount)
		}
		day := dayOf(fee.ChargedOn)
		if fee.Amount == 0 || day > end {
			continue // a fee of 0.00 is not charged
		}
		var ok bool
		if fees, ok = fees.AddChecked(fee.Amount); !ok || fees > MaxAmount {
			return nil, nil, ceiling("the fees")
		}
		l.fees = append(l.fees, feeState{Fee: fee, day: day, unpaid: fee.Amount})
	}
	slices.SortStableFunc(l.fees, func(a, b feeState) int { return cmp.Compare(a.day, b.day) })

	pays := make([]payment, 0, len(f.Payments))
	var paid Money
	var seen map[int]bool // nil while the payments are few: seen scans f.Payments
	if len(f.Payments) > fewItems {
		seen = make(map[int]bool, len(f.Payments))
	}
	for i, p := range f.Payments {
		repeats := seen[p.ID]
		if seen == nil {
			repeats = slices.ContainsFunc(f.Payments[:i], func(q ClaimPayment) bool { return q.ID == p.ID })
		}
		switch {
		case repeats:
			return nil, nil, malformed("payment id %d repeats", p.ID)
		case p.Amount <= 0:
			return nil, nil, malformed("payment %d has amount %s, not above 0", p.ID, p.Amount)
		case p.Item != 0 && l.item(p.Item) == nil:
			return nil, nil, malformed("payment %d is designated to item %d, which the debt does not hold", p.ID, p.Item)
		case p.Opening && p.Item == 0:
			return nil, nil, malformed("opening payment %d is designated to no item", p.ID)
		}
		if seen != nil {
			seen[p.ID] = true
		}
		day := dayOf(p.Date)
		if day > end {
			continue
		}
		var ok bool
		if paid, ok = paid.AddChecked(p.Amount); !ok || paid > MaxAmount {
			return nil, nil, ceiling("the payments")
		}
		pays = append(pays, payment{ClaimPayment: p, day: day})
	}
	slices.SortFunc(pays, func(a, b payment) int {
		return cmp.Or(cmp.Compare(a.day, b.day), cmp.Compare(a.ID, b.ID))
	})
	return l, pays, nil
}

// accrue adds every item's interest for the days after l.through up to
// and including day, over which no principal changes.
func (l *claimState) accrue(day int64) error {
	if day <= l.through {
		return nil
	}
	for _, it := range l.items {
		if it.unpaid == 0 || it.steps == nil {
			continue
		}
		from := max(l.through, it.due) // interest runs for the days after from
		if day <= from {
			continue
		}
		// k is the step in force on from+1; steps[0] is in force from the
		// start of time, so k ≥ 0.
		k := sort.Search(len(it.steps), func(i int) bool { return it.steps[i].day > from+1 }) - 1
		for d := from + 1; d <= day; k++ {
			last := day
			if k+1 < len(it.steps) {
				last = min(last, it.steps[k+1].day-1)
			}
			if r := it.steps[k].rate; r > 0 {
				l.x.SetInt64(int64(it.unpaid))
				l.x.Mul(&l.x, l.y.SetInt64(int64(r)))
				l.x.Mul(&l.x, l.y.SetInt64(last-d+1))
				it.accrued.Add(&it.accrued, &l.x)
			}
			d = last + 1
		}
		// Round half away from zero (the numerator is never negative).
		// QuoRem keeps its remainder in l.r, whose memory is reused.
		l.x.Add(&it.accrued, bigHalf)
		l.x.QuoRem(&l.x, bigDenominator, &l.r)
		if !l.x.IsInt64() || l.x.Int64() > int64(MaxAmount) {
			return fmt.Errorf("%w: the interest of item %d above %s", ErrClaimCeiling, it.ID, MaxAmount)
		}
		it.charged = Money(l.x.Int64())
	}
	l.through = day
	return nil
}

// apply applies one payment on its day and returns its allocation.
func (l *claimState) apply(p ClaimPayment) Allocation {
	var a Allocation
	rem := p.Amount
	x := l.item(p.Item) // nil for no item
	if p.Opening {
		paid := min(rem, x.unpaid)
		x.unpaid -= paid
		rem -= paid
		a.Principal += paid
		// The excess is credit, and credit pays what is outstanding as a
		// payment to no item would: a debtor with credit owes nothing.
		x = nil
	}
	a.Credit = l.sweep(rem, x, &a)
	l.credit += a.Credit // within the payments' sum, which is within MaxAmount
	return a
}

// sweep pays rem on the fees charged so far (oldest first), then on x's
// interest and principal (x may be nil), then on every other item by (due,
// id), interest before principal; it adds what it paid to a and returns
// what is left.
func (l *claimState) sweep(rem Money, x *itemState, a *Allocation) Money {
	for l.firstUnpaid < l.charged && rem > 0 {
		f := &l.fees[l.firstUnpaid]
		paid := min(rem, f.unpaid)
		f.unpaid -= paid
		rem -= paid
		a.Fees += paid
		if f.unpaid == 0 {
			l.firstUnpaid++
		}
	}
	if x != nil {
		rem = x.pay(rem, a)
	}
	for _, it := range l.items {
		if rem == 0 {
			break
		}
		if it != x {
			rem = it.pay(rem, a)
		}
	}
	return rem
}

// pay pays rem on the item's interest charged so far, then on its
// principal, and returns what is left.
func (it *itemState) pay(rem Money, a *Allocation) Money {
	paid := min(rem, it.charged-it.interestPaid)
	it.interestPaid += paid
	rem -= paid
	a.Interest += paid
	paid = min(rem, it.unpaid)
	it.unpaid -= paid
	rem -= paid
	a.Principal += paid
	return rem
}

// claim fills c with the parts once every fact is applied.
func (l *claimState) claim(c Claim) (Claim, error) {
	// Each sum below is of amounts whose own sum was checked against
	// MaxAmount (items, fees, payments), except the interest.
	c.Items = make([]ItemClaim, 0, len(l.given))
	for i := range l.given {
		it := &l.given[i]
		ic := ItemClaim{
			ID:        it.ID,
			Principal: Part{Charged: it.Amount, Paid: it.Amount - it.unpaid, Outstanding: it.unpaid},
			Interest:  Part{Charged: it.charged, Paid: it.interestPaid, Outstanding: it.charged - it.interestPaid},
		}
		c.Items = append(c.Items, ic)
		c.Principal = c.Principal.plus(ic.Principal)
		var ok bool
		if c.Interest.Charged, ok = c.Interest.Charged.AddChecked(ic.Interest.Charged); !ok || c.Interest.Charged > MaxAmount {
			return Claim{}, fmt.Errorf("%w: the interest above %s", ErrClaimCeiling, MaxAmount)
		}
		c.Interest.Paid += ic.Interest.Paid
		c.Interest.Outstanding += ic.Interest.Outstanding
	}
	c.Charges = make([]Fee, 0, len(l.fees))
	for _, f := range l.fees {
		c.Charges = append(c.Charges, f.Fee)
		c.Fees = c.Fees.plus(Part{Charged: f.Amount, Paid: f.Amount - f.unpaid, Outstanding: f.unpaid})
	}
	c.Overpaid = l.credit
	charged, ok := SumMoney(c.Principal.Charged, c.Interest.Charged, c.Fees.Charged)
	if !ok || charged > MaxAmount {
		return Claim{}, fmt.Errorf("%w: the total charged above %s", ErrClaimCeiling, MaxAmount)
	}
	c.Total = c.Principal.plus(c.Interest).plus(c.Fees)
	return c, nil
}

// plus adds parts whose sums are known to fit.
func (p Part) plus(q Part) Part {
	return Part{Charged: p.Charged + q.Charged, Paid: p.Paid + q.Paid, Outstanding: p.Outstanding + q.Outstanding}
}

// SummaryDay is the day a debt's kept summary and its part-one amounts
// (remainingAmount, overpaidAmount) are read at: today, or the latest
// payment's date when that is later (a payment may be dated tomorrow, and
// part one counts every payment).
func (f ClaimFacts) SummaryDay(today scalar.Date) scalar.Date {
	if last := LastPaymentOn(f.Payments); last != nil && last.After(today) {
		return *last
	}
	return today
}

// Summary is what the kept summary of a debt (its charged amount) is after
// a change of its facts on today: the claim's total charged on SummaryDay.
// A debt is open while its payments sum to less (OpenCondition). Nothing
// can change that without a new fact: while something is outstanding,
// interest only adds to it; when nothing is, no principal is unpaid and
// no interest accrues, and only a new charge adds to it.
func (f ClaimFacts) Summary(today scalar.Date) (Money, error) {
	c, err := f.Claim(f.SummaryDay(today))
	if err != nil {
		return 0, err
	}
	return c.Total.Charged, nil
}

// InterestBearing reports whether interest can accrue on the debt of f
// (InterestBearing of its terms and items' agreed rates).
func (f ClaimFacts) InterestBearing() bool {
	agreed := make([]*Rate, len(f.Items))
	for i, it := range f.Items {
		agreed[i] = it.InterestRate
	}
	return InterestBearing(f.Terms, agreed)
}

// LastPaymentOn is the date of the latest-dated of payments; nil for none.
// A debt keeps it (with the payments' sum) so that a claim read on or
// after it is known to count every payment (PlainClaim).
func LastPaymentOn(payments []ClaimPayment) *scalar.Date {
	var last *scalar.Date
	for i := range payments {
		if last == nil || payments[i].Date.After(*last) {
			last = &payments[i].Date
		}
	}
	if last == nil {
		return nil
	}
	d := *last
	return &d
}

// KeptClaim is what a debt keeps beside its facts (its row's amounts, as
// read together) that its claim may follow from (PlainClaim).
type KeptClaim struct {
	Original, Charged, Paid    Money
	InterestBearing, Withdrawn bool
	LastPaymentOn              *scalar.Date // nil: no payment
}

// PlainClaim is Claim(asOf) without its Items and Allocations, computed
// from k alone, when k decides it (ok): no interest can accrue on the debt;
// no fee is charged on it (its charged amount is its items' amount: a fee
// counts in the charged amount from the change that charged it, whose day
// it is charged on, see Summary); it is not withdrawn; and every payment
// is dated on or before asOf, so that Paid is what the claim counts. Then
// each payment only ever pays principal, and credit stands only once
// nothing is outstanding, so the totals follow from the two sums; a
// property test holds it equal to Claim.
func (k KeptClaim) PlainClaim(asOf scalar.Date) (c Claim, ok bool) {
	if k.InterestBearing || k.Charged != k.Original || k.Withdrawn ||
		(k.LastPaymentOn != nil && k.LastPaymentOn.After(asOf)) {
		return Claim{}, false
	}
	applied, outstanding, credit := settle(k.Original, k.Paid)
	part := Part{Charged: k.Original, Paid: applied, Outstanding: outstanding}
	return Claim{AsOf: asOf, Principal: part, Total: part, Overpaid: credit, Charges: []Fee{}}, true
}
