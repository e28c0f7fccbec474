package ledger

import (
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent/auditevent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtitem"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/ent/invoice"
	"github.com/debtql/debtql/ent/invoicearticle"
	"github.com/debtql/debtql/ent/predicate"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// The filters of the lists (api.md §7), as the GraphQL inputs of the same
// names carry them: every given field must match.

// DebtFilter is which debts to list.
type DebtFilter struct {
	// Debts whose activeStatus reads this.
	ActiveStatus *collection.ActiveStatus `json:"activeStatus,omitempty"`
	// Debts whose mainStatus reads this.
	MainStatus *collection.CollectionStage `json:"mainStatus,omitempty"`
	// Debts whose underStatus reads this.
	UnderStatus *collection.CollectionSubStatus `json:"underStatus,omitempty"`
	// Debts whose paymentStatus reads this.
	PaymentStatus *collection.PaymentStatus `json:"paymentStatus,omitempty"`
	// Debts whose isDisputed reads this.
	IsDisputed *bool `json:"isDisputed,omitempty"`
	// Which fields SearchTerm looks at (default ALL): the debtor's NAME, IDENTIFICATION_NUMBER and EMAIL, the items' INVOICE_NUMBER, or the DEBT_ID exactly.
	SearchType *SearchType `json:"searchType,omitempty"`
	// Case-insensitive substring to search for; blank means no search.
	SearchTerm *string `json:"searchTerm,omitempty"`
}

// DebtorFilter is which debtors to list.
type DebtorFilter struct {
	// Debtors whose paymentStatus reads this.
	PaymentStatus *collection.PaymentStatus `json:"paymentStatus,omitempty"`
	// Debtors whose errandStatus reads this.
	ErrandStatus *collection.CollectionStage `json:"errandStatus,omitempty"`
	// Debtors whose errandProcessStatus reads this.
	ErrandProcessStatus *collection.CollectionSubStatus `json:"errandProcessStatus,omitempty"`
	// Debtors whose isCompleted reads this.
	IsCompleted *bool `json:"isCompleted,omitempty"`
	// Debtors with a debt invoice created at or after this instant.
	InvoiceCreatedDate *time.Time `json:"invoiceCreatedDate,omitempty"`
	// Which fields SearchTerm looks at (default ALL).
	SearchType *SearchType `json:"searchType,omitempty"`
	// Case-insensitive substring to search for; blank means no search.
	SearchTerm *string `json:"searchTerm,omitempty"`
	// Debtors of the client with this client number.
	ClientNumber *int `json:"clientNumber,omitempty"`
}

// InvoiceFilter is which invoices to list.
type InvoiceFilter struct {
	// Invoices whose paymentStatus reads this.
	PaymentStatus *collection.PaymentStatus `json:"paymentStatus,omitempty"`
	// Invoices whose status reads this.
	InvoiceStatus *collection.InvoiceStatus `json:"invoiceStatus,omitempty"`
	// Invoices whose processStatus reads this.
	InvoiceProcessStatus *collection.InvoiceProcessStatus `json:"invoiceProcessStatus,omitempty"`
	// Invoices whose receivableMainStatus reads this.
	ReceivableMainStatus *collection.CollectionStage `json:"receivableMainStatus,omitempty"`
	// Invoices whose receivableSubStatus reads this.
	ReceivableSubStatus *collection.CollectionSubStatus `json:"receivableSubStatus,omitempty"`
	// Invoices whose activeStatus reads this.
	ActiveStatus *collection.ActiveStatus `json:"activeStatus,omitempty"`
	// Invoices whose isCompleted reads this.
	IsCompleted *bool `json:"isCompleted,omitempty"`
	// Invoices registered at or after this instant.
	InvoiceCreatedDate *time.Time `json:"invoiceCreatedDate,omitempty"`
	// Which fields SearchTerm looks at: INVOICE_NUMBER, NAME (article names) or ALL (both, the default).
	SearchType *SearchType `json:"searchType,omitempty"`
	// Case-insensitive substring to search for; blank means no search. Invoice numbers also match ignoring spaces and hyphens.
	SearchTerm *string `json:"searchTerm,omitempty"`
	// Invoices of the client with this client number.
	ClientNumber *int `json:"clientNumber,omitempty"`
}

// AuditEventFilter is which audit events to list.
type AuditEventFilter struct {
	// Events of this client (for key management, the key's client).
	ClientID *string `json:"clientId,omitempty"`
	// Events that touched this record.
	Record *AuditRecordRef `json:"record,omitempty"`
	// Events at or after this instant.
	From *time.Time `json:"from,omitempty"`
	// Events before this instant; not before From.
	To *time.Time `json:"to,omitempty"`
	// Events of this mutation field, such as withdrawDebt.
	Operation *string `json:"operation,omitempty"`
}

// AuditRecordRef is a record, named by its kind and id.
type AuditRecordRef struct {
	// What kind of record.
	RecordType auditeventrecord.RecordType `json:"recordType"`
	// The record's id: a UUID for clients, debtors, invoices and API keys, an integer for debts, debt items and payments.
	RecordID string `json:"recordId"`
}

// statusIs is the filter "the record's status reads code": the SQL form
// (newSQL, value) of the same projection its field resolver shows, so that
// a filter and its field cannot disagree (api.md §7).
func statusIs[S any, P ~func(*sql.Selector)](now collection.Now, newSQL func(*sql.Selector, collection.Now) S, value func(S) collection.Expr, code int) P {
	return func(s *sql.Selector) { s.Where(collection.Is(value(newSQL(s, now)), code)) }
}

// flagIs is statusIs for a true/false field.
func flagIs[S any, P ~func(*sql.Selector)](now collection.Now, newSQL func(*sql.Selector, collection.Now) S, value func(S) collection.Expr, want bool) P {
	return func(s *sql.Selector) { s.Where(collection.IsTrue(value(newSQL(s, now)), want)) }
}

// debtFilter builds the predicates of a DebtFilter (api.md §7).
func debtFilter(f *DebtFilter, now collection.Now) ([]predicate.Debt, error) {
	if f == nil {
		return nil, nil
	}
	var preds []predicate.Debt
	is := func(p func(collection.DebtSQL) *sql.Predicate) {
		preds = append(preds, func(s *sql.Selector) { s.Where(p(collection.NewDebtSQL(s, now))) })
	}
	if v := f.ActiveStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.ActiveIs(*v) })
	}
	if v := f.MainStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.MainIs(*v) })
	}
	if v := f.UnderStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.UnderIs(*v) })
	}
	if v := f.PaymentStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.PaymentIs(*v) })
	}
	if v := f.IsDisputed; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.DisputedIs(*v) })
	}
	s, err := newSearch(f.SearchType, f.SearchTerm)
	if err != nil {
		return nil, err
	}
	if s != nil {
		p, err := match(s, debtSearch)
		if err != nil {
			return nil, err
		}
		preds = append(preds, p)
	}
	return preds, nil
}

// debtSearch matches debts by their debtor's name, identification number or
// e-mail, their items' invoice numbers, or their id.
var debtSearch = searchFields[predicate.Debt]{
	name:  func(k string) predicate.Debt { return debt.HasDebtorWith(debtor.NameKeyContains(k)) },
	email: func(k string) predicate.Debt { return debt.HasDebtorWith(debtor.EmailKeyContains(k)) },
	identification: func(k string) predicate.Debt {
		return debt.HasDebtorWith(debtor.IdentificationKeyContains(k))
	},
	invoiceNumber: func(k string) predicate.Debt { return debt.HasInvoicesWith(debtitem.InvoiceNumberKeyContains(k)) },
	debtID:        func(id scalar.IntID) predicate.Debt { return debt.ID(id) },
	or:            debt.Or,
}

// debtorFilter builds the predicates of a DebtorFilter (api.md §7). Each
// status filter compares the SQL form of the same projection the field
// resolvers use.
func debtorFilter(f *DebtorFilter, now collection.Now) ([]predicate.Debtor, error) {
	if f == nil {
		return nil, nil
	}
	var preds []predicate.Debtor
	status := func(value func(collection.DebtorSQL) collection.Expr, code int) {
		preds = append(preds, statusIs[collection.DebtorSQL, predicate.Debtor](now, collection.NewDebtorSQL, value, code))
	}
	if f.PaymentStatus != nil {
		status(collection.DebtorSQL.Payment, int(*f.PaymentStatus))
	}
	if f.ErrandStatus != nil {
		status(collection.DebtorSQL.ErrandStatus, int(*f.ErrandStatus))
	}
	if f.ErrandProcessStatus != nil {
		status(collection.DebtorSQL.ErrandProcessStatus, int(*f.ErrandProcessStatus))
	}
	if f.IsCompleted != nil {
		preds = append(preds, flagIs[collection.DebtorSQL, predicate.Debtor](now, collection.NewDebtorSQL, collection.DebtorSQL.IsCompleted, *f.IsCompleted))
	}
	if f.InvoiceCreatedDate != nil {
		preds = append(preds, debtor.HasDebtsWith(debt.HasInvoicesWith(debtitem.CreatedAtGTE(f.InvoiceCreatedDate.UTC()))))
	}
	if f.ClientNumber != nil {
		preds = append(preds, debtor.HasClientWith(creditor.ClientNumber(*f.ClientNumber)))
	}
	s, err := newSearch(f.SearchType, f.SearchTerm)
	if err != nil {
		return nil, err
	}
	if s != nil {
		p, err := match(s, debtorSearch)
		if err != nil {
			return nil, err
		}
		preds = append(preds, p)
	}
	return preds, nil
}

// debtorSearch matches debtors by name, identification number, e-mail, the
// invoice numbers of their debts' items, or their debts' ids.
var debtorSearch = searchFields[predicate.Debtor]{
	name:           debtor.NameKeyContains,
	email:          debtor.EmailKeyContains,
	identification: debtor.IdentificationKeyContains,
	invoiceNumber: func(k string) predicate.Debtor {
		return debtor.HasDebtsWith(debt.HasInvoicesWith(debtitem.InvoiceNumberKeyContains(k)))
	},
	debtID: func(id scalar.IntID) predicate.Debtor { return debtor.HasDebtsWith(debt.ID(id)) },
	or:     debtor.Or,
}

// invoiceFilter builds the predicates of an InvoiceFilter (api.md §7). Each
// status filter compares the SQL form of the same projection the field
// resolvers use.
func invoiceFilter(f *InvoiceFilter, now collection.Now) ([]predicate.Invoice, error) {
	if f == nil {
		return nil, nil
	}
	var preds []predicate.Invoice
	status := func(value func(collection.InvoiceSQL) collection.Expr, code int) {
		preds = append(preds, statusIs[collection.InvoiceSQL, predicate.Invoice](now, collection.NewInvoiceSQL, value, code))
	}
	if f.PaymentStatus != nil {
		status(collection.InvoiceSQL.Payment, int(*f.PaymentStatus))
	}
	if f.InvoiceStatus != nil {
		status(collection.InvoiceSQL.Status, int(*f.InvoiceStatus))
	}
	if f.InvoiceProcessStatus != nil {
		status(collection.InvoiceSQL.Process, int(*f.InvoiceProcessStatus))
	}
	if f.ReceivableMainStatus != nil {
		status(collection.InvoiceSQL.ReceivableMain, int(*f.ReceivableMainStatus))
	}
	if f.ReceivableSubStatus != nil {
		status(collection.InvoiceSQL.ReceivableSub, int(*f.ReceivableSubStatus))
	}
	if f.ActiveStatus != nil {
		status(collection.InvoiceSQL.Active, int(*f.ActiveStatus))
	}
	if f.IsCompleted != nil {
		preds = append(preds, flagIs[collection.InvoiceSQL, predicate.Invoice](now, collection.NewInvoiceSQL, collection.InvoiceSQL.IsCompleted, *f.IsCompleted))
	}
	if f.InvoiceCreatedDate != nil {
		preds = append(preds, invoice.CreatedAtGTE(f.InvoiceCreatedDate.UTC()))
	}
	if f.ClientNumber != nil {
		preds = append(preds, invoice.HasClientWith(creditor.ClientNumber(*f.ClientNumber)))
	}
	s, err := newSearch(f.SearchType, f.SearchTerm)
	if err != nil {
		return nil, err
	}
	if s != nil {
		byNumber := invoice.InvoiceNumberKeyContains(collection.NumberKey(s.term))
		byArticle := invoice.HasArticlesWith(invoicearticle.NameKeyContains(collection.SearchKey(s.term)))
		switch s.typ {
		case SearchTypeAll:
			preds = append(preds, invoice.Or(byNumber, byArticle))
		case SearchTypeInvoiceNumber:
			preds = append(preds, byNumber)
		case SearchTypeName:
			preds = append(preds, byArticle)
		default:
			return nil, apierr.Invalid("filter.searchType", "invoices can be searched by ALL, INVOICE_NUMBER or NAME (article names), not %s", s.typ)
		}
	}
	return preds, nil
}

// auditFilter builds the predicates of an AuditEventFilter. isOperation
// tells the names of operations (mutation fields) from other text.
func auditFilter(f *AuditEventFilter, isOperation func(name string) bool) ([]predicate.AuditEvent, error) {
	if f == nil {
		return nil, nil
	}
	var preds []predicate.AuditEvent
	var errs apierr.List
	if f.ClientID != nil {
		preds = append(preds, auditevent.ClientID(*f.ClientID))
	}
	if f.Record != nil {
		id, ok := canonicalRecordID(f.Record.RecordType, f.Record.RecordID)
		if !ok {
			errs.Add("filter.record.recordId", "must be the id of a %s: a UUID for clients, debtors, invoices and API keys, a positive integer for debts, debt items and payments", f.Record.RecordType)
		} else {
			preds = append(preds, auditevent.HasRecordsWith(
				auditeventrecord.RecordTypeEQ(f.Record.RecordType), auditeventrecord.RecordID(id)))
		}
	}
	if f.From != nil {
		preds = append(preds, auditevent.CreatedAtGTE(f.From.UTC()))
	}
	if f.To != nil {
		if f.From != nil && f.To.Before(*f.From) {
			errs.Add("filter.to", "must not be before filter.from")
		}
		preds = append(preds, auditevent.CreatedAtLT(f.To.UTC()))
	}
	if f.Operation != nil {
		op := strings.TrimSpace(*f.Operation)
		if !isOperation(op) {
			errs.Add("filter.operation", "must be the name of a mutation, such as createDebt")
		} else {
			preds = append(preds, auditevent.Operation(op))
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return preds, nil
}

// canonicalRecordID writes a record id as the trail stores it: a UUID in
// lower case, an integer in decimal.
func canonicalRecordID(typ auditeventrecord.RecordType, id string) (string, bool) {
	id = strings.TrimSpace(id)
	switch typ {
	case auditeventrecord.RecordTypeDEBT, auditeventrecord.RecordTypeDEBT_INVOICE, auditeventrecord.RecordTypePAYMENT:
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n < 1 || n > 1<<53 {
			return "", false
		}
		return strconv.FormatInt(n, 10), true
	default:
		u, err := scalar.ParseUUID(id)
		return u, err == nil
	}
}
