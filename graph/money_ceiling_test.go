package graph_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
)

// API tests of the money ceiling (docs/decisions.md, "Money ceiling"): no
// stored amount (an item, a debt's original or paid amount, an invoice's
// totals and articles) exceeds 999 999 999 999 999.99, the most the API's
// Decimal takes; what would is refused as BAD_USER_INPUT on the field that
// carries it, with nothing written; sums over many debts (an invoice's
// paidAmount, a debtor's paymentStatus) neither wrap nor fail.

// ceiling is the largest amount the API takes and stores.
const ceiling = "999999999999999.99"

// ceilingEnvs are the databases a ceiling test runs on: PostgreSQL (or
// SQLite when none answers) and SQLite.
var ceilingEnvs = []struct {
	name   string
	newEnv func(testing.TB) *apitest.Env
}{{"postgres", apitest.New}, {"sqlite", apitest.NewSQLite}}

// ceilingItem is a DebtItemInput of amount with opening payments.
func ceilingItem(number, amount string, payments ...string) apitest.Vars {
	it := debtCaseItemInput(number, amount)
	if len(payments) > 0 {
		ps := make([]apitest.Vars, len(payments))
		for i, p := range payments {
			ps[i] = apitest.Vars{"amount": p, "transactionDate": "2026-09-10T10:00:00+02:00"}
		}
		it["payments"] = ps
	}
	return it
}

// ceilingNothingWritten checks that the client has no debt, debtor, item,
// payment, and that no audit event was added since events.
func ceilingNothingWritten(t *testing.T, env *apitest.Env, clientID string, events int) {
	t.Helper()
	if debts, debtors, items, payments := debtCaseCounts(t, env, clientID); debts+debtors+items+payments != 0 {
		t.Errorf("a refused createDebt wrote %d debts, %d debtors, %d items, %d payments", debts, debtors, items, payments)
	}
	if n := auditCount(t, env); n != events {
		t.Errorf("audit events: %d, want %d (none for a refusal)", n, events)
	}
}

// TestMoneyCeilingDebtAboveIsRefused: the reported defect. 500 items of the
// largest amount sum past int64 (the debt was stored with a negative
// original amount, born CLOSED / PAID_IN_FULL); their sum is above the
// ceiling, so createDebt is BAD_USER_INPUT on input.debts and writes
// nothing. One öre above the ceiling over two items is refused the same
// way; so are opening payments whose sum wraps past int64 (they were
// accepted as "less than the item's amount").
func TestMoneyCeilingDebtAboveIsRefused(t *testing.T) {
	for _, db := range ceilingEnvs {
		t.Run(db.name, func(t *testing.T) {
			env := db.newEnv(t)
			clientID, _ := env.NewClient(t, "Ceiling AB")
			events := auditCount(t, env)

			items := make([]apitest.Vars, 500)
			for i := range items {
				items[i] = debtCaseItemInput(fmt.Sprintf("M-%03d", i), ceiling)
			}
			r := debtCaseCreate(t, env.Admin(), clientID, debtCaseInput(apitest.Personnr, "Sven Svensson", items...))
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.debts")
			if !strings.Contains(r.Errors[0].Message, ceiling) {
				t.Errorf("the refusal does not name the ceiling: %s", r)
			}
			ceilingNothingWritten(t, env, clientID, events)

			// One öre above, over two items.
			debtCaseCreate(t, env.Admin(), clientID, debtCaseInput(apitest.Personnr, "Sven Svensson",
				debtCaseItemInput("A", "999999999999999.00"), debtCaseItemInput("B", "1.00"))).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.debts")
			ceilingNothingWritten(t, env, clientID, events)

			// 93 opening payments of the largest amount on an item of 10.00.
			payments := make([]string, 93)
			for i := range payments {
				payments[i] = ceiling
			}
			debtCaseCreate(t, env.Admin(), clientID, debtCaseInput(apitest.Personnr, "Sven Svensson",
				ceilingItem("P", "10.00", payments...))).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.debts.0.payments")
			ceilingNothingWritten(t, env, clientID, events)
		})
	}
}

// TestMoneyCeilingDebtAtIsAccepted: a debt whose items sum to exactly the
// ceiling (two items, and 1,000 items) is accepted, and its amounts read
// back exactly; payments up to the ceiling are accepted.
func TestMoneyCeilingDebtAtIsAccepted(t *testing.T) {
	for _, db := range ceilingEnvs {
		t.Run(db.name, func(t *testing.T) {
			env := db.newEnv(t)
			clientID, _ := env.NewClient(t, "Ceiling AB")
			d := debtCaseMustCreate(t, env.Admin(), clientID, debtCaseInput(apitest.Personnr, "Sven Svensson",
				ceilingItem("A", "999999999999990.00", "999999999999989.99"), ceilingItem("B", "9.99", "9.98")))
			if d.OriginalAmount != ceiling || d.PaidAmount != "999999999999999.97" || d.RemainingAmount != "0.02" ||
				d.PaymentStatus != "PARTIALLY_PAID" || d.MainStatus != "COLLECTION" {
				t.Fatalf("a debt at the ceiling: original %s paid %s remaining %s, %s %s", d.OriginalAmount, d.PaidAmount,
					d.RemainingAmount, d.PaymentStatus, d.MainStatus)
			}
			debtCasePay(t, env.Admin(), clientID, d.ID, d.Invoices[1].ID, "0.02", "2026-11-20").OK(t, nil)
			got := debtCaseMustGet(t, env.Admin(), clientID, d.ID)
			if got.PaidAmount != ceiling || got.PaymentStatus != "PAID" || got.UnderStatus != "PAID_IN_FULL" || got.Invoices[1].PaidAmount != "10.00" {
				t.Fatalf("paid up to the ceiling: paid %s, %s %s, item paid %s", got.PaidAmount, got.PaymentStatus, got.UnderStatus, got.Invoices[1].PaidAmount)
			}

			// 1,000 items: 999 of 1 000 000 000 000.00 and one of the rest.
			items := make([]apitest.Vars, 1000)
			for i := range 999 {
				items[i] = debtCaseItemInput(fmt.Sprintf("T-%04d", i), "1000000000000.00")
			}
			items[999] = debtCaseItemInput("T-0999", "999999999999.99")
			in := debtCaseInput(apitest.Personnr, "Sven Svensson", items...)
			var out struct {
				CreateDebt struct{ OriginalAmount, PaymentStatus, MainStatus string }
			}
			debtCaseCreate(t, env.Admin(), clientID, in).OK(t, &out)
			if c := out.CreateDebt; c.OriginalAmount != ceiling || c.PaymentStatus != "UNPAID" || c.MainStatus != "COLLECTION" {
				t.Fatalf("1,000 items summing to the ceiling: %+v", c)
			}
			// One öre more on the last item is one öre above.
			for i := range items {
				items[i]["invoiceNumber"] = fmt.Sprintf("U-%04d", i)
			}
			items[999]["amount"] = "1000000000000.00"
			debtCaseCreate(t, env.Admin(), clientID, in).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.debts")
		})
	}
}

// TestMoneyCeilingPayments: payments take a debt's paid amount up to the
// ceiling and no further. The one that would go beyond is BAD_USER_INPUT
// on input.amount (it was HTTP 500, "bigint out of range", after 92
// payments of the largest amount), on every booking path: a payment
// answered from its statement (PostgreSQL: no transaction), one with an
// Idempotency-Key and one with a nested answer (in a transaction), and on
// SQLite. A refusal writes nothing: no payment, no amount, no audit event.
func TestMoneyCeilingPayments(t *testing.T) {
	const nested = `mutation($c: UUID!, $i: DebtPaymentInput!) {
  addDebtPayment(clientId: $c, input: $i) { id debt { paidAmount debtor { name } } } }`
	for _, db := range ceilingEnvs {
		t.Run(db.name, func(t *testing.T) {
			env := db.newEnv(t)
			clientID, debtID, itemID := paymentDebt(t, env, "10.00")
			pay := func(amount string, header ...string) *apitest.Response {
				return env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, amount)}, header...)
			}
			pay(ceiling).OK(t, nil) // overpaid, at the ceiling
			events := auditCount(t, env)
			refusals := []struct {
				what   string
				do     func() *apitest.Response
				keyed  bool
				amount string
			}{
				{"the largest amount again", func() *apitest.Response { return pay(ceiling) }, false, ceiling},
				{"one öre", func() *apitest.Response { return pay("0.01") }, false, "0.01"},
				{"one öre with an Idempotency-Key", func() *apitest.Response { return pay("0.01", "Idempotency-Key", "over-1") }, true, "0.01"},
				{"one öre with a nested answer", func() *apitest.Response {
					return env.Admin().Do(t, nested, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "0.01")})
				}, false, "0.01"},
			}
			for _, tc := range refusals {
				r := tc.do()
				r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.amount")
				if !strings.Contains(r.Errors[0].Message, ceiling) {
					t.Errorf("%s: the refusal does not name the ceiling: %s", tc.what, r)
				}
				if tc.keyed { // replayed as refused
					if again := pay(tc.amount, "Idempotency-Key", "over-1"); again.Status != r.Status || string(again.Body) != string(r.Body) {
						t.Errorf("%s: replay %s differs from %s", tc.what, again, r)
					}
				}
			}
			d := readDebt(t, env, clientID, debtID)
			if d.PaidAmount != ceiling || d.Invoices[0].PaidAmount != ceiling || len(d.Payments) != 1 || d.PaymentStatus != "OVERPAID" {
				t.Errorf("after refused payments beyond the ceiling: %+v", d)
			}
			if n := auditCount(t, env); n != events {
				t.Errorf("audit events: %d, want %d (none for a refusal)", n, events)
			}

			// Up to the ceiling in steps: the last öre fits, the next does not.
			debt2, item2 := paymentDebtOf(t, env, clientID, "F-2", "10.00")
			steps := []struct {
				amount string
				ok     bool
			}{{"999999999999999.00", true}, {"0.98", true}, {"0.02", false}, {"0.01", true}, {"0.01", false}}
			for _, s := range steps {
				r := env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debt2, item2, s.amount)})
				if s.ok {
					r.OK(t, nil)
				} else {
					r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.amount")
				}
			}
			if d := readDebt(t, env, clientID, debt2); d.PaidAmount != ceiling || len(d.Payments) != 3 {
				t.Errorf("paid in steps up to the ceiling: %+v", d)
			}
		})
	}
}

// TestMoneyCeilingPaymentsBookedTogether (PostgreSQL): payments that queue
// behind one booking and together would pass the ceiling are booked as if
// one after another: those that fit are booked, the one that does not is
// refused (BAD_USER_INPUT on input.amount), not the whole batch.
func TestMoneyCeilingPaymentsBookedTogether(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("bookings without a transaction are PostgreSQL's")
	}
	clientID, debtID, itemID := paymentDebt(t, env, "10.00")
	ctx := context.Background()
	tx, err := env.DB.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `UPDATE debts SET updated_at = now() WHERE id = $1`, debtID); err != nil {
		t.Fatal(err)
	}
	pay := func(amount string) *apitest.Response {
		return env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, amount)})
	}
	// The first waits for the row; three of 400 000 000 000 000.00 queue
	// behind it: two fit under the ceiling, the third does not.
	first := make(chan *apitest.Response, 1)
	go func() { first <- pay("1.00") }()
	waitForDebtRow(t, env)
	const big = "400000000000000.00"
	answers := make([]*apitest.Response, 3)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() { defer wg.Done(); answers[i] = pay(big) }()
	}
	time.Sleep(300 * time.Millisecond) // they arrive and queue
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	(<-first).OK(t, nil)
	booked, refused := 0, 0
	for _, r := range answers {
		if r.Status == http.StatusOK && len(r.Errors) == 0 {
			booked++
			continue
		}
		r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.amount")
		refused++
	}
	if booked != 2 || refused != 1 {
		t.Errorf("%d booked and %d refused, want 2 and 1", booked, refused)
	}
	if d := readDebt(t, env, clientID, debtID); d.PaidAmount != "800000000000001.00" || len(d.Payments) != 3 {
		t.Errorf("after the batch: %+v", d)
	}
}

// TestMoneyCeilingConcurrentPayments: concurrent payments cannot pass the
// ceiling together, on both databases: with the debt's paid amount at 0,
// twelve payments of 250 000 000 000 000.00 at once (half of them with an
// Idempotency-Key, so booked in transactions that race for the debt's row;
// the others booked without one, together when they queue) book exactly
// three, which sum to 750 000 000 000 000.00; the other nine are
// BAD_USER_INPUT on input.amount and write nothing. The check holds under
// the row lock: a payment that waited for it re-checks the sum it finds.
func TestMoneyCeilingConcurrentPayments(t *testing.T) {
	for _, db := range ceilingEnvs {
		t.Run(db.name, func(t *testing.T) {
			env := db.newEnv(t)
			clientID, debtID, itemID := paymentDebt(t, env, "10.00")
			events := auditCount(t, env)
			const n = 12
			answers := make([]*apitest.Response, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var header []string
					if i%2 == 0 {
						header = []string{"Idempotency-Key", fmt.Sprint("race-", i)}
					}
					answers[i] = env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "250000000000000.00")}, header...)
				}()
			}
			wg.Wait()
			booked := 0
			for _, r := range answers {
				if r.Status == http.StatusOK && len(r.Errors) == 0 {
					booked++
					continue
				}
				r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.amount")
			}
			if booked != 3 {
				t.Errorf("%d of %d payments booked, want 3", booked, n)
			}
			if d := readDebt(t, env, clientID, debtID); d.PaidAmount != "750000000000000.00" || d.Invoices[0].PaidAmount != d.PaidAmount || len(d.Payments) != 3 {
				t.Errorf("after the race: %+v", d)
			}
			if got := auditCount(t, env); got != events+3 {
				t.Errorf("audit events: %d, want %d (one per booked payment)", got, events+3)
			}
		})
	}
}

// TestMoneyCeilingInvoices: an invoice's totals and articles at the
// ceiling are accepted and read back exactly; totals whose sum is beyond
// it are compared exactly (a mismatch, not a wrapped sum); an amount
// beyond the ceiling is refused on its field.
func TestMoneyCeilingInvoices(t *testing.T) {
	for _, db := range ceilingEnvs {
		t.Run(db.name, func(t *testing.T) {
			env := db.newEnv(t)
			clientID, _ := env.NewClient(t, "Ceiling AB")
			article := invoiceArticle("Allt", apitest.Vars{"priceExcludingVAT": ceiling, "totalVATAmount": ceiling,
				"totalAmountIncludingVAT": ceiling, "totalAmountExcludingVAT": ceiling, "discount": ceiling,
				"quantity": "99999999999999.9999"})
			in := invoiceInput("MAX-1", apitest.Vars{"totalExcludingVAT": "799999999999999.99", "totalVATAmount": "200000000000000.00",
				"totalAmountIncludingVAT": ceiling, "reminderFee": ceiling, "articles": []apitest.Vars{article, article}})
			got := invoiceMust(t, env.Admin(), clientID, in)
			if got.TotalAmountIncludingVAT != ceiling || got.TotalExcludingVAT != "799999999999999.99" || got.ReminderFee == nil ||
				*got.ReminderFee != ceiling || got.Articles[1].Discount != ceiling || got.Articles[0].Quantity != "99999999999999.9999" ||
				got.RemainingAmount != ceiling || got.PaidAmount != "0.00" {
				t.Fatalf("an invoice at the ceiling reads %s", invoiceJSON(got))
			}
			// Both parts at the ceiling: their sum is twice it, not the total.
			r := invoiceCreate(t, env.Admin(), clientID, invoiceInput("MAX-2", apitest.Vars{"totalExcludingVAT": ceiling,
				"totalVATAmount": ceiling, "totalAmountIncludingVAT": ceiling}))
			invoiceRefused(t, r, http.StatusBadRequest, "BAD_USER_INPUT", "input.totalAmountIncludingVAT")
			if !strings.Contains(r.Errors[0].Message, "1999999999999999.98") {
				t.Errorf("the mismatch does not name the exact sum: %s", r)
			}
			// Above the ceiling: refused by the Decimal itself.
			invoiceRefused(t, invoiceCreate(t, env.Admin(), clientID, invoiceInput("MAX-3", apitest.Vars{"totalAmountIncludingVAT": "1000000000000000.00"})),
				http.StatusBadRequest, "BAD_USER_INPUT")
			if n := invoiceCount(t, env, clientID); n != 1 {
				t.Errorf("%d invoices, want 1", n)
			}
		})
	}
}

// TestMoneyCeilingInvoicePaidAcrossDebts: an invoice's paidAmount sums the
// items of its number in all the client's debts, withdrawn ones included,
// whose number is not bounded: 93 hand-overs of one invoice number, each
// paid one öre short of the ceiling and withdrawn, pay it more than int64
// holds. Its statuses stay exact (OVERPAID and PAID, in the field and in
// the filters, on both databases: the sum neither wraps in Go nor fails in
// SQL), and paidAmount reads the largest amount int64 holds.
func TestMoneyCeilingInvoicePaidAcrossDebts(t *testing.T) {
	for _, db := range ceilingEnvs {
		t.Run(db.name, func(t *testing.T) {
			env := db.newEnv(t)
			clientID, _ := env.NewClient(t, "Ceiling AB")
			inv := invoiceMust(t, env.Admin(), clientID, invoiceInput("INV-1", apitest.Vars{"totalExcludingVAT": "1000", "totalVATAmount": "250",
				"totalAmountIncludingVAT": "1250"}))
			for range 93 {
				d := debtCaseMustCreate(t, env.Admin(), clientID, debtCaseInput(apitest.Personnr, "Sven Svensson",
					ceilingItem("INV-1", ceiling, "999999999999999.98")))
				debtCaseWithdraw(t, env.Admin(), clientID, apitest.Vars{"id": d.ID}).OK(t, nil)
			}
			got := invoiceRead(t, env.Admin(), clientID, inv.ID)
			if got.PaidAmount != "92233720368547758.07" || got.RemainingAmount != "0.00" || got.PaymentStatus != "OVERPAID" || got.Status != "PAID" {
				t.Errorf("an invoice paid more than int64 holds: paid %s remaining %s, %s %s", got.PaidAmount, got.RemainingAmount, got.PaymentStatus, got.Status)
			}
			for _, f := range []apitest.Vars{{"paymentStatus": "OVERPAID"}, {"invoiceStatus": "PAID"}, {"isCompleted": true}, {"activeStatus": "INACTIVE"}} {
				if p := invoiceList(t, env.Admin(), clientID, apitest.Vars{"filter": f}); p.TotalCount != 1 || p.Nodes[0].ID != inv.ID {
					t.Errorf("filter %v: %d invoices, want the overpaid one", f, p.TotalCount)
				}
			}
			for _, f := range []apitest.Vars{{"paymentStatus": "UNPAID"}, {"paymentStatus": "PARTIALLY_PAID"}, {"paymentStatus": "PAID"}, {"isCompleted": false}} {
				if p := invoiceList(t, env.Admin(), clientID, apitest.Vars{"filter": f}); p.TotalCount != 0 {
					t.Errorf("filter %v: %d invoices, want none", f, p.TotalCount)
				}
			}
		})
	}
}

// TestMoneyCeilingDebtorTotals: a debtor's paymentStatus compares the sums
// of its unwithdrawn debts, whose number is not bounded: 93 debts of the
// largest amount owe more than int64 holds. With one öre paid on each it
// reads PARTIALLY_PAID (the owed sum wrapped to a negative one, which read
// OVERPAID), in the field and in the filter, on both databases.
func TestMoneyCeilingDebtorTotals(t *testing.T) {
	for _, db := range ceilingEnvs {
		t.Run(db.name, func(t *testing.T) {
			env := db.newEnv(t)
			clientID, _ := env.NewClient(t, "Ceiling AB")
			var debtorID string
			for i := range 93 {
				d := debtCaseMustCreate(t, env.Admin(), clientID, debtCaseInput(apitest.Personnr, "Sven Svensson",
					ceilingItem(fmt.Sprintf("D-%02d", i), ceiling, "0.01")))
				debtorID = d.Debtor.ID
			}
			var debtor struct{ PaymentStatus string }
			env.Admin().Do(t, `query($c: UUID!, $id: UUID!) { debtor(clientId: $c, id: $id) { paymentStatus } }`,
				apitest.Vars{"c": clientID, "id": debtorID}).Field(t, "debtor", &debtor)
			if debtor.PaymentStatus != "PARTIALLY_PAID" {
				t.Errorf("the debtor of 93 debts at the ceiling reads %s, want PARTIALLY_PAID", debtor.PaymentStatus)
			}
			const list = `query($c: UUID!, $f: DebtorFilter) { debtors(clientId: $c, filter: $f) { totalCount } }`
			for status, want := range map[string]int{"PARTIALLY_PAID": 1, "OVERPAID": 0, "PAID": 0, "UNPAID": 0} {
				var out struct{ Debtors struct{ TotalCount int } }
				env.Admin().Do(t, list, apitest.Vars{"c": clientID, "f": apitest.Vars{"paymentStatus": status}}).OK(t, &out)
				if out.Debtors.TotalCount != want {
					t.Errorf("debtors with paymentStatus %s: %d, want %d", status, out.Debtors.TotalCount, want)
				}
			}
		})
	}
}
