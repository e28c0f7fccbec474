// Package audit holds what the audit trail records of a record's state: the
// statuses before and after a mutation. The events themselves are the ent
// entities AuditEvent and AuditEventRecord (ent/schema), written by the
// resolvers in the transaction of the change they describe.
package audit

import (
	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/internal/collection"
)

// Statuses is a record's statuses at one moment, as the API showed them
// then. Only the fields of the record's kind are set: a debt's
// paymentStatus, mainStatus, underStatus, activeStatus and paidAmount; an
// invoice's invoiceStatus, invoiceProcessStatus, paymentStatus and
// activeStatus; an API key's activeStatus (INACTIVE once revoked). It is
// stored as JSON with the statuses' codes (api.md §8) and money in öre.
type Statuses struct {
	PaymentStatus        *collection.PaymentStatus        `json:"paymentStatus,omitempty"`
	MainStatus           *collection.CollectionStage      `json:"mainStatus,omitempty"`
	UnderStatus          *collection.CollectionSubStatus  `json:"underStatus,omitempty"`
	ActiveStatus         *collection.ActiveStatus         `json:"activeStatus,omitempty"`
	InvoiceStatus        *collection.InvoiceStatus        `json:"invoiceStatus,omitempty"`
	InvoiceProcessStatus *collection.InvoiceProcessStatus `json:"invoiceProcessStatus,omitempty"`
	PaidAmount           *collection.Money                `json:"paidAmount,omitempty"`
	IsDisputed           *bool                            `json:"isDisputed,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// Debt is a debt's statuses from its projection, paid amount and dispute.
func Debt(p collection.DebtProjection, paid collection.Money, disputed bool) *Statuses {
	return &Statuses{
		PaymentStatus: ptr(p.Payment),
		MainStatus:    ptr(p.Main),
		UnderStatus:   ptr(p.Under),
		ActiveStatus:  ptr(p.Active),
		PaidAmount:    ptr(paid),
		IsDisputed:    ptr(disputed),
	}
}

// Invoice is an invoice's statuses from its projection.
func Invoice(p collection.InvoiceProjection) *Statuses {
	return &Statuses{
		InvoiceStatus:        ptr(p.Status),
		InvoiceProcessStatus: ptr(p.Process),
		PaymentStatus:        ptr(p.Payment),
		ActiveStatus:         ptr(p.Active),
	}
}

// Key is an API key's status: ACTIVE until it is revoked.
func Key(revoked bool) *Statuses {
	if revoked {
		return &Statuses{ActiveStatus: ptr(collection.Inactive)}
	}
	return &Statuses{ActiveStatus: ptr(collection.Active)}
}

// DebtSQL is the PostgreSQL expression (jsonb) of Debt's statuses for the
// debt whose charged and paid amounts are the SQL expressions given and
// whose other columns are those of the table alias row, at now: the same
// JSON as Debt(collection.ProjectDebt(...), paid, disputed) would store,
// computed in the statement that changes the paid amount, so that the
// statuses are those of the sum it wrote under the row lock.
func DebtSQL(charged, paid, row string, now collection.Now) collection.Expr {
	payment, main, under, active := collection.DebtStatusExprs(charged, paid, row, now)
	return func(b *sql.Builder) {
		b.WriteString("jsonb_build_object('paymentStatus', ")
		payment(b)
		b.WriteString(", 'mainStatus', ")
		main(b)
		b.WriteString(", 'underStatus', ")
		under(b)
		b.WriteString(", 'activeStatus', ")
		active(b)
		b.WriteString(", 'paidAmount', ").WriteString(paid)
		b.WriteString(", 'isDisputed', ").WriteString(row + ".disputed_at IS NOT NULL)")
	}
}
