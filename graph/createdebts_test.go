package graph_test

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

const createDebtsMutation = `mutation($c: UUID!, $in: [DebtorWithDebtsInput!]!) {
  createDebts(clientId: $c, input: $in) {
    id originalAmount paidAmount mainStatus
    debtor { id identificationNumber name contactInformation { email } }
    invoices { id invoiceNumber amount paidAmount }
  } }`

type createDebtsDebt struct {
	ID             int
	OriginalAmount string
	PaidAmount     string
	MainStatus     string
	Debtor         struct {
		ID, IdentificationNumber, Name string
		ContactInformation             *struct{ Email *string }
	}
	Invoices []struct {
		ID                                int
		InvoiceNumber, Amount, PaidAmount string
	}
}

func email(d createDebtsDebt) string {
	if d.Debtor.ContactInformation == nil || d.Debtor.ContactInformation.Email == nil {
		return ""
	}
	return *d.Debtor.ContactInformation.Email
}

// handoverEntry is an entry of a hand-over: a Norwegian debtor (free-form
// identification number) with two items of 100.00, the first with an
// opening payment of 10.00.
func handoverEntry(ident, prefix string) apitest.Vars {
	first := debtCaseItemInput(prefix+"-1", "100.00")
	first["payments"] = []apitest.Vars{{"amount": "10.00", "transactionDate": "2026-09-10T10:00:00+02:00"}}
	return debtCaseForeign(ident, "Debitor "+ident, first, debtCaseItemInput(prefix+"-2", "100.00"))
}

func handoverBatch(from, n int, tag string) []apitest.Vars {
	out := make([]apitest.Vars, n)
	for i := range out {
		out[i] = handoverEntry(fmt.Sprintf("%s-%05d", tag, from+i), fmt.Sprintf("%s-%05d", tag, from+i))
	}
	return out
}

func createDebts(t testing.TB, c *apitest.Caller, clientID string, in []apitest.Vars, header ...string) *apitest.Response {
	t.Helper()
	return c.Do(t, createDebtsMutation, apitest.Vars{"c": clientID, "in": in}, header...)
}

// TestCreateDebtsHandsOverABatch: every entry becomes one debt, in the
// order given, as createDebt would make it; entries of one identity (and
// an existing debtor) share one debtor, refreshed in order; each debt has
// its own createDebts event; the kept totals count them.
func TestCreateDebtsHandsOverABatch(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Bulk AB")
	existing := debtCaseMustCreate(t, env.Admin(), clientID, debtCaseForeign("NO-1", "Old Name", debtCaseItemInput("OLD-1", "50.00")))

	again := handoverEntry("NO 1", "B") // the existing debtor, written differently
	again["email"] = "kari@example.no"
	second := handoverEntry("NO-2", "C")
	second["email"] = "first@example.no"
	secondAgain := handoverEntry("no2", "D") // the same new debtor again, renamed, without e-mail
	secondAgain["name"] = "Renamed"
	in := []apitest.Vars{handoverEntry("NO-3", "A"), again, second, secondAgain}

	var out struct{ CreateDebts []createDebtsDebt }
	createDebts(t, env.Admin(), clientID, in).OK(t, &out)
	got := out.CreateDebts
	if len(got) != 4 {
		t.Fatalf("%d debts, want 4", len(got))
	}
	for i, d := range got {
		prefix := []string{"A", "B", "C", "D"}[i]
		if d.OriginalAmount != "200.00" || d.PaidAmount != "10.00" || len(d.Invoices) != 2 ||
			d.Invoices[0].InvoiceNumber != prefix+"-1" || d.Invoices[1].InvoiceNumber != prefix+"-2" ||
			d.Invoices[0].PaidAmount != "10.00" || d.MainStatus != "COLLECTION" {
			t.Errorf("debt %d: %+v", i, d)
		}
		if i > 0 && d.ID <= got[i-1].ID {
			t.Errorf("debt ids not in the order of the entries: %d after %d", d.ID, got[i-1].ID)
		}
	}
	if got[1].Debtor.ID != existing.Debtor.ID || got[1].Debtor.Name != "Debitor NO 1" ||
		email(got[1]) != "kari@example.no" {
		t.Errorf("the existing debtor is not reused and refreshed: %+v (was %s)", got[1].Debtor, existing.Debtor.ID)
	}
	if got[2].Debtor.ID != got[3].Debtor.ID || got[3].Debtor.Name != "Renamed" ||
		email(got[3]) != "first@example.no" {
		t.Errorf("entries of one new identity: %+v and %+v, want one debtor named Renamed with the first e-mail", got[2].Debtor, got[3].Debtor)
	}
	debts, debtors, items, payments := debtCaseCounts(t, env, clientID)
	if debts != 5 || debtors != 3 || items != 9 || payments != 4 {
		t.Errorf("debts %d, debtors %d, items %d, payments %d; want 5, 3, 9, 4", debts, debtors, items, payments)
	}

	// One event per debt, naming its debtor, the debt, its items and its
	// opening payment.
	var events struct {
		AuditEvents struct {
			TotalCount int
			Nodes      []struct {
				Operation string
				Records   []struct{ RecordType, RecordID string }
			}
		}
		Debt struct{ Events []struct{ Operation string } }
	}
	env.Admin().Do(t, `query($c: UUID!, $d: Int!) { auditEvents(filter: {clientId: $c, operation: "createDebts"}, first: 10) {
	  totalCount nodes { operation records { recordType recordId } } }
	  debt(clientId: $c, id: $d) { events { operation } } }`, apitest.Vars{"c": clientID, "d": got[2].ID}).OK(t, &events)
	if events.AuditEvents.TotalCount != 4 {
		t.Fatalf("%d createDebts events, want 4", events.AuditEvents.TotalCount)
	}
	if ev := events.Debt.Events; len(ev) != 1 || ev[0].Operation != "createDebts" {
		t.Errorf("the debt's timeline: %+v, want its createDebts event", ev)
	}
	for _, e := range events.AuditEvents.Nodes {
		kinds := map[string]int{}
		for _, r := range e.Records {
			kinds[r.RecordType]++
		}
		if kinds["DEBTOR"] != 1 || kinds["DEBT"] != 1 || kinds["DEBT_INVOICE"] != 2 || kinds["PAYMENT"] != 1 {
			t.Errorf("event of %s: records %v", e.Operation, kinds)
		}
	}
}

// TestCreateDebtsIsAllOrNothing: a broken entry, an invoice number held by
// a debt, or one given twice in the batch refuses the whole batch with the
// entry's field, and nothing is written; so is a batch of 0 or 501.
func TestCreateDebtsIsAllOrNothing(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Bulk AB")
	debtCaseMustCreate(t, env.Admin(), clientID, debtCaseForeign("NO-1", "Held", debtCaseItemInput("HELD-1", "50.00")))

	broken := handoverBatch(0, 20, "X")
	broken[17]["debts"].([]apitest.Vars)[1]["amount"] = "0"
	broken[3]["name"] = " "
	r := createDebts(t, env.Admin(), clientID, broken)
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.17.debts.1.amount")
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.3.name")

	held := handoverBatch(0, 20, "X")
	held[5]["debts"].([]apitest.Vars)[0]["invoiceNumber"] = "HELD-1"
	createDebts(t, env.Admin(), clientID, held).Refused(t, http.StatusConflict, "CONFLICT", "input.5.debts.0.invoiceNumber")

	twice := handoverBatch(0, 20, "X")
	twice[9]["debts"].([]apitest.Vars)[1]["invoiceNumber"] = "X-00002-1"
	r = createDebts(t, env.Admin(), clientID, twice)
	r.Refused(t, http.StatusConflict, "CONFLICT", "input.9.debts.1.invoiceNumber")
	if fields := debtCaseErrFields(r); len(fields) != 1 {
		t.Errorf("errors on %v, want only the later item", fields)
	}

	// Every entry broken: the first 100 errors, and one saying how many
	// more there were.
	all := handoverBatch(0, 300, "W")
	for _, e := range all {
		e["name"] = " "
	}
	r = createDebts(t, env.Admin(), clientID, all)
	r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.99.name")
	if fields := debtCaseErrFields(r); len(fields) != 101 || fields[100] != "" {
		t.Errorf("%d errors (the last on %q), want 100 and one without a field", len(fields), fields[len(fields)-1])
	}

	createDebts(t, env.Admin(), clientID, []apitest.Vars{}).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input")
	createDebts(t, env.Admin(), clientID, handoverBatch(0, 501, "Y")).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input")

	// Another client's key is FORBIDDEN, an unknown client NOT_FOUND.
	_, other := env.ClientCaller(t, "Other AB")
	createDebts(t, other, clientID, handoverBatch(0, 2, "Z")).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
	createDebts(t, env.Admin(), "00000000-0000-4000-8000-000000000000", handoverBatch(0, 2, "Z")).
		Refused(t, http.StatusNotFound, "NOT_FOUND", "")

	if debts, debtors, items, payments := debtCaseCounts(t, env, clientID); debts != 1 || debtors != 1 || items != 1 || payments != 0 {
		t.Errorf("a refused batch wrote: debts %d, debtors %d, items %d, payments %d", debts, debtors, items, payments)
	}
	// The largest batch is accepted.
	var out struct{ CreateDebts []struct{ ID int } }
	env.Admin().Do(t, `mutation($c: UUID!, $in: [DebtorWithDebtsInput!]!) { createDebts(clientId: $c, input: $in) { id } }`,
		apitest.Vars{"c": clientID, "in": handoverBatch(0, 500, "Y")}).OK(t, &out)
	if len(out.CreateDebts) != 500 {
		t.Errorf("%d debts, want 500", len(out.CreateDebts))
	}
}

// TestCreateDebtsIsIdempotent: a retry with the same Idempotency-Key gets
// the first answer and writes nothing more; the key with another batch is
// CONFLICT.
func TestCreateDebtsIsIdempotent(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Bulk AB")
	in := handoverBatch(0, 5, "K")
	first := createDebts(t, env.Admin(), clientID, in, "Idempotency-Key", "batch-1")
	first.OK(t, nil)
	again := createDebts(t, env.Admin(), clientID, in, "Idempotency-Key", "batch-1")
	if again.Status != first.Status || !bytes.Equal(again.Body, first.Body) {
		t.Fatalf("retry answered %s, not the first response %s", again, first)
	}
	createDebts(t, env.Admin(), clientID, handoverBatch(5, 5, "K"), "Idempotency-Key", "batch-1").
		Refused(t, http.StatusConflict, "CONFLICT", "")
	if debts, _, _, _ := debtCaseCounts(t, env, clientID); debts != 5 {
		t.Errorf("%d debts after the retries, want 5", debts)
	}
}

// TestCreateDebtsCostsItsSelectionPerEntry: the cost of a createDebts is
// its selection once per entry of its input (graph.Costed), whether the
// input is valid or not, so that a selection too heavy for 445 debts is
// refused before anything runs; a single entry sent without a list costs
// one.
func TestCreateDebtsCostsItsSelectionPerEntry(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Costly AB")
	// Per debt: id 1, invoices 1 + 10*(3 + 1 + 10*3) = 341, events
	// 1 + 10*(1 + 1 + 10*2) = 221; 563 a debt, 1 + 445*563 = 250,536
	// against the limit of 250,000.
	const heavy = `mutation($c: UUID!, $in: [DebtorWithDebtsInput!]!) {
  createDebts(clientId: $c, input: $in) {
    id
    invoices { id invoiceNumber amount payments { id amount transactionDate } }
    events { id records { recordType recordId } }
  }
}`
	env.Admin().Do(t, heavy, apitest.Vars{"c": clientID, "in": handoverBatch(0, 2, "W")}).OK(t, nil)
	env.Admin().Do(t, heavy, apitest.Vars{"c": clientID, "in": handoverBatch(2, 445, "W")}).
		Refused(t, http.StatusBadRequest, "QUERY_TOO_COMPLEX", "")
	broken := handoverBatch(447, 445, "W")
	broken[7]["identificationNumber"] = ""
	env.Admin().Do(t, heavy, apitest.Vars{"c": clientID, "in": broken}).
		Refused(t, http.StatusBadRequest, "QUERY_TOO_COMPLEX", "")
	env.Admin().Do(t, heavy, apitest.Vars{"c": clientID, "in": handoverEntry("W-single", "W-single")}).OK(t, nil)
	if debts, _, _, _ := debtCaseCounts(t, env, clientID); debts != 3 {
		t.Errorf("%d debts, want 3: the refused batches must write nothing", debts)
	}
}

// TestCreateDebtsStatementsDoNotGrow: a batch is written with the same
// number of SQL statements whatever its size (bulk inserts, not one round
// trip per debt): 2 entries and 200 cost the same, of new debtors and (on
// PostgreSQL) of existing ones, refreshed by one update more.
func TestCreateDebtsStatementsDoNotGrow(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Bulk AB")
	const doc = `mutation($c: UUID!, $in: [DebtorWithDebtsInput!]!) { createDebts(clientId: $c, input: $in) { id invoices { id } debtor { id } } }`
	counts := map[int]int{}
	for _, n := range []int{2, 200} {
		env.Statements.Reset()
		env.Admin().Do(t, doc, apitest.Vars{"c": clientID, "in": handoverBatch(n*1000, n, "S")}).OK(t, nil)
		counts[n] = env.Statements.Count()
	}
	if counts[2] != counts[200] {
		t.Errorf("statements: %d for 2 entries, %d for 200; want the same", counts[2], counts[200])
	}
	// The key, the client with its terms, the locks, the numbers' check
	// and the debtors' read (one statement on PostgreSQL, between two that
	// have it planned without its arguments and put the setting back), the
	// inserts (on PostgreSQL one statement of the debtors, debts, items,
	// fees, opening payments, events and records; on SQLite one insert each
	// of debtors, debts, items, payments, events and records), and the
	// answer's items and debtors (docs/benchmarks-go.md).
	want := 13
	if env.Postgres {
		want = 9
	}
	if counts[2] != want {
		t.Errorf("statements per createDebts: %d; want %d (the client is read once, with its terms)", counts[2], want)
	}
	if !env.Postgres {
		return // SQLite updates existing debtors one statement each
	}
	// The same debtors again, with new numbers: one statement refreshes
	// them all.
	again := map[int]int{}
	for _, n := range []int{2, 200} {
		in := handoverBatch(n*1000, n, "S")
		for i, e := range in {
			e["name"] = fmt.Sprintf("Renamed %d", i)
			for _, it := range e["debts"].([]apitest.Vars) {
				it["invoiceNumber"] = "AGAIN-" + it["invoiceNumber"].(string)
			}
		}
		env.Statements.Reset()
		env.Admin().Do(t, doc, apitest.Vars{"c": clientID, "in": in}).OK(t, nil)
		again[n] = env.Statements.Count()
	}
	if again[2] != again[200] || again[2] != counts[2]+1 {
		t.Errorf("statements with existing debtors: %d for 2 entries, %d for 200; want %d (one update more)",
			again[2], again[200], counts[2]+1)
	}
	var renamed int
	if err := env.DB.SQL.QueryRow(`SELECT count(*) FROM debtors WHERE name LIKE 'Renamed %' AND name_key LIKE 'renamed %'`).
		Scan(&renamed); err != nil || renamed != 202 {
		t.Errorf("%d debtors renamed with their search keys (%v), want 202", renamed, err)
	}
}

// TestConcurrentHandOversOfOneClient: 20 concurrent createDebt calls of
// one client over HTTP, on different debtors and numbers, all succeed; on
// the same new debtor they create it once; on the same invoice number one
// succeeds and the others are CONFLICT; batches race the same way.
func TestConcurrentHandOversOfOneClient(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Bulk AB")
	const n = 20
	race := func(send func(i int) *apitest.Response) (ok, conflict int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := send(i)
				mu.Lock()
				defer mu.Unlock()
				switch r.Status {
				case http.StatusOK:
					ok++
				case http.StatusConflict:
					conflict++
				default:
					t.Errorf("concurrent hand-over %d: %s", i, r)
				}
			}()
		}
		wg.Wait()
		return ok, conflict
	}
	// Different debtors and numbers: every one.
	if ok, _ := race(func(i int) *apitest.Response {
		return debtCaseCreate(t, env.Admin(), clientID, handoverEntry(fmt.Sprintf("P-%d", i), fmt.Sprintf("P-%d", i)))
	}); ok != n {
		t.Errorf("%d of %d hand-overs of different debtors succeeded", ok, n)
	}
	// One new debtor, different numbers: every one, on one debtor.
	if ok, _ := race(func(i int) *apitest.Response {
		return debtCaseCreate(t, env.Admin(), clientID, handoverEntry("SAME-1", fmt.Sprintf("Q-%d", i)))
	}); ok != n {
		t.Errorf("%d of %d hand-overs of one debtor succeeded", ok, n)
	}
	// One number, different debtors: one.
	if ok, conflict := race(func(i int) *apitest.Response {
		e := handoverEntry(fmt.Sprintf("R-%d", i), fmt.Sprintf("R-%d", i))
		e["debts"].([]apitest.Vars)[0]["invoiceNumber"] = "ONE-NUMBER"
		return debtCaseCreate(t, env.Admin(), clientID, e)
	}); ok != 1 || conflict != n-1 {
		t.Errorf("one number: %d succeeded, %d CONFLICT; want 1 and %d", ok, conflict, n-1)
	}
	// Batches, half of them overlapping on a number with a single call.
	if ok, conflict := race(func(i int) *apitest.Response {
		if i%2 == 0 {
			return createDebts(t, env.Admin(), clientID, handoverBatch(i*10, 10, "T"))
		}
		return debtCaseCreate(t, env.Admin(), clientID, handoverEntry(fmt.Sprintf("U-%d", i), fmt.Sprintf("T-%05d", (i-1)*10+3)))
	}); ok+conflict != n || ok < n/2 {
		t.Errorf("batches and single calls: %d succeeded, %d CONFLICT", ok, conflict)
	}

	// The rules held: no number is held twice by unwithdrawn debts, each
	// identity has one debtor.
	var dup, twins int
	if err := env.DB.SQL.QueryRow(fmt.Sprintf(`SELECT count(*) FROM (SELECT i.invoice_number FROM debt_invoices i JOIN debts d ON d.id = i.debt_id
	  WHERE d.withdrawn_at IS NULL AND i.client_id = '%s' GROUP BY i.invoice_number HAVING count(*) > 1) x`, clientID)).Scan(&dup); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.SQL.QueryRow(fmt.Sprintf(`SELECT count(*) FROM (SELECT identification_key FROM debtors WHERE client_id = '%s'
	  GROUP BY identification_key HAVING count(*) > 1) x`, clientID)).Scan(&twins); err != nil {
		t.Fatal(err)
	}
	if dup != 0 || twins != 0 {
		t.Errorf("%d invoice numbers held twice, %d identities with two debtors", dup, twins)
	}
	var sameDebtors int
	if err := env.DB.SQL.QueryRow(`SELECT count(DISTINCT d.debtor_id) FROM debts d JOIN debt_invoices i ON i.debt_id = d.id
	  WHERE i.invoice_number LIKE 'Q-%'`).Scan(&sameDebtors); err != nil || sameDebtors != 1 {
		t.Errorf("the debts of one identity have %d debtors (%v), want 1", sameDebtors, err)
	}
}

// TestAnonymizationRacesHandOvers: anonymizeDebtor and createDebt of the
// same debtor, sent at once, serialise on the debtor's identity: either
// the hand-over comes first (and anonymization is CONFLICT: an open debt)
// or anonymization does (and the hand-over creates a new debtor); never an
// anonymized debtor with an open debt.
func TestAnonymizationRacesHandOvers(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Bulk AB")
	const n = 8
	debtors := make([]string, n)
	for i := range debtors {
		d := debtCaseMustCreate(t, env.Admin(), clientID, handoverEntry(fmt.Sprintf("AN-%d", i), fmt.Sprintf("AN-%d", i)))
		debtCaseWithdraw(t, env.Admin(), clientID, apitest.Vars{"id": d.ID}).OK(t, nil)
		debtors[i] = d.Debtor.ID
	}
	var wg sync.WaitGroup
	for i, id := range debtors {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r := env.Admin().Do(t, `mutation($c: UUID!, $id: UUID!) { anonymizeDebtor(clientId: $c, id: $id) { id } }`,
				apitest.Vars{"c": clientID, "id": id})
			if r.Status != http.StatusOK && r.Status != http.StatusConflict {
				t.Errorf("anonymizeDebtor: %s", r)
			}
		}()
		go func() {
			defer wg.Done()
			if r := debtCaseCreate(t, env.Admin(), clientID, handoverEntry(fmt.Sprintf("AN-%d", i), fmt.Sprintf("AN2-%d", i))); r.Status != http.StatusOK {
				t.Errorf("createDebt: %s", r)
			}
		}()
	}
	wg.Wait()
	var bad int
	if err := env.DB.SQL.QueryRow(fmt.Sprintf(`SELECT count(*) FROM debtors r JOIN debts d ON d.debtor_id = r.id
	  WHERE r.client_id = '%s' AND r.anonymized_at IS NOT NULL AND d.withdrawn_at IS NULL`, clientID)).Scan(&bad); err != nil || bad != 0 {
		t.Errorf("%d unwithdrawn debts of anonymized debtors (%v)", bad, err)
	}
}

// TestCreateDebtAnsweredFromItsRow: createDebt calls that select only the
// debt's own fields run without the request's transaction (RunsAlone; on
// PostgreSQL they are handed over in groups, ledger.HandsOverAlone) and are
// answered from the row written: 20 at once all succeed, each answer is
// its debt as a query reads it, and each debt has its own request's event.
// With an Idempotency-Key the call runs in its request's transaction and
// a retry replays the answer without a second debt.
func TestCreateDebtAnsweredFromItsRow(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Bulk AB")
	const fields = `__typename id originalAmount paidAmount remainingAmount paymentStatus mainStatus underStatus activeStatus isCompleted withdrawnAt createdAt updatedAt`
	const slim = `mutation($c: UUID!, $in: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $in) { ` + fields + ` } }`
	const read = `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { ` + fields + ` } }`
	type answer struct {
		CreateDebt map[string]any
	}
	const n = 20
	answers := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env.Admin().Do(t, slim, apitest.Vars{"c": clientID, "in": handoverEntry(fmt.Sprintf("ROW-%d", i), fmt.Sprintf("ROW-%d", i))}).OK(t, &answers[i])
		}()
	}
	wg.Wait()
	for i, a := range answers {
		id, _ := a.CreateDebt["id"].(float64)
		var got struct{ Debt map[string]any }
		env.Admin().Do(t, read, apitest.Vars{"c": clientID, "id": int(id)}).OK(t, &got)
		if fmt.Sprint(got.Debt) != fmt.Sprint(a.CreateDebt) {
			t.Errorf("call %d answered %v; the debt reads %v", i, a.CreateDebt, got.Debt)
		}
		if a.CreateDebt["originalAmount"] != "200.00" || a.CreateDebt["paidAmount"] != "10.00" {
			t.Errorf("call %d answered %v", i, a.CreateDebt)
		}
	}
	var events, requests int
	if err := env.DB.SQL.QueryRow(`SELECT count(*), count(DISTINCT request_id) FROM audit_events WHERE operation = 'createDebt' AND client_id = $1`,
		clientID).Scan(&events, &requests); err != nil || events != n || requests != n {
		t.Errorf("%d createDebt events of %d requests (%v), want %d of %d", events, requests, err, n, n)
	}

	in := apitest.Vars{"c": clientID, "in": handoverEntry("ROW-KEYED", "ROW-KEYED")}
	var first, again answer
	env.Admin().Do(t, slim, in, "Idempotency-Key", "row-once").OK(t, &first)
	env.Admin().Do(t, slim, in, "Idempotency-Key", "row-once").OK(t, &again)
	if fmt.Sprint(first) != fmt.Sprint(again) {
		t.Errorf("a retry with the key answered %v, the first call %v", again, first)
	}
	var keyed int
	if err := env.DB.SQL.QueryRow(`SELECT count(*) FROM debt_invoices WHERE invoice_number LIKE 'ROW-KEYED-%'`).Scan(&keyed); err != nil || keyed != 2 {
		t.Errorf("%d items of the keyed call (%v), want 2 (one debt)", keyed, err)
	}
}
