package seed

import (
	"iter"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// kind is how a column's value is written: as it is, or converted for the
// database (UUIDs and dates have their own types on PostgreSQL).
type kind int

const (
	plain kind = iota
	uuidColumn
	dateColumn
)

type column struct {
	name string
	kind kind
}

// table is one DebtQL table's generated rows, column by column. Values are
// Go values database/sql takes (string, int64, bool, time.Time,
// scalar.Date, nil); the loaders convert uuidColumn and dateColumn values.
// The rows are either rows, or item by item: item(i) are the rows of item
// i of 1..items (a debt's two items, an invoice's three articles), which
// several goroutines can make at once (stream).
type table struct {
	name  string
	cols  []column
	rows  iter.Seq[[]any]
	items int
	item  func(i int) [][]any
	// tap, when set, sees every row as it is loaded.
	tap func(row []any)
}

// stream is the table's rows in order, made by up to workers goroutines
// when the table is made item by item, and shown to tap.
func (t table) stream(workers int) iter.Seq[[]any] {
	rows := t.rows
	if t.item != nil {
		rows = inOrder(t.items, workers, t.item)
	}
	if t.tap == nil {
		return rows
	}
	return func(yield func([]any) bool) {
		for row := range rows {
			t.tap(row)
			if !yield(row) {
				return
			}
		}
	}
}

// inOrder yields the rows of items 1..n in order. With more than one
// worker, goroutines make chunks of items ahead of the consumer (at most a
// few chunks each), so that on PostgreSQL the generator no longer limits
// COPY: at the bench10 scale the seed's single goroutine kept the server
// waiting for rows of invoices, articles and debt items. The generator is a
// pure function of the row number, so any goroutine may make any item.
func inOrder(n, workers int, item func(i int) [][]any) iter.Seq[[]any] {
	if workers < 2 {
		return func(yield func([]any) bool) {
			for i := 1; i <= n; i++ {
				for _, row := range item(i) {
					if !yield(row) {
						return
					}
				}
			}
		}
	}
	return func(yield func([]any) bool) {
		const chunk = 512
		type job struct {
			from, to int
			out      chan [][]any
		}
		jobs := make(chan job)
		// The chunks' results in item order, each filled by whichever worker
		// took the chunk.
		pending := make(chan chan [][]any, 4*workers)
		done := make(chan struct{})
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range jobs {
					rows := make([][]any, 0, j.to-j.from+1)
					for i := j.from; i <= j.to; i++ {
						rows = append(rows, item(i)...)
					}
					j.out <- rows // buffered: never blocks
				}
			}()
		}
		go func() {
			defer close(pending)
			defer close(jobs)
			for from := 1; from <= n; from += chunk {
				j := job{from: from, to: min(from+chunk-1, n), out: make(chan [][]any, 1)}
				select {
				case pending <- j.out:
				case <-done:
					return
				}
				select {
				case jobs <- j:
				case <-done:
					return
				}
			}
		}()
		// On an early stop: release the dispatcher, let the workers finish.
		defer func() {
			close(done)
			for range pending {
			}
			wg.Wait()
		}()
		for out := range pending {
			for _, row := range <-out {
				if !yield(row) {
					return
				}
			}
		}
	}
}

func cols(specs ...any) []column {
	var out []column
	for i := 0; i < len(specs); i += 2 {
		out = append(out, column{name: specs[i].(string), kind: specs[i+1].(kind)})
	}
	return out
}

// ts is how a timestamp is stored: UTC, cut to microseconds (PostgreSQL's
// precision), as ent's clock writes them.
func ts(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func tsOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return ts(*t)
}

func strOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func keyOrNil(s *string, key func(string) string) any {
	if s == nil {
		return nil
	}
	return key(*s)
}

// tables returns DebtQL's tables in the order their foreign keys need, with
// every search key derived by the functions ent's hooks use.
func (g *generator) tables() []table {
	c := g.cfg
	return []table{
		{
			name: "clients",
			cols: cols("id", uuidColumn, "created_at", plain, "updated_at", plain, "client_number", plain,
				"name", plain, "name_key", plain, "organization_number", plain, "organization_number_digits", plain,
				"adress1", plain, "address2", plain, "zip_code", plain, "city", plain, "country_code", plain,
				"bank_number", plain, "email", plain, "contact_name", plain, "contact_email", plain, "contact_phone", plain),
			rows: func(yield func([]any) bool) {
				for k := 1; k <= c.Clients; k++ {
					r := g.client(k)
					if !yield([]any{r.id, ts(r.created), ts(r.created), int64(r.number),
						r.name, collection.SearchKey(r.name), r.orgNumber, collection.Digits(r.orgNumber),
						r.adress1, r.address2, r.zip, r.city, "SE",
						r.bank, r.email, r.contactName, r.contactEmail, r.contactPhone}) {
						return
					}
				}
			},
		},
		{
			name: "debtors",
			cols: cols("id", uuidColumn, "created_at", plain, "updated_at", plain, "is_corporation", plain,
				"identification_number", plain, "identification_key", plain, "name", plain, "name_key", plain,
				"address1", plain, "address2", plain, "care_of", plain, "zip_code", plain, "city", plain,
				"country_code", plain, "email", plain, "email_key", plain, "phone", plain, "client_id", uuidColumn),
			items: c.Debts,
			item: func(i int) [][]any {
				r := g.debtor(i)
				return [][]any{{r.id, ts(r.created), ts(r.created), r.corporation,
					r.ident, collection.IdentificationKey(r.ident), r.name, collection.SearchKey(r.name),
					r.address1, strOrNil(r.address2), strOrNil(r.careOf), r.zip, r.city,
					"SE", strOrNil(r.email), keyOrNil(r.email, collection.SearchKey), strOrNil(r.phone), r.client}}
			},
		},
		{
			name: "invoices",
			cols: cols("id", uuidColumn, "created_at", plain, "updated_at", plain, "invoice_number", plain,
				"invoice_number_key", plain, "invoice_date", dateColumn, "days_until_expiration", plain, "due_date", dateColumn,
				"interest_rate", plain, "total_excluding_vat", plain, "total_vat_amount", plain,
				"total_amount_including_vat", plain, "reminder_date", dateColumn, "reminder_fee", plain,
				"withdrawn_at", plain, "withdraw_comment", plain, "client_id", uuidColumn),
			items: c.Invoices,
			item: func(k int) [][]any {
				r := g.invoice(k)
				var interest, reminder, fee any
				if r.interest != nil {
					interest = int64(*r.interest)
				}
				if r.reminderDate != nil {
					reminder = *r.reminderDate
				}
				if r.reminderFee != nil {
					fee = int64(*r.reminderFee)
				}
				return [][]any{{r.id, ts(r.created), ts(r.updated), r.number,
					collection.NumberKey(r.number), r.invoiceDate, int64(r.days), r.dueDate,
					interest, int64(r.excl), int64(r.vat),
					int64(r.incl), reminder, fee,
					tsOrNil(r.withdrawnAt), strOrNil(r.withdrawComment), r.client}}
			},
		},
		{
			name: "invoice_articles",
			cols: cols("id", plain, "client_id", uuidColumn, "position", plain, "name", plain, "name_key", plain,
				"description", plain, "price_excluding_vat", plain, "total_vat_amount", plain,
				"total_amount_including_vat", plain, "total_amount_excluding_vat", plain, "quantity", plain,
				"vat_percentage", plain, "discount", plain, "invoice_id", uuidColumn),
			items: c.Invoices,
			item: func(k int) [][]any {
				r := g.invoice(k)
				rows := make([][]any, 0, ArticlesPerInvoice)
				for a, art := range r.articles {
					rows = append(rows, []any{int64(ArticlesPerInvoice*(k-1) + a + 1), r.client, int64(a), art.name, collection.SearchKey(art.name),
						strOrNil(art.description), int64(art.price), int64(art.vat),
						int64(art.incl), int64(art.excl), int64(art.quantity),
						int64(art.vatPercent), int64(art.disc), r.id})
				}
				return rows
			},
		},
		{
			name: "debts",
			// Default terms: charged_amount is original_amount, and the
			// demand was sent when the debt was created.
			cols: cols("id", plain, "created_at", plain, "updated_at", plain, "original_amount", plain,
				"paid_amount", plain, "withdrawn_at", plain, "withdraw_comment", plain, "client_id", uuidColumn,
				"debtor_id", uuidColumn, "charged_amount", plain, "demand_sent_at", plain,
				"last_payment_on", dateColumn),
			items: c.Debts,
			item: func(i int) [][]any {
				r := g.debt(i)
				var last any
				for _, p := range r.payments {
					if l, ok := last.(scalar.Date); !ok || p.transactionDate.After(l) {
						last = p.transactionDate
					}
				}
				return [][]any{{int64(r.id), ts(r.created), ts(r.updated), int64(r.original),
					int64(r.paid), tsOrNil(r.withdrawnAt), strOrNil(r.withdrawComment), ClientID(r.client),
					r.debtor, int64(r.original), ts(r.created), last}}
			},
		},
		{
			name: "debt_invoices",
			cols: cols("id", plain, "created_at", plain, "client_id", uuidColumn, "position", plain,
				"invoice_number", plain, "invoice_number_key", plain, "description", plain,
				"invoice_date", plain, "due_date", plain, "reminder_date", plain, "amount", plain,
				"paid_amount", plain, "debt_id", plain, "due_on", dateColumn),
			items: c.Debts,
			item: func(i int) [][]any {
				r := g.debt(i)
				client := ClientID(r.client)
				rows := make([][]any, 0, ItemsPerDebt)
				for n, it := range r.items {
					rows = append(rows, []any{int64(it.id), ts(r.created), client, int64(n),
						it.number, collection.NumberKey(it.number), strOrNil(it.description),
						ts(it.invoiceDate), ts(it.dueDate), tsOrNil(it.reminderDate), int64(it.amount),
						int64(it.paid), int64(r.id), it.dueOn})
				}
				return rows
			},
		},
		{
			name: "payments",
			cols: cols("id", plain, "created_at", plain, "client_id", uuidColumn, "amount", plain,
				"transaction_date", dateColumn, "booked_date", dateColumn, "source", plain, "debt_id", plain,
				"debt_invoice_id", plain),
			rows: func(yield func([]any) bool) {
				for id, p := range g.payments() {
					var booked any
					if p.bookedDate != nil {
						booked = *p.bookedDate
					}
					if !yield([]any{int64(id + 1), ts(p.created), ClientID(g.clientOf(p.debt)), int64(p.amount),
						p.transactionDate, booked, p.source, int64(p.debt),
						int64(p.item)}) {
						return
					}
				}
			},
		},
	}
}

// payments are all the payments, oldest first: their ids (1..Payments)
// follow the order in which they were made, as a sequence would number them.
func (g *generator) payments() []paymentRow {
	all := make([]paymentRow, 0, g.cfg.Payments)
	byDebt := func(i int) [][]any {
		if g.paymentCount(i) == 0 {
			return nil
		}
		ps := g.debt(i).payments
		rows := make([][]any, len(ps))
		for k := range ps {
			rows[k] = []any{ps[k]}
		}
		return rows
	}
	for row := range inOrder(g.cfg.Debts, runtime.GOMAXPROCS(0), byDebt) {
		all = append(all, row[0].(paymentRow))
	}
	sort.Slice(all, func(a, b int) bool {
		pa, pb := &all[a], &all[b]
		if !pa.created.Equal(pb.created) {
			return pa.created.Before(pb.created)
		}
		if pa.debt != pb.debt {
			return pa.debt < pb.debt
		}
		return pa.seq < pb.seq
	})
	return all
}
