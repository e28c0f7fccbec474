package graph_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

// thousandPaidItems creates a debt of 1,000 items, each paid once, and
// returns its id.
func thousandPaidItems(t *testing.T, env *apitest.Env, c *apitest.Caller, clientID string) int {
	t.Helper()
	items := make([]apitest.Vars, 1000)
	for i := range items {
		items[i] = apitest.Vars{"invoiceNumber": fmt.Sprintf("B-%04d", i), "invoiceDate": "2026-09-01T10:00:00+02:00",
			"dueDate": "2026-10-01T10:00:00+02:00", "amount": strconv.Itoa(i + 10),
			"payments": []apitest.Vars{{"amount": "1.00", "transactionDate": "2026-09-10T10:00:00+02:00"}}}
	}
	var d struct{ ID int }
	c.Do(t, `mutation($c: UUID!, $i: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": clientID, "i": debtCaseInput(apitest.Personnr, "Sven Svensson", items...)}).Field(t, "createDebt", &d)
	return d.ID
}

// A 150-byte query over unpaged lists asked for a million objects (each of
// 1,000 payments names the debt, whose 1,000 payments name it again): the
// budget ends it with RESPONSE_TOO_LARGE after at most MaxResponseFields
// fields, instead of building gigabytes.
func TestUnpagedListsAreBoundedByTheBudget(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Budget AB")
	id := thousandPaidItems(t, env, c, clientID)
	vars := apitest.Vars{"c": clientID, "id": id}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := c.Do(t, `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { payments { debt { payments { debt { id } } } } } }`, vars)
	runtime.ReadMemStats(&after)
	t.Logf("allocated %d MiB", (after.TotalAlloc-before.TotalAlloc)>>20)
	r.Refused(t, http.StatusBadRequest, "RESPONSE_TOO_LARGE", "")
	if len(r.Body) > 1024 {
		t.Errorf("the refusal has %d bytes, want one error", len(r.Body))
	}
	// The old server allocated several GiB for this answer; the budget
	// stops it after 200,000 fields.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<30 {
		t.Errorf("the refused query allocated %d MiB", alloc>>20)
	}

	// What a screen asks of the same debt is answered.
	var d struct {
		Payments []struct{ ID int }
		Invoices []struct {
			ID       int
			Payments []struct{ Amount string }
		}
	}
	c.Do(t, `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { payments { id } invoices { id payments { amount } } } }`, vars).
		Field(t, "debt", &d)
	if len(d.Payments) != 1000 || len(d.Invoices) != 1000 || len(d.Invoices[999].Payments) != 1 {
		t.Errorf("%d payments, %d invoices", len(d.Payments), len(d.Invoices))
	}
}

// The budget bounds bytes as well as fields, and a mutation whose answer
// is refused as too large writes nothing.
func TestResponseLimitsRollMutationsBack(t *testing.T) {
	limits := apitest.TestLimits()
	limits.MaxResponseFields = 500
	env := apitest.NewWithLimits(t, limits)
	clientID, c := env.ClientCaller(t, "Rollback AB")
	items := make([]apitest.Vars, 300)
	for i := range items {
		items[i] = debtCaseItemInput(fmt.Sprintf("R-%03d", i), 10)
	}
	in := debtCaseInput(apitest.Personnr, "Sven Svensson", items...)
	r := c.Do(t, `mutation($c: UUID!, $i: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $i) { id invoices { id invoiceNumber } } }`,
		apitest.Vars{"c": clientID, "i": in})
	r.Refused(t, http.StatusBadRequest, "RESPONSE_TOO_LARGE", "")
	var out struct{ Debts struct{ TotalCount int } }
	c.Do(t, `query($c: UUID!) { debts(clientId: $c) { totalCount } }`, apitest.Vars{"c": clientID}).OK(t, &out)
	if out.Debts.TotalCount != 0 {
		t.Fatalf("the refused createDebt left %d debts", out.Debts.TotalCount)
	}
	// Asking for less, the same mutation succeeds.
	c.Do(t, `mutation($c: UUID!, $i: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": clientID, "i": in}).OK(t, nil)

	limits = apitest.TestLimits()
	limits.MaxResponseBytes = 4 << 10
	small := apitest.NewWithLimits(t, limits)
	clientID, c = small.ClientCaller(t, "Bytes AB")
	c.Do(t, `mutation($c: UUID!, $i: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": clientID, "i": in}).OK(t, nil)
	c.Do(t, `query($c: UUID!) { debts(clientId: $c) { nodes { invoices { invoiceNumber description } } } }`, apitest.Vars{"c": clientID}).
		Refused(t, http.StatusBadRequest, "RESPONSE_TOO_LARGE", "")
	c.Do(t, `query($c: UUID!) { debts(clientId: $c) { totalCount } }`, apitest.Vars{"c": clientID}).OK(t, nil)
}
