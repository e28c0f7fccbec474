package graph

import (
	"context"
	"strconv"
	"sync"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditevent"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtinvoice"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// batch loads a value per record for every record of a request at once:
// lists prime it with their page, and the first field that needs a value
// loads it for every primed record in one query, instead of one query per
// record. Field resolvers of a list run concurrently, so it locks.
type batch[R any, V any] struct {
	mu sync.Mutex // held while loading: one load at a time
	// pmu guards pending and done. Loads prime other batches, so priming
	// never waits for a load (two loads priming each other's batches
	// would deadlock).
	pmu     sync.Mutex
	key     func(R) string
	load    func(ctx context.Context, records []R) (map[string]V, error)
	pending map[string]R
	done    map[string]V
}

func newBatch[R any, V any](key func(R) string, load func(context.Context, []R) (map[string]V, error)) *batch[R, V] {
	return &batch[R, V]{key: key, load: load, pending: map[string]R{}, done: map[string]V{}}
}

// prime registers records whose values will be wanted.
func (b *batch[R, V]) prime(records ...R) {
	b.pmu.Lock()
	defer b.pmu.Unlock()
	for _, r := range records {
		if k := b.key(r); !b.has(k) {
			b.pending[k] = r
		}
	}
}

func (b *batch[R, V]) has(k string) bool {
	_, ok := b.done[k]
	return ok
}

// get returns the value of r, loading it with every pending record.
func (b *batch[R, V]) get(ctx context.Context, r R) (V, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.key(r)
	b.pmu.Lock()
	if v, ok := b.done[k]; ok {
		b.pmu.Unlock()
		return v, nil
	}
	b.pending[k] = r
	records := make([]R, 0, len(b.pending))
	for _, p := range b.pending {
		records = append(records, p)
	}
	b.pmu.Unlock()
	values, err := b.load(ctx, records)
	if err != nil {
		var zero V
		return zero, err
	}
	b.pmu.Lock()
	defer b.pmu.Unlock()
	for _, p := range records {
		pk := b.key(p)
		b.done[pk] = values[pk]
		delete(b.pending, pk)
	}
	return b.done[k], nil
}

// loaders are the batches of one operation.
type loaders struct {
	invoiceFacts *batch[*ent.Invoice, invoiceDebtFacts]
	debtorDebts  *batch[*ent.Debtor, []collection.DebtFacts]
	itemInvoice  *itemInvoices
	// debtPages are the debts of the debtors of the operation's lists
	// (Debtor.debts); clientDebts, clientDebtors and clientInvoices the
	// connections of the clients of its clients list.
	debtPages      *groupPages[*ent.DebtConnection]
	clientDebts    *groupPages[*ent.DebtConnection]
	clientDebtors  *groupPages[*ent.DebtorConnection]
	clientInvoices *groupPages[*ent.InvoiceConnection]
	// invoiceDebt is the selection under Invoice.debt in the operation's
	// invoice lists, which loadInvoiceFacts eager-loads on the debts.
	invoiceDebt invoiceDebtSelection
	// debtEvents are the timelines of debts that the loaders found (an
	// invoice's debt), which ent's eager loading does not reach.
	debtEvents *batch[*ent.Debt, []*ent.AuditEvent]
}

type loadersKey struct{}

// WithLoaders gives an operation its own batches; the server calls it for
// every operation.
func (r *Resolver) WithLoaders(ctx context.Context) context.Context {
	return context.WithValue(ctx, loadersKey{}, r.newLoaders())
}

func (r *Resolver) loaders(ctx context.Context) *loaders {
	if l, ok := ctx.Value(loadersKey{}).(*loaders); ok {
		return l
	}
	return r.newLoaders() // outside an operation: no batching
}

func (r *Resolver) newLoaders() *loaders {
	return &loaders{
		invoiceFacts:   newBatch(func(i *ent.Invoice) string { return i.ID }, r.loadInvoiceFacts),
		debtorDebts:    newBatch(func(d *ent.Debtor) string { return d.ID }, r.loadDebtorDebts),
		itemInvoice:    newItemInvoices(),
		debtPages:      newGroupPages[*ent.DebtConnection](),
		clientDebts:    newGroupPages[*ent.DebtConnection](),
		clientDebtors:  newGroupPages[*ent.DebtorConnection](),
		clientInvoices: newGroupPages[*ent.InvoiceConnection](),
		debtEvents:     newBatch(func(d *ent.Debt) string { return strconv.Itoa(int(d.ID)) }, r.loadDebtEvents),
	}
}

// invoiceDebtFacts are the facts of an invoice that live in debts: what was
// paid on the debt items carrying its number, and the unwithdrawn debt that
// holds it.
type invoiceDebtFacts struct {
	// paid sums the items of the invoice's number in all the client's
	// debts, whose number has no bound: exact however large (Total).
	paid    collection.Total
	holding *collection.DebtFacts
	// debt is the invoice's collection case: the unwithdrawn debt holding
	// it, else the most recently created one (api.md §6).
	debt *ent.Debt
}

func (r *Resolver) loadInvoiceFacts(ctx context.Context, invoices []*ent.Invoice) (map[string]invoiceDebtFacts, error) {
	type clientNumber struct{ client, number string }
	byNumber := map[clientNumber][]string{}
	clients, numbers := map[string]bool{}, map[string]bool{}
	for _, inv := range invoices {
		k := clientNumber{inv.ClientID, inv.InvoiceNumber}
		byNumber[k] = append(byNumber[k], inv.ID)
		clients[inv.ClientID], numbers[inv.InvoiceNumber] = true, true
	}
	var collectErr error
	items, err := r.db(ctx).DebtInvoice.Query().
		Where(debtinvoice.ClientIDIn(keys(clients)...), debtinvoice.InvoiceNumberIn(keys(numbers)...)).
		WithDebt(func(q *ent.DebtQuery) {
			if f := r.loaders(ctx).invoiceDebt.get(); f != nil {
				_, collectErr = q.CollectSelection(ctx, *f)
			}
		}).
		All(ctx)
	if err == nil {
		err = collectErr
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]invoiceDebtFacts, len(invoices))
	for _, it := range items {
		if it.Edges.Debt != nil {
			r.loaders(ctx).debtEvents.prime(it.Edges.Debt)
		}
		for _, id := range byNumber[clientNumber{it.ClientID, it.InvoiceNumber}] {
			f := out[id]
			f.paid = f.paid.Plus(it.PaidAmount)
			if d := it.Edges.Debt; d != nil {
				if d.WithdrawnAt == nil {
					f.holding, f.debt = debtFacts(d), d
				} else if f.holding == nil && (f.debt == nil || later(d, f.debt)) {
					f.debt = d
				}
			}
			out[id] = f
		}
	}
	// The fields under Invoice.debt (its debtor's statuses and debts, its
	// items' invoices) load for every invoice's debt at once.
	for _, f := range out {
		if f.debt != nil {
			r.primeDebts(ctx, f.debt.ClientID, []*ent.Debt{f.debt})
		}
	}
	return out, nil
}

func (r *Resolver) loadDebtorDebts(ctx context.Context, debtors []*ent.Debtor) (map[string][]collection.DebtFacts, error) {
	ids := make([]string, len(debtors))
	for i, d := range debtors {
		ids[i] = d.ID
	}
	debts, err := r.db(ctx).Debt.Query().
		Where(debt.DebtorIDIn(ids...)).
		Select(debt.FieldDebtorID, debt.FieldOriginalAmount, debt.FieldPaidAmount, debt.FieldWithdrawnAt, debt.FieldCreatedAt).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]collection.DebtFacts, len(debtors))
	for _, d := range debts {
		out[d.DebtorID] = append(out[d.DebtorID], *debtFacts(d))
	}
	return out, nil
}

// debtFacts are the facts of a debt row.
func debtFacts(d *ent.Debt) *collection.DebtFacts {
	return &collection.DebtFacts{
		ID:        int(d.ID),
		Original:  d.OriginalAmount,
		Paid:      d.PaidAmount,
		Withdrawn: d.WithdrawnAt != nil,
		CreatedAt: d.CreatedAt,
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// later reports whether debt a was created after b (ties: the higher id).
func later(a, b *ent.Debt) bool {
	return a.CreatedAt.After(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID > b.ID)
}

// loadDebtEvents reads the timelines of debts, with their records.
func (r *Resolver) loadDebtEvents(ctx context.Context, debts []*ent.Debt) (map[string][]*ent.AuditEvent, error) {
	ids := make([]scalar.IntID, len(debts))
	for i, d := range debts {
		ids[i] = d.ID
	}
	events, err := r.db(ctx).AuditEvent.Query().
		Where(auditevent.DebtIDIn(ids...)).
		WithRecords().
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]*ent.AuditEvent, len(debts))
	for _, e := range events {
		if e.DebtID != nil {
			k := strconv.Itoa(int(*e.DebtID))
			out[k] = append(out[k], e)
		}
	}
	return out, nil
}
