package collection

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/debtql/debtql/internal/scalar"
)

// The status enums of api.md §8. Each value has a stable integer code (the
// interface description's int32 filters); codes are never reused. They are
// derived from facts (amounts, payments, dates, withdrawal) at the current
// date, never stored.

// PaymentStatus says how much of an amount is paid.
type PaymentStatus int

// Payment statuses.
const (
	Unpaid        PaymentStatus = 1
	PartiallyPaid PaymentStatus = 2
	Paid          PaymentStatus = 3
	Overpaid      PaymentStatus = 4
)

// CollectionStage is the main status of a collection case (and of an
// invoice's receivable).
type CollectionStage int

// Collection stages.
const (
	StageInvoicing  CollectionStage = 100
	StageCollection CollectionStage = 300
	StageLegal      CollectionStage = 400
	StageClosed     CollectionStage = 900
)

// CollectionSubStatus refines a CollectionStage.
type CollectionSubStatus int

// Collection sub-statuses.
const (
	SubNotDue        CollectionSubStatus = 101
	SubOverdue       CollectionSubStatus = 102
	SubReminded      CollectionSubStatus = 103
	SubDemandSent    CollectionSubStatus = 301
	SubDemandExpired CollectionSubStatus = 302
	// SubPaymentOrderApplied: an application for a payment order
	// (betalningsföreläggande) was made (api.md §11).
	SubPaymentOrderApplied CollectionSubStatus = 401
	SubPaidInFull          CollectionSubStatus = 901
	SubWithdrawn           CollectionSubStatus = 902
)

// InvoiceStatus is the status of a registered invoice.
type InvoiceStatus int

// Invoice statuses.
const (
	InvoiceOpen        InvoiceStatus = 1
	InvoiceOverdue     InvoiceStatus = 2
	InvoicePaid        InvoiceStatus = 3
	InvoiceWithdrawn   InvoiceStatus = 4
	InvoiceTransferred InvoiceStatus = 5
)

// InvoiceProcessStatus is where an invoice is in its process.
type InvoiceProcessStatus int

// Invoice process statuses.
const (
	ProcessAwaitingDue      InvoiceProcessStatus = 100
	ProcessDueDatePassed    InvoiceProcessStatus = 200
	ProcessReminderSent     InvoiceProcessStatus = 300
	ProcessSentToCollection InvoiceProcessStatus = 500
	ProcessClosed           InvoiceProcessStatus = 900
)

// ActiveStatus says whether a record still needs work.
type ActiveStatus int

// Active statuses.
const (
	Active   ActiveStatus = 1
	Inactive ActiveStatus = 2
)

// enumNames maps each status code to its GraphQL name.
var enumNames = map[string]map[int]string{
	"PaymentStatus":   {1: "UNPAID", 2: "PARTIALLY_PAID", 3: "PAID", 4: "OVERPAID"},
	"CollectionStage": {100: "INVOICING", 300: "COLLECTION", 400: "LEGAL", 900: "CLOSED"},
	"CollectionSubStatus": {101: "NOT_DUE", 102: "OVERDUE", 103: "REMINDED", 301: "DEMAND_SENT",
		302: "DEMAND_EXPIRED", 401: "PAYMENT_ORDER_APPLIED", 901: "PAID_IN_FULL", 902: "WITHDRAWN"},
	"InvoiceStatus": {1: "OPEN", 2: "OVERDUE", 3: "PAID", 4: "WITHDRAWN", 5: "TRANSFERRED_TO_COLLECTION"},
	"InvoiceProcessStatus": {100: "AWAITING_DUE", 200: "DUE_DATE_PASSED", 300: "REMINDER_SENT",
		500: "SENT_TO_COLLECTION", 900: "CLOSED"},
	"ActiveStatus": {1: "ACTIVE", 2: "INACTIVE"},
}

// StatusCodes returns the codes and GraphQL names of the enum named enum,
// for documentation and tests.
func StatusCodes(enum string) map[int]string { return enumNames[enum] }

func enumName(enum string, code int) string {
	if name, ok := enumNames[enum][code]; ok {
		return name
	}
	return "UNKNOWN_" + strconv.Itoa(code)
}

func enumCode(enum string, v any) (int, error) {
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("must be a %s name", enum)
	}
	for code, name := range enumNames[enum] {
		if name == s {
			return code, nil
		}
	}
	return 0, fmt.Errorf("%q is not a %s", s, enum)
}

func writeEnum(w io.Writer, enum string, code int) {
	var a [40]byte
	_, _ = w.Write(strconv.AppendQuote(a[:0], enumName(enum, code)))
}

// AppendEnumJSON appends the GraphQL name of an enum value, quoted, as its
// MarshalGQL writes it.
func AppendEnumJSON(dst []byte, enum string, code int) []byte {
	return strconv.AppendQuote(dst, enumName(enum, code))
}

// String returns the GraphQL name of s.
func (s PaymentStatus) String() string { return enumName("PaymentStatus", int(s)) }

// MarshalGQL writes the GraphQL name of s.
func (s PaymentStatus) MarshalGQL(w io.Writer) { writeEnum(w, "PaymentStatus", int(s)) }

// UnmarshalGQL reads a GraphQL name.
func (s *PaymentStatus) UnmarshalGQL(v any) error {
	c, err := enumCode("PaymentStatus", v)
	*s = PaymentStatus(c)
	return err
}

// String returns the GraphQL name of s.
func (s CollectionStage) String() string { return enumName("CollectionStage", int(s)) }

// MarshalGQL writes the GraphQL name of s.
func (s CollectionStage) MarshalGQL(w io.Writer) { writeEnum(w, "CollectionStage", int(s)) }

// UnmarshalGQL reads a GraphQL name.
func (s *CollectionStage) UnmarshalGQL(v any) error {
	c, err := enumCode("CollectionStage", v)
	*s = CollectionStage(c)
	return err
}

// String returns the GraphQL name of s.
func (s CollectionSubStatus) String() string { return enumName("CollectionSubStatus", int(s)) }

// MarshalGQL writes the GraphQL name of s.
func (s CollectionSubStatus) MarshalGQL(w io.Writer) { writeEnum(w, "CollectionSubStatus", int(s)) }

// UnmarshalGQL reads a GraphQL name.
func (s *CollectionSubStatus) UnmarshalGQL(v any) error {
	c, err := enumCode("CollectionSubStatus", v)
	*s = CollectionSubStatus(c)
	return err
}

// String returns the GraphQL name of s.
func (s InvoiceStatus) String() string { return enumName("InvoiceStatus", int(s)) }

// MarshalGQL writes the GraphQL name of s.
func (s InvoiceStatus) MarshalGQL(w io.Writer) { writeEnum(w, "InvoiceStatus", int(s)) }

// UnmarshalGQL reads a GraphQL name.
func (s *InvoiceStatus) UnmarshalGQL(v any) error {
	c, err := enumCode("InvoiceStatus", v)
	*s = InvoiceStatus(c)
	return err
}

// String returns the GraphQL name of s.
func (s InvoiceProcessStatus) String() string { return enumName("InvoiceProcessStatus", int(s)) }

// MarshalGQL writes the GraphQL name of s.
func (s InvoiceProcessStatus) MarshalGQL(w io.Writer) { writeEnum(w, "InvoiceProcessStatus", int(s)) }

// UnmarshalGQL reads a GraphQL name.
func (s *InvoiceProcessStatus) UnmarshalGQL(v any) error {
	c, err := enumCode("InvoiceProcessStatus", v)
	*s = InvoiceProcessStatus(c)
	return err
}

// String returns the GraphQL name of s.
func (s ActiveStatus) String() string { return enumName("ActiveStatus", int(s)) }

// MarshalGQL writes the GraphQL name of s.
func (s ActiveStatus) MarshalGQL(w io.Writer) { writeEnum(w, "ActiveStatus", int(s)) }

// UnmarshalGQL reads a GraphQL name.
func (s *ActiveStatus) UnmarshalGQL(v any) error {
	c, err := enumCode("ActiveStatus", v)
	*s = ActiveStatus(c)
	return err
}

// Now is the moment statuses are evaluated at: the current date in the
// service's time zone, which is also where a debt's creation date is read.
type Now struct {
	Today    scalar.Date
	Location *time.Location
}

// PaymentOf compares what is paid with what is owed (owed > 0).
func PaymentOf(owed, paid Money) PaymentStatus {
	return paymentOf(cmp.Compare(paid, 0), cmp.Compare(paid, owed))
}

// PaymentOfTotals is PaymentOf for sums of any size.
func PaymentOfTotals(owed, paid Total) PaymentStatus {
	return paymentOf(paid.Sign(), paid.Cmp(owed))
}

// paymentOf is PaymentOf from the sign of paid and of paid - owed.
func paymentOf(paidSign, paidVsOwed int) PaymentStatus {
	switch {
	case paidSign <= 0:
		return Unpaid
	case paidVsOwed < 0:
		return PartiallyPaid
	case paidVsOwed == 0:
		return Paid
	default:
		return Overpaid
	}
}

// DemandDays is the debtor's time to pay a collection demand: a debt is
// DEMAND_SENT during the 8 days after the day its demand was sent (god
// inkassosed), DEMAND_EXPIRED after them.
const DemandDays = 8

// DebtFacts are what a debt's statuses derive from.
type DebtFacts struct {
	ID int
	// Charged is what the debt's claim has charged (principal, fees and
	// interest) as of its last payment or charge: the original amount
	// under default terms (api.md §10, "Part-one fields under part two").
	Charged   Money
	Paid      Money
	Withdrawn bool
	// CreatedAt orders a debtor's debts; DemandSentAt is the start of the
	// day the collection demand was sent (the creation instant when none
	// was given), from which DEMAND_SENT lasts DemandDays.
	CreatedAt    time.Time
	DemandSentAt time.Time
	// PaymentOrder: a payment order was applied for (LEGAL).
	PaymentOrder bool
}

// settle splits what was paid (paid ≥ 0) against what was charged
// (charged ≥ 0): the part that paid charges, what stays outstanding, and
// the credit beyond. A debt's remainingAmount and overpaidAmount, and a
// claim that is its principal alone (PlainClaim), are these.
func settle(charged, paid Money) (applied, outstanding, credit Money) {
	applied = min(paid, charged)
	return applied, charged - applied, paid - applied
}

// DebtProjection is a debt's statuses and amounts at a moment.
type DebtProjection struct {
	Payment     PaymentStatus
	Main        CollectionStage
	Under       CollectionSubStatus
	Active      ActiveStatus
	IsCompleted bool
	Remaining   Money
	Overpaid    Money
}

// ProjectDebt derives a debt's statuses at now (api.md §8 and §11). A debt
// is closed when withdrawn or when nothing it was charged is outstanding
// (paid >= charged); what was paid beyond that is credit (OVERPAID).
func ProjectDebt(f DebtFacts, now Now) DebtProjection {
	_, remaining, overpaid := settle(f.Charged, f.Paid)
	s := DebtProjection{Payment: PaymentOf(f.Charged, f.Paid), Remaining: remaining, Overpaid: overpaid}
	switch {
	case f.Withdrawn:
		s.Main, s.Under = StageClosed, SubWithdrawn
	case f.Paid >= f.Charged:
		s.Main, s.Under = StageClosed, SubPaidInFull
	case f.PaymentOrder:
		s.Main, s.Under = StageLegal, SubPaymentOrderApplied
	case DemandExpired(f.DemandSentAt, now):
		s.Main, s.Under = StageCollection, SubDemandExpired
	default:
		s.Main, s.Under = StageCollection, SubDemandSent
	}
	s.IsCompleted = s.Main == StageClosed
	s.Active = Active
	if s.IsCompleted {
		s.Active = Inactive
	}
	return s
}

// DemandExpired reports whether a demand sent at sentAt (the start of its
// day, or the creation instant) has run out at now: its date (in the
// service's zone) plus DemandDays is before today.
func DemandExpired(sentAt time.Time, now Now) bool {
	return scalar.DateOf(sentAt.In(now.Location)).AddDays(DemandDays).Before(now.Today)
}

// DemandExpiryBoundary is the instant before which a demand must have been
// sent for it to have expired at now; DemandExpired(t, now) is
// t.Before(DemandExpiryBoundary(now)). Filters compare demand_sent_at with
// it.
func DemandExpiryBoundary(now Now) time.Time {
	return now.Today.AddDays(-DemandDays).Start(now.Location).UTC()
}

// InvoiceFacts are what an invoice's statuses derive from.
type InvoiceFacts struct {
	Total        Money
	Paid         Money // payments on debt items carrying its number in its client's debts (Total.Clamped)
	DueDate      scalar.Date
	ReminderDate *scalar.Date
	Withdrawn    bool
	// Holding is the projection of the unwithdrawn debt that holds the
	// invoice, if any.
	Holding *DebtProjection
}

// InvoiceProjection is an invoice's statuses and amounts at a moment.
type InvoiceProjection struct {
	Status         InvoiceStatus
	Process        InvoiceProcessStatus
	Payment        PaymentStatus
	ReceivableMain CollectionStage
	ReceivableSub  CollectionSubStatus
	Active         ActiveStatus
	IsCompleted    bool
	Remaining      Money
}

// ProjectInvoice derives an invoice's statuses at now (api.md §8).
func ProjectInvoice(f InvoiceFacts, now Now) InvoiceProjection {
	_, remaining, _ := settle(f.Total, f.Paid)
	p := InvoiceProjection{Payment: PaymentOf(f.Total, f.Paid), Remaining: remaining, Active: Active}
	overdue := now.Today.After(f.DueDate)
	reminded := f.ReminderDate != nil && !now.Today.Before(*f.ReminderDate)
	switch {
	case f.Withdrawn:
		p.Status = InvoiceWithdrawn
	case f.Paid >= f.Total:
		p.Status = InvoicePaid
	case f.Holding != nil:
		p.Status = InvoiceTransferred
	case overdue:
		p.Status = InvoiceOverdue
	default:
		p.Status = InvoiceOpen
	}
	switch p.Status {
	case InvoiceWithdrawn:
		p.Process, p.ReceivableMain, p.ReceivableSub, p.Active = ProcessClosed, StageClosed, SubWithdrawn, Inactive
	case InvoicePaid:
		p.Process, p.ReceivableMain, p.ReceivableSub, p.Active = ProcessClosed, StageClosed, SubPaidInFull, Inactive
	case InvoiceTransferred:
		p.Process, p.ReceivableMain, p.ReceivableSub = ProcessSentToCollection, f.Holding.Main, f.Holding.Under
	case InvoiceOverdue, InvoiceOpen:
		p.ReceivableMain = StageInvoicing
		switch {
		case reminded:
			p.Process, p.ReceivableSub = ProcessReminderSent, SubReminded
		case overdue:
			p.Process, p.ReceivableSub = ProcessDueDatePassed, SubOverdue
		default:
			p.Process, p.ReceivableSub = ProcessAwaitingDue, SubNotDue
		}
	}
	p.IsCompleted = p.Status == InvoicePaid || p.Status == InvoiceWithdrawn || p.Status == InvoiceTransferred
	return p
}

// DebtorProjection is a debtor's statuses over its debts at a moment.
type DebtorProjection struct {
	// ErrandStatus and ErrandProcessStatus are those of the errand debt;
	// nil without debts.
	ErrandStatus        *CollectionStage
	ErrandProcessStatus *CollectionSubStatus
	// Payment is over the sums of the unwithdrawn debts; nil without any.
	Payment     *PaymentStatus
	IsCompleted bool
}

// ProjectDebtor derives a debtor's statuses from its debts at now (api.md
// §8). The errand debt is the most recently created open debt, or the latest
// debt when all are closed (ties broken by the higher id).
func ProjectDebtor(debts []DebtFacts, now Now) DebtorProjection {
	var (
		p                 DebtorProjection
		errand            *DebtFacts
		errandOpen        bool
		owed, paid        Total // of any number of debts: exact
		unwithdrawn, open int
	)
	later := func(a, b *DebtFacts) bool {
		return a.CreatedAt.After(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID > b.ID)
	}
	for i := range debts {
		d := &debts[i]
		isOpen := !ProjectDebt(*d, now).IsCompleted
		if isOpen {
			open++
		}
		switch {
		case errand == nil, isOpen && !errandOpen, isOpen == errandOpen && later(d, errand):
			errand, errandOpen = d, isOpen
		}
		if !d.Withdrawn {
			unwithdrawn++
			owed, paid = owed.Plus(d.Charged), paid.Plus(d.Paid)
		}
	}
	if errand != nil {
		e := ProjectDebt(*errand, now)
		p.ErrandStatus, p.ErrandProcessStatus = &e.Main, &e.Under
	}
	if unwithdrawn > 0 {
		ps := PaymentOfTotals(owed, paid)
		p.Payment = &ps
	}
	p.IsCompleted = len(debts) > 0 && open == 0
	return p
}
