package graph

import (
	"context"
	"sync"

	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtinvoice"
	"github.com/debtql/debtql/ent/invoice"
	"github.com/debtql/debtql/internal/scalar"
)

// The loaders of this file serve the fields nested under the records of a
// list page from a fixed number of queries, whatever the page size: a list
// primes them with its page's records, and the first nested field that
// needs a value loads it for all of them (api.md's lists; issue 5: a page of
// 10 and a page of 100 issue the same statements).

// itemInvoices finds the client's registered invoice of each debt item's
// number (DebtInvoice.invoice): for the items of every primed debt at once.
type itemInvoices struct {
	mu       sync.Mutex
	pending  map[scalar.IntID]bool // debts whose items' invoices are not loaded yet
	loaded   map[scalar.IntID]bool
	byNumber map[[2]string]*ent.Invoice // by client id and invoice number
}

func newItemInvoices() *itemInvoices {
	return &itemInvoices{pending: map[scalar.IntID]bool{}, loaded: map[scalar.IntID]bool{}, byNumber: map[[2]string]*ent.Invoice{}}
}

// prime registers debts whose items' invoices may be wanted.
func (l *itemInvoices) prime(debts ...*ent.Debt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range debts {
		if !l.loaded[d.ID] {
			l.pending[d.ID] = true
		}
	}
}

// get returns the registered invoice of item's number, or nil.
func (l *itemInvoices) get(ctx context.Context, r *Resolver, item *ent.DebtInvoice) (*ent.Invoice, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := [2]string{item.ClientID, item.InvoiceNumber}
	if l.loaded[item.DebtID] {
		return l.byNumber[key], nil
	}
	l.pending[item.DebtID] = true
	ids := make([]any, 0, len(l.pending))
	for id := range l.pending {
		ids = append(ids, id)
	}
	// The invoices whose client and number an item of the debts holds.
	invoices, err := r.db(ctx).Invoice.Query().
		Where(func(s *sql.Selector) {
			t := sql.Table(debtinvoice.Table)
			s.Where(sql.Exists(sql.Select(t.C(debtinvoice.FieldID)).From(t).Where(sql.And(
				sql.In(t.C(debtinvoice.FieldDebtID), ids...),
				sql.ColumnsEQ(t.C(debtinvoice.FieldClientID), s.C(invoice.FieldClientID)),
				sql.ColumnsEQ(t.C(debtinvoice.FieldInvoiceNumber), s.C(invoice.FieldInvoiceNumber)),
			))))
		}).
		All(ctx)
	if err != nil {
		return nil, err
	}
	for _, inv := range invoices {
		l.byNumber[[2]string{inv.ClientID, inv.InvoiceNumber}] = inv
	}
	for id := range l.pending {
		l.loaded[id] = true
		delete(l.pending, id)
	}
	r.loaders(ctx).invoiceFacts.prime(invoices...)
	return l.byNumber[key], nil
}

// debtPages serves the debts connection nested under debtors
// (Debtor.debts): the pages of every primed debtor of a client are read
// together, one set of queries per field of the operation.
type debtPages struct {
	mu sync.Mutex // held while a page is read: one read per field
	// debtors are the primed debtors' clients, by debtor id. Reading a
	// page primes more, so they have a lock of their own.
	primeMu sync.Mutex
	debtors map[string]string
	// pages are the pages read, by field and debtor id.
	pages map[*ast.Field]map[string]*ent.DebtConnection
}

func newDebtPages() *debtPages {
	return &debtPages{debtors: map[string]string{}, pages: map[*ast.Field]map[string]*ent.DebtConnection{}}
}

// prime registers a client's debtors whose debts may be wanted.
func (l *debtPages) prime(clientID string, debtorIDs ...string) {
	l.primeMu.Lock()
	defer l.primeMu.Unlock()
	for _, id := range debtorIDs {
		if id != "" {
			l.debtors[id] = clientID
		}
	}
}

// get returns the page of d's debts that the field of ctx asks for, reading
// it with the pages of the other primed debtors of d's client.
func (l *debtPages) get(ctx context.Context, d *ent.Debtor, load func(debtorIDs []string) (map[string]*ent.DebtConnection, error)) (*ent.DebtConnection, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil {
		conns, err := load([]string{d.ID})
		return conns[d.ID], err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	pages := l.pages[fc.Field.Field]
	if c, ok := pages[d.ID]; ok {
		return c, nil
	}
	if pages == nil {
		pages = map[string]*ent.DebtConnection{}
		l.pages[fc.Field.Field] = pages
	}
	ids := []string{d.ID}
	l.primeMu.Lock()
	for id, client := range l.debtors {
		if _, done := pages[id]; !done && client == d.ClientID && id != d.ID {
			ids = append(ids, id)
		}
	}
	l.primeMu.Unlock()
	conns, err := load(ids)
	if err != nil {
		return nil, err
	}
	for id, c := range conns {
		pages[id] = c
	}
	return pages[d.ID], nil
}

// primeDebts registers the debts of a page with the loaders of the fields
// nested under them: their items' invoices and their debtors' statuses and
// debts.
func (r *Resolver) primeDebts(ctx context.Context, clientID string, debts []*ent.Debt) {
	l := r.loaders(ctx)
	l.itemInvoice.prime(debts...)
	for _, d := range debts {
		if d.DebtorID == "" {
			continue
		}
		l.debtorDebts.prime(&ent.Debtor{ID: d.DebtorID})
		l.debtPages.prime(clientID, d.DebtorID)
	}
}

// debtorDebtsPage is Debtor.debts: the page of d's debts, read with those
// of the other debtors of the operation's lists.
func (r *Resolver) debtorDebtsPage(ctx context.Context, d *ent.Debtor, filter *DebtFilter, orderBy *ent.DebtOrder, args pageArgs) (*ent.DebtConnection, error) {
	q, p, lo, order, err := r.debtQuery(ctx, d.ClientID, filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	return r.loaders(ctx).debtPages.get(ctx, d, func(ids []string) (map[string]*ent.DebtConnection, error) {
		conns, err := q.Where(debt.DebtorIDIn(ids...)).
			PageEach(ctx, p, debt.FieldDebtorID, ids, func(d *ent.Debt) string { return d.DebtorID }, ent.WithDebtOrder(order))
		if err != nil {
			return nil, err
		}
		for _, conn := range conns {
			for _, e := range conn.Edges {
				lo.tagCursors(&e.Cursor)
			}
			r.primeDebts(ctx, d.ClientID, conn.Nodes())
		}
		return conns, nil
	})
}

// nodeSelection merges the selections of the fields named name under a
// connection's nodes (edges.node and nodes), whatever their aliases; nil
// when none is selected.
func nodeSelection(ctx context.Context, name string) *graphql.CollectedField {
	opCtx := graphql.GetOperationContext(ctx)
	var merged *graphql.CollectedField
	add := func(sel ast.SelectionSet) {
		for _, f := range graphql.CollectFields(opCtx, sel, nil) {
			if f.Name != name {
				continue
			}
			if merged == nil {
				c := f
				c.Selections = append(ast.SelectionSet{}, f.Selections...)
				merged = &c
				continue
			}
			merged.Selections = append(merged.Selections, f.Selections...)
		}
	}
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		switch f.Name {
		case "nodes":
			add(f.Selections)
		case "edges":
			for _, e := range graphql.CollectFields(opCtx, f.Selections, nil) {
				if e.Name == "node" {
					add(e.Selections)
				}
			}
		}
	}
	return merged
}

// invoiceDebtSelection is what the operation's invoice lists select under
// Invoice.debt, which loadInvoiceFacts eager-loads on the debts it reads.
type invoiceDebtSelection struct {
	mu    sync.Mutex
	field *graphql.CollectedField
}

// add merges a list's selection.
func (s *invoiceDebtSelection) add(f *graphql.CollectedField) {
	if f == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.field == nil {
		s.field = f
		return
	}
	merged := *s.field
	merged.Selections = append(append(ast.SelectionSet{}, s.field.Selections...), f.Selections...)
	s.field = &merged
}

// get returns the merged selection, or nil.
func (s *invoiceDebtSelection) get() *graphql.CollectedField {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.field
}
