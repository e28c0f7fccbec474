package ledger

import (
	"context"
	"strings"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtitem"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/ent/invoice"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
	"github.com/debtql/debtql/internal/store"
)

// The read side of the lists (api.md §7): each checks a list's arguments
// (paging, cursors, filter, search) and returns the query of its rows, the
// page to read and its order (List). Reading the page is the caller's: the
// GraphQL layer reads it with the fields the operation selects, one page
// or, grouped, the pages of many records at once. Authorizing the caller
// is the caller's too.

// DebtList is the list of a client's debts that match filter. With clientID
// "" it is the list of every client's debts, for a grouped read (PageEach)
// that narrows the query itself; only a client's list reads the total that
// the database keeps.
func (s *Service) DebtList(ctx context.Context, clientID string, filter *DebtFilter, orderBy *ent.DebtOrder, args Page) (List[*ent.DebtQuery, *ent.DebtOrder], error) {
	order := defaultDebtOrder
	if orderBy != nil {
		order = orderBy
	}
	l := List[*ent.DebtQuery, *ent.DebtOrder]{Order: order,
		order: newListOrder("debts", order.Field.String(), order.Direction, debtCursorValues[order.Field.String()], false)}
	p, err := args.paging(l.order)
	if err != nil {
		return l, err
	}
	preds, err := debtFilter(filter, s.clock.At())
	if err != nil {
		return l, err
	}
	l.Query, l.Paging = s.db(ctx).Debt.Query().Where(preds...), p
	if clientID != "" {
		l.Query.Where(debt.ClientID(clientID))
		l.Paging.Total = keptDebtTotal(clientID, filter)
	}
	return l, nil
}

// DebtorList is the list of a client's debtors that match filter, or with
// clientID "" of every client's (as DebtList).
func (s *Service) DebtorList(ctx context.Context, clientID string, filter *DebtorFilter, orderBy *ent.DebtorOrder, args Page) (List[*ent.DebtorQuery, *ent.DebtorOrder], error) {
	order, value := defaultDebtorOrder, cursorValue(timeValue)
	if orderBy != nil {
		order = orderBy
		if order.Field.String() == "NAME" {
			value = stringValue
		}
	}
	l := List[*ent.DebtorQuery, *ent.DebtorOrder]{Order: order,
		order: newListOrder("debtors", order.Field.String(), order.Direction, value, true)}
	p, err := args.paging(l.order)
	if err != nil {
		return l, err
	}
	preds, err := debtorFilter(filter, s.clock.At())
	if err != nil {
		return l, err
	}
	l.Query, l.Paging = s.db(ctx).Debtor.Query().Where(preds...), p
	if clientID != "" {
		search := searchAlone(filter)
		l.Paging.Total = nameSearchTotal(clientID, search)
		if key, ok := rememberedSearch(clientID, search); ok && s.searchTotals != nil {
			l.Paging.Total = s.searchTotals.total(key, l.Paging.Total)
		}
		l.Query.Where(debtor.ClientID(clientID))
	}
	return l, nil
}

// InvoiceList is the list of a client's invoices that match filter, or with
// clientID "" of every client's (as DebtList).
func (s *Service) InvoiceList(ctx context.Context, clientID string, filter *InvoiceFilter, orderBy *ent.InvoiceOrder, args Page) (List[*ent.InvoiceQuery, *ent.InvoiceOrder], error) {
	order := defaultInvoiceOrder
	if orderBy != nil {
		order = orderBy
	}
	l := List[*ent.InvoiceQuery, *ent.InvoiceOrder]{Order: order,
		order: newListOrder("invoices", order.Field.String(), order.Direction, invoiceCursorValues[order.Field.String()], true)}
	p, err := args.paging(l.order)
	if err != nil {
		return l, err
	}
	preds, err := invoiceFilter(filter, s.clock.At())
	if err != nil {
		return l, err
	}
	l.Query, l.Paging = s.db(ctx).Invoice.Query().Where(preds...), p
	if clientID != "" {
		l.Query.Where(invoice.ClientID(clientID))
	}
	return l, nil
}

// ClientList is the list of clients, newest first, that match search (see
// clientSearch); a nil search lists them all.
func (s *Service) ClientList(ctx context.Context, search *string, args Page) (List[*ent.CreditorQuery, *ent.CreditorOrder], error) {
	l := List[*ent.CreditorQuery, *ent.CreditorOrder]{
		Order: &ent.CreditorOrder{Direction: entgql.OrderDirectionDesc, Field: ent.CreditorOrderFieldCreatedAt},
		order: newListOrder("clients", "CREATED_AT", entgql.OrderDirectionDesc, timeValue, true)}
	p, err := args.paging(l.order)
	if err != nil {
		return l, err
	}
	q := s.db(ctx).Creditor.Query()
	if search != nil {
		if e := collection.CheckField("search", strings.TrimSpace(*search), collection.MaxStringLength, false); e != nil {
			return l, e
		}
		if pred := clientSearch(*search); pred != nil {
			q.Where(pred)
		}
	}
	l.Query, l.Paging = q, p
	return l, nil
}

// APIKeyList is the list of API keys, newest first.
func (s *Service) APIKeyList(ctx context.Context, args Page) (List[*ent.APIKeyQuery, *ent.APIKeyOrder], error) {
	l := List[*ent.APIKeyQuery, *ent.APIKeyOrder]{
		Order: &ent.APIKeyOrder{Direction: entgql.OrderDirectionDesc, Field: ent.APIKeyOrderFieldCreatedAt},
		order: newListOrder("apiKeys", "CREATED_AT", entgql.OrderDirectionDesc, timeValue, true)}
	p, err := args.paging(l.order)
	if err != nil {
		return l, err
	}
	l.Query, l.Paging = s.db(ctx).APIKey.Query(), p
	return l, nil
}

// AuditEventList is the list of the audit events that match filter, newest
// first. isOperation tells the names of operations (the mutation fields
// that the events record) from other text.
func (s *Service) AuditEventList(ctx context.Context, filter *AuditEventFilter, args Page, isOperation func(name string) bool) (List[*ent.AuditEventQuery, *ent.AuditEventOrder], error) {
	l := List[*ent.AuditEventQuery, *ent.AuditEventOrder]{
		Order: &ent.AuditEventOrder{Direction: entgql.OrderDirectionDesc, Field: ent.AuditEventOrderFieldCreatedAt},
		order: newListOrder("auditEvents", "CREATED_AT", entgql.OrderDirectionDesc, timeValue, false)}
	p, err := args.paging(l.order)
	if err != nil {
		return l, err
	}
	preds, err := auditFilter(filter, isOperation)
	if err != nil {
		return l, err
	}
	l.Query, l.Paging = s.db(ctx).AuditEvent.Query().Where(preds...), p
	return l, nil
}

// ItemInvoices reads the invoices whose client and number an item of the
// given debts holds (DebtInvoice.invoice, for the items of many debts at
// once).
func (s *Service) ItemInvoices(ctx context.Context, debts []scalar.IntID) ([]*ent.Invoice, error) {
	ids := make([]any, len(debts))
	for i, id := range debts {
		ids[i] = id
	}
	// The invoices whose client and number an item of the debts holds.
	return s.db(ctx).Invoice.Query().
		Where(func(s *sql.Selector) {
			t := sql.Table(debtitem.Table)
			s.Where(sql.Exists(sql.Select(t.C(debtitem.FieldID)).From(t).Where(sql.And(
				sql.In(t.C(debtitem.FieldDebtID), ids...),
				sql.ColumnsEQ(t.C(debtitem.FieldClientID), s.C(invoice.FieldClientID)),
				sql.ColumnsEQ(t.C(debtitem.FieldInvoiceNumber), s.C(invoice.FieldInvoiceNumber)),
			))))
		}).
		All(ctx)
}

// defaultDebtOrder is newest first (api.md §7).
var defaultDebtOrder = &ent.DebtOrder{Direction: entgql.OrderDirectionDesc, Field: ent.DebtOrderFieldCreatedAt}

// debtCursorValues are the cursor value types of the debt orders.
var debtCursorValues = map[string]cursorValue{
	"CREATED_AT":      timeValue,
	"ID":              intIDValue,
	"ORIGINAL_AMOUNT": moneyValue,
}

// defaultDebtorOrder is newest first (api.md §7).
var defaultDebtorOrder = &ent.DebtorOrder{Direction: entgql.OrderDirectionDesc, Field: ent.DebtorOrderFieldCreatedAt}

// defaultInvoiceOrder is newest first (api.md §7).
var defaultInvoiceOrder = &ent.InvoiceOrder{Direction: entgql.OrderDirectionDesc, Field: ent.InvoiceOrderFieldCreatedAt}

// invoiceCursorValues are the cursor value types of the invoice orders.
var invoiceCursorValues = map[string]cursorValue{
	"CREATED_AT":     timeValue,
	"INVOICE_NUMBER": stringValue,
	"INVOICE_DATE":   dateValue,
	"DUE_DATE":       dateValue,
	"TOTAL_AMOUNT":   moneyValue,
}

// keptDebtTotal is the total of a client's debts that match filter as
// debt_counts keeps it (the sum over the client's rows), for the filters
// those counts answer: none, or the selections of mainStatus and
// activeStatus (collection.Selection), without a search. Any other filter
// is counted (nil).
func keptDebtTotal(clientID string, f *DebtFilter) totalFunc {
	t := sql.Table(store.DebtCounts)
	sel := collection.SelectAll
	if f != nil {
		if f.UnderStatus != nil || f.PaymentStatus != nil || f.IsDisputed != nil || !blankTerm(f.SearchTerm) {
			return nil
		}
		if f.MainStatus != nil {
			sel = sel.And(f.MainStatus.Selects())
		}
		if f.ActiveStatus != nil {
			sel = sel.And(f.ActiveStatus.Selects())
		}
	}
	debts, open, legal := t.C(store.DebtCountsDebts), t.C(store.DebtCountsOpenDebts), t.C(store.DebtCountsLegalDebts)
	var column string
	switch sel {
	case collection.SelectAll:
		column = debts
	case collection.SelectOpen:
		column = open
	case collection.SelectLegal:
		column = legal
	case collection.SelectCollection:
		column = open + " - " + legal
	case collection.SelectClosed:
		column = debts + " - " + open
	default:
		return nil // a value no debt reads, or exclusive values at once: counted
	}
	return func(_ context.Context, drv dialect.Driver, _ func() (*sql.Selector, error)) (*sql.Selector, error) {
		// The sum of the client's rows (its shards on PostgreSQL; an
		// integer, not PostgreSQL's numeric sum of bigints); NULL without a
		// row, which counts instead.
		return sql.Dialect(drv.Dialect()).Select(sql.As("CAST(sum("+column+") AS bigint)", "n")).From(t).
			Where(sql.EQ(t.C(store.DebtCountsClientID), clientID)), nil
	}
}

// nameSearchTotal is the total of a client's debtors when the filter is a
// NAME search and nothing else (search, from searchAlone), read on
// PostgreSQL from the name suffixes the database keeps
// (store.NameSuffixTotal). Any other filter, and SQLite, count the rows.
func nameSearchTotal(clientID string, search *searchTerm) totalFunc {
	if search == nil || search.typ != SearchTypeName {
		return nil
	}
	key := collection.SearchKey(search.term)
	return func(_ context.Context, drv dialect.Driver, _ func() (*sql.Selector, error)) (*sql.Selector, error) {
		if drv.Dialect() != dialect.Postgres {
			return nil, nil
		}
		return store.NameSuffixTotal(clientID, key), nil
	}
}

// searchAlone is the search of a debtor filter that is a search (a
// non-blank term of a given type) and nothing else, as the filter's
// predicate reads it (newSearch); nil for any other filter.
func searchAlone(f *DebtorFilter) *searchTerm {
	if f == nil || f.SearchType == nil || *f != (DebtorFilter{SearchType: f.SearchType, SearchTerm: f.SearchTerm}) {
		return nil
	}
	if search, err := newSearch(f.SearchType, f.SearchTerm); err == nil {
		return search
	}
	return nil
}
