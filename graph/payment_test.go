package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
)

// paymentDebt creates a client, and a debt of one item of amount for a
// Swedish private debtor; it returns the client id, the debt id and the
// item id.
func paymentDebt(t *testing.T, env *apitest.Env, amount string) (clientID string, debtID, itemID int) {
	t.Helper()
	clientID, _ = env.NewClient(t, "Payments AB")
	debtID, itemID = paymentDebtOf(t, env, clientID, "F-1", amount)
	return clientID, debtID, itemID
}

// paymentDebtOf creates a debt of one item (invoice number, amount) for
// the client.
func paymentDebtOf(t *testing.T, env *apitest.Env, clientID, invoiceNumber, amount string) (debtID, itemID int) {
	t.Helper()
	var out struct {
		CreateDebt struct {
			ID       int
			Invoices []struct{ ID int }
		}
	}
	env.Admin().Do(t, createPaymentDebt, createPaymentDebtVars(clientID, invoiceNumber, amount)).OK(t, &out)
	return out.CreateDebt.ID, out.CreateDebt.Invoices[0].ID
}

const createPaymentDebt = `mutation($c: UUID!, $i: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $i) { id invoices { id } } }`

// createPaymentDebtVars are createPaymentDebt's variables: a debt of one
// item (invoice number, amount) against the same debtor.
func createPaymentDebtVars(clientID, invoiceNumber, amount string) apitest.Vars {
	return apitest.Vars{"c": clientID, "i": apitest.Vars{
		"isCorporation": false, "identificationNumber": apitest.Personnr, "name": "Sven Svensson",
		"address": apitest.Vars{"address1": "Vägen 1", "zipCode": "111 22", "city": "Stockholm", "countryCode": "SE"},
		"debts":   []apitest.Vars{{"invoiceNumber": invoiceNumber, "invoiceDate": "2026-01-01T00:00:00+01:00", "dueDate": "2026-01-31T00:00:00+01:00", "amount": amount}},
	}}
}

const addPayment = `mutation($c: UUID!, $i: DebtPaymentInput!) {
  addDebtPayment(clientId: $c, input: $i) { id amount debt { paidAmount remainingAmount paymentStatus } }
}`

func paymentInput(debtID, itemID int, amount any) apitest.Vars {
	return apitest.Vars{"debtId": debtID, "invoiceId": itemID, "amount": amount, "transactionDate": "2026-11-20"}
}

type debtAmounts struct {
	OriginalAmount, PaidAmount, RemainingAmount, OverpaidAmount, PaymentStatus string
	Payments                                                                   []struct{ Amount string }
	Invoices                                                                   []struct{ PaidAmount string }
}

func readDebt(t *testing.T, env *apitest.Env, clientID string, id int) debtAmounts {
	t.Helper()
	var d debtAmounts
	env.Admin().Do(t, `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) {
	  originalAmount paidAmount remainingAmount overpaidAmount paymentStatus payments { amount } invoices { paidAmount } } }`,
		apitest.Vars{"c": clientID, "id": id}).Field(t, "debt", &d)
	return d
}

// TestPaymentsAreExact: 0.10 + 0.20 is 0.30, integers are amounts too.
func TestPaymentsAreExact(t *testing.T) {
	env := apitest.New(t)
	clientID, debtID, itemID := paymentDebt(t, env, "1.00")
	for _, amount := range []any{"0.10", 0.2, 0} {
		if amount == 0 {
			continue
		}
		env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, amount)}).OK(t, nil)
	}
	d := readDebt(t, env, clientID, debtID)
	if d.PaidAmount != "0.30" || d.RemainingAmount != "0.70" || d.Invoices[0].PaidAmount != "0.30" || d.PaymentStatus != "PARTIALLY_PAID" {
		t.Fatalf("after 0.10 + 0.20: %+v", d)
	}
	env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, 1)}).OK(t, nil)
	d = readDebt(t, env, clientID, debtID)
	if d.PaidAmount != "1.30" || d.RemainingAmount != "0.00" || d.OverpaidAmount != "0.30" || d.PaymentStatus != "OVERPAID" {
		t.Fatalf("after an integer payment of 1: %+v", d)
	}
}

// TestConcurrentPaymentsSumExactly: 20 concurrent payments of 1.00 on one
// debt sum to exactly 20.00 (the debt row is locked while a payment books).
func TestConcurrentPaymentsSumExactly(t *testing.T) {
	env := apitest.New(t)
	clientID, debtID, itemID := paymentDebt(t, env, "100.00")
	const n = 20
	var wg sync.WaitGroup
	failures := make(chan string, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "1.00")})
			if r.Status != http.StatusOK {
				failures <- r.String()
			}
		}()
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Errorf("a concurrent payment failed: %s", f)
	}
	d := readDebt(t, env, clientID, debtID)
	if d.PaidAmount != "20.00" || d.Invoices[0].PaidAmount != "20.00" || len(d.Payments) != n || d.RemainingAmount != "80.00" {
		t.Fatalf("after %d concurrent payments of 1.00: paid %s, item paid %s, %d payments, remaining %s",
			n, d.PaidAmount, d.Invoices[0].PaidAmount, len(d.Payments), d.RemainingAmount)
	}
}

// TestDebtCountsUnderConcurrency: payments that pay debts in full,
// withdrawals, partial payments and new debts of one client, all at once,
// change the client's row of debt_counts (all but the partial payments):
// none fails (no deadlock between that row, the debts' rows and the
// client's lock), and the kept totals equal the rows, through the API here
// and against the table by apitest when the test ends.
func TestDebtCountsUnderConcurrency(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Counts AB")
	const n = 12
	type debtItem struct{ debt, item int }
	debts := make([]debtItem, n)
	for i := range debts {
		debts[i].debt, debts[i].item = paymentDebtOf(t, env, clientID, fmt.Sprintf("C-%d", i), "10.00")
	}
	var wg sync.WaitGroup
	failures := make(chan string, 2*n)
	run := func(query string, vars apitest.Vars) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := env.Admin().Do(t, query, vars); r.Status != http.StatusOK {
				failures <- r.String()
			}
		}()
	}
	for i, d := range debts {
		switch i % 3 {
		case 0: // paid in full: closes
			run(addPayment, apitest.Vars{"c": clientID, "i": paymentInput(d.debt, d.item, "10.00")})
		case 1: // withdrawn: closes
			run(debtCaseWithdrawMutation, apitest.Vars{"clientId": clientID, "input": apitest.Vars{"id": d.debt}})
		case 2: // partly paid: stays open
			run(addPayment, apitest.Vars{"c": clientID, "i": paymentInput(d.debt, d.item, "1.00")})
		}
		run(createPaymentDebt, createPaymentDebtVars(clientID, fmt.Sprintf("N-%d", i), "5.00"))
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Errorf("a concurrent change failed: %s", f)
	}
	const totals = `query($c: UUID!) {
  all: debts(clientId: $c) { totalCount }
  open: debts(clientId: $c, filter: {mainStatus: COLLECTION}) { totalCount }
  closed: debts(clientId: $c, filter: {activeStatus: INACTIVE}) { totalCount }
}`
	var got struct{ All, Open, Closed struct{ TotalCount int } }
	env.Admin().Do(t, totals, apitest.Vars{"c": clientID}).OK(t, &got)
	if want := (struct{ all, open, closed int }{2 * n, n/3 + n, 2 * n / 3}); got.All.TotalCount != want.all ||
		got.Open.TotalCount != want.open || got.Closed.TotalCount != want.closed {
		t.Errorf("totals: all %d, open %d, closed %d; want %d, %d, %d", got.All.TotalCount, got.Open.TotalCount,
			got.Closed.TotalCount, want.all, want.open, want.closed)
	}
}

// TestRetriedPaymentIsBookedOnce: a payment sent with an Idempotency-Key is
// booked once however often it is retried, also when retries race.
func TestRetriedPaymentIsBookedOnce(t *testing.T) {
	env := apitest.New(t)
	clientID, debtID, itemID := paymentDebt(t, env, "100.00")
	vars := apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "12.50")}

	first := env.Admin().Do(t, addPayment, vars, "Idempotency-Key", "pay-1")
	first.OK(t, nil)
	for range 3 {
		again := env.Admin().Do(t, addPayment, vars, "Idempotency-Key", "pay-1")
		if again.Status != first.Status || !bytes.Equal(again.Body, first.Body) {
			t.Fatalf("retry answered %s, not the first response %s", again, first)
		}
	}
	if d := readDebt(t, env, clientID, debtID); d.PaidAmount != "12.50" || len(d.Payments) != 1 {
		t.Fatalf("a retried payment was booked again: %+v", d)
	}

	// Racing retries of another payment: booked once.
	vars2 := apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "7.50")}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := env.Admin().Do(t, addPayment, vars2, "Idempotency-Key", "pay-2")
			if r.Status != http.StatusOK && r.Status != http.StatusConflict {
				t.Errorf("racing retry: %s", r)
			}
		}()
	}
	wg.Wait()
	if d := readDebt(t, env, clientID, debtID); d.PaidAmount != "20.00" || len(d.Payments) != 2 {
		t.Fatalf("racing retries booked %s in %d payments, want 20.00 in 2", d.PaidAmount, len(d.Payments))
	}

	// The same key with another amount is a different request.
	env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "1.00")}, "Idempotency-Key", "pay-1").
		Refused(t, http.StatusConflict, "CONFLICT", "")
	// A refused payment is replayed as refused, without booking.
	bad := apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "0")}
	r1 := env.Admin().Do(t, addPayment, bad, "Idempotency-Key", "pay-bad")
	r1.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.amount")
	r2 := env.Admin().Do(t, addPayment, bad, "Idempotency-Key", "pay-bad")
	if !bytes.Equal(r1.Body, r2.Body) || r2.Status != r1.Status {
		t.Fatalf("refusal replay differs: %s / %s", r1, r2)
	}
}

// TestPaymentsOnSQLite: the same guarantees on the embedded database,
// where write transactions are serialised instead of rows locked.
func TestPaymentsOnSQLite(t *testing.T) {
	env := apitest.NewSQLite(t)
	clientID, debtID, itemID := paymentDebt(t, env, "100.00")
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "1.00")}, "Idempotency-Key", fmt.Sprint("sq-", i%5)).OK(t, nil)
		}()
	}
	wg.Wait()
	if d := readDebt(t, env, clientID, debtID); d.PaidAmount != "5.00" || len(d.Payments) != 5 {
		t.Fatalf("on SQLite: paid %s in %d payments, want 5.00 in 5", d.PaidAmount, len(d.Payments))
	}
}

// TestPaymentsAcrossTwoReplicas: two servers on one database, as behind a
// load balancer: concurrent payments split across both sum exactly, and
// retries of one keyed payment split across both book it once.
func TestPaymentsAcrossTwoReplicas(t *testing.T) {
	env := apitest.New(t)
	replica := env.Replica(t, nil)
	clientID, debtID, itemID := paymentDebt(t, env, "100.00")
	servers := []*apitest.Env{env, replica}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i%2].Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "1.00")}).OK(t, nil)
		}()
	}
	wg.Wait()
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := servers[i%2].Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "5.00")}, "Idempotency-Key", "across")
			if r.Status != http.StatusOK && r.Status != http.StatusConflict {
				t.Errorf("retry on replica %d: %s", i%2, r)
			}
		}()
	}
	wg.Wait()
	if d := readDebt(t, env, clientID, debtID); d.PaidAmount != "25.00" || len(d.Payments) != 21 {
		t.Fatalf("across two replicas: paid %s in %d payments, want 25.00 in 21", d.PaidAmount, len(d.Payments))
	}
}

// TestPaymentEventStatuses: the debt's statuses an addDebtPayment event
// records before and after are the ones the debt reads before and after the
// payment, through every change a payment makes (unpaid, partially paid,
// paid in full, overpaid) and with the demand expired. On PostgreSQL the
// event is written by the statement that books the payment, with statuses
// computed in SQL from the sum it wrote; on SQLite in Go.
func TestPaymentEventStatuses(t *testing.T) {
	for name, newEnv := range map[string]func(testing.TB) *apitest.Env{"postgres": apitest.New, "sqlite": apitest.NewSQLite} {
		t.Run(name, func(t *testing.T) {
			env := newEnv(t)
			clientID, debtID, itemID := paymentDebt(t, env, "10.00")
			statuses := func(id int) *auditStatuses {
				t.Helper()
				var d struct{ PaymentStatus, MainStatus, UnderStatus, ActiveStatus, PaidAmount string }
				env.Admin().Do(t, `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { paymentStatus mainStatus underStatus activeStatus paidAmount } }`,
					apitest.Vars{"c": clientID, "id": id}).Field(t, "debt", &d)
				return statusesOf("payment", d.PaymentStatus, "main", d.MainStatus, "under", d.UnderStatus, "active", d.ActiveStatus, "paid", d.PaidAmount)
			}
			pay := func(debtID, itemID int, amount string, want ...string) {
				t.Helper()
				before, n := statuses(debtID), auditCount(t, env)
				var p struct{ ID int }
				env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, amount)}).Field(t, "addDebtPayment", &p)
				after := statuses(debtID)
				if got := []string{*before.PaymentStatus, *before.UnderStatus, *after.PaymentStatus, *after.UnderStatus}; !slices.Equal(got, want) {
					t.Fatalf("paying %s on debt %d: the debt read %v, the test wants %v", amount, debtID, got, want)
				}
				checkEvent(t, "addDebtPayment "+amount, auditLast(t, env, n), "addDebtPayment", "ADMIN", viewerKeyID(t, env.Admin()), &clientID, auditLast(t, env, n).RequestID,
					rec("PAYMENT", p.ID, nil, nil), rec("DEBT", debtID, before, after), rec("DEBT_INVOICE", itemID, nil, nil))
			}
			pay(debtID, itemID, "0.01", "UNPAID", "DEMAND_SENT", "PARTIALLY_PAID", "DEMAND_SENT")
			pay(debtID, itemID, "9.98", "PARTIALLY_PAID", "DEMAND_SENT", "PARTIALLY_PAID", "DEMAND_SENT")
			pay(debtID, itemID, "0.01", "PARTIALLY_PAID", "DEMAND_SENT", "PAID", "PAID_IN_FULL")
			pay(debtID, itemID, "5.00", "PAID", "PAID_IN_FULL", "OVERPAID", "PAID_IN_FULL")

			// A debt whose demand has expired.
			expiredID, expiredItem := paymentDebtOf(t, env, clientID, "F-2", "20.00")
			env.Clock.Set(time.Now().AddDate(0, 0, 40))
			pay(expiredID, expiredItem, "10.00", "UNPAID", "DEMAND_EXPIRED", "PARTIALLY_PAID", "DEMAND_EXPIRED")
			pay(expiredID, expiredItem, "10.00", "PARTIALLY_PAID", "DEMAND_EXPIRED", "PAID", "PAID_IN_FULL")
		})
	}
}

// TestWithdrawalWhileAPaymentWaits (PostgreSQL): a withdrawal that commits
// while a payment waits for the debt's row lock refuses the payment
// (CONFLICT), and nothing of the payment is written: no payment, no amount,
// no audit event.
func TestWithdrawalWhileAPaymentWaits(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("row locks are PostgreSQL's; SQLite runs one write transaction at a time")
	}
	clientID, debtID, itemID := paymentDebt(t, env, "100.00")
	events := auditCount(t, env)
	ctx := context.Background()
	tx, err := env.DB.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	// The withdrawal holds the debt's row until it commits.
	if _, err := tx.ExecContext(ctx, `UPDATE debts SET withdrawn_at = now() WHERE id = $1`, debtID); err != nil {
		t.Fatal(err)
	}
	answer := make(chan *apitest.Response, 1)
	go func() {
		answer <- env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "1.00")})
	}()
	waitForDebtRow(t, env)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	(<-answer).Refused(t, http.StatusConflict, "CONFLICT", "")
	if d := readDebt(t, env, clientID, debtID); d.PaidAmount != "0.00" || len(d.Payments) != 0 || d.Invoices[0].PaidAmount != "0.00" {
		t.Errorf("a payment refused by a withdrawal left %+v", d)
	}
	if n := auditCount(t, env); n != events {
		t.Errorf("audit events: %d, want %d (none for the refused payment)", n, events)
	}
}

// TestPaymentWithoutTransaction: on PostgreSQL an addDebtPayment whose
// answer is what its statement returns runs as that one statement, without
// a transaction around it (graph.RunsAlone); with an Idempotency-Key,
// or an answer that needs queries, it runs in a transaction; on SQLite
// always. Either way the payment, its amounts and its event are booked
// once, and the answer is the same.
func TestPaymentWithoutTransaction(t *testing.T) {
	env := apitest.New(t)
	clientID, debtID, itemID := paymentDebt(t, env, "100.00")
	const nested = `mutation($c: UUID!, $i: DebtPaymentInput!) {
  addDebtPayment(clientId: $c, input: $i) { id amount debt { paidAmount debtor { name } events { operation } } }
}`
	for n, tc := range []struct {
		what, query string
		header      []string
		txs         int // on PostgreSQL
	}{
		{"answered from its statement", addPayment, nil, 0},
		{"with an Idempotency-Key", addPayment, []string{"Idempotency-Key", "k-1"}, 1},
		{"with a nested debtor and events", nested, nil, 1},
	} {
		events := auditCount(t, env)
		env.Statements.Reset()
		var p struct {
			Amount string
			Debt   struct {
				PaidAmount string
				Debtor     *struct{ Name string }
				Events     []struct{ Operation string }
			}
		}
		env.Admin().Do(t, tc.query, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "1.00")}, tc.header...).Field(t, "addDebtPayment", &p)
		want := tc.txs
		if !env.Postgres {
			want = 1
		}
		if got := env.Statements.Transactions(); got != want {
			t.Errorf("%s: %d transactions, want %d", tc.what, got, want)
		}
		if paid := fmt.Sprintf("%d.00", n+1); p.Amount != "1.00" || p.Debt.PaidAmount != paid {
			t.Errorf("%s: answered %+v, want amount 1.00 and the debt's paidAmount %s", tc.what, p, paid)
		}
		if tc.query == nested && (p.Debt.Debtor == nil || p.Debt.Debtor.Name != "Sven Svensson" || len(p.Debt.Events) != n+2) {
			t.Errorf("%s: answered %+v, want the debtor and %d events (its creation and every payment)", tc.what, p, n+2)
		}
		if got := auditCount(t, env); got != events+1 {
			t.Errorf("%s: %d audit events, want %d", tc.what, got, events+1)
		}
	}
	d := readDebt(t, env, clientID, debtID)
	if d.PaidAmount != "3.00" || len(d.Payments) != 3 || d.Invoices[0].PaidAmount != "3.00" {
		t.Errorf("after three payments of 1.00: %+v", d)
	}
}

// TestPaymentsBookedTogether (PostgreSQL): payments on one debt that arrive
// while one of its payments is being booked are booked together, by fewer
// statements than payments, each exactly as if booked one after another:
// every answer shows the debt and its item as they were right after its
// own payment, and the audit events, in id order, chain the paid amount
// from the first payment to the last, each naming its own payment. A
// payment on another debt's item is refused on its own; a request that
// goes away while it waits is not booked.
func TestPaymentsBookedTogether(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("bookings without a transaction are PostgreSQL's")
	}
	clientID, _ := env.NewClient(t, "Batch AB")
	vars := createPaymentDebtVars(clientID, "F-1", "1000.00")
	items := vars["i"].(apitest.Vars)["debts"].([]apitest.Vars)
	second := maps.Clone(items[0])
	second["invoiceNumber"] = "F-2"
	vars["i"].(apitest.Vars)["debts"] = append(items, second)
	var created struct {
		CreateDebt struct {
			ID       int
			Invoices []struct{ ID int }
		}
	}
	env.Admin().Do(t, createPaymentDebt, vars).OK(t, &created)
	debtID, itemA, itemB := created.CreateDebt.ID, created.CreateDebt.Invoices[0].ID, created.CreateDebt.Invoices[1].ID
	_, otherItem := paymentDebtOf(t, env, clientID, "F-9", "10.00")
	ctx := context.Background()

	// Hold the debt's row, so that the first payment waits for it and the
	// others queue behind that booking.
	tx, err := env.DB.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `UPDATE debts SET updated_at = now() WHERE id = $1`, debtID); err != nil {
		t.Fatal(err)
	}
	const answer = `mutation($c: UUID!, $i: DebtPaymentInput!) {
  addDebtPayment(clientId: $c, input: $i) { id amount debt { paidAmount } invoice { id paidAmount } } }`
	type paid struct {
		ID     int
		Amount string
		Debt   struct{ PaidAmount string }
		Inv    struct {
			ID         int
			PaidAmount string
		} `json:"invoice"`
	}
	env.Statements.Reset()
	const n = 12
	answers := make([]paid, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			item := []int{itemA, itemB}[i%2]
			r := env.Admin().Do(t, answer, apitest.Vars{"c": clientID, "i": paymentInput(debtID, item, fmt.Sprintf("%d.00", i+1))})
			r.Field(t, "addDebtPayment", &answers[i])
		}()
	}
	waitForDebtRow(t, env)
	// While the first waits: a payment naming another debt's item, and one
	// whose request goes away while it waits.
	refused := make(chan *apitest.Response, 1)
	go func() {
		refused <- env.Admin().Do(t, answer, apitest.Vars{"c": clientID, "i": paymentInput(debtID, otherItem, "500.00")})
	}()
	gone, cancel := context.WithCancel(ctx)
	goneDone := make(chan error, 1)
	go func() {
		body, _ := json.Marshal(map[string]any{"query": answer, "variables": apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemA, "700.00")}})
		req, _ := http.NewRequestWithContext(gone, http.MethodPost, env.URL+"/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+apitest.AdminKey)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		goneDone <- err
	}()
	time.Sleep(300 * time.Millisecond) // the other requests arrive and queue
	cancel()
	if err := <-goneDone; err == nil {
		t.Fatal("the abandoned request was answered")
	}
	time.Sleep(100 * time.Millisecond) // the server sees it go
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	r := <-refused
	if r.Status == http.StatusOK && len(r.Errors) == 0 {
		t.Errorf("a payment on another debt's item was booked: %s", r)
	}

	// n payments of 1.00 … n.00: 78.00, by fewer statements.
	bookings := 0
	for _, q := range env.Statements.Log() {
		if strings.Contains(q, "INSERT INTO payments") {
			bookings++
		}
	}
	if bookings >= n {
		t.Errorf("%d payments were booked by %d statements: none together", n, bookings)
	}
	d := readDebt(t, env, clientID, debtID)
	if d.PaidAmount != "78.00" || len(d.Payments) != n || d.Invoices[0].PaidAmount != "36.00" || d.Invoices[1].PaidAmount != "42.00" {
		t.Fatalf("after %d payments: %+v", n, d)
	}

	// The events in id order: each names its payment, and the paid amount
	// runs from 0 to 78.00 through each payment's amount.
	rows, err := env.DB.SQL.QueryContext(ctx, `SELECT p.record_id, (d.before->>'paidAmount')::bigint, (d.after->>'paidAmount')::bigint,
	    string_agg(x.record_type, ',' ORDER BY x.id)
	  FROM audit_events e
	  JOIN audit_event_records p ON p.event_id = e.id AND p.record_type = 'PAYMENT'
	  JOIN audit_event_records d ON d.event_id = e.id AND d.record_type = 'DEBT'
	  JOIN audit_event_records x ON x.event_id = e.id
	 WHERE e.debt_id = $1 AND e.operation = 'addDebtPayment'
	 GROUP BY e.id, p.record_id, d.before, d.after ORDER BY e.id`, debtID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	byID := map[string]paid{}
	for _, a := range answers {
		byID[strconv.Itoa(a.ID)] = a
	}
	var before int64
	itemPaid := map[int]int64{}
	events := 0
	for rows.Next() {
		var payment string
		var from, to int64
		var types string
		if err := rows.Scan(&payment, &from, &to, &types); err != nil {
			t.Fatal(err)
		}
		events++
		a, ok := byID[payment]
		if !ok {
			t.Fatalf("event %d names payment %s, which no answer has", events, payment)
		}
		amount := money(t, a.Amount)
		itemPaid[a.Inv.ID] += amount
		if from != before || to != from+amount || money(t, a.Debt.PaidAmount) != to || money(t, a.Inv.PaidAmount) != itemPaid[a.Inv.ID] {
			t.Errorf("event %d (payment %s of %s): paid %d -> %d after %d; its answer: debt %s, item %s (want item %d)",
				events, payment, a.Amount, from, to, before, a.Debt.PaidAmount, a.Inv.PaidAmount, itemPaid[a.Inv.ID])
		}
		if types != "PAYMENT,DEBT,DEBT_INVOICE" {
			t.Errorf("event %d: records %v", events, types)
		}
		before = to
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if events != n || before != 7800 {
		t.Errorf("%d events up to %d, want %d up to 7800", events, before, n)
	}
}

// money is an amount as the API writes it ("12.30") in öre.
func money(t *testing.T, s string) int64 {
	t.Helper()
	whole, frac, ok := strings.Cut(s, ".")
	k, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if !ok || len(frac) != 2 || err1 != nil || err2 != nil {
		t.Fatalf("not an amount: %q", s)
	}
	return k*100 + f
}

// waitForDebtRow waits (up to 10 s) until a statement of the test's
// database waits for a debt's row lock (PostgreSQL).
func waitForDebtRow(t *testing.T, env *apitest.Env) {
	t.Helper()
	for waited := time.Duration(0); ; waited += 10 * time.Millisecond {
		var n int
		if err := env.DB.SQL.QueryRowContext(context.Background(), `SELECT count(*) FROM pg_stat_activity
		  WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%UPDATE debts%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if waited > 10*time.Second {
			t.Fatal("no payment waited for the debt's row")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
