package ledger

import (
	"cmp"
	"context"
	stdsql "database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/debtitem"
	"github.com/debtql/debtql/ent/payment"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// ClaimFacts gathers what a debt's claim is computed from: its items,
// terms, payments and fees, and the reference rates, as they are now,
// whatever d's amounts say (its facts may have changed since it was read).
func (s *Service) ClaimFacts(ctx context.Context, d *ent.Debt) (collection.ClaimFacts, error) {
	m, err := s.claimFactsMany(ctx, []*ent.Debt{d}, nil, false)
	if err != nil {
		return collection.ClaimFacts{}, err
	}
	return m[d.ID], nil
}

// claimFactsMany reads the claim facts of debts with one statement
// whatever their number (their items, payments and fees:
// claimFactsStatement), and the reference rates once when a debt's terms
// need them (rates, when not nil, remembers them for the caller's next
// call). With byAmounts, it reads the facts the debts' amounts as read
// say they have: no payment of a debt paid 0.00, no fee of one charged
// its items' amount that bears no interest (the debts were read in the
// same operation: the claim is that of the debt as it was read).
func (s *Service) claimFactsMany(ctx context.Context, debts []*ent.Debt, rates *[]collection.ReferenceRate, byAmounts bool) (map[scalar.IntID]collection.ClaimFacts, error) {
	facts := make([]collection.ClaimFacts, len(debts))
	byID := make(map[scalar.IntID]*collection.ClaimFacts, len(debts))
	statutory := false
	for i, d := range debts {
		f := &facts[i]
		f.Terms = DebtTerms(d)
		if d.WithdrawnAt != nil {
			w := s.dayIn(*d.WithdrawnAt)
			f.WithdrawnOn = &w
		}
		statutory = statutory || f.Terms.Interest == collection.InterestStatutory
		byID[d.ID] = f
	}
	update := func(id int64, change func(*collection.ClaimFacts)) error {
		f, ok := byID[scalar.IntID(id)]
		if !ok {
			return fmt.Errorf("ledger: claim facts of debt %d, which was not asked for", id)
		}
		change(f)
		return nil
	}
	// Items handed over before due_on was kept: their due day from
	// due_date, read apart.
	undated := map[int64]int64{} // item id -> debt id
	for start := 0; start < len(debts); start += maxFactsDebts {
		// byAmounts: each branch of the statement asks only for the debts
		// that can have its rows.
		var ids, paying, charging []int64
		for _, d := range debts[start:min(start+maxFactsDebts, len(debts))] {
			// The items the operation's selection loaded serve the claim:
			// they are read once.
			if items, ok := d.LoadedItems(); ok {
				f := byID[d.ID]
				f.Items = make([]collection.ClaimItem, 0, len(items))
				for _, it := range items {
					f.Items = append(f.Items, s.claimItem(it))
				}
			} else {
				ids = append(ids, int64(d.ID))
			}
			if !byAmounts || d.PaidAmount != 0 {
				paying = append(paying, int64(d.ID))
			}
			if !byAmounts || d.InterestBearing || d.ChargedAmount != d.OriginalAmount {
				charging = append(charging, int64(d.ID))
			}
		}
		if len(ids)+len(paying)+len(charging) == 0 {
			continue
		}
		query, args := s.factsQuery(ids, paying, charging)
		rows, err := s.db(ctx).QueryContext(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			r, err := scanFactRow(rows)
			if err == nil {
				err = update(r.debtID, func(f *collection.ClaimFacts) {
					var dated bool
					if dated, err = r.applyTo(f); err == nil && !dated {
						undated[r.id] = r.debtID
					}
				})
			}
			if err != nil {
				rows.Close()
				return nil, err
			}
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	if len(undated) > 0 {
		itemIDs := make([]scalar.IntID, 0, len(undated))
		for id := range undated {
			itemIDs = append(itemIDs, scalar.IntID(id))
		}
		items, err := s.db(ctx).DebtItem.Query().Where(debtitem.IDIn(itemIDs...)).Select(debtitem.FieldDueDate).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			due := s.dayIn(it.DueDate)
			_ = update(undated[int64(it.ID)], func(f *collection.ClaimFacts) {
				for i := range f.Items {
					if f.Items[i].ID == int(it.ID) {
						f.Items[i].Due = due
					}
				}
			})
		}
	}
	for i := range facts {
		// Loaded items come in the order of the debt's load; a claim takes
		// them by id, as the statement gives them.
		slices.SortFunc(facts[i].Items, func(a, b collection.ClaimItem) int { return cmp.Compare(a.ID, b.ID) })
	}
	if statutory {
		var inForce []collection.ReferenceRate
		var err error
		if rates != nil && *rates != nil {
			inForce = *rates
		} else if inForce, err = s.RatesInForce(ctx); err != nil {
			return nil, err
		}
		if rates != nil {
			*rates = inForce
		}
		for _, d := range debts {
			_ = update(int64(d.ID), func(f *collection.ClaimFacts) {
				if f.Terms.Interest == collection.InterestStatutory {
					f.Rates = inForce
				}
			})
		}
	}
	out := make(map[scalar.IntID]collection.ClaimFacts, len(debts))
	for id, f := range byID {
		out[id] = *f
	}
	return out, nil
}

// claimItem is an item of a claim as the claim takes it; an item handed
// over before its due day was kept has it from its due date.
func (s *Service) claimItem(it *ent.DebtItem) collection.ClaimItem {
	c := collection.ClaimItem{ID: int(it.ID), Amount: it.Amount, InterestRate: it.InterestRate}
	if it.DueOn != nil {
		c.Due = *it.DueOn
	} else {
		c.Due = s.dayIn(it.DueDate)
	}
	return c
}

// claimItemColumns are the columns of an item its claim is computed from.
var claimItemColumns = []string{debtitem.FieldDebtID, debtitem.FieldAmount, debtitem.FieldDueOn, debtitem.FieldDueDate, debtitem.FieldInterestRate}

// loadClaimColumns makes a query of debts whose selection eager-loads their
// items (Debt.invoices) load the columns of the items' claims too, so that
// claimFactsMany takes a page's items from the page's own load
// (Debt.LoadedItems) instead of reading them again.
func loadClaimColumns(_ context.Context, q *ent.DebtQuery) error {
	q.LoadItemColumns(claimItemColumns...)
	return nil
}

// The kinds of row of claimFactsStatement (and of the statement that
// books a payment on a debt that bears interest: bookAccruingFast).
const (
	factItem    = 0
	factPayment = 1
	factFee     = 2
	factRate    = 3
	factDebt    = 4
)

// factRow is a row of claimFactsStatement.
type factRow struct {
	kind, debtID, id int64
	amount           collection.Money
	day              stdsql.Null[scalar.Date]
	num              stdsql.NullInt64
	label            stdsql.NullString
}

func scanFactRow(rows *stdsql.Rows) (factRow, error) {
	var r factRow
	err := rows.Scan(&r.kind, &r.debtID, &r.id, &r.amount, &r.day, &r.num, &r.label)
	return r, err
}

// applyTo adds an item, a payment or a fee to f; dated is false for an
// item without its due day (handed over before it was kept).
func (r factRow) applyTo(f *collection.ClaimFacts) (dated bool, err error) {
	switch r.kind {
	case factItem:
		it := collection.ClaimItem{ID: int(r.id), Due: r.day.V, Amount: r.amount}
		if r.num.Valid {
			rate := collection.Rate(r.num.Int64)
			it.InterestRate = &rate
		}
		f.Items = append(f.Items, it)
		return r.day.Valid, nil
	case factPayment:
		f.Payments = append(f.Payments, collection.ClaimPayment{ID: int(r.id), Date: r.day.V, Amount: r.amount,
			Item: int(r.num.Int64), Opening: r.label.String == payment.SourceBEFORE_HANDOVER.String()})
	case factFee:
		var k collection.FeeKind
		if err := k.UnmarshalGQL(r.label.String); err != nil {
			return true, err
		}
		f.Fees = append(f.Fees, collection.Fee{Kind: k, Amount: r.amount, ChargedOn: r.day.V})
	default:
		return true, fmt.Errorf("ledger: a claim fact of kind %d", r.kind)
	}
	return true, nil
}

// maxFactsDebts bounds the debts of one facts statement (SQLite's
// parameters: three per debt).
const maxFactsDebts = 1000

// factsQuery is the statement that reads the claim facts of debts (the
// items of those of items, the payments of those of payments, the fees of
// those of fees), with its arguments.
type factsQuery func(items, payments, fees []int64) (string, []any)

// claimFactsStatement reads the items, payments and fees of the debts that
// where selects (where(0) for items, where(1) payments, where(2) fees),
// each as a row (kind, debt id, id, amount, day, a number,
// a label), in the order the claim takes them: by kind, then id. An item's
// day is its due day and its number its agreed rate; a payment's, its
// date and its item, its label its source; a fee's, the day charged and
// its kind. The debts' ids come from debts the caller read under the
// tenant filter, so the rows are the actor's client's.
func claimFactsStatement(where func(n int) string) string {
	return claimFactsUnion(where) + " ORDER BY 1, 3"
}

// claimFactsUnion is claimFactsStatement without its order.
func claimFactsUnion(where func(n int) string) string {
	return "SELECT " + strconv.Itoa(factItem) + " AS k, debt_id, id, amount, due_on, interest_rate, CAST(NULL AS TEXT) FROM debt_invoices WHERE " + where(0) +
		" UNION ALL SELECT " + strconv.Itoa(factPayment) + ", debt_id, id, amount, transaction_date, debt_invoice_id, source FROM payments WHERE " + where(1) +
		" UNION ALL SELECT " + strconv.Itoa(factFee) + ", debt_id, id, amount, charged_on, CAST(NULL AS BIGINT), kind FROM fees WHERE " + where(2)
}

// pgFactsQuery is claimFactsStatement on PostgreSQL: each branch's ids as
// an array.
func pgFactsQuery(items, payments, fees []int64) (string, []any) {
	return claimFactsStatement(func(n int) string { return "debt_id = ANY($" + strconv.Itoa(n+1) + "::bigint[])" }),
		[]any{orEmpty(items), orEmpty(payments), orEmpty(fees)}
}

// orEmpty is ids, or an empty list for none (an array, not NULL).
func orEmpty(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// sqliteFactsQuery is claimFactsStatement on SQLite: each branch's ids as a
// list of parameters.
func sqliteFactsQuery(items, payments, fees []int64) (string, []any) {
	lists := [][]int64{items, payments, fees}
	var args []any
	for _, l := range lists {
		for _, id := range l {
			args = append(args, id)
		}
	}
	return claimFactsStatement(func(n int) string {
		if len(lists[n]) == 0 {
			return "1 = 0"
		}
		return "debt_id IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(lists[n])), ", ") + ")"
	}), args
}

// claimOf computes a debt's claim on a day once per claim cache
// (WithClaimCache): a debt's items and payments each ask for the same
// claim, and the debts of a page (PrimeClaims) have their facts read
// together, with the same statements for a page of any size.
func (s *Service) claimOf(ctx context.Context, id scalar.IntID, debtOf func() (*ent.Debt, error), day claimDay) (collection.Claim, error) {
	cache, ok := ctx.Value(claimCacheKey{}).(*claimCache)
	if !ok {
		d, err := debtOf()
		if err != nil {
			return collection.Claim{}, err
		}
		f, err := s.ClaimFacts(ctx, d)
		if err != nil {
			return collection.Claim{}, err
		}
		return f.Claim(day.of(f))
	}
	cache.mu.Lock()
	k := claimKey{id, day.key}
	e := cache.claims[k]
	if e == nil {
		e = &claimEntry{}
		cache.claims[k] = e
	}
	cache.mu.Unlock()
	e.once.Do(func() {
		var f collection.ClaimFacts
		if f, e.err = s.cachedFacts(ctx, cache, id, debtOf); e.err == nil {
			e.claim, e.err = f.Claim(day.of(f))
		}
	})
	return e.claim, e.err
}

// cachedFacts are the claim facts of debt id, read once per cache: with
// the other debts primed with it (PrimeClaims) when it is one of them.
func (s *Service) cachedFacts(ctx context.Context, cache *claimCache, id scalar.IntID, debtOf func() (*ent.Debt, error)) (collection.ClaimFacts, error) {
	cache.mu.Lock()
	e := cache.facts[id]
	if e == nil {
		// Not primed: read alone.
		d, err := debtOf()
		if err != nil {
			cache.mu.Unlock()
			return collection.ClaimFacts{}, err
		}
		e = &factsBatch{debts: []*ent.Debt{d}}
		cache.facts[id] = e
	}
	cache.mu.Unlock()
	e.once.Do(func() { e.facts, e.err = s.claimFactsMany(ctx, e.debts, &cache.rates, true) })
	if e.err != nil {
		return collection.ClaimFacts{}, e.err
	}
	return e.facts[id], nil
}

type (
	claimCacheKey struct{}
	claimKey      struct {
		debt scalar.IntID
		day  string
	}
	claimEntry struct {
		once  sync.Once
		claim collection.Claim
		err   error
	}
	// factsBatch is the facts of debts read together.
	factsBatch struct {
		debts []*ent.Debt
		once  sync.Once
		facts map[scalar.IntID]collection.ClaimFacts
		err   error
	}
	claimCache struct {
		mu     sync.Mutex
		claims map[claimKey]*claimEntry
		facts  map[scalar.IntID]*factsBatch
		// rates are the reference rates once a batch read them.
		rates []collection.ReferenceRate
	}
)

// WithClaimCache gives ctx a cache of the claims computed under it; the
// caller's work must not change the debts it reads meanwhile (a query
// operation, or one root field of a mutation).
func WithClaimCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, claimCacheKey{}, &claimCache{claims: map[claimKey]*claimEntry{}, facts: map[scalar.IntID]*factsBatch{}})
}

// PrimeClaims registers the debts of a page with the claim cache of ctx:
// the first claim asked of any of them reads the facts of all those not
// yet read, together.
func PrimeClaims(ctx context.Context, debts []*ent.Debt) {
	cache, ok := ctx.Value(claimCacheKey{}).(*claimCache)
	if !ok || len(debts) == 0 {
		return
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if len(cache.claims) == 0 {
		// A page's claims are asked next: room for them at once.
		cache.claims = make(map[claimKey]*claimEntry, len(debts))
	}
	b := &factsBatch{}
	for _, d := range debts {
		if cache.facts[d.ID] == nil {
			b.debts = append(b.debts, d)
			cache.facts[d.ID] = b
		}
	}
}
