package seed

import (
	"bytes"
	"crypto/md5"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/debtql/debtql/internal/store"
)

// nameSuffixTrigger is the trigger of the migration debtor_name_suffixes
// that fills the table from every statement inserting debtors. The
// PostgreSQL load disables it for its COPY of the debtors and loads the
// table itself (nameSuffixes).
const nameSuffixTrigger = "debtors_name_suffixes_insert"

// suffix is one row of debtor_name_suffixes: debtor d's name_key from byte
// off on.
type suffix struct {
	debtor uint32
	off    uint16
}

// nameSuffixes is debtor_name_suffixes as the trigger makes it from the
// debtors: for every debtor, every suffix of its name_key by characters
// (substr(name_key, i) for i = 1..char_length(name_key)). It is made here,
// in the order of the table's primary key (client, suffix, debtor, each
// compared as bytes), so that building the key after the load sorts rows
// that are already in order. At the bench10 scale the trigger's 29 million
// unordered rows and the key's build over them took more than a third of
// the whole seed. The apitest cleanup after every test, and
// TestSeedRestoresIndexesAndKeys, compare the table with the trigger's rule.
//
// collect must see every row of the debtors table (debtorCols), in order, as it is
// loaded: with the last one, the suffixes are sorted on other goroutines
// while PostgreSQL loads the next tables, and the table's rows wait for
// them.
func (g *generator) nameSuffixes(debtorCols []column) (suffixes table, collect func(debtor []any)) {
	made := make(chan [][]suffix, 1)
	n := g.cfg.Debts
	keys, ids := make([]string, n+1), make([][16]byte, n+1)
	clients := make([][16]byte, g.cfg.Clients+1)
	nameKey := slices.IndexFunc(debtorCols, func(c column) bool { return c.name == "name_key" })
	sortAll := func() {
		for k := 1; k <= g.cfg.Clients; k++ {
			clients[k] = md5.Sum([]byte("client:" + strconv.Itoa(k)))
		}
		parallel(n, func(i int) { ids[i] = md5.Sum([]byte("debtor:" + strconv.Itoa(i))) })
		byClient := make([][]suffix, g.cfg.Clients+1)
		for i := 1; i <= n; i++ {
			c := g.clientOf(i)
			for off := range keys[i] {
				byClient[c] = append(byClient[c], suffix{debtor: uint32(i), off: uint16(off)})
			}
		}
		parallel(g.cfg.Clients, func(c int) {
			slices.SortFunc(byClient[c], func(a, b suffix) int {
				if d := strings.Compare(keys[a.debtor][a.off:], keys[b.debtor][b.off:]); d != 0 {
					return d
				}
				return bytes.Compare(ids[a.debtor][:], ids[b.debtor][:])
			})
		})
		// The clients in the order of their ids.
		cs := make([]int, 0, g.cfg.Clients)
		for c := 1; c <= g.cfg.Clients; c++ {
			cs = append(cs, c)
		}
		slices.SortFunc(cs, func(a, b int) int { return bytes.Compare(clients[a][:], clients[b][:]) })
		order := make([][]suffix, 0, g.cfg.Clients)
		for _, c := range cs {
			order = append(order, byClient[c])
		}
		made <- order
	}
	seen := 0
	collect = func(debtor []any) {
		seen++
		keys[seen] = debtor[nameKey].(string)
		if seen == n {
			go sortAll()
		}
	}
	if n == 0 {
		go sortAll()
	}
	return table{
		name: store.DebtorNameSuffixes,
		// The values are ready for pgx: no column needs converting.
		cols: cols("client_id", plain, "suffix", plain, "debtor_id", plain),
		rows: func(yield func([]any) bool) {
			byClient := <-made
			// 29 million rows: the ids are boxed once each, as pointers,
			// and one row is reused (COPY encodes it before asking for the
			// next).
			debtorIDs := make([]pgtype.UUID, len(ids))
			for i := range ids {
				debtorIDs[i] = pgtype.UUID{Bytes: ids[i], Valid: true}
			}
			clientIDs := make([]pgtype.UUID, len(clients))
			for c := range clients {
				clientIDs[c] = pgtype.UUID{Bytes: clients[c], Valid: true}
			}
			row := make([]any, 3)
			for _, rows := range byClient {
				for _, s := range rows {
					d := int(s.debtor)
					row[0], row[1], row[2] = &clientIDs[g.clientOf(d)], keys[d][s.off:], &debtorIDs[d]
					if !yield(row) {
						return
					}
				}
			}
		},
	}, collect
}

// parallel calls f(1..n) on GOMAXPROCS goroutines.
func parallel(n int, f func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1 + w; i <= n; i += workers {
				f(i)
			}
		}()
	}
	wg.Wait()
}
