package graph

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/ent/invoice"
	"github.com/debtql/debtql/internal/ledger"
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
	mu sync.Mutex // held while loading: one load at a time
	// pmu guards the maps: loads prime other batches, so priming never
	// waits for a load.
	pmu      sync.Mutex
	pending  map[scalar.IntID]bool // debts whose items' invoices are not loaded yet
	loaded   map[scalar.IntID]bool
	byNumber map[[2]string]*ent.Invoice // by client id and invoice number
}

func newItemInvoices() *itemInvoices {
	return &itemInvoices{pending: map[scalar.IntID]bool{}, loaded: map[scalar.IntID]bool{}, byNumber: map[[2]string]*ent.Invoice{}}
}

// prime registers debts whose items' invoices may be wanted.
func (l *itemInvoices) prime(debts ...*ent.Debt) {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	for _, d := range debts {
		if !l.loaded[d.ID] {
			l.pending[d.ID] = true
		}
	}
}

// get returns the registered invoice of item's number, or nil.
func (l *itemInvoices) get(ctx context.Context, r *Resolver, item *ent.DebtItem) (*ent.Invoice, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := [2]string{item.ClientID, item.InvoiceNumber}
	l.pmu.Lock()
	if l.loaded[item.DebtID] {
		defer l.pmu.Unlock()
		return l.byNumber[key], nil
	}
	l.pending[item.DebtID] = true
	debts := make([]scalar.IntID, 0, len(l.pending))
	for id := range l.pending {
		debts = append(debts, id)
	}
	l.pmu.Unlock()
	invoices, err := r.ledger.ItemInvoices(ctx, debts)
	if err != nil {
		return nil, err
	}
	r.loaders(ctx).invoiceFacts.prime(invoices...)
	l.pmu.Lock()
	defer l.pmu.Unlock()
	for _, inv := range invoices {
		l.byNumber[[2]string{inv.ClientID, inv.InvoiceNumber}] = inv
	}
	for _, id := range debts {
		l.loaded[id] = true
		delete(l.pending, id)
	}
	return l.byNumber[key], nil
}

// groupPages serves a connection nested under the records of lists (the
// debts of each debtor, the debts, debtors and invoices of each client): the
// pages of every primed record are read together, one set of queries per
// field of the operation (PageEach, grouped by the record's id).
type groupPages[C any] struct {
	mu sync.Mutex // held while a page is read: one read per field
	// primed are the primed records' clients, by record id. Reading a page
	// primes more, so they have a lock of their own.
	primeMu sync.Mutex
	primed  map[string]string
	// pages are the pages read, by field and record id.
	pages map[*ast.Field]map[string]C
}

func newGroupPages[C any]() *groupPages[C] {
	return &groupPages[C]{primed: map[string]string{}, pages: map[*ast.Field]map[string]C{}}
}

// prime registers a client's records whose connections may be wanted.
func (l *groupPages[C]) prime(clientID string, ids ...string) {
	l.primeMu.Lock()
	defer l.primeMu.Unlock()
	for _, id := range ids {
		if id != "" {
			l.primed[id] = clientID
		}
	}
}

// get returns the page of the connection of record id (of client
// clientID) that the field of ctx asks for, reading it with the pages of the
// other primed records. load reads the pages of the records it is given,
// with their clients by record id.
func (l *groupPages[C]) get(ctx context.Context, clientID, id string, load func(clientOf map[string]string) (map[string]C, error)) (C, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil {
		conns, err := load(map[string]string{id: clientID})
		return conns[id], err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	pages := l.pages[fc.Field.Field]
	if c, ok := pages[id]; ok {
		return c, nil
	}
	if pages == nil {
		pages = map[string]C{}
		l.pages[fc.Field.Field] = pages
	}
	clientOf := map[string]string{id: clientID}
	l.primeMu.Lock()
	for p, c := range l.primed {
		if _, done := pages[p]; !done && p != id {
			clientOf[p] = c
		}
	}
	l.primeMu.Unlock()
	conns, err := load(clientOf)
	if err != nil {
		var zero C
		return zero, err
	}
	for k, c := range conns {
		pages[k] = c
	}
	return pages[id], nil
}

// primeDebts registers the debts of a page with the loaders of the fields
// nested under them: their items' invoices and their debtors' statuses and
// debts.
func (r *Resolver) primeDebts(ctx context.Context, clientID string, debts []*ent.Debt) {
	l := r.loaders(ctx)
	l.itemInvoice.prime(debts...)
	ledger.PrimeClaims(ctx, debts)
	for _, d := range debts {
		if d.DebtorID == "" {
			continue
		}
		// The debtor the page loaded when it selects one (Q1 does), else a
		// stand-in with its id, which is all the loader reads.
		dr := d.Edges.Debtor
		if dr == nil {
			dr = &ent.Debtor{ID: d.DebtorID}
		}
		l.debtorDebts.prime(dr)
		l.debtPages.prime(clientID, d.DebtorID)
	}
}

// primeClients registers the clients of a page with the loaders of their
// debts, debtors and invoices.
func (r *Resolver) primeClients(ctx context.Context, clients []*ent.Creditor) {
	l := r.loaders(ctx)
	for _, c := range clients {
		l.clientDebts.prime(c.ID, c.ID)
		l.clientDebtors.prime(c.ID, c.ID)
		l.clientInvoices.prime(c.ID, c.ID)
	}
}

// primeDebtors registers the debtors of a page with the loaders of the
// fields nested under them: their statuses and debts.
func (r *Resolver) primeDebtors(ctx context.Context, clientID string, debtors []*ent.Debtor) {
	l := r.loaders(ctx)
	l.debtorDebts.prime(debtors...)
	for _, d := range debtors {
		l.debtPages.prime(clientID, d.ID)
	}
}

// debtorDebtsPage is Debtor.debts: the page of d's debts, read with those
// of the other debtors of the operation's lists.
func (r *Resolver) debtorDebtsPage(ctx context.Context, d *ent.Debtor, filter *ledger.DebtFilter, orderBy *ent.DebtOrder, args ledger.Page) (*ent.DebtConnection, error) {
	l, err := r.ledger.DebtList(ctx, "", filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	return r.loaders(ctx).debtPages.get(ctx, d.ClientID, d.ID, func(clientOf map[string]string) (map[string]*ent.DebtConnection, error) {
		ids, clients := groups(clientOf)
		conns, err := l.Query.Where(debt.ClientIDIn(clients...), debt.DebtorIDIn(ids...)).
			PageEach(ctx, l.Paging, debt.FieldDebtorID, ids, func(d *ent.Debt) string { return d.DebtorID }, ent.WithDebtOrder(l.Order))
		if err != nil {
			return nil, err
		}
		for id, conn := range conns {
			for _, e := range conn.Edges {
				l.TagCursors(&e.Cursor)
			}
			r.primeDebts(ctx, clientOf[id], conn.Nodes())
		}
		return conns, nil
	})
}

// groups returns the record ids of a grouped read and their distinct
// clients.
func groups(clientOf map[string]string) (ids, clients []string) {
	seen := map[string]bool{}
	for id, c := range clientOf {
		ids = append(ids, id)
		if !seen[c] {
			seen[c] = true
			clients = append(clients, c)
		}
	}
	return ids, clients
}

// clientDebtsPage is Client.debts: the page of the client's debts, read
// with those of the other clients of the operation's clients list.
func (r *Resolver) clientDebtsPage(ctx context.Context, clientID string, filter *ledger.DebtFilter, orderBy *ent.DebtOrder, args ledger.Page) (*ent.DebtConnection, error) {
	l, err := r.ledger.DebtList(ctx, "", filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	return r.loaders(ctx).clientDebts.get(ctx, clientID, clientID, func(clientOf map[string]string) (map[string]*ent.DebtConnection, error) {
		ids, _ := groups(clientOf)
		conns, err := l.Query.Where(debt.ClientIDIn(ids...)).
			PageEach(ctx, l.Paging, debt.FieldClientID, ids, func(d *ent.Debt) string { return d.ClientID }, ent.WithDebtOrder(l.Order))
		if err != nil {
			return nil, err
		}
		for id, conn := range conns {
			for _, e := range conn.Edges {
				l.TagCursors(&e.Cursor)
			}
			r.primeDebts(ctx, id, conn.Nodes())
		}
		return conns, nil
	})
}

// clientDebtorsPage is Client.debtors: the page of the client's debtors,
// read with those of the other clients of the operation's clients list.
func (r *Resolver) clientDebtorsPage(ctx context.Context, clientID string, filter *ledger.DebtorFilter, orderBy *ent.DebtorOrder, args ledger.Page) (*ent.DebtorConnection, error) {
	l, err := r.ledger.DebtorList(ctx, "", filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	return r.loaders(ctx).clientDebtors.get(ctx, clientID, clientID, func(clientOf map[string]string) (map[string]*ent.DebtorConnection, error) {
		ids, _ := groups(clientOf)
		conns, err := l.Query.Where(debtor.ClientIDIn(ids...)).
			PageEach(ctx, l.Paging, debtor.FieldClientID, ids, func(d *ent.Debtor) string { return d.ClientID }, ent.WithDebtorOrder(l.Order))
		if err != nil {
			return nil, err
		}
		for id, conn := range conns {
			for _, e := range conn.Edges {
				l.TagCursors(&e.Cursor)
			}
			r.primeDebtors(ctx, id, conn.Nodes())
		}
		return conns, nil
	})
}

// clientInvoicesPage is Client.invoices: the page of the client's invoices,
// read with those of the other clients of the operation's clients list.
func (r *Resolver) clientInvoicesPage(ctx context.Context, clientID string, filter *ledger.InvoiceFilter, orderBy *ent.InvoiceOrder, args ledger.Page) (*ent.InvoiceConnection, error) {
	l, err := r.ledger.InvoiceList(ctx, "", filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	return r.loaders(ctx).clientInvoices.get(ctx, clientID, clientID, func(clientOf map[string]string) (map[string]*ent.InvoiceConnection, error) {
		r.loaders(ctx).invoiceDebt.add(nodeSelection(ctx, "debt"))
		ids, _ := groups(clientOf)
		conns, err := l.Query.Where(invoice.ClientIDIn(ids...)).
			PageEach(ctx, l.Paging, invoice.FieldClientID, ids, func(i *ent.Invoice) string { return i.ClientID }, ent.WithInvoiceOrder(l.Order))
		if err != nil {
			return nil, err
		}
		for _, conn := range conns {
			for _, e := range conn.Edges {
				l.TagCursors(&e.Cursor)
			}
			r.loaders(ctx).invoiceFacts.prime(conn.Nodes()...)
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
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		switch f.Name {
		case "nodes":
			merged = mergeNamed(merged, graphql.CollectFields(opCtx, f.Selections, nil), name)
		case "edges":
			for _, e := range graphql.CollectFields(opCtx, f.Selections, nil) {
				if e.Name == "node" {
					merged = mergeNamed(merged, graphql.CollectFields(opCtx, e.Selections, nil), name)
				}
			}
		}
	}
	return merged
}

// mergeNamed merges into merged (nil: none yet) the selections of the
// fields named name among fields, whatever their aliases.
func mergeNamed(merged *graphql.CollectedField, fields []graphql.CollectedField, name string) *graphql.CollectedField {
	for _, f := range fields {
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
