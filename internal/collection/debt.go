package collection

import (
	"errors"
	"strconv"
	"time"

	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/scalar"
)

// MaxDebtItems is how many items one debt may hold (api.md §5).
const MaxDebtItems = 1000

// DebtorWithDebtsRecord is the payload of "Create a debt": a debtor (with
// e-mail and phone at the top level) and the items handed over.
type DebtorWithDebtsRecord struct {
	IsCorporation        bool             `json:"isCorporation"`
	IdentificationNumber string           `json:"identificationNumber"`
	Name                 string           `json:"name"`
	Address              AddressRecord    `json:"address"`
	Email                *string          `json:"email,omitempty"`
	Phone                *string          `json:"phone,omitempty"`
	Debts                []DebtItemRecord `json:"debts"`
	// Terms replace the client's collection terms for this debt.
	Terms *Terms `json:"terms,omitempty"`
	// DemandSentOn is the day the collection demand was sent, for a case
	// taken over already in collection; nil: the day of the hand-over.
	DemandSentOn *scalar.Date `json:"demandSentOn,omitempty"`
}

// NormalizeAt is Normalize with the rules that need today's date: the
// demand cannot have been sent after today. Every broken field is
// reported at once.
func (r *DebtorWithDebtsRecord) NormalizeAt(today scalar.Date) error {
	var c fieldCheck
	if err := r.Normalize(); err != nil {
		if !errors.As(err, &c.errs) {
			return err
		}
	}
	if d := r.DemandSentOn; d != nil && d.After(today) {
		c.errs.Add("demandSentOn", "must not be after today (%s)", today)
	}
	return c.err()
}

// DebtItemRecord is one receivable handed over. Its dates are instants; the
// calendar date in the offset given is what counts where a date counts.
type DebtItemRecord struct {
	InvoiceNumber string              `json:"invoiceNumber"`
	Description   *string             `json:"description,omitempty"`
	InvoiceDate   time.Time           `json:"invoiceDate"`
	DueDate       time.Time           `json:"dueDate"`
	ReminderDate  *time.Time          `json:"reminderDate,omitempty"`
	Amount        Money               `json:"amount"`
	Payments      []ItemPaymentRecord `json:"payments,omitempty"`
	// InterestRate is an agreed rate, which replaces the terms' rule.
	InterestRate *Rate `json:"interestRate,omitempty"`
	// ReminderFee was charged by the creditor before hand-over.
	ReminderFee *Money `json:"reminderFee,omitempty"`
}

// ItemPaymentRecord is a payment received before hand-over.
type ItemPaymentRecord struct {
	Amount          Money      `json:"amount"`
	TransactionDate time.Time  `json:"transactionDate"`
	BookedDate      *time.Time `json:"bookedDate,omitempty"`
}

// Debtor returns the debtor part as a DebtorRecord.
func (r *DebtorWithDebtsRecord) Debtor() DebtorRecord {
	d := DebtorRecord{IsCorporation: r.IsCorporation, IdentificationNumber: r.IdentificationNumber, Name: r.Name, Address: r.Address}
	if r.Email != nil || r.Phone != nil {
		d.ContactInformation = &ContactRecord{Email: r.Email, Phone: r.Phone}
	}
	return d
}

// Normalize trims the record and checks the rules of api.md §5: the
// debtor's rules (e-mail and phone at the top level), 1 to 1,000 items with
// unique invoice numbers (a repeat is refused on the later item), amounts
// above 0 with at most 2 decimals, a due date not before the invoice date,
// and opening payments above 0 that together leave something to collect;
// and the money ceiling: the items' amounts sum to at most MaxAmount
// (refused on "debts"). The opening payments of an item sum to less than
// its amount, so the debt's paid amount is below its original amount and
// within the ceiling too.
func (r *DebtorWithDebtsRecord) Normalize() error {
	var c fieldCheck
	d := r.Debtor()
	d.check(&c, "")
	// Map the debtor's paths back to this payload's shape.
	for _, e := range c.errs {
		switch e.Field {
		case "contactInformation.email":
			e.Field = "email"
		case "contactInformation.phone":
			e.Field = "phone"
		}
	}
	r.IdentificationNumber, r.Name, r.Address = d.IdentificationNumber, d.Name, d.Address
	r.Email, r.Phone = nil, nil
	if d.ContactInformation != nil {
		r.Email, r.Phone = d.ContactInformation.Email, d.ContactInformation.Phone
	}
	switch {
	case len(r.Debts) == 0:
		c.errs.Add("debts", "must hold at least one item")
	case len(r.Debts) > MaxDebtItems:
		c.errs.Add("debts", "must hold at most %d items, not %d", MaxDebtItems, len(r.Debts))
	}
	seen := make(map[string]int, len(r.Debts))
	var total Money
	within := true // the items so far sum to at most MaxAmount
	for i := range r.Debts {
		prefix := "debts." + strconv.Itoa(i) + "."
		it := &r.Debts[i]
		it.check(&c, prefix)
		if within && it.Amount > 0 {
			total, within = total.AddChecked(it.Amount)
			within = within && total <= MaxAmount
		}
		if it.InvoiceNumber == "" {
			continue
		}
		if first, dup := seen[it.InvoiceNumber]; dup {
			c.errs.Add(prefix+"invoiceNumber", "repeats the invoice number of item %d: invoice numbers are unique within a debt", first)
		} else {
			seen[it.InvoiceNumber] = i
		}
	}
	if !within {
		c.errs.Add("debts", "the items' amounts must sum to at most %s, the largest amount a debt holds", MaxAmount)
	}
	if r.Terms != nil {
		r.Terms.check(&c, "terms.")
	}
	return c.err()
}

// Amounts returns the debt's original amount (the sum of its items'
// amounts) and its paid amount (the sum of the opening payments). For a
// record that Normalize accepted both are within MaxAmount (the paid
// amount is below the original one); for any other it may return
// ErrNotNormalized.
func (r *DebtorWithDebtsRecord) Amounts() (original, paid Money, err error) {
	for i := range r.Debts {
		it := &r.Debts[i]
		itemPaid, ok1 := SumMoney(paymentAmounts(it.Payments)...)
		var ok2, ok3 bool
		original, ok2 = original.AddChecked(it.Amount)
		paid, ok3 = paid.AddChecked(itemPaid)
		if !ok1 || !ok2 || !ok3 || original > MaxAmount || itemPaid >= it.Amount {
			return 0, 0, ErrNotNormalized
		}
	}
	return original, paid, nil
}

// ErrNotNormalized: a record's amounts break the rules Normalize checks.
var ErrNotNormalized = errors.New("collection: the record's amounts were not checked by Normalize")

func paymentAmounts(ps []ItemPaymentRecord) []Money {
	out := make([]Money, len(ps))
	for i, p := range ps {
		out[i] = p.Amount
	}
	return out
}

func (it *DebtItemRecord) check(c *fieldCheck, prefix string) {
	c.required(prefix+"invoiceNumber", &it.InvoiceNumber, MaxStringLength)
	c.freeText(prefix+"description", &it.Description)
	if scalar.DateOf(it.DueDate).Before(scalar.DateOf(it.InvoiceDate)) {
		c.errs.Add(prefix+"dueDate", "must not be before invoiceDate")
	}
	c.amount(prefix+"amount", it.Amount)
	checkItemTerms(c, prefix, it.InterestRate, it.ReminderFee)
	// The payments' sum is checked: many large payments must not wrap
	// around to a sum below the item's amount.
	var paid Money
	exact := true
	for j, p := range it.Payments {
		c.amount(prefix+"payments."+strconv.Itoa(j)+".amount", p.Amount)
		if exact && p.Amount > 0 {
			paid, exact = paid.AddChecked(p.Amount)
		}
	}
	switch {
	case it.Amount <= 0:
	case !exact:
		c.errs.Add(prefix+"payments", "must together be less than the item's amount (%s), since a debt handed over must leave something to collect; they are far more", it.Amount)
	case paid >= it.Amount:
		c.errs.Add(prefix+"payments", "must together be less than the item's amount (%s), since a debt handed over must leave something to collect; they are %s", it.Amount, paid)
	}
}

// Paid is the sum of the item's opening payments: exact, and below the
// item's amount, for an item that Normalize accepted.
func (it *DebtItemRecord) Paid() Money {
	var paid Money
	for _, p := range it.Payments {
		paid += p.Amount
	}
	return paid
}

// PaymentRecord is the payload of "Add payment to a debt".
type PaymentRecord struct {
	DebtID          scalar.IntID `json:"debtId"`
	Amount          Money        `json:"amount"`
	TransactionDate scalar.Date  `json:"transactionDate"`
	InvoiceID       scalar.IntID `json:"invoiceId"`
}

// Check checks the rules of api.md §5 that need no database: an amount
// above 0 (and at most MaxAmount) and a transaction date not after
// tomorrow (the payer's bank may be a time zone ahead). That the debt's
// paid amount stays within MaxAmount is checked where the payment is
// booked, under the debt's row lock (PaidWithin).
func (r *PaymentRecord) Check(now Now) error {
	var c fieldCheck
	c.amount("amount", r.Amount)
	if tomorrow := now.Today.AddDays(1); r.TransactionDate.After(tomorrow) {
		c.errs.Add("transactionDate", "must not be after tomorrow (%s)", tomorrow)
	}
	return c.err()
}

// PaidWithin reports whether a payment of amount on a debt whose paid
// amount is paid keeps that paid amount within MaxAmount.
func PaidWithin(paid, amount Money) bool {
	sum, ok := paid.AddChecked(amount)
	return ok && sum <= MaxAmount
}

// ErrPaidAboveCeiling refuses a payment that would take a debt's paid
// amount (paid before it) above MaxAmount: BAD_USER_INPUT on amount.
func ErrPaidAboveCeiling(debtPaid Money) error {
	return apierr.Invalid("amount", "would take the debt's paid amount (%s) above %s, the largest amount a debt holds; at most %s can still be paid",
		debtPaid, MaxAmount, MaxAmount-min(max(debtPaid, 0), MaxAmount))
}
