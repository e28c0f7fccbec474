package collection_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// The tests of this file pin the claim rules on hand-computed examples.
// Interest numerators are öre × Rate (percent × 10^4) × days; one öre of
// interest is a numerator of 100 × 10^4 × 365 = 365 000 000.

// cday parses a YYYY-MM-DD date or panics (test tables only).
func cday(s string) scalar.Date {
	d, err := scalar.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// amt parses an amount written in kronor or panics (test tables only).
func amt(s string) collection.Money {
	m, err := collection.ParseMoney(s)
	if err != nil {
		panic(err)
	}
	return m
}

// pct parses a percentage or panics (test tables only).
func pct(s string) *collection.Rate {
	r, err := collection.ParseRate(s)
	if err != nil {
		panic(err)
	}
	return &r
}

// manyItems is n items of ids 1..n, but the last has id again when again
// is not 0.
func manyItems(n, again int) []collection.ClaimItem {
	items := make([]collection.ClaimItem, n)
	for i := range items {
		items[i] = collection.ClaimItem{ID: i + 1, Due: cday("2026-01-01"), Amount: 100}
	}
	if again != 0 {
		items[n-1].ID = again
	}
	return items
}

// manyPayments is n payments of ids 1..n, as manyItems.
func manyPayments(n, again int) []collection.ClaimPayment {
	pays := make([]collection.ClaimPayment, n)
	for i := range pays {
		pays[i] = collection.ClaimPayment{ID: i + 1, Date: cday("2026-01-02"), Amount: 1}
	}
	if again != 0 {
		pays[n-1].ID = again
	}
	return pays
}

func part(charged, paid, outstanding string) collection.Part {
	return collection.Part{Charged: amt(charged), Paid: amt(paid), Outstanding: amt(outstanding)}
}

func mustClaim(t *testing.T, f collection.ClaimFacts, asOf string) collection.Claim {
	t.Helper()
	c, err := f.Claim(cday(asOf))
	if err != nil {
		t.Fatalf("Claim(%s): %v", asOf, err)
	}
	return c
}

func checkPart(t *testing.T, name string, got, want collection.Part) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %+v, want %+v", name, got, want)
	}
}

// TestClaimInterestExamples pins the interest of one item on examples
// computed by hand.
func TestClaimInterestExamples(t *testing.T) {
	statutory := collection.Terms{Interest: collection.InterestStatutory}
	tests := []struct {
		name  string
		facts collection.ClaimFacts
		asOf  string
		want  string // the interest charged
	}{
		{
			// 2028 is a leap year; its 366 days still divide by 365:
			// 100 000 öre × 100 000 × 366 / 365 000 000 = 10 027.397 öre.
			// (Dividing by 366 would give 100.00.)
			name:  "a leap year of interest",
			facts: collection.ClaimFacts{Items: []collection.ClaimItem{{ID: 1, Due: cday("2027-12-31"), Amount: amt("1000.00"), InterestRate: pct("10")}}},
			asOf:  "2028-12-31", want: "100.27",
		},
		{
			// Days 02-28, 02-29 and 03-01: 10 000 000 × 100 000 × 3 /
			// 365 000 000 = 8 219.178 öre (by 366: 8 196.72).
			name:  "across 29 February",
			facts: collection.ClaimFacts{Items: []collection.ClaimItem{{ID: 1, Due: cday("2028-02-27"), Amount: amt("100000.00"), InterestRate: pct("10")}}},
			asOf:  "2028-03-01", want: "82.19",
		},
		{
			// The due day itself bears none: due 01-01, asOf 01-01.
			name:  "nothing on the due day",
			facts: collection.ClaimFacts{Items: []collection.ClaimItem{{ID: 1, Due: cday("2026-01-01"), Amount: amt("100000.00"), InterestRate: pct("10")}}},
			asOf:  "2026-01-01", want: "0.00",
		},
		{
			// STATUTORY, reference 2.25 until 06-30 and 2.00 from 07-01:
			// 06-21..06-30 at 10.25 %, 07-01..07-10 at 10.00 %:
			// 1 000 000 × (102 500 × 10 + 100 000 × 10) / 365 000 000
			// = 5 547.945 öre.
			name: "a reference-rate change mid-period",
			facts: collection.ClaimFacts{Terms: statutory,
				Items: []collection.ClaimItem{{ID: 1, Due: cday("2025-06-20"), Amount: amt("10000.00")}},
				Rates: []collection.ReferenceRate{{ValidFrom: cday("2025-07-01"), Rate: *pct("2.00")}, {ValidFrom: cday("2025-01-01"), Rate: *pct("2.25")}}},
			asOf: "2025-07-10", want: "55.48",
		},
		{
			// Before the first entry the reference rate is 0: 8 % in June,
			// 10 % from 07-01: 1 000 000 × (80 000 × 10 + 100 000 × 10) /
			// 365 000 000 = 4 931.507 öre.
			name: "no reference rate yet",
			facts: collection.ClaimFacts{Terms: statutory,
				Items: []collection.ClaimItem{{ID: 1, Due: cday("2025-06-20"), Amount: amt("10000.00")}},
				Rates: []collection.ReferenceRate{{ValidFrom: cday("2025-07-01"), Rate: *pct("2.00")}}},
			asOf: "2025-07-10", want: "49.32",
		},
		{
			// −0.50 + 8 = 7.50 %: 1 000 000 × 75 000 × 10 / 365 000 000
			// = 2 054.79 öre.
			name: "a negative reference rate",
			facts: collection.ClaimFacts{Terms: statutory,
				Items: []collection.ClaimItem{{ID: 1, Due: cday("2017-03-01"), Amount: amt("10000.00")}},
				Rates: []collection.ReferenceRate{{ValidFrom: cday("2017-01-01"), Rate: *pct("-0.50")}}},
			asOf: "2017-03-11", want: "20.55",
		},
		{
			// An agreed rate wins over STATUTORY, even 0 %.
			name: "an agreed 0 % under STATUTORY",
			facts: collection.ClaimFacts{Terms: statutory,
				Items: []collection.ClaimItem{{ID: 1, Due: cday("2025-06-20"), Amount: amt("10000.00"), InterestRate: pct("0")}},
				Rates: []collection.ReferenceRate{{ValidFrom: cday("2025-01-01"), Rate: *pct("2.25")}}},
			asOf: "2025-07-10", want: "0.00",
		},
		{
			// NONE and no agreed rate: no interest, whatever the rates.
			name: "NONE",
			facts: collection.ClaimFacts{
				Items: []collection.ClaimItem{{ID: 1, Due: cday("2025-06-20"), Amount: amt("10000.00")}},
				Rates: []collection.ReferenceRate{{ValidFrom: cday("2025-01-01"), Rate: *pct("2.25")}}},
			asOf: "2025-07-10", want: "0.00",
		},
		// Rounding half away from zero, per item. 1 825 öre at 10 % for
		// one day is 1 825 × 100 000 = 182 500 000, exactly half an öre.
		{
			name:  "half an öre rounds up",
			facts: collection.ClaimFacts{Items: []collection.ClaimItem{{ID: 1, Due: cday("2026-01-01"), Amount: 1825, InterestRate: pct("10")}}},
			asOf:  "2026-01-02", want: "0.01",
		},
		{
			// 1 824 × 100 000 = 182 400 000: 0.4997 öre.
			name:  "just under half an öre rounds down",
			facts: collection.ClaimFacts{Items: []collection.ClaimItem{{ID: 1, Due: cday("2026-01-01"), Amount: 1824, InterestRate: pct("10")}}},
			asOf:  "2026-01-02", want: "0.00",
		},
		{
			// 9 125 × 100 000 = 2.5 öre: 3, not the even 2.
			name:  "2.5 öre rounds to 3",
			facts: collection.ClaimFacts{Items: []collection.ClaimItem{{ID: 1, Due: cday("2026-01-01"), Amount: 9125, InterestRate: pct("10")}}},
			asOf:  "2026-01-02", want: "0.03",
		},
		{
			// Each item's 0.5 öre rounds on its own: 1 + 1, not round(1.0).
			// A third item of 1 824 öre adds round(0.4997) = 0.
			name: "rounded per item",
			facts: collection.ClaimFacts{Items: []collection.ClaimItem{
				{ID: 1, Due: cday("2026-01-01"), Amount: 1825, InterestRate: pct("10")},
				{ID: 2, Due: cday("2026-01-01"), Amount: 1825, InterestRate: pct("10")},
				{ID: 3, Due: cday("2026-01-01"), Amount: 1824, InterestRate: pct("10")},
			}},
			asOf: "2026-01-02", want: "0.02",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustClaim(t, tt.facts, tt.asOf)
			checkPart(t, "interest", c.Interest, part(tt.want, "0", tt.want))
		})
	}
}

// TestClaimPaymentMidPeriod: a payment on 01-11 pays the interest of
// 01-02..01-11 (on the full principal) and reduces the principal from
// 01-12 on.
func TestClaimPaymentMidPeriod(t *testing.T) {
	f := collection.ClaimFacts{
		Items:    []collection.ClaimItem{{ID: 7, Due: cday("2026-01-01"), Amount: amt("10000.00"), InterestRate: pct("8")}},
		Payments: []collection.ClaimPayment{{ID: 1, Date: cday("2026-01-11"), Amount: amt("4000.00"), Item: 7}},
	}
	c := mustClaim(t, f, "2026-01-21")
	// On 01-11: 1 000 000 × 80 000 × 10 / 365 000 000 = 2 191.78 → 21.92;
	// the payment pays it, and 3 978.08 of principal: 6 021.92 is left.
	// 01-12..01-21: 602 192 × 80 000 × 10 more; in all
	// (800 000 000 000 + 481 753 600 000) / 365 000 000 = 3 511.65 → 35.12.
	want := collection.Allocation{Interest: amt("21.92"), Principal: amt("3978.08")}
	if got := c.Allocations[1]; got != want {
		t.Errorf("allocation = %+v, want %+v", got, want)
	}
	checkPart(t, "principal", c.Principal, part("10000.00", "3978.08", "6021.92"))
	checkPart(t, "interest", c.Interest, part("35.12", "21.92", "13.20"))
	checkPart(t, "total", c.Total, part("10035.12", "4000.00", "6035.12"))
	if c.Overpaid != 0 || c.PaidInFull() || c.PaymentStatus() != collection.PartiallyPaid {
		t.Errorf("overpaid %s, paid in full %v, status %s; want 0.00, false, PARTIALLY_PAID", c.Overpaid, c.PaidInFull(), c.PaymentStatus())
	}
	// Read on the payment's day, the interest is all paid.
	c = mustClaim(t, f, "2026-01-11")
	checkPart(t, "interest on 01-11", c.Interest, part("21.92", "21.92", "0"))
	// Read the day before, the payment does not count yet: 9 days.
	// 1 000 000 × 80 000 × 9 / 365 000 000 = 1 972.60 → 19.73.
	c = mustClaim(t, f, "2026-01-10")
	checkPart(t, "interest on 01-10", c.Interest, part("19.73", "0", "19.73"))
	if len(c.Allocations) != 0 {
		t.Errorf("allocations on 01-10 = %v, want none", c.Allocations)
	}
}

// TestClaimPaymentOrder pins the order a payment pays in: fees charged by
// its day (oldest first, ties in the order given), its item's interest and
// principal, then the other items by (due, id), interest before principal.
func TestClaimPaymentOrder(t *testing.T) {
	items := []collection.ClaimItem{
		// Interest at 36.5 % on 1 000.00 is 1.00 a day: 100 000 × 365 000
		// = 365 000 000 × 100.
		{ID: 3, Due: cday("2026-01-01"), Amount: amt("1000.00"), InterestRate: pct("36.5")},
		{ID: 1, Due: cday("2026-01-05"), Amount: amt("1000.00"), InterestRate: pct("36.5")},
		{ID: 2, Due: cday("2026-01-01"), Amount: amt("1000.00"), InterestRate: pct("36.5")},
	}
	fees := []collection.Fee{
		{Kind: collection.CollectionFee, Amount: amt("180.00"), ChargedOn: cday("2026-01-10")},
		{Kind: collection.ReminderFee, Amount: amt("60.00"), ChargedOn: cday("2026-01-10")},
		{Kind: collection.PaymentOrderFee, Amount: amt("300.00"), ChargedOn: cday("2026-01-11")}, // after the payment
		{Kind: collection.ReminderFee, Amount: amt("50.00"), ChargedOn: cday("2026-01-02")},
	}
	f := collection.ClaimFacts{Items: items, Fees: fees}
	// On 01-10 items 2 and 3 owe 9.00 interest each, item 1 5.00. 1 500.00
	// to item 1: fees 50 + 180 + 60 = 290, item 1's 5.00 and 1 000.00,
	// then item 2 (due 01-01, id 2): 9.00 and 196.00 of principal.
	f.Payments = []collection.ClaimPayment{{ID: 9, Date: cday("2026-01-10"), Amount: amt("1500.00"), Item: 1}}
	c := mustClaim(t, f, "2026-01-10")
	want := collection.Allocation{Fees: amt("290.00"), Interest: amt("14.00"), Principal: amt("1196.00")}
	if got := c.Allocations[9]; got != want {
		t.Errorf("allocation = %+v, want %+v", got, want)
	}
	wantItems := []collection.ItemClaim{
		{ID: 3, Principal: part("1000.00", "0", "1000.00"), Interest: part("9.00", "0", "9.00")},
		{ID: 1, Principal: part("1000.00", "1000.00", "0"), Interest: part("5.00", "5.00", "0")},
		{ID: 2, Principal: part("1000.00", "196.00", "804.00"), Interest: part("9.00", "9.00", "0")},
	}
	if !reflect.DeepEqual(c.Items, wantItems) {
		t.Errorf("items = %+v, want %+v", c.Items, wantItems)
	}
	// Charges: oldest first, ties in the order given; the 01-11 fee is
	// not charged yet.
	wantCharges := []collection.Fee{fees[3], fees[0], fees[1]}
	if !reflect.DeepEqual(c.Charges, wantCharges) {
		t.Errorf("charges = %+v, want %+v", c.Charges, wantCharges)
	}
	checkPart(t, "fees", c.Fees, part("290.00", "290.00", "0"))

	// To no item, 350.00 pays the fees (290.00), then item 2 (due 01-01,
	// id 2 before id 3): its 9.00 of interest and 51.00 of principal.
	f.Payments = []collection.ClaimPayment{{ID: 9, Date: cday("2026-01-10"), Amount: amt("350.00")}}
	c = mustClaim(t, f, "2026-01-10")
	want = collection.Allocation{Fees: amt("290.00"), Interest: amt("9.00"), Principal: amt("51.00")}
	if got := c.Allocations[9]; got != want {
		t.Errorf("to no item: allocation = %+v, want %+v", got, want)
	}
	if got := c.Items[2].Principal; got != part("1000.00", "51.00", "949.00") {
		t.Errorf("to no item: item 2's principal = %+v", got)
	}
}

// TestClaimOpeningPayment: an opening payment pays its item's principal
// only, not the interest or the fees of its day.
func TestClaimOpeningPayment(t *testing.T) {
	f := collection.ClaimFacts{
		Items: []collection.ClaimItem{
			{ID: 1, Due: cday("2026-01-01"), Amount: amt("1000.00"), InterestRate: pct("36.5")},
			{ID: 2, Due: cday("2026-01-01"), Amount: amt("1000.00")},
		},
		Fees:     []collection.Fee{{Kind: collection.ReminderFee, Amount: amt("60.00"), ChargedOn: cday("2026-01-03")}},
		Payments: []collection.ClaimPayment{{ID: 1, Date: cday("2026-01-05"), Amount: amt("400.00"), Item: 1, Opening: true}},
	}
	// Item 1's 4.00 of interest (01-02..01-05) and the fee stay unpaid;
	// then 600.00 of principal at 1.00 × 0.6 a day for 01-06..01-10.
	c := mustClaim(t, f, "2026-01-10")
	if got, want := c.Allocations[1], (collection.Allocation{Principal: amt("400.00")}); got != want {
		t.Errorf("allocation = %+v, want %+v", got, want)
	}
	checkPart(t, "interest", c.Interest, part("7.00", "0", "7.00"))
	checkPart(t, "fees", c.Fees, part("60.00", "0", "60.00"))

	// An excess is credit, which pays what is outstanding at once: the
	// fee, item 1's interest, item 2's principal. 1 200.00 = 1 000.00 of
	// item 1 + 60.00 + 4.00 + 136.00 of item 2.
	f.Payments[0].Amount = amt("1200.00")
	c = mustClaim(t, f, "2026-01-10")
	if got, want := c.Allocations[1], (collection.Allocation{Fees: amt("60.00"), Interest: amt("4.00"), Principal: amt("1136.00")}); got != want {
		t.Errorf("excess: allocation = %+v, want %+v", got, want)
	}
	checkPart(t, "excess: principal", c.Principal, part("2000.00", "1136.00", "864.00"))
}

// TestClaimBackdatedPayment: a payment booked later with an earlier date
// goes first, and the later payment's allocation changes.
func TestClaimBackdatedPayment(t *testing.T) {
	f := collection.ClaimFacts{
		Items:    []collection.ClaimItem{{ID: 1, Due: cday("2026-01-01"), Amount: amt("1000.00")}},
		Fees:     []collection.Fee{{Kind: collection.CollectionFee, Amount: amt("180.00"), ChargedOn: cday("2026-02-01")}},
		Payments: []collection.ClaimPayment{{ID: 1, Date: cday("2026-03-01"), Amount: amt("500.00")}},
	}
	// Alone, payment 1 pays the fee and 320.00 of principal.
	c := mustClaim(t, f, "2026-03-31")
	if got, want := c.Allocations[1], (collection.Allocation{Fees: amt("180.00"), Principal: amt("320.00")}); got != want {
		t.Errorf("before: allocation 1 = %+v, want %+v", got, want)
	}
	// Payment 2 (a higher id) dated 02-15 pays the fee and 120.00 of
	// principal; payment 1 now pays 500.00 of principal.
	f.Payments = append(f.Payments, collection.ClaimPayment{ID: 2, Date: cday("2026-02-15"), Amount: amt("300.00")})
	c = mustClaim(t, f, "2026-03-31")
	if got, want := c.Allocations[2], (collection.Allocation{Fees: amt("180.00"), Principal: amt("120.00")}); got != want {
		t.Errorf("after: allocation 2 = %+v, want %+v", got, want)
	}
	if got, want := c.Allocations[1], (collection.Allocation{Principal: amt("500.00")}); got != want {
		t.Errorf("after: allocation 1 = %+v, want %+v", got, want)
	}
	checkPart(t, "total", c.Total, part("1180.00", "800.00", "380.00"))
	// Same day: the lower id goes first.
	f.Payments[1].Date = cday("2026-03-01")
	c = mustClaim(t, f, "2026-03-31")
	if got, want := c.Allocations[2], (collection.Allocation{Principal: amt("300.00")}); got != want {
		t.Errorf("same day: allocation 2 = %+v, want %+v", got, want)
	}
}

// TestClaimCreditPaysLaterFees: an overpaid debt's credit pays the
// payment-order fees charged later, on their day; the payment's
// allocation still shows it as credit.
func TestClaimCreditPaysLaterFees(t *testing.T) {
	f := collection.ClaimFacts{
		Items:    []collection.ClaimItem{{ID: 1, Due: cday("2026-01-01"), Amount: amt("1000.00"), InterestRate: pct("10")}},
		Payments: []collection.ClaimPayment{{ID: 1, Date: cday("2026-01-01"), Amount: amt("1500.00"), Item: 1}},
		Fees:     collection.PaymentOrderFees(collection.PaymentOrderAmounts{Fee: amt("300.00"), ApplicationFee: amt("380.00")}, cday("2026-04-01")),
	}
	wantAlloc := collection.Allocation{Principal: amt("1000.00"), Credit: amt("500.00")}

	// Paid on the due day: no interest ever; 500.00 of credit.
	c := mustClaim(t, f, "2026-03-31")
	if c.Overpaid != amt("500.00") || !c.PaidInFull() || c.PaymentStatus() != collection.Overpaid || len(c.Charges) != 0 {
		t.Errorf("03-31: overpaid %s, paid in full %v, status %s, charges %v", c.Overpaid, c.PaidInFull(), c.PaymentStatus(), c.Charges)
	}
	// On 04-01 the credit pays the 300.00 fee and 200.00 of the 380.00.
	c = mustClaim(t, f, "2026-04-01")
	checkPart(t, "fees", c.Fees, part("680.00", "500.00", "180.00"))
	checkPart(t, "interest", c.Interest, part("0", "0", "0"))
	checkPart(t, "total", c.Total, part("1680.00", "1500.00", "180.00"))
	if got := c.Allocations[1]; got != wantAlloc {
		t.Errorf("allocation = %+v, want %+v", got, wantAlloc)
	}
	if c.Overpaid != 0 || c.PaymentStatus() != collection.PartiallyPaid {
		t.Errorf("04-01: overpaid %s, status %s; want 0.00, PARTIALLY_PAID", c.Overpaid, c.PaymentStatus())
	}
	// A fee paid exactly by the credit: PAID, nothing outstanding.
	f.Fees = f.Fees[:1]
	f.Fees[0].Amount = amt("500.00")
	c = mustClaim(t, f, "2026-12-31")
	if c.Overpaid != 0 || !c.PaidInFull() || c.PaymentStatus() != collection.Paid {
		t.Errorf("exact: overpaid %s, paid in full %v, status %s; want 0.00, true, PAID", c.Overpaid, c.PaidInFull(), c.PaymentStatus())
	}
}

// TestHandoverFees pins the fees of the hand-over: reminder fees, then the
// collection fee or, for a corporate debtor under late compensation,
// 450.00 instead of it; a fee of 0.00 is not charged.
func TestHandoverFees(t *testing.T) {
	on := cday("2026-05-04")
	fee := func(k collection.FeeKind, a string) collection.Fee {
		return collection.Fee{Kind: k, Amount: amt(a), ChargedOn: on}
	}
	tests := []struct {
		name      string
		terms     collection.Terms
		reminders []collection.Money
		corporate bool
		want      []collection.Fee
	}{
		{"consumer", collection.Terms{CollectionFee: amt("180.00"), LateCompensation: true}, []collection.Money{amt("60.00"), 0, amt("25.00")}, false,
			[]collection.Fee{fee(collection.ReminderFee, "60.00"), fee(collection.ReminderFee, "25.00"), fee(collection.CollectionFee, "180.00")}},
		{"corporate, late compensation", collection.Terms{CollectionFee: amt("180.00"), LateCompensation: true}, []collection.Money{amt("60.00")}, true,
			[]collection.Fee{fee(collection.ReminderFee, "60.00"), fee(collection.LateCompensationFee, "450.00")}},
		{"corporate, late compensation, no collection fee", collection.Terms{LateCompensation: true}, nil, true,
			[]collection.Fee{fee(collection.LateCompensationFee, "450.00")}},
		{"corporate without late compensation", collection.Terms{CollectionFee: amt("180.00")}, nil, true,
			[]collection.Fee{fee(collection.CollectionFee, "180.00")}},
		{"nothing of 0.00", collection.Terms{}, []collection.Money{0, 0}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := collection.HandoverFees(tt.terms, tt.reminders, tt.corporate, on); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("HandoverFees = %+v, want %+v", got, tt.want)
			}
		})
	}
	got := collection.PaymentOrderFees(collection.PaymentOrderAmounts{Fee: amt("300.00"), ApplicationFee: amt("380.00")}, on)
	if want := []collection.Fee{fee(collection.PaymentOrderFee, "300.00"), fee(collection.PaymentOrderApplicationFee, "380.00")}; !reflect.DeepEqual(got, want) {
		t.Errorf("PaymentOrderFees = %+v, want %+v", got, want)
	}
	if got := collection.PaymentOrderFees(collection.PaymentOrderAmounts{ApplicationFee: amt("380.00")}, on); len(got) != 1 || got[0].Kind != collection.PaymentOrderApplicationFee {
		t.Errorf("PaymentOrderFees without a fee = %+v, want the application fee alone", got)
	}
}

// TestClaimZeroFeeNotCharged: a fee of 0.00 given to Claim is not a
// charge.
func TestClaimZeroFeeNotCharged(t *testing.T) {
	f := collection.ClaimFacts{
		Items: []collection.ClaimItem{{ID: 1, Due: cday("2026-01-01"), Amount: amt("100.00")}},
		Fees: []collection.Fee{
			{Kind: collection.CollectionFee, Amount: 0, ChargedOn: cday("2026-01-02")},
			{Kind: collection.ReminderFee, Amount: amt("60.00"), ChargedOn: cday("2026-01-02")},
		},
	}
	c := mustClaim(t, f, "2026-02-01")
	if len(c.Charges) != 1 || c.Charges[0].Kind != collection.ReminderFee {
		t.Errorf("charges = %+v, want the reminder fee alone", c.Charges)
	}
	checkPart(t, "fees", c.Fees, part("60.00", "0", "60.00"))
}

// TestClaimWithdrawn: a withdrawn debt reads as of its day of withdrawal:
// no interest after it, no fee or payment dated after it.
func TestClaimWithdrawn(t *testing.T) {
	withdrawn := cday("2026-01-31")
	f := collection.ClaimFacts{
		Items:       []collection.ClaimItem{{ID: 1, Due: cday("2026-01-01"), Amount: amt("1000.00"), InterestRate: pct("10")}},
		Fees:        []collection.Fee{{Kind: collection.PaymentOrderFee, Amount: amt("300.00"), ChargedOn: cday("2026-02-01")}},
		Payments:    []collection.ClaimPayment{{ID: 1, Date: cday("2026-02-01"), Amount: amt("50.00")}},
		WithdrawnOn: &withdrawn,
	}
	// 01-02..01-31: 100 000 × 100 000 × 30 / 365 000 000 = 821.9 → 8.22.
	want := mustClaim(t, f, "2026-01-31")
	checkPart(t, "interest", want.Interest, part("8.22", "0", "8.22"))
	for _, asOf := range []string{"2026-02-01", "2027-06-30", "9999-12-31"} {
		c := mustClaim(t, f, asOf)
		if !reflect.DeepEqual(c, want) {
			t.Errorf("Claim(%s) = %+v, want the claim of 2026-01-31 %+v", asOf, c, want)
		}
	}
	if c := mustClaim(t, f, "2026-01-20"); c.AsOf != cday("2026-01-20") {
		t.Errorf("before the withdrawal AsOf = %s, want 2026-01-20", c.AsOf)
	}
	// Not withdrawn, the same facts go on.
	f.WithdrawnOn = nil
	c := mustClaim(t, f, "2026-02-01")
	checkPart(t, "not withdrawn: fees", c.Fees, part("300.00", "50.00", "250.00"))
}

// TestClaimFarFuture: asOf 9999-12-31 on 1 000 items costs no more than a
// near date, since interest is computed per stretch of constant
// principal and rate, never per day. A day-by-day engine would take
// 2 912 442 days × 1 000 items.
func TestClaimFarFuture(t *testing.T) {
	f := collection.ClaimFacts{Terms: collection.Terms{Interest: collection.InterestStatutory},
		Rates: []collection.ReferenceRate{{ValidFrom: cday("2026-01-01"), Rate: *pct("2.00")}}}
	for i := range 1000 {
		// 365.00 at 10 % (2.00 + 8) is 36 500 × 100 000 / 365 000 000
		// = 10 öre a day.
		f.Items = append(f.Items, collection.ClaimItem{ID: i + 1, Due: cday("2026-01-01"), Amount: amt("365.00")})
	}
	start := time.Now()
	c := mustClaim(t, f, "9999-12-31")
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("Claim(9999-12-31) took %v", elapsed)
	}
	// 2026-01-02..9999-12-31 is 2 912 442 days (9999-12-31 − 2026-01-01):
	// 29 124 420 öre per item.
	if got, want := c.Items[0].Interest.Charged, collection.Money(29_124_420); got != want {
		t.Errorf("item interest = %s, want %s", got, want)
	}
	if got, want := c.Interest.Charged, collection.Money(29_124_420_000); got != want {
		t.Errorf("interest = %s, want %s", got, want)
	}
}

// TestClaimNoInterestNoFees: without interest and fees the claim is the
// original and paid amounts, as before the terms existed.
func TestClaimNoInterestNoFees(t *testing.T) {
	f := collection.ClaimFacts{Items: []collection.ClaimItem{
		{ID: 1, Due: cday("2026-01-01"), Amount: amt("1000.00")},
		{ID: 2, Due: cday("2026-02-01"), Amount: amt("500.00")},
	}}
	tests := []struct {
		paid        []string
		outstanding string
		overpaid    string
		status      collection.PaymentStatus
	}{
		{nil, "1500.00", "0", collection.Unpaid},
		{[]string{"100.00"}, "1400.00", "0", collection.PartiallyPaid},
		{[]string{"1000.00", "500.00"}, "0", "0", collection.Paid},
		{[]string{"1000.00", "600.00"}, "0", "100.00", collection.Overpaid},
	}
	for _, tt := range tests {
		f.Payments = nil
		for i, p := range tt.paid {
			f.Payments = append(f.Payments, collection.ClaimPayment{ID: i + 1, Date: cday("2026-03-01"), Amount: amt(p), Item: 2})
		}
		c := mustClaim(t, f, "2026-12-31")
		if c.Principal.Charged != amt("1500.00") || c.Total != c.Principal || c.Principal.Outstanding != amt(tt.outstanding) ||
			c.Overpaid != amt(tt.overpaid) || c.PaymentStatus() != tt.status || c.PaidInFull() != (tt.outstanding == "0") {
			t.Errorf("paid %v: principal %+v, total %+v, overpaid %s, status %s", tt.paid, c.Principal, c.Total, c.Overpaid, c.PaymentStatus())
		}
	}
}

// TestClaimErrors: malformed facts and amounts beyond the ceiling are
// refused with their sentinel.
func TestClaimErrors(t *testing.T) {
	item := collection.ClaimItem{ID: 1, Due: cday("2026-01-01"), Amount: amt("100.00")}
	pay := func(p collection.ClaimPayment) collection.ClaimFacts {
		if p.Date.IsZero() {
			p.Date = cday("2026-01-02")
		}
		return collection.ClaimFacts{Items: []collection.ClaimItem{item}, Payments: []collection.ClaimPayment{p}}
	}
	tests := []struct {
		name  string
		facts collection.ClaimFacts
		want  error
		text  string // in the error's text, when set
	}{
		{"payment to an unknown item", pay(collection.ClaimPayment{ID: 1, Amount: 100, Item: 2}), collection.ErrClaimFacts, "item 2"},
		{"opening payment to no item", pay(collection.ClaimPayment{ID: 1, Amount: 100, Opening: true}), collection.ErrClaimFacts, ""},
		{"payment of 0.00", pay(collection.ClaimPayment{ID: 1, Amount: 0}), collection.ErrClaimFacts, ""},
		{"payment ids repeat", collection.ClaimFacts{Items: []collection.ClaimItem{item}, Payments: []collection.ClaimPayment{
			{ID: 1, Date: cday("2026-01-02"), Amount: 1}, {ID: 1, Date: cday("2026-01-03"), Amount: 1}}}, collection.ErrClaimFacts, ""},
		{"item ids repeat", collection.ClaimFacts{Items: []collection.ClaimItem{item, item}}, collection.ErrClaimFacts, ""},
		{"item ids repeat among many", collection.ClaimFacts{Items: manyItems(12, 5)}, collection.ErrClaimFacts, "item id 5 repeats"},
		{"payment ids repeat among many", collection.ClaimFacts{Items: manyItems(12, 0), Payments: manyPayments(12, 5)}, collection.ErrClaimFacts, "payment id 5 repeats"},
		{"payment among many to an unknown item", collection.ClaimFacts{Items: manyItems(12, 0), Payments: []collection.ClaimPayment{
			{ID: 1, Date: cday("2026-01-02"), Amount: 1, Item: 13}}}, collection.ErrClaimFacts, "item 13"},
		{"item id 0", collection.ClaimFacts{Items: []collection.ClaimItem{{Amount: 1}}}, collection.ErrClaimFacts, ""},
		{"item amount 0.00", collection.ClaimFacts{Items: []collection.ClaimItem{{ID: 1}}}, collection.ErrClaimFacts, ""},
		{"negative item rate", collection.ClaimFacts{Items: []collection.ClaimItem{{ID: 1, Amount: 1, InterestRate: pct("-1")}}}, collection.ErrClaimFacts, ""},
		{"negative fee", collection.ClaimFacts{Fees: []collection.Fee{{Kind: collection.ReminderFee, Amount: -1}}}, collection.ErrClaimFacts, ""},
		{"unknown fee kind", collection.ClaimFacts{Fees: []collection.Fee{{Kind: 99, Amount: 1}}}, collection.ErrClaimFacts, ""},
		{"unknown interest rule", collection.ClaimFacts{Terms: collection.Terms{Interest: 7}}, collection.ErrClaimFacts, ""},
		{"two rates on one day", collection.ClaimFacts{Terms: collection.Terms{Interest: collection.InterestStatutory}, Rates: []collection.ReferenceRate{
			{ValidFrom: cday("2026-01-01"), Rate: 1}, {ValidFrom: cday("2026-01-01"), Rate: 2}}}, collection.ErrClaimFacts, ""},
		{"items above the ceiling", collection.ClaimFacts{Items: []collection.ClaimItem{
			{ID: 1, Amount: collection.MaxAmount}, {ID: 2, Amount: 1}}}, collection.ErrClaimCeiling, ""},
		{"payments above the ceiling", collection.ClaimFacts{Items: []collection.ClaimItem{item}, Payments: []collection.ClaimPayment{
			{ID: 1, Date: cday("2026-01-02"), Amount: collection.MaxAmount}, {ID: 2, Date: cday("2026-01-02"), Amount: 1}}}, collection.ErrClaimCeiling, ""},
		{"fees above the ceiling", collection.ClaimFacts{Fees: []collection.Fee{
			{Kind: collection.ReminderFee, Amount: collection.MaxAmount}, {Kind: collection.ReminderFee, Amount: 1}}}, collection.ErrClaimCeiling, ""},
		{"interest above the ceiling", collection.ClaimFacts{Items: []collection.ClaimItem{
			{ID: 1, Due: cday("2026-01-01"), Amount: collection.MaxAmount, InterestRate: pct("100")}}}, collection.ErrClaimCeiling, "interest"},
		// A year at 100 %: interest 5 × 10^16 öre fits, principal plus
		// interest (10^17) does not.
		{"principal and interest above the ceiling", collection.ClaimFacts{Items: []collection.ClaimItem{
			{ID: 1, Due: cday("9998-12-31"), Amount: collection.MaxAmount/2 + 1, InterestRate: pct("100")}}}, collection.ErrClaimCeiling, "total"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.facts.Claim(cday("9999-12-31"))
			if !errors.Is(err, tt.want) || !strings.Contains(fmt.Sprint(err), tt.text) {
				t.Errorf("Claim = %v, want %v (%q)", err, tt.want, tt.text)
			}
		})
	}
	// What lies beyond asOf does not count towards the ceiling.
	f := collection.ClaimFacts{Items: []collection.ClaimItem{item}, Payments: []collection.ClaimPayment{
		{ID: 1, Date: cday("2026-01-02"), Amount: collection.MaxAmount}, {ID: 2, Date: cday("2026-01-03"), Amount: 1}}}
	if c, err := f.Claim(cday("2026-01-02")); err != nil || c.Overpaid != collection.MaxAmount-amt("100.00") {
		t.Errorf("Claim(2026-01-02) = overpaid %s, %v; want %s", c.Overpaid, err, collection.MaxAmount-amt("100.00"))
	}
}

// TestTermsChecks pins the bounds of the terms and the field each refusal
// names.
func TestTermsChecks(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want []string // the fields refused
	}{
		{"collection fee 0.00", collection.Terms{}.Check(), nil},
		{"collection fee 180.00", collection.Terms{CollectionFee: amt("180.00")}.Check(), nil},
		{"collection fee 180.01", collection.Terms{CollectionFee: amt("180.01")}.Check(), []string{"collectionFee"}},
		{"collection fee −0.01", collection.Terms{CollectionFee: -1}.Check(), []string{"collectionFee"}},
		{"item: none given", collection.CheckItemTerms(nil, nil), nil},
		{"item: 0 and 0.00", collection.CheckItemTerms(pct("0"), new(collection.Money)), nil},
		{"item: 100 and 60.00", collection.CheckItemTerms(pct("100"), new(amt("60.00"))), nil},
		{"item: 100.0001 and 60.01", collection.CheckItemTerms(pct("100.0001"), new(amt("60.01"))), []string{"interestRate", "reminderFee"}},
		{"item: −0.0001 and −0.01", collection.CheckItemTerms(pct("-0.0001"), new(collection.Money(-1))), []string{"interestRate", "reminderFee"}},
		{"rate 2.50 from 1 January", collection.ReferenceRate{ValidFrom: cday("2026-01-01"), Rate: *pct("2.5")}.Check(), nil},
		{"rate −10 from 1 July", collection.ReferenceRate{ValidFrom: cday("2016-07-01"), Rate: *pct("-10")}.Check(), nil},
		{"rate 50", collection.ReferenceRate{ValidFrom: cday("2016-07-01"), Rate: *pct("50")}.Check(), nil},
		{"rate 50.01", collection.ReferenceRate{ValidFrom: cday("2016-07-01"), Rate: *pct("50.01")}.Check(), []string{"rate"}},
		{"rate −10.01", collection.ReferenceRate{ValidFrom: cday("2016-07-01"), Rate: *pct("-10.01")}.Check(), []string{"rate"}},
		{"rate 2.125", collection.ReferenceRate{ValidFrom: cday("2016-07-01"), Rate: *pct("2.125")}.Check(), []string{"rate"}},
		{"from 2 January", collection.ReferenceRate{ValidFrom: cday("2026-01-02"), Rate: 0}.Check(), []string{"validFrom"}},
		{"from 1 June", collection.ReferenceRate{ValidFrom: cday("2026-06-01"), Rate: 0}.Check(), []string{"validFrom"}},
		{"from 1 December, 2.001", collection.ReferenceRate{ValidFrom: cday("2026-12-01"), Rate: *pct("2.001")}.Check(), []string{"rate", "validFrom"}},
	}
	for _, tt := range tests {
		if got := inputErrorFields(t, tt.err); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: fields %v, want %v (%v)", tt.name, got, tt.want, tt.err)
		}
	}
}

// TestTermsEnumsGQL pins the GraphQL names of InterestRule and FeeKind.
func TestTermsEnumsGQL(t *testing.T) {
	rules := map[collection.InterestRule]string{collection.InterestNone: "NONE", collection.InterestStatutory: "STATUTORY"}
	for r, name := range rules {
		var b writerString
		r.MarshalGQL(&b)
		var back collection.InterestRule = 7
		if r.String() != name || string(b) != `"`+name+`"` || back.UnmarshalGQL(name) != nil || back != r {
			t.Errorf("InterestRule %d: String %q, MarshalGQL %s, UnmarshalGQL → %d", int(r), r.String(), b, int(back))
		}
	}
	kinds := map[collection.FeeKind]string{
		collection.ReminderFee: "REMINDER_FEE", collection.CollectionFee: "COLLECTION_FEE",
		collection.LateCompensationFee: "LATE_COMPENSATION", collection.PaymentOrderFee: "PAYMENT_ORDER_FEE",
		collection.PaymentOrderApplicationFee: "PAYMENT_ORDER_APPLICATION_FEE",
	}
	for k, name := range kinds {
		var b writerString
		k.MarshalGQL(&b)
		var back collection.FeeKind
		if k.String() != name || string(b) != `"`+name+`"` || back.UnmarshalGQL(name) != nil || back != k {
			t.Errorf("FeeKind %d: String %q, MarshalGQL %s, UnmarshalGQL → %d", int(k), k.String(), b, int(back))
		}
	}
	var zero collection.Terms
	if zero.Interest != collection.InterestNone {
		t.Errorf("the zero Terms' rule is %s, want NONE", zero.Interest)
	}
	for _, bad := range []any{"", "none", "UNPAID", "REMINDER_FEE ", 1, nil} {
		r := collection.InterestStatutory
		if err := r.UnmarshalGQL(bad); err == nil || r != collection.InterestStatutory {
			t.Errorf("InterestRule.UnmarshalGQL(%#v) = %v, left %s", bad, err, r)
		}
		k := collection.CollectionFee
		if err := k.UnmarshalGQL(bad); err == nil || k != collection.CollectionFee {
			t.Errorf("FeeKind.UnmarshalGQL(%#v) = %v, left %s", bad, err, k)
		}
	}
}

// writerString is an io.Writer that keeps what is written.
type writerString []byte

func (w *writerString) Write(p []byte) (int, error) {
	*w = append(*w, p...)
	return len(p), nil
}

// TestClaimChargesOrder: charges are oldest first and, on one day, in the
// order given, however many there are (a sort that is not stable keeps
// small slices in order only by chance).
func TestClaimChargesOrder(t *testing.T) {
	var f collection.ClaimFacts
	var want []collection.Fee
	for i := range 40 {
		// Amounts 0.01..0.40 tell the fees apart; even ones on 03-02,
		// odd ones on 03-01.
		fee := collection.Fee{Kind: collection.ReminderFee, Amount: collection.Money(i + 1), ChargedOn: cday("2026-03-02")}
		if i%2 == 1 {
			fee.ChargedOn = cday("2026-03-01")
		}
		f.Fees = append(f.Fees, fee)
	}
	for _, parity := range []int{1, 0} {
		for i, fee := range f.Fees {
			if i%2 == parity {
				want = append(want, fee)
			}
		}
	}
	// 0.01 + ... + 0.40 = 8.20 charged, of which 2.00 is paid.
	f.Payments = []collection.ClaimPayment{{ID: 1, Date: cday("2026-03-01"), Amount: amt("2.00")}}
	c := mustClaim(t, f, "2026-03-02")
	if !reflect.DeepEqual(c.Charges, want) {
		t.Errorf("charges = %+v, want %+v", c.Charges, want)
	}
	checkPart(t, "fees", c.Fees, part("8.20", "2.00", "6.20"))
}
