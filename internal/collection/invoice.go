package collection

import (
	"github.com/debtql/debtql/internal/scalar"
)

// MaxRoundingDifference is how far an invoice's total including VAT may be
// from its total excluding VAT plus its VAT (api.md §5: within 1.00,
// inclusive), so that totals rounded to whole kronor are accepted.
const MaxRoundingDifference Money = 100

// Percent bounds for rates (api.md §5).
var (
	zeroPercent    Rate
	hundredPercent = Rate(100 * rateScale)
)

const rateScale = 10000

// InvoiceRecord is an invoice as the payload of "Add an invoice" has it.
// Amounts are money (at most 2 decimals); interestRate is percent per year.
type InvoiceRecord struct {
	InvoiceNumber           string          `json:"invoiceNumber"`
	InvoiceDate             scalar.Date     `json:"invoiceDate"`
	DaysUntilExpiration     int             `json:"daysUntilExpiration"`
	DueDate                 scalar.Date     `json:"dueDate"`
	InterestRate            *Rate           `json:"interestRate,omitempty"`
	TotalExcludingVAT       Money           `json:"totalExcludingVAT"`
	TotalVATAmount          Money           `json:"totalVATAmount"`
	TotalAmountIncludingVAT Money           `json:"totalAmountIncludingVAT"`
	ReminderDate            *scalar.Date    `json:"reminderDate,omitempty"`
	ReminderFee             *Money          `json:"reminderFee,omitempty"`
	Articles                []ArticleRecord `json:"articles"`
}

// ArticleRecord is one line of an invoice. Quantity may be fractional (up to
// 4 decimals); vatPercentage is percent; discount is an amount of money.
type ArticleRecord struct {
	Name                    string  `json:"name"`
	Description             *string `json:"description,omitempty"`
	PriceExcludingVAT       Money   `json:"priceExcludingVAT"`
	TotalVATAmount          Money   `json:"totalVATAmount"`
	TotalAmountIncludingVAT Money   `json:"totalAmountIncludingVAT"`
	TotalAmountExcludingVAT Money   `json:"totalAmountExcludingVAT"`
	Quantity                Rate    `json:"quantity"`
	VATPercentage           Rate    `json:"vatPercentage"`
	Discount                Money   `json:"discount"`
}

// Normalize trims the record and checks the rules of api.md §5: a
// non-blank invoice number, dueDate not before invoiceDate (nor a reminder
// before the invoice), daysUntilExpiration ≥ 0, amounts ≥ 0, a positive
// total that equals total excluding VAT plus VAT within 1.00, an interest
// rate of 0–100 %, and at least one valid article. Every amount is at
// most MaxAmount; the totals are compared exactly, whatever their size.
// Nothing multiplies (quantity × price is not checked against the
// article's totals), so no product can overflow.
func (r *InvoiceRecord) Normalize() error {
	var c fieldCheck
	c.required("invoiceNumber", &r.InvoiceNumber, MaxStringLength)
	if r.DueDate.Before(r.InvoiceDate) {
		c.errs.Add("dueDate", "must not be before invoiceDate (%s)", r.InvoiceDate)
	}
	if r.ReminderDate != nil && r.ReminderDate.Before(r.InvoiceDate) {
		c.errs.Add("reminderDate", "must not be before invoiceDate (%s)", r.InvoiceDate)
	}
	if r.DaysUntilExpiration < 0 {
		c.errs.Add("daysUntilExpiration", "must be 0 or more")
	}
	c.nonNegative("totalExcludingVAT", r.TotalExcludingVAT)
	c.nonNegative("totalVATAmount", r.TotalVATAmount)
	if r.ReminderFee != nil {
		c.nonNegative("reminderFee", *r.ReminderFee)
	}
	if r.TotalAmountIncludingVAT <= 0 {
		c.errs.Add("totalAmountIncludingVAT", "must be more than 0")
	} else if parts := TotalOf(r.TotalExcludingVAT, r.TotalVATAmount); !withinRounding(TotalOf(r.TotalAmountIncludingVAT), parts) {
		// Exact (Total): the parts may each be up to MaxAmount.
		c.errs.Add("totalAmountIncludingVAT", "must equal totalExcludingVAT + totalVATAmount (%s) within %s, but is %s",
			parts.Clamped(), MaxRoundingDifference, r.TotalAmountIncludingVAT)
	}
	c.ceiling("totalAmountIncludingVAT", r.TotalAmountIncludingVAT)
	if r.InterestRate != nil {
		c.percent("interestRate", *r.InterestRate)
	}
	if len(r.Articles) == 0 {
		c.errs.Add("articles", "must hold at least one article")
	}
	for i := range r.Articles {
		r.Articles[i].check(&c, "articles."+itoa(i)+".")
	}
	return c.err()
}

// withinRounding reports whether a and b differ by at most
// MaxRoundingDifference.
func withinRounding(a, b Total) bool {
	return a.Plus(MaxRoundingDifference).Cmp(b) >= 0 && b.Plus(MaxRoundingDifference).Cmp(a) >= 0
}

func (a *ArticleRecord) check(c *fieldCheck, prefix string) {
	c.required(prefix+"name", &a.Name, MaxStringLength)
	c.freeText(prefix+"description", &a.Description)
	c.nonNegative(prefix+"priceExcludingVAT", a.PriceExcludingVAT)
	c.nonNegative(prefix+"totalVATAmount", a.TotalVATAmount)
	c.nonNegative(prefix+"totalAmountIncludingVAT", a.TotalAmountIncludingVAT)
	c.nonNegative(prefix+"totalAmountExcludingVAT", a.TotalAmountExcludingVAT)
	if a.Quantity <= 0 {
		c.errs.Add(prefix+"quantity", "must be more than 0")
	}
	c.percent(prefix+"vatPercentage", a.VATPercentage)
	c.nonNegative(prefix+"discount", a.Discount)
}
