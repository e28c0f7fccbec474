package ledger

import (
	"context"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/debtql/debtql/internal/store"
)

// totalFunc is a list's ent.Paging.Total: the subquery of its total count.
type totalFunc = func(ctx context.Context, drv dialect.Driver, counted func() (*sql.Selector, error)) (*sql.Selector, error)

// rememberedSearchTotals is how many search totals the service remembers
// (the least recently used go first): some hundred bytes each.
const rememberedSearchTotals = 4096

// searchTotals remembers the totals of searches on a client's debtors
// (PostgreSQL), each with the client's store.DebtorVersion at which it was
// counted. Counting a search reads every match, so a search with many
// matches costs as much for its total as for everything else, again on
// every page and every request. A remembered total is served while the
// client's version is still the one it was counted at, which the page's
// own statement checks (store.RememberedTotal), so a total served is
// always the exact count of that statement's snapshot.
//
// The searches remembered are those whose matches depend only on the
// debtors' own searched columns, which the version covers: a filter of a
// NAME, IDENTIFICATION_NUMBER or EMAIL search and nothing else. ALL, and
// every other filter, read debts or the date too, and are counted.
type searchTotals struct {
	cache *lru.Cache[searchTotalKey, searchTotal]
}

// searchTotalKey is one search of one client's debtors.
type searchTotalKey struct {
	client, searchType, term string
}

// searchTotal is a total counted at a version.
type searchTotal struct {
	version store.DebtorVersion
	n       int64
}

func newSearchTotals() *searchTotals {
	c, err := lru.New[searchTotalKey, searchTotal](rememberedSearchTotals)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &searchTotals{cache: c}
}

// rememberedSearch is the key of a client's debtor search (search, from
// searchAlone) that searchTotals remembers; ok is false for any other.
func rememberedSearch(clientID string, search *searchTerm) (key searchTotalKey, ok bool) {
	if search == nil {
		return key, false
	}
	switch search.typ {
	case SearchTypeName, SearchTypeIdentificationNumber, SearchTypeEmail:
		return searchTotalKey{client: clientID, searchType: string(search.typ), term: search.term}, true
	}
	return key, false
}

// total is the Total of the search key on PostgreSQL: the remembered
// total, after one statement that reads the client's version and counts
// only when the version is not the remembered one (then remembers the new
// count). inner is the search's own total (nil: counting the rows).
func (r *searchTotals) total(key searchTotalKey, inner totalFunc) totalFunc {
	return func(ctx context.Context, drv dialect.Driver, counted func() (*sql.Selector, error)) (*sql.Selector, error) {
		// The subquery that counts. The check gets a copy: a selector
		// joined into a statement keeps that statement's numbering of its
		// arguments, and c goes on to the page's.
		var c *sql.Selector
		var err error
		if inner != nil {
			c, err = inner(ctx, drv, counted)
		}
		if c == nil && err == nil {
			c, err = counted()
		}
		if err != nil {
			return nil, err
		}
		t, known := r.cache.Get(key)
		var remembered *store.DebtorVersion
		if known {
			remembered = &t.version
		}
		v, versioned, n, err := store.CheckDebtorVersion(ctx, drv, key.client, remembered, c.Clone())
		switch {
		case err != nil:
			return nil, err
		case !versioned:
			return c, nil // no version kept for the client: the page counts
		case n != nil:
			t = searchTotal{version: v, n: *n}
			r.cache.Add(key, t)
		}
		return store.RememberedTotal(key.client, t.version, t.n, c), nil
	}
}
