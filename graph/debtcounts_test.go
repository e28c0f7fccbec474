package graph_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/collection"
)

// TestDebtCountSumsStayExact: hand-overs (single and batched), payments in
// full and in part, and withdrawals of one client, 60 at once, leave the
// sums of the client's kept counts (its shards on PostgreSQL) equal to its
// rows: all debts, open ones and open ones in LEGAL, by SQL and through
// the API's totals. On PostgreSQL the writes spread over more than one
// shard.
func TestDebtCountSumsStayExact(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Counts AB")
	const n = 20
	var made struct {
		CreateDebts []struct {
			ID       int
			Invoices []struct{ ID int }
		}
	}
	env.Admin().Do(t, `mutation($c: UUID!, $in: [DebtorWithDebtsInput!]!) { createDebts(clientId: $c, input: $in) { id invoices { id } } }`,
		apitest.Vars{"c": clientID, "in": handoverBatch(0, 3*n, "BASE")}).OK(t, &made)
	var wg sync.WaitGroup
	run := func(send func() *apitest.Response) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := send(); r.Status != http.StatusOK {
				t.Errorf("a concurrent change failed: %s", r)
			}
		}()
	}
	for i, d := range made.CreateDebts {
		switch i % 3 {
		case 0: // paid in full (190.00 remains of 200.00 after the opening 10.00): closes
			run(func() *apitest.Response {
				return env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(d.ID, d.Invoices[1].ID, "190.00")})
			})
		case 1: // withdrawn: closes
			run(func() *apitest.Response {
				return env.Admin().Do(t, debtCaseWithdrawMutation, apitest.Vars{"clientId": clientID, "input": apitest.Vars{"id": d.ID}})
			})
		case 2: // partly paid: stays open
			run(func() *apitest.Response {
				return env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(d.ID, d.Invoices[0].ID, "1.00")})
			})
		}
	}
	for i := range n {
		if i%4 == 0 {
			run(func() *apitest.Response { return createDebts(t, env.Admin(), clientID, handoverBatch(i*10, 4, "NEWB")) })
			continue
		}
		run(func() *apitest.Response {
			return debtCaseCreate(t, env.Admin(), clientID, handoverEntry(fmt.Sprintf("NEW-%d", i), fmt.Sprintf("NEW-%d", i)))
		})
	}
	wg.Wait()

	created := 3*n + n/4*4 + (n - n/4)
	wantOpen := n + n/4*4 + (n - n/4) // the partly paid and the new ones
	var debts, open, legal, keptDebts, keptOpen, keptLegal, rows int
	if err := env.DB.SQL.QueryRow(fmt.Sprintf(`SELECT
	    (SELECT count(*) FROM debts WHERE client_id = '%[1]s'),
	    (SELECT count(*) FROM debts WHERE client_id = '%[1]s' AND %[2]s),
	    (SELECT count(*) FROM debts WHERE client_id = '%[1]s' AND %[3]s),
	    (SELECT coalesce(sum(debts), 0) FROM debt_counts WHERE client_id = '%[1]s'),
	    (SELECT coalesce(sum(open_debts), 0) FROM debt_counts WHERE client_id = '%[1]s'),
	    (SELECT coalesce(sum(legal_debts), 0) FROM debt_counts WHERE client_id = '%[1]s'),
	    (SELECT count(*) FROM debt_counts WHERE client_id = '%[1]s')`,
		clientID, collection.OpenCondition, collection.LegalConditionOf("debts"))).
		Scan(&debts, &open, &legal, &keptDebts, &keptOpen, &keptLegal, &rows); err != nil {
		t.Fatal(err)
	}
	if debts != created || open != wantOpen {
		t.Errorf("rows: %d debts, %d open; want %d, %d", debts, open, created, wantOpen)
	}
	if keptDebts != debts || keptOpen != open || keptLegal != legal {
		t.Errorf("kept sums %d debts, %d open, %d legal; the rows: %d, %d, %d", keptDebts, keptOpen, keptLegal, debts, open, legal)
	}
	if env.Postgres && rows < 2 {
		t.Errorf("the client's counts are in %d row(s): the writers did not spread over the shards", rows)
	}
	const totals = `query($c: UUID!) {
  all: debts(clientId: $c) { totalCount }
  open: debts(clientId: $c, filter: {activeStatus: ACTIVE}) { totalCount }
  closed: debts(clientId: $c, filter: {activeStatus: INACTIVE}) { totalCount }
}`
	var got struct{ All, Open, Closed struct{ TotalCount int } }
	env.Admin().Do(t, totals, apitest.Vars{"c": clientID}).OK(t, &got)
	if got.All.TotalCount != debts || got.Open.TotalCount != open || got.Closed.TotalCount != debts-open {
		t.Errorf("totals: all %d, open %d, closed %d; want %d, %d, %d", got.All.TotalCount, got.Open.TotalCount,
			got.Closed.TotalCount, debts, open, debts-open)
	}
	t.Logf("%d debts, %d open, in %d row(s) of debt_counts", debts, open, rows)
}
