package graph

import (
	"context"
	"strconv"
	"sync"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditevent"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/ledger"
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
	invoiceFacts *batch[*ent.Invoice, ledger.InvoiceDebtFacts]
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

// WithLoaders gives an operation its own batches, and the ledger's cache of
// the claims it computes; the server calls it for every operation.
func (r *Resolver) WithLoaders(ctx context.Context) context.Context {
	return context.WithValue(ledger.WithClaimCache(ctx), loadersKey{}, r.newLoaders())
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

// loadInvoiceFacts reads the debt facts of the operation's invoices at
// once, eager-loading on their debts what Invoice.debt selects, and primes
// the loaders of those debts.
func (r *Resolver) loadInvoiceFacts(ctx context.Context, invoices []*ent.Invoice) (map[string]ledger.InvoiceDebtFacts, error) {
	out, err := r.ledger.InvoiceFacts(ctx, invoices, func(q *ent.DebtQuery) error {
		if f := r.loaders(ctx).invoiceDebt.get(); f != nil {
			_, err := q.CollectSelection(ctx, *f)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The fields under Invoice.debt (its debtor's statuses and debts, its
	// items' invoices, its events) load for every invoice's debt at once.
	for _, f := range out {
		if f.Debt != nil {
			r.loaders(ctx).debtEvents.prime(f.Debt)
			r.primeDebts(ctx, f.Debt.ClientID, []*ent.Debt{f.Debt})
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
		Select(append([]string{debt.FieldDebtorID}, ledger.DebtFactFields...)...).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]collection.DebtFacts, len(debtors))
	for _, d := range debts {
		out[d.DebtorID] = append(out[d.DebtorID], d.Facts())
	}
	return out, nil
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
