package collection_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// The property test draws random debts over a short period that crosses
// 29 February 2024 and several reference-rate changes, and checks each
// claim against the accounting identities and against naiveClaim, a
// day-by-day implementation of the same rules. Claim computes interest
// per stretch of days; a stretch that starts or ends a day off shows here.

// propBase is the first day a drawn date may fall on; propSpan the number
// of days after it.
var (
	propBase = cday("2023-12-01")
	propSpan = 520
)

// propSpecial are days where stretches begin and end, drawn more often.
var propSpecial = []scalar.Date{
	cday("2023-12-31"), cday("2024-01-01"), cday("2024-02-28"), cday("2024-02-29"), cday("2024-03-01"),
	cday("2024-06-30"), cday("2024-07-01"), cday("2024-07-02"), cday("2024-12-31"), cday("2025-01-01"),
}

func propDate(r *rand.Rand) scalar.Date {
	if r.IntN(4) == 0 {
		return propSpecial[r.IntN(len(propSpecial))]
	}
	return propBase.AddDays(r.IntN(propSpan + 1))
}

// propMoney draws an amount of 0.01 or more: small ones, where rounding
// to öre matters, and large ones.
func propMoney(r *rand.Rand) collection.Money {
	switch r.IntN(3) {
	case 0:
		return collection.Money(1 + r.IntN(2000))
	case 1:
		return collection.Money(1 + r.IntN(200_000))
	default:
		return collection.Money(1 + r.Int64N(100_000_000))
	}
}

// propFacts draws a debt's facts and a date to read it at.
func propFacts(r *rand.Rand) (collection.ClaimFacts, scalar.Date) {
	var f collection.ClaimFacts
	f.Terms.Interest = collection.InterestRule(r.IntN(2))
	// Mostly a few items and payments; sometimes more than Claim scans
	// for without a map (fewItems).
	items, payments := 1+r.IntN(4), r.IntN(7)
	if r.IntN(4) == 0 {
		items, payments = 1+r.IntN(12), r.IntN(14)
	}
	ids := r.Perm(16)
	for i := range items {
		it := collection.ClaimItem{ID: ids[i] + 1, Due: propDate(r), Amount: propMoney(r)}
		switch r.IntN(4) {
		case 0: // the terms decide
		case 1:
			it.InterestRate = new(collection.Rate(r.IntN(1_000_001))) // 0–100 %, 4 decimals
		case 2:
			it.InterestRate = new(collection.Rate(365_000)) // 36.5 %: whole öre a day on whole kronor
		default:
			it.InterestRate = new(collection.Rate(0))
		}
		f.Items = append(f.Items, it)
	}
	// Reference rates from 2023-01-01 to 2025-07-01, some missing, from
	// −10.00 to 12.99 % (below −8 the statutory rate is 0).
	for _, from := range []string{"2023-01-01", "2023-07-01", "2024-01-01", "2024-07-01", "2025-01-01", "2025-07-01"} {
		if r.IntN(3) > 0 {
			f.Rates = append(f.Rates, collection.ReferenceRate{ValidFrom: cday(from), Rate: collection.Rate((r.IntN(2300) - 1000) * 100)})
		}
	}
	r.Shuffle(len(f.Rates), func(i, j int) { f.Rates[i], f.Rates[j] = f.Rates[j], f.Rates[i] })
	kinds := []collection.FeeKind{collection.ReminderFee, collection.CollectionFee, collection.LateCompensationFee,
		collection.PaymentOrderFee, collection.PaymentOrderApplicationFee}
	for range r.IntN(5) {
		fee := collection.Fee{Kind: kinds[r.IntN(len(kinds))], ChargedOn: propDate(r), Amount: collection.Money(r.IntN(50_000))}
		if r.IntN(5) == 0 {
			fee.Amount = 0
		}
		f.Fees = append(f.Fees, fee)
	}
	// Payments, often on the same day as another, with ids out of date
	// order.
	pids := r.Perm(20)
	var days []scalar.Date
	for i := range payments {
		p := collection.ClaimPayment{ID: pids[i] + 1, Date: propDate(r), Amount: propMoney(r)}
		if len(days) > 0 && r.IntN(3) == 0 {
			p.Date = days[r.IntN(len(days))]
		}
		days = append(days, p.Date)
		if r.IntN(3) > 0 {
			p.Item = f.Items[r.IntN(len(f.Items))].ID
			p.Opening = r.IntN(4) == 0
		}
		f.Payments = append(f.Payments, p)
	}
	if r.IntN(5) == 0 {
		f.WithdrawnOn = new(propDate(r))
	}
	return f, propBase.AddDays(r.IntN(propSpan+40) - 10)
}

func TestClaimProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(20260101, 7))
	const cases = 5000
	for n := range cases {
		f, asOf := propFacts(r)
		c, err := f.Claim(asOf)
		if err != nil {
			t.Fatalf("case %d: Claim(%s) of %+v: %v", n, asOf, f, err)
		}
		if problem := claimIdentities(f, c); problem != "" {
			t.Fatalf("case %d: Claim(%s) of %s:\n%s\n%+v", n, asOf, factsString(f), problem, c)
		}
		if want := naiveClaim(f, asOf); !reflect.DeepEqual(c, want) {
			t.Fatalf("case %d: Claim(%s) of %s:\n got  %+v\n want %+v (day by day)", n, asOf, factsString(f), c, want)
		}
	}
}

// TestClaimPropertiesNoInterestNoFees: without interest and fees, any
// payments give the amounts of the days before the terms: outstanding
// max(0, original − paid), overpaid max(0, paid − original).
func TestClaimPropertiesNoInterestNoFees(t *testing.T) {
	r := rand.New(rand.NewPCG(20260102, 7))
	for n := range 3000 {
		f, asOf := propFacts(r)
		f.Terms.Interest, f.Fees = collection.InterestNone, nil
		for i := range f.Items {
			f.Items[i].InterestRate = nil
		}
		c, err := f.Claim(asOf)
		if err != nil {
			t.Fatalf("case %d: %v", n, err)
		}
		var original, paid collection.Money
		for _, it := range f.Items {
			original += it.Amount
		}
		for _, p := range f.Payments {
			if !p.Date.After(c.AsOf) {
				paid += p.Amount
			}
		}
		want := collection.Part{Charged: original, Paid: min(paid, original), Outstanding: max(0, original-paid)}
		if c.Principal != want || c.Total != want || c.Overpaid != max(0, paid-original) || c.PaymentStatus() != collection.PaymentOf(original, paid) {
			t.Fatalf("case %d: original %s, paid %s: principal %+v, total %+v, overpaid %s, status %s",
				n, original, paid, c.Principal, c.Total, c.Overpaid, c.PaymentStatus())
		}
	}
}

// TestPlainClaimIsClaim: for a debt without interest, fees or withdrawal
// read on or after its last payment, PlainClaim is Claim without the items
// and allocations; agreed rates of 0 bear no interest either.
func TestPlainClaimIsClaim(t *testing.T) {
	r := rand.New(rand.NewPCG(20261126, 7))
	for n := range 5000 {
		f, asOf := propFacts(r)
		f.Terms.Interest, f.Fees, f.WithdrawnOn = collection.InterestNone, nil, nil
		for i := range f.Items {
			if f.Items[i].InterestRate != nil && r.IntN(2) == 0 {
				f.Items[i].InterestRate = new(collection.Rate(0))
			} else {
				f.Items[i].InterestRate = nil
			}
		}
		if f.InterestBearing() {
			t.Fatalf("case %d: %s bears interest", n, factsString(f))
		}
		if last := collection.LastPaymentOn(f.Payments); last != nil && last.After(asOf) {
			asOf = *last
		}
		var principal, paid collection.Money
		for _, it := range f.Items {
			principal += it.Amount
		}
		for _, p := range f.Payments {
			paid += p.Amount
		}
		c, err := f.Claim(asOf)
		if err != nil {
			t.Fatalf("case %d: %v", n, err)
		}
		c.Items, c.Allocations = nil, nil
		kept := collection.KeptClaim{Original: principal, Charged: principal, Paid: paid, LastPaymentOn: collection.LastPaymentOn(f.Payments)}
		got, ok := kept.PlainClaim(asOf)
		if !ok {
			t.Fatalf("case %d: %+v does not decide the claim on %s", n, kept, asOf)
		}
		if !reflect.DeepEqual(got, c) {
			t.Fatalf("case %d: Claim(%s) of %s:\n got  %+v\n want %+v", n, asOf, factsString(f), got, c)
		}
	}
}

// TestPlainClaimNeedsAPlainDebt: interest, a fee, a withdrawal or a
// payment dated after the day read leave the claim to the facts.
func TestPlainClaimNeedsAPlainDebt(t *testing.T) {
	day := cday("2026-06-01")
	later := cday("2026-06-02")
	plain := collection.KeptClaim{Original: 100_00, Charged: 100_00, Paid: 30_00, LastPaymentOn: &day}
	if _, ok := plain.PlainClaim(day); !ok {
		t.Fatalf("%+v does not decide its claim on %s", plain, day)
	}
	for name, change := range map[string]func(*collection.KeptClaim){
		"interest":           func(k *collection.KeptClaim) { k.InterestBearing = true },
		"a fee":              func(k *collection.KeptClaim) { k.Charged += 180_00 },
		"withdrawn":          func(k *collection.KeptClaim) { k.Withdrawn = true },
		"a payment tomorrow": func(k *collection.KeptClaim) { k.LastPaymentOn = &later },
	} {
		k := plain
		change(&k)
		if c, ok := k.PlainClaim(day); ok {
			t.Errorf("with %s the kept amounts decide the claim: %+v", name, c)
		}
	}
}

func TestLastPaymentOn(t *testing.T) {
	if got := collection.LastPaymentOn(nil); got != nil {
		t.Errorf("LastPaymentOn(none) = %s, want nil", got)
	}
	pays := []collection.ClaimPayment{{ID: 1, Date: cday("2026-03-01")}, {ID: 2, Date: cday("2026-05-01")}, {ID: 3, Date: cday("2026-04-01")}}
	got := collection.LastPaymentOn(pays)
	if got == nil || *got != cday("2026-05-01") {
		t.Fatalf("LastPaymentOn = %v, want 2026-05-01", got)
	}
	*got = cday("2000-01-01") // a copy: the payments keep their dates
	if pays[1].Date != cday("2026-05-01") {
		t.Errorf("LastPaymentOn handed out a payment's own date")
	}
}

// claimIdentities returns what in c breaks the identities every claim
// keeps, or "".
func claimIdentities(f collection.ClaimFacts, c collection.Claim) string {
	partOK := func(p collection.Part) bool {
		return p.Outstanding >= 0 && p.Paid >= 0 && p.Charged == p.Paid+p.Outstanding
	}
	for name, p := range map[string]collection.Part{"principal": c.Principal, "interest": c.Interest, "fees": c.Fees, "total": c.Total} {
		if !partOK(p) {
			return fmt.Sprintf("%s %+v: charged ≠ paid + outstanding, or below 0", name, p)
		}
	}
	sum := func(ps ...collection.Part) collection.Part {
		var s collection.Part
		for _, p := range ps {
			s = collection.Part{Charged: s.Charged + p.Charged, Paid: s.Paid + p.Paid, Outstanding: s.Outstanding + p.Outstanding}
		}
		return s
	}
	if c.Total != sum(c.Principal, c.Interest, c.Fees) {
		return "total ≠ principal + interest + fees"
	}
	var principal, interest []collection.Part
	for _, it := range c.Items {
		if !partOK(it.Principal) || !partOK(it.Interest) {
			return fmt.Sprintf("item %d: charged ≠ paid + outstanding, or below 0", it.ID)
		}
		principal, interest = append(principal, it.Principal), append(interest, it.Interest)
	}
	if c.Principal != sum(principal...) || c.Interest != sum(interest...) {
		return "the items do not sum to the parts"
	}
	var paid, allocated collection.Money
	for _, p := range f.Payments {
		a, ok := c.Allocations[p.ID]
		if p.Date.After(c.AsOf) {
			if ok {
				return fmt.Sprintf("payment %d after asOf has an allocation", p.ID)
			}
			continue
		}
		if !ok || a.Fees+a.Interest+a.Principal+a.Credit != p.Amount || min(a.Fees, a.Interest, a.Principal, a.Credit) < 0 {
			return fmt.Sprintf("payment %d of %s: allocation %+v", p.ID, p.Amount, a)
		}
		paid += p.Amount
		allocated += a.Fees + a.Interest + a.Principal
	}
	if paid != c.Total.Paid+c.Overpaid {
		return fmt.Sprintf("payments %s ≠ paid %s + overpaid %s", paid, c.Total.Paid, c.Overpaid)
	}
	if c.Overpaid > 0 && c.Total.Outstanding != 0 {
		return "credit beside an outstanding amount"
	}
	// Credit a later fee consumed stays shown as credit, so the payments
	// paid at least what their allocations say, beside credit.
	if allocated > c.Total.Paid {
		return fmt.Sprintf("allocations paid %s, more than paid %s", allocated, c.Total.Paid)
	}
	var charged collection.Money
	for _, fee := range c.Charges {
		charged += fee.Amount
		if fee.Amount == 0 || fee.ChargedOn.After(c.AsOf) {
			return fmt.Sprintf("charge %+v", fee)
		}
	}
	if charged != c.Fees.Charged || !slices.IsSortedFunc(c.Charges, func(a, b collection.Fee) int { return a.ChargedOn.Start(time.UTC).Compare(b.ChargedOn.Start(time.UTC)) }) {
		return "charges do not sum to the fees, or are out of order"
	}
	if c.PaidInFull() != (c.Total.Outstanding == 0) {
		return "PaidInFull"
	}
	return ""
}

func factsString(f collection.ClaimFacts) string {
	s := fmt.Sprintf("terms %+v\n", f.Terms)
	for _, it := range f.Items {
		rate := "terms"
		if it.InterestRate != nil {
			rate = it.InterestRate.String()
		}
		s += fmt.Sprintf("item %d due %s amount %s rate %s\n", it.ID, it.Due, it.Amount, rate)
	}
	for _, r := range f.Rates {
		s += fmt.Sprintf("reference %s from %s\n", r.Rate, r.ValidFrom)
	}
	for _, fee := range f.Fees {
		s += fmt.Sprintf("fee %s %s on %s\n", fee.Kind, fee.Amount, fee.ChargedOn)
	}
	for _, p := range f.Payments {
		s += fmt.Sprintf("payment %d on %s amount %s item %d opening %v\n", p.ID, p.Date, p.Amount, p.Item, p.Opening)
	}
	if f.WithdrawnOn != nil {
		s += fmt.Sprintf("withdrawn on %s\n", *f.WithdrawnOn)
	}
	return s
}

// naiveClaim is the claim rules applied one day at a time, written
// independently of Claim and only fit for short periods and amounts whose
// interest numerator fits an int64.
func naiveClaim(f collection.ClaimFacts, asOf scalar.Date) collection.Claim {
	if f.WithdrawnOn != nil && asOf.After(*f.WithdrawnOn) {
		asOf = *f.WithdrawnOn
	}
	const denominator = 100 * 10_000 * 365
	round := func(n int64) collection.Money { return collection.Money((n + denominator/2) / denominator) }

	type item struct {
		collection.ClaimItem
		unpaid, interestPaid collection.Money
		numerator            int64
	}
	items := make([]*item, len(f.Items))
	byID := map[int]*item{}
	for i, it := range f.Items {
		items[i] = &item{ClaimItem: it, unpaid: it.Amount}
		byID[it.ID] = items[i]
	}
	sweepOrder := slices.Clone(items)
	slices.SortFunc(sweepOrder, func(a, b *item) int {
		if !sameDay(a.Due, b.Due) {
			if a.Due.Before(b.Due) {
				return -1
			}
			return 1
		}
		return a.ID - b.ID
	})
	rateOn := func(it *item, d scalar.Date) int64 {
		switch {
		case it.InterestRate != nil:
			return int64(*it.InterestRate)
		case f.Terms.Interest != collection.InterestStatutory:
			return 0
		}
		var ref collection.ReferenceRate // none yet: 0
		for _, r := range f.Rates {
			if !r.ValidFrom.After(d) && (ref.ValidFrom.IsZero() || r.ValidFrom.After(ref.ValidFrom)) {
				ref = r
			}
		}
		return max(0, int64(ref.Rate)+8*10_000)
	}
	type fee struct {
		collection.Fee
		unpaid collection.Money
	}
	var charged []*fee
	var credit collection.Money
	sweep := func(rem collection.Money, x *item, a *collection.Allocation) collection.Money {
		for _, fe := range charged {
			p := min(rem, fe.unpaid)
			fe.unpaid, rem, a.Fees = fe.unpaid-p, rem-p, a.Fees+p
		}
		payItem := func(it *item) {
			p := min(rem, round(it.numerator)-it.interestPaid)
			it.interestPaid, rem, a.Interest = it.interestPaid+p, rem-p, a.Interest+p
			p = min(rem, it.unpaid)
			it.unpaid, rem, a.Principal = it.unpaid-p, rem-p, a.Principal+p
		}
		if x != nil {
			payItem(x)
		}
		for _, it := range sweepOrder {
			if it != x {
				payItem(it)
			}
		}
		return rem
	}

	c := collection.Claim{AsOf: asOf}
	for d := propBase.AddDays(-30); !d.After(asOf); d = d.AddDays(1) {
		// Day d's interest, on the principal left by the days before.
		for _, it := range items {
			if d.After(it.Due) {
				it.numerator += int64(it.unpaid) * rateOn(it, d)
			}
		}
		for _, fe := range f.Fees {
			if sameDay(fe.ChargedOn, d) && fe.Amount > 0 {
				charged = append(charged, &fee{Fee: fe, unpaid: fe.Amount})
			}
		}
		if credit > 0 {
			credit = sweep(credit, nil, &collection.Allocation{})
		}
		var today []collection.ClaimPayment
		for _, p := range f.Payments {
			if sameDay(p.Date, d) {
				today = append(today, p)
			}
		}
		slices.SortFunc(today, func(a, b collection.ClaimPayment) int { return a.ID - b.ID })
		for _, p := range today {
			var a collection.Allocation
			rem := p.Amount
			x := byID[p.Item]
			if p.Opening {
				paid := min(rem, x.unpaid)
				x.unpaid, rem, a.Principal = x.unpaid-paid, rem-paid, paid
				x = nil
			}
			a.Credit = sweep(rem, x, &a)
			credit += a.Credit
			if c.Allocations == nil {
				c.Allocations = map[int]collection.Allocation{}
			}
			c.Allocations[p.ID] = a
		}
	}
	for _, it := range items {
		ic := collection.ItemClaim{ID: it.ID,
			Principal: collection.Part{Charged: it.Amount, Paid: it.Amount - it.unpaid, Outstanding: it.unpaid},
			Interest:  collection.Part{Charged: round(it.numerator), Paid: it.interestPaid, Outstanding: round(it.numerator) - it.interestPaid},
		}
		c.Items = append(c.Items, ic)
		c.Principal = addPart(c.Principal, ic.Principal)
		c.Interest = addPart(c.Interest, ic.Interest)
	}
	c.Charges = []collection.Fee{}
	for _, fe := range charged {
		c.Charges = append(c.Charges, fe.Fee)
		c.Fees = addPart(c.Fees, collection.Part{Charged: fe.Amount, Paid: fe.Amount - fe.unpaid, Outstanding: fe.unpaid})
	}
	c.Total = addPart(addPart(c.Principal, c.Interest), c.Fees)
	c.Overpaid = credit
	return c
}

func addPart(p, q collection.Part) collection.Part {
	return collection.Part{Charged: p.Charged + q.Charged, Paid: p.Paid + q.Paid, Outstanding: p.Outstanding + q.Outstanding}
}

func sameDay(a, b scalar.Date) bool { return !a.Before(b) && !a.After(b) }

// TestSummaryIsAFact: the kept summary (Summary, computed when the last
// fact is recorded) decides the statuses for every later day without a new
// fact: paid in full exactly when the payments reach it, and the payment
// status against it is the claim's. This is what lets a status filter
// compare two columns (api.md §10, "Part-one fields under part two").
func TestSummaryIsAFact(t *testing.T) {
	r := rand.New(rand.NewPCG(20261125, 17))
	for n := range 3000 {
		f, _ := propFacts(r)
		f.WithdrawnOn = nil // payments after a withdrawal are refused
		// Today is on or after every fee's day and the day before the
		// latest payment's at most (a payment may be dated tomorrow).
		today := propBase
		var paid collection.Money
		for _, fee := range f.Fees {
			if fee.ChargedOn.After(today) {
				today = fee.ChargedOn
			}
		}
		for _, p := range f.Payments {
			paid += p.Amount
			if d := p.Date.AddDays(-1); d.After(today) {
				today = d
			}
		}
		// Half the time a last payment pays exactly what is outstanding,
		// or that and 0.01 more: the boundaries of PAID.
		if r.IntN(2) == 0 && len(f.Items) > 0 {
			c, err := f.Claim(f.SummaryDay(today))
			if err != nil {
				t.Fatalf("case %d: Claim: %v", n, err)
			}
			if c.Total.Outstanding > 0 {
				last := collection.ClaimPayment{ID: 100, Date: f.SummaryDay(today), Amount: c.Total.Outstanding + collection.Money(r.IntN(2)),
					Item: f.Items[0].ID}
				f.Payments = append(f.Payments, last)
				paid += last.Amount
			}
		}
		summary, err := f.Summary(today)
		if err != nil {
			t.Fatalf("case %d: Summary: %v", n, err)
		}
		for _, later := range []int{0, 1, 2, 40, 400, 4000} {
			day := f.SummaryDay(today).AddDays(later)
			c, err := f.Claim(day)
			if err != nil {
				t.Fatalf("case %d: Claim(%s): %v", n, day, err)
			}
			if c.PaidInFull() != (paid >= summary) || c.PaymentStatus() != collection.PaymentOf(summary, paid) {
				t.Fatalf("case %d, %s: the claim reads paid in full %v, %v; the summary %s against %s paid reads %v, %v\n%s",
					n, day, c.PaidInFull(), c.PaymentStatus(), summary, paid, paid >= summary, collection.PaymentOf(summary, paid), factsString(f))
			}
		}
	}
}
