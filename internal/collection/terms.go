package collection

import (
	"io"
	"time"

	"github.com/debtql/debtql/internal/scalar"
)

// The collection terms of a debt: which interest it bears and which fees
// are charged on it. Amounts and bounds follow the Swedish rules: the
// collection and reminder fee ceilings of inkassoförordningen (1981:1057),
// the 450 kr late-payment compensation of lagen (2013:412) om ersättning
// för inkassokostnader, and räntelagen's reference rate plus 8 points.
// What the payment-order step costs (Kronofogden's fees) changes by
// ordinance, so it is configuration, passed in (PaymentOrderAmounts).

// Limits and fixed amounts of the terms.
const (
	// MaxCollectionFee is the largest collection fee (inkassoavgift).
	MaxCollectionFee Money = 18000
	// MaxReminderFee is the largest reminder fee (påminnelseavgift) of an
	// item.
	MaxReminderFee Money = 6000
	// LateCompensationAmount is the fixed compensation a corporate debtor
	// owes instead of the collection fee when the terms ask for it.
	LateCompensationAmount Money = 45000
	// StatutoryMargin is what räntelagen 6 § adds to the reference rate:
	// 8.00 percentage points.
	StatutoryMargin Rate = 8 * rateScale
	// MinReferenceRate and MaxReferenceRate bound a reference rate: it has
	// been negative (−0.50 % in 2016–2019), so a negative value is valid.
	MinReferenceRate Rate = -10 * rateScale
	MaxReferenceRate Rate = 50 * rateScale
)

// InterestRule says which interest an item without an agreed rate bears.
type InterestRule int

// Interest rules. The zero value is InterestNone, so that terms that say
// nothing charge no interest.
const (
	InterestNone      InterestRule = 0
	InterestStatutory InterestRule = 1
)

// FeeKind is what a fee is charged for.
type FeeKind int

// Fee kinds.
const (
	ReminderFee                FeeKind = 1
	CollectionFee              FeeKind = 2
	LateCompensationFee        FeeKind = 3
	PaymentOrderFee            FeeKind = 4
	PaymentOrderApplicationFee FeeKind = 5
)

// The GraphQL names join status.go's table, so that the one set of
// helpers (String, MarshalGQL, UnmarshalGQL, StatusCodes) serves them too.
func init() {
	enumNames["InterestRule"] = map[int]string{0: "NONE", 1: "STATUTORY"}
	enumNames["FeeKind"] = map[int]string{1: "REMINDER_FEE", 2: "COLLECTION_FEE", 3: "LATE_COMPENSATION",
		4: "PAYMENT_ORDER_FEE", 5: "PAYMENT_ORDER_APPLICATION_FEE"}
}

// String returns the GraphQL name of r.
func (r InterestRule) String() string { return enumName("InterestRule", int(r)) }

// MarshalGQL writes the GraphQL name of r.
func (r InterestRule) MarshalGQL(w io.Writer) { writeEnum(w, "InterestRule", int(r)) }

// UnmarshalGQL reads a GraphQL name; on error *r is left as it was (0 is a
// valid rule here, unlike the status codes).
func (r *InterestRule) UnmarshalGQL(v any) error {
	c, err := enumCode("InterestRule", v)
	if err != nil {
		return err
	}
	*r = InterestRule(c)
	return nil
}

// String returns the GraphQL name of k.
func (k FeeKind) String() string { return enumName("FeeKind", int(k)) }

// MarshalGQL writes the GraphQL name of k.
func (k FeeKind) MarshalGQL(w io.Writer) { writeEnum(w, "FeeKind", int(k)) }

// UnmarshalGQL reads a GraphQL name; on error *k is left as it was.
func (k *FeeKind) UnmarshalGQL(v any) error {
	c, err := enumCode("FeeKind", v)
	if err != nil {
		return err
	}
	*k = FeeKind(c)
	return nil
}

func (r InterestRule) known() bool { return r == InterestNone || r == InterestStatutory }

func (k FeeKind) known() bool { return ReminderFee <= k && k <= PaymentOrderApplicationFee }

// Terms are a debt's collection terms.
type Terms struct {
	Interest         InterestRule
	CollectionFee    Money // 0.00–180.00; 0.00 charges none
	LateCompensation bool  // a corporate debtor owes LateCompensationAmount instead of the collection fee
}

// Check checks the terms' bounds; errors name the field (collectionFee).
func (t Terms) Check() error {
	var c fieldCheck
	t.check(&c, "")
	return c.err()
}

func (t Terms) check(c *fieldCheck, prefix string) {
	c.moneyRange(prefix+"collectionFee", t.CollectionFee, MaxCollectionFee)
}

// CheckItemTerms checks an item's optional agreed interest rate (percent
// per year, 0–100; Rate has 4 decimals at most by construction) and
// reminder fee (0.00–60.00). Errors name interestRate and reminderFee; a
// caller prefixes them with the item's path (apierr.Prefix).
func CheckItemTerms(interestRate *Rate, reminderFee *Money) error {
	var c fieldCheck
	checkItemTerms(&c, "", interestRate, reminderFee)
	return c.err()
}

func checkItemTerms(c *fieldCheck, prefix string, interestRate *Rate, reminderFee *Money) {
	if interestRate != nil {
		c.percent(prefix+"interestRate", *interestRate)
	}
	if reminderFee != nil {
		c.moneyRange(prefix+"reminderFee", *reminderFee, MaxReminderFee)
	}
}

// moneyRange checks that m is from 0.00 to hi.
func (c *fieldCheck) moneyRange(field string, m, hi Money) {
	if m < 0 || m > hi {
		c.errs.Add(field, "must be from 0.00 to %s", hi)
	}
}

// ReferenceRate is the Riksbank's reference rate from ValidFrom until the
// next entry's ValidFrom.
type ReferenceRate struct {
	ValidFrom scalar.Date
	Rate      Rate
}

// Check checks one entry: a rate from −10 to 50 percent with at most 2
// decimals (the Riksbank publishes two), valid from 1 January or 1 July
// (the rate is set per half-year). Errors name validFrom and rate.
func (r ReferenceRate) Check() error {
	var c fieldCheck
	if r.Rate < MinReferenceRate || r.Rate > MaxReferenceRate {
		c.errs.Add("rate", "must be a percentage from %s to %s", MinReferenceRate, MaxReferenceRate)
	} else if r.Rate%100 != 0 {
		c.errs.Add("rate", "must have at most 2 decimals")
	}
	// Start in UTC is the date's own midnight, whose fields are the date's.
	if _, m, d := r.ValidFrom.Start(time.UTC).Date(); d != 1 || (m != time.January && m != time.July) {
		c.errs.Add("validFrom", "must be 1 January or 1 July")
	}
	return c.err()
}

// Fee is one fee charged on a debt.
type Fee struct {
	Kind      FeeKind
	Amount    Money
	ChargedOn scalar.Date
}

// HandoverFees returns the fees charged when the collection demand is
// sent: each item's reminder fee (in the order given), then the
// collection fee, or for a corporate debtor under LateCompensation terms
// the late-payment compensation instead of it, whatever the collection fee
// is. A fee of 0.00 is not charged.
func HandoverFees(t Terms, reminderFees []Money, corporate bool, demandSentOn scalar.Date) []Fee {
	var fees []Fee
	add := func(k FeeKind, m Money) {
		if m != 0 {
			fees = append(fees, Fee{Kind: k, Amount: m, ChargedOn: demandSentOn})
		}
	}
	for _, m := range reminderFees {
		add(ReminderFee, m)
	}
	if corporate && t.LateCompensation {
		add(LateCompensationFee, LateCompensationAmount)
	} else {
		add(CollectionFee, t.CollectionFee)
	}
	return fees
}

// PaymentOrderAmounts are what the payment-order step (betalningsföreläggande)
// charges, as configured: today 300.00 and 380.00.
type PaymentOrderAmounts struct {
	Fee            Money // PAYMENT_ORDER_FEE
	ApplicationFee Money // PAYMENT_ORDER_APPLICATION_FEE
}

// DefaultPaymentOrderAmounts are the amounts of today: Kronofogden's fee
// of 300 kr and 380 kr for the agent's work on the application.
var DefaultPaymentOrderAmounts = PaymentOrderAmounts{Fee: 300_00, ApplicationFee: 380_00}

// Check checks that each amount is within 0.00–10,000.00; errors name the
// field (fee, applicationFee).
func (a PaymentOrderAmounts) Check() error {
	var c fieldCheck
	for _, f := range []struct {
		name string
		m    Money
	}{{"fee", a.Fee}, {"applicationFee", a.ApplicationFee}} {
		if f.m < 0 || f.m > 10_000_00 {
			c.errs.Add(f.name, "must be from 0.00 to 10000.00")
		}
	}
	return c.err()
}

// PaymentOrderFees returns the fees of the payment-order step taken on
// day, the fee before the application fee; a fee of 0.00 is not charged.
func PaymentOrderFees(a PaymentOrderAmounts, day scalar.Date) []Fee {
	var fees []Fee
	if a.Fee != 0 {
		fees = append(fees, Fee{Kind: PaymentOrderFee, Amount: a.Fee, ChargedOn: day})
	}
	if a.ApplicationFee != 0 {
		fees = append(fees, Fee{Kind: PaymentOrderApplicationFee, Amount: a.ApplicationFee, ChargedOn: day})
	}
	return fees
}

// InterestBearing reports whether interest can accrue on a debt under t
// whose items have the agreed rates given (nil: none agreed): its rule is
// STATUTORY, or an item has an agreed rate above 0. Only such a debt's
// claim changes with the dates of its payments; every other debt's charged
// amount is its principal and fees.
func InterestBearing(t Terms, agreed []*Rate) bool {
	if t.Interest == InterestStatutory {
		return true
	}
	for _, r := range agreed {
		if r != nil && *r > 0 {
			return true
		}
	}
	return false
}
