package graph_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
)

// auditSelection is every field of an audit event.
const auditSelection = `id createdAt operation role apiKeyId apiKeyName clientId requestId
  records { recordType recordId
    before { paymentStatus mainStatus underStatus activeStatus invoiceStatus invoiceProcessStatus paidAmount }
    after { paymentStatus mainStatus underStatus activeStatus invoiceStatus invoiceProcessStatus paidAmount } }`

const auditListQuery = `query($filter: AuditEventFilter, $page: Int, $rowsPerPage: Int, $first: Int, $after: String, $last: Int, $before: String) {
  auditEvents(filter: $filter, page: $page, rowsPerPage: $rowsPerPage, first: $first, after: $after, last: $last, before: $before) {
    totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node { id } }
    nodes { ` + auditSelection + ` } } }`

type auditStatuses struct {
	PaymentStatus, MainStatus, UnderStatus, ActiveStatus, InvoiceStatus, InvoiceProcessStatus, PaidAmount *string
}

type auditRecordOut struct {
	RecordType, RecordID string
	Before, After        *auditStatuses
}

type auditEventOut struct {
	ID                   int
	CreatedAt            time.Time
	Operation, Role      string
	APIKeyID, APIKeyName *string
	ClientID             *string
	RequestID            string
	Records              []auditRecordOut
}

type auditPage struct {
	TotalCount int
	PageInfo   struct {
		HasNextPage, HasPreviousPage bool
		StartCursor, EndCursor       *string
	}
	Edges []struct {
		Cursor string
		Node   struct{ ID int }
	}
	Nodes []auditEventOut
}

func auditList(t *testing.T, env *apitest.Env, vars apitest.Vars) auditPage {
	t.Helper()
	var p auditPage
	env.Admin().Do(t, auditListQuery, vars).Field(t, "auditEvents", &p)
	return p
}

func auditCount(t *testing.T, env *apitest.Env) int {
	t.Helper()
	return auditList(t, env, apitest.Vars{"rowsPerPage": 1}).TotalCount
}

// auditLast returns the newest event, and checks that exactly one was
// added since the count before.
func auditLast(t *testing.T, env *apitest.Env, before int) auditEventOut {
	t.Helper()
	p := auditList(t, env, apitest.Vars{"rowsPerPage": 1})
	if p.TotalCount != before+1 {
		t.Fatalf("audit events: %d, want %d (one more)", p.TotalCount, before+1)
	}
	return p.Nodes[0]
}

func str(s string) *string { return &s }

func statusesOf(kv ...string) *auditStatuses {
	s := &auditStatuses{}
	for i := 0; i < len(kv); i += 2 {
		v := str(kv[i+1])
		switch kv[i] {
		case "payment":
			s.PaymentStatus = v
		case "main":
			s.MainStatus = v
		case "under":
			s.UnderStatus = v
		case "active":
			s.ActiveStatus = v
		case "invoice":
			s.InvoiceStatus = v
		case "process":
			s.InvoiceProcessStatus = v
		case "paid":
			s.PaidAmount = v
		}
	}
	return s
}

func rec(typ string, id any, before, after *auditStatuses) auditRecordOut {
	var s string
	switch v := id.(type) {
	case int:
		s = strconv.Itoa(v)
	case string:
		s = v
	}
	return auditRecordOut{RecordType: typ, RecordID: s, Before: before, After: after}
}

func checkEvent(t *testing.T, what string, got auditEventOut, op, role, keyID string, clientID *string, requestID string, records ...auditRecordOut) {
	t.Helper()
	if got.Operation != op || got.Role != role || got.RequestID != requestID {
		t.Errorf("%s: operation %q role %q requestId %q, want %q %q %q", what, got.Operation, got.Role, got.RequestID, op, role, requestID)
	}
	if got.APIKeyID == nil || *got.APIKeyID != keyID || got.APIKeyName == nil || *got.APIKeyName == "" {
		t.Errorf("%s: apiKeyId %v name %v, want %s and its name", what, got.APIKeyID, got.APIKeyName, keyID)
	}
	if (got.ClientID == nil) != (clientID == nil) || (clientID != nil && *got.ClientID != *clientID) {
		t.Errorf("%s: clientId %v, want %v", what, got.ClientID, clientID)
	}
	if time.Since(got.CreatedAt) > time.Hour || time.Until(got.CreatedAt) > time.Minute {
		t.Errorf("%s: createdAt %v is not the server's time", what, got.CreatedAt)
	}
	if !reflect.DeepEqual(got.Records, records) {
		g, _ := json.Marshal(got.Records)
		w, _ := json.Marshal(records)
		t.Errorf("%s: records\n got %s\nwant %s", what, g, w)
	}
}

func viewerKeyID(t *testing.T, c *apitest.Caller) string {
	t.Helper()
	var v struct{ APIKey struct{ ID string } }
	c.Do(t, `{ viewer { apiKey { id } } }`, nil).Field(t, "viewer", &v)
	return v.APIKey.ID
}

// auditFixture is a client with a CLIENT key, as the mutations of
// TestEveryMutationAppendsOneEvent leave them.
type auditFixture struct {
	clientID, clientKeyID, clientSecret, adminKeyID string
	debtID, itemID, paymentID                       int
}

// TestEveryMutationAppendsOneEvent: each of the eleven mutations appends
// exactly one event naming the operation, the key, the client, the request
// and the records touched, with statuses before and after.
func TestEveryMutationAppendsOneEvent(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 3, 10, 12, 0, 0, 0, apitest.Stockholm))
	auditEveryMutation(t, env)
}

func auditEveryMutation(t *testing.T, env *apitest.Env) auditFixture {
	t.Helper()
	admin := env.Admin()
	var f auditFixture
	f.adminKeyID = viewerKeyID(t, admin)
	n := auditCount(t, env)

	// createClient
	var cc struct{ ID string }
	admin.Do(t, apitest.CreateClientMutation, apitest.Vars{"input": apitest.ClientInput("Audit AB")}, "X-Request-Id", "req-1").
		Field(t, "createClient", &cc)
	f.clientID = cc.ID
	checkEvent(t, "createClient", auditLast(t, env, n), "createClient", "ADMIN", f.adminKeyID, &f.clientID, "req-1",
		rec("CLIENT", f.clientID, nil, nil))
	n++

	// createApiKey: the event names the key, never its secret.
	var ck struct {
		Secret string
		APIKey struct{ ID string } `json:"apiKey"`
	}
	admin.Do(t, `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { id } } }`,
		apitest.Vars{"input": apitest.Vars{"name": "audit client key", "role": "CLIENT", "clientId": f.clientID}}, "X-Request-Id", "req-2").
		Field(t, "createApiKey", &ck)
	f.clientKeyID, f.clientSecret = ck.APIKey.ID, ck.Secret
	checkEvent(t, "createApiKey", auditLast(t, env, n), "createApiKey", "ADMIN", f.adminKeyID, &f.clientID, "req-2",
		rec("API_KEY", f.clientKeyID, nil, statusesOf("active", "ACTIVE")))
	n++
	client := env.As(f.clientSecret)

	// updateClient, by the client's own key.
	client.Do(t, `mutation($id: UUID!, $input: ClientInput!) { updateClient(id: $id, input: $input) { id } }`,
		apitest.Vars{"id": f.clientID, "input": apitest.ClientInput("Audit AB (publ)")}, "X-Request-Id", "req-3").OK(t, nil)
	checkEvent(t, "updateClient", auditLast(t, env, n), "updateClient", "CLIENT", f.clientKeyID, &f.clientID, "req-3",
		rec("CLIENT", f.clientID, nil, nil))
	n++

	// createDebtor, updateDebtor
	var debtor struct{ ID string }
	client.Do(t, `mutation($c: UUID!, $input: DebtorInput!) { createDebtor(clientId: $c, input: $input) { id } }`,
		apitest.Vars{"c": f.clientID, "input": debtorInput("Eva Ek", apitest.Personnr)}, "X-Request-Id", "req-4").Field(t, "createDebtor", &debtor)
	checkEvent(t, "createDebtor", auditLast(t, env, n), "createDebtor", "CLIENT", f.clientKeyID, &f.clientID, "req-4",
		rec("DEBTOR", debtor.ID, nil, nil))
	n++
	client.Do(t, `mutation($c: UUID!, $id: UUID!, $input: DebtorInput!) { updateDebtor(clientId: $c, id: $id, input: $input) { id } }`,
		apitest.Vars{"c": f.clientID, "id": debtor.ID, "input": debtorInput("Eva Ekholm", apitest.Personnr)}, "X-Request-Id", "req-5").OK(t, nil)
	checkEvent(t, "updateDebtor", auditLast(t, env, n), "updateDebtor", "CLIENT", f.clientKeyID, &f.clientID, "req-5",
		rec("DEBTOR", debtor.ID, nil, nil))
	n++

	// createInvoice, withdrawInvoice: the invoice's statuses before and after.
	var inv struct{ ID string }
	client.Do(t, `mutation($c: UUID!, $input: InvoiceInput!) { createInvoice(clientId: $c, input: $input) { id } }`,
		apitest.Vars{"c": f.clientID, "input": invoiceInput("A-1")}, "X-Request-Id", "req-6").Field(t, "createInvoice", &inv)
	open := statusesOf("invoice", "OPEN", "process", "AWAITING_DUE", "payment", "UNPAID", "active", "ACTIVE")
	checkEvent(t, "createInvoice", auditLast(t, env, n), "createInvoice", "CLIENT", f.clientKeyID, &f.clientID, "req-6",
		rec("INVOICE", inv.ID, nil, open))
	n++
	client.Do(t, `mutation($c: UUID!, $id: UUID!) { withdrawInvoice(clientId: $c, id: $id, comment: "fel") { id } }`,
		apitest.Vars{"c": f.clientID, "id": inv.ID}, "X-Request-Id", "req-7").OK(t, nil)
	checkEvent(t, "withdrawInvoice", auditLast(t, env, n), "withdrawInvoice", "CLIENT", f.clientKeyID, &f.clientID, "req-7",
		rec("INVOICE", inv.ID, open, statusesOf("invoice", "WITHDRAWN", "process", "CLOSED", "payment", "UNPAID", "active", "INACTIVE")))
	n++

	// createDebt: the debtor, the debt, its items and opening payments.
	item1 := apitest.Vars{"invoiceNumber": "D-1", "invoiceDate": "2026-01-01T10:00:00+01:00", "dueDate": "2026-02-01T10:00:00+01:00", "amount": "100.00",
		"payments": []apitest.Vars{{"amount": "30.00", "transactionDate": "2026-02-15T10:00:00+01:00"}}}
	item2 := apitest.Vars{"invoiceNumber": "D-2", "invoiceDate": "2026-01-01T10:00:00+01:00", "dueDate": "2026-02-01T10:00:00+01:00", "amount": "50.00"}
	var d struct {
		ID       int
		Debtor   struct{ ID string }
		Invoices []struct {
			ID       int
			Payments []struct{ ID int }
		}
	}
	admin.Do(t, `mutation($c: UUID!, $input: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $input) { id debtor { id } invoices { id payments { id } } } }`,
		apitest.Vars{"c": f.clientID, "input": debtCaseInput(apitest.Personnr, "Eva Ekholm", item1, item2)}, "X-Request-Id", "req-8").Field(t, "createDebt", &d)
	if d.Debtor.ID != debtor.ID || len(d.Invoices) != 2 || len(d.Invoices[0].Payments) != 1 {
		t.Fatalf("createDebt answered %+v", d)
	}
	f.debtID, f.itemID = d.ID, d.Invoices[0].ID
	created := statusesOf("payment", "PARTIALLY_PAID", "main", "COLLECTION", "under", "DEMAND_SENT", "active", "ACTIVE", "paid", "30.00")
	checkEvent(t, "createDebt", auditLast(t, env, n), "createDebt", "ADMIN", f.adminKeyID, &f.clientID, "req-8",
		rec("DEBTOR", debtor.ID, nil, nil), rec("DEBT", d.ID, nil, created),
		rec("DEBT_INVOICE", d.Invoices[0].ID, nil, nil), rec("DEBT_INVOICE", d.Invoices[1].ID, nil, nil),
		rec("PAYMENT", d.Invoices[0].Payments[0].ID, nil, nil))
	n++

	// addDebtPayment: the payment, the debt's statuses and paid amount
	// before and after, the item paid on.
	var p struct{ ID int }
	client.Do(t, `mutation($c: UUID!, $input: DebtPaymentInput!) { addDebtPayment(clientId: $c, input: $input) { id } }`,
		apitest.Vars{"c": f.clientID, "input": apitest.Vars{"debtId": d.ID, "invoiceId": f.itemID, "amount": "120.00", "transactionDate": "2026-03-10"}},
		"X-Request-Id", "req-9").Field(t, "addDebtPayment", &p)
	f.paymentID = p.ID
	paidFull := statusesOf("payment", "PAID", "main", "CLOSED", "under", "PAID_IN_FULL", "active", "INACTIVE", "paid", "150.00")
	checkEvent(t, "addDebtPayment", auditLast(t, env, n), "addDebtPayment", "CLIENT", f.clientKeyID, &f.clientID, "req-9",
		rec("PAYMENT", p.ID, nil, nil), rec("DEBT", d.ID, created, paidFull), rec("DEBT_INVOICE", f.itemID, nil, nil))
	n++

	// withdrawDebt on a second, open debt.
	var d2 struct{ ID int }
	admin.Do(t, `mutation($c: UUID!, $input: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $input) { id } }`,
		apitest.Vars{"c": f.clientID, "input": debtCaseInput(apitest.Personnr, "Eva Ekholm", debtCaseItemInput("D-3", "10"))}).Field(t, "createDebt", &d2)
	n++
	client.Do(t, `mutation($c: UUID!, $input: WithdrawDebtInput!) { withdrawDebt(clientId: $c, input: $input) { id } }`,
		apitest.Vars{"c": f.clientID, "input": apitest.Vars{"id": d2.ID, "comment": "betald direkt"}}, "X-Request-Id", "req-10").OK(t, nil)
	checkEvent(t, "withdrawDebt", auditLast(t, env, n), "withdrawDebt", "CLIENT", f.clientKeyID, &f.clientID, "req-10",
		rec("DEBT", d2.ID,
			statusesOf("payment", "UNPAID", "main", "COLLECTION", "under", "DEMAND_SENT", "active", "ACTIVE", "paid", "0.00"),
			statusesOf("payment", "UNPAID", "main", "CLOSED", "under", "WITHDRAWN", "active", "INACTIVE", "paid", "0.00")))
	n++

	// createApiKey (ADMIN, no client) and revokeApiKey.
	adminKeyID, _ := env.NewKey(t, "ADMIN", "")
	checkEvent(t, "createApiKey ADMIN", auditLast(t, env, n), "createApiKey", "ADMIN", f.adminKeyID, nil, auditLast(t, env, n).RequestID,
		rec("API_KEY", adminKeyID, nil, statusesOf("active", "ACTIVE")))
	n++
	admin.Do(t, `mutation($id: UUID!) { revokeApiKey(id: $id) { id } }`, apitest.Vars{"id": adminKeyID}, "X-Request-Id", "req-11").OK(t, nil)
	checkEvent(t, "revokeApiKey", auditLast(t, env, n), "revokeApiKey", "ADMIN", f.adminKeyID, nil, "req-11",
		rec("API_KEY", adminKeyID, statusesOf("active", "ACTIVE"), statusesOf("active", "INACTIVE")))

	// A request without X-Request-Id records the id the server gave it.
	before := auditCount(t, env)
	r := admin.Do(t, `mutation($id: UUID!, $input: ClientInput!) { updateClient(id: $id, input: $input) { id } }`,
		apitest.Vars{"id": f.clientID, "input": apitest.ClientInput("Audit AB")})
	r.OK(t, nil)
	if got := auditLast(t, env, before).RequestID; got == "" || got != r.Header.Get("X-Request-Id") {
		t.Errorf("requestId %q, want the response's X-Request-Id %q", got, r.Header.Get("X-Request-Id"))
	}
	return f
}

// TestRefusedAndReplayedMutationsAppendNothing: a refused mutation writes
// no event (its work and its event roll back together), and neither does an
// idempotent replay.
func TestRefusedAndReplayedMutationsAppendNothing(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin()
	clientID, debtID, itemID := paymentDebt(t, env, "100.00")
	n := auditCount(t, env)
	unchanged := func(what string) {
		t.Helper()
		if got := auditCount(t, env); got != n {
			t.Fatalf("%s: %d audit events, want %d (none added)", what, got, n)
		}
	}

	// BAD_USER_INPUT
	admin.Do(t, apitest.CreateClientMutation, apitest.Vars{"input": apitest.ClientInput("", apitest.Vars{"name": " "})}).
		Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.name")
	unchanged("createClient refused")
	admin.Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID+1000, "1.00")}).
		Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.invoiceId")
	unchanged("addDebtPayment to another debt's item")

	// Two fields, the second refused: the first's event goes too.
	admin.Do(t, `mutation($c: UUID!, $i: DebtPaymentInput!, $bad: DebtPaymentInput!) {
	  a: addDebtPayment(clientId: $c, input: $i) { id } b: addDebtPayment(clientId: $c, input: $bad) { id } }`,
		apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "1.00"), "bad": paymentInput(debtID, itemID, "-1")}).
		Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.amount")
	unchanged("a mutation operation with a refused field")

	// CONFLICT: withdrawing a withdrawn debt.
	withdraw := `mutation($c: UUID!, $id: Int!) { withdrawDebt(clientId: $c, input: {id: $id}) { id } }`
	admin.Do(t, withdraw, apitest.Vars{"c": clientID, "id": debtID}).OK(t, nil)
	n++
	unchanged("the first withdrawal (one event)")
	admin.Do(t, withdraw, apitest.Vars{"c": clientID, "id": debtID}).Refused(t, http.StatusConflict, "CONFLICT", "")
	unchanged("a second withdrawal")
	admin.Do(t, withdraw, apitest.Vars{"c": clientID, "id": debtID}, "Idempotency-Key", "w-1").Refused(t, http.StatusConflict, "CONFLICT", "")
	unchanged("a keyed refusal (its response is recorded, no event)")

	// FORBIDDEN: a CLIENT key for another client.
	_, other := env.ClientCaller(t, "Other AB")
	n = auditCount(t, env)
	other.Do(t, withdraw, apitest.Vars{"c": clientID, "id": debtID}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
	unchanged("a forbidden withdrawal")

	// An idempotent replay does no work and writes no event.
	var d2 struct {
		ID       int
		Invoices []struct{ ID int }
	}
	admin.Do(t, `mutation($c: UUID!, $input: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $input) { id invoices { id } } }`,
		apitest.Vars{"c": clientID, "input": debtCaseInput(apitest.Personnr, "Sven Svensson", debtCaseItemInput("F-2", "100"))}).Field(t, "createDebt", &d2)
	n = auditCount(t, env)
	vars := apitest.Vars{"c": clientIDOf(t, env, d2.ID), "i": paymentInput(d2.ID, d2.Invoices[0].ID, "5.00")}
	admin.Do(t, addPayment, vars, "Idempotency-Key", "pay-once").OK(t, nil)
	n++
	for range 3 {
		admin.Do(t, addPayment, vars, "Idempotency-Key", "pay-once").OK(t, nil)
	}
	unchanged("three replays of a keyed payment")
	if got := readDebt(t, env, clientID, d2.ID).PaidAmount; got != "5.00" {
		t.Errorf("paid after replays: %s, want 5.00", got)
	}
	if got := operations(debtEvents(t, env.Admin(), clientID, d2.ID)); !reflect.DeepEqual(got, []string{"createDebt", "addDebtPayment"}) {
		t.Errorf("timeline of debt %d: %v, want createDebt, addDebtPayment", d2.ID, got)
	}
}

// clientIDOf finds the client of a debt through the audit trail.
func clientIDOf(t *testing.T, env *apitest.Env, debtID int) string {
	t.Helper()
	p := auditList(t, env, apitest.Vars{"filter": apitest.Vars{"record": apitest.Vars{"recordType": "DEBT", "recordId": strconv.Itoa(debtID)}, "operation": "createDebt"}})
	if len(p.Nodes) != 1 || p.Nodes[0].ClientID == nil {
		t.Fatalf("createDebt event of debt %d: %+v", debtID, p.Nodes)
	}
	return *p.Nodes[0].ClientID
}

func debtEvents(t *testing.T, c *apitest.Caller, clientID string, debtID int) []auditEventOut {
	t.Helper()
	var d *struct{ Events []auditEventOut }
	c.Do(t, `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { events { `+auditSelection+` } } }`,
		apitest.Vars{"c": clientID, "id": debtID}).Field(t, "debt", &d)
	if d == nil {
		return nil
	}
	return d.Events
}

func operations(events []auditEventOut) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Operation
	}
	return out
}

func eventIDs(events []auditEventOut) []int {
	out := make([]int, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

// TestAuditEventsFilterAndPage: by client, record, operation and time, newest
// first, in both paging modes; bad filters are BAD_USER_INPUT.
func TestAuditEventsFilterAndPage(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 3, 10, 12, 0, 0, 0, apitest.Stockholm))
	f := auditEveryMutation(t, env)
	otherClient, otherDebt, otherItem := paymentDebt(t, env, "10.00")
	pay := paymentInput(otherDebt, otherItem, "1.00")
	pay["transactionDate"] = "2026-03-10"
	env.Admin().Do(t, addPayment, apitest.Vars{"c": otherClient, "i": pay}).OK(t, nil)

	all := auditList(t, env, apitest.Vars{"rowsPerPage": 100})
	if all.TotalCount != len(all.Nodes) || all.TotalCount < 15 {
		t.Fatalf("all events: totalCount %d, %d nodes", all.TotalCount, len(all.Nodes))
	}
	for i := 1; i < len(all.Nodes); i++ {
		a, b := all.Nodes[i-1], all.Nodes[i]
		if a.CreatedAt.Before(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID < b.ID) {
			t.Fatalf("not newest first at %d: %d (%v) before %d (%v)", i, a.ID, a.CreatedAt, b.ID, b.CreatedAt)
		}
	}

	// By client.
	byClient := auditList(t, env, apitest.Vars{"rowsPerPage": 100, "filter": apitest.Vars{"clientId": otherClient}})
	if got := operations(byClient.Nodes); !reflect.DeepEqual(got, []string{"addDebtPayment", "createDebt", "createClient"}) {
		t.Errorf("events of client %s: %v", otherClient, got)
	}

	// By record: a debt's events include its payments and withdrawal; a
	// payment's only the one that added it.
	byDebt := auditList(t, env, apitest.Vars{"filter": apitest.Vars{"record": apitest.Vars{"recordType": "DEBT", "recordId": strconv.Itoa(f.debtID)}}})
	if got := operations(byDebt.Nodes); !reflect.DeepEqual(got, []string{"addDebtPayment", "createDebt"}) {
		t.Errorf("events of debt %d: %v", f.debtID, got)
	}
	byPayment := auditList(t, env, apitest.Vars{"filter": apitest.Vars{"record": apitest.Vars{"recordType": "PAYMENT", "recordId": " " + strconv.Itoa(f.paymentID)}}})
	if got := operations(byPayment.Nodes); !reflect.DeepEqual(got, []string{"addDebtPayment"}) {
		t.Errorf("events of payment %d: %v", f.paymentID, got)
	}
	byKey := auditList(t, env, apitest.Vars{"filter": apitest.Vars{"record": apitest.Vars{"recordType": "API_KEY", "recordId": strings.ToUpper(f.clientKeyID)}}})
	if got := operations(byKey.Nodes); !reflect.DeepEqual(got, []string{"createApiKey"}) {
		t.Errorf("events of key %s: %v", f.clientKeyID, got)
	}
	// The same id under another type matches nothing.
	if p := auditList(t, env, apitest.Vars{"filter": apitest.Vars{"record": apitest.Vars{"recordType": "PAYMENT", "recordId": strconv.Itoa(f.debtID + 1000)}}}); p.TotalCount != 0 {
		t.Errorf("events of an unknown payment: %d", p.TotalCount)
	}

	// By operation, combined with the client.
	byOp := auditList(t, env, apitest.Vars{"filter": apitest.Vars{"operation": "addDebtPayment", "clientId": f.clientID}})
	if byOp.TotalCount != 1 || byOp.Nodes[0].ClientID == nil || *byOp.Nodes[0].ClientID != f.clientID {
		t.Errorf("addDebtPayment events of client %s: %+v", f.clientID, byOp.Nodes)
	}

	// By time: from is inclusive, to exclusive.
	oldest := all.Nodes[len(all.Nodes)-1]
	mid := all.Nodes[len(all.Nodes)/2]
	var want []int
	for _, e := range all.Nodes {
		if !e.CreatedAt.Before(oldest.CreatedAt) && e.CreatedAt.Before(mid.CreatedAt) {
			want = append(want, e.ID)
		}
	}
	byTime := auditList(t, env, apitest.Vars{"rowsPerPage": 100, "filter": apitest.Vars{
		"from": oldest.CreatedAt.Format(time.RFC3339Nano), "to": mid.CreatedAt.Format(time.RFC3339Nano)}})
	if got := eventIDs(byTime.Nodes); len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("events in [%v, %v): %v, want %v", oldest.CreatedAt, mid.CreatedAt, got, want)
	}
	future := auditList(t, env, apitest.Vars{"filter": apitest.Vars{"from": time.Now().Add(time.Hour).Format(time.RFC3339)}})
	if future.TotalCount != 0 {
		t.Errorf("events from an hour ahead: %d", future.TotalCount)
	}

	// Paging: by pages and by cursors, forwards and backwards, the same order.
	allIDs := eventIDs(all.Nodes)
	var pages []int
	for page := 1; ; page++ {
		p := auditList(t, env, apitest.Vars{"page": page, "rowsPerPage": 4})
		pages = append(pages, eventIDs(p.Nodes)...)
		if p.PageInfo.HasPreviousPage != (page > 1) {
			t.Errorf("page %d: hasPreviousPage %v", page, p.PageInfo.HasPreviousPage)
		}
		if !p.PageInfo.HasNextPage {
			break
		}
	}
	if !reflect.DeepEqual(pages, allIDs) {
		t.Errorf("by pages: %v, want %v", pages, allIDs)
	}
	var forward []int
	vars := apitest.Vars{"first": 3}
	for {
		p := auditList(t, env, vars)
		forward = append(forward, eventIDs(p.Nodes)...)
		if !p.PageInfo.HasNextPage {
			break
		}
		vars = apitest.Vars{"first": 3, "after": *p.PageInfo.EndCursor}
	}
	if !reflect.DeepEqual(forward, allIDs) {
		t.Errorf("by cursors forwards: %v, want %v", forward, allIDs)
	}
	var backward []int
	vars = apitest.Vars{"last": 5}
	for {
		p := auditList(t, env, vars)
		backward = append(eventIDs(p.Nodes), backward...)
		if !p.PageInfo.HasPreviousPage {
			break
		}
		vars = apitest.Vars{"last": 5, "before": *p.PageInfo.StartCursor}
	}
	if !reflect.DeepEqual(backward, allIDs) {
		t.Errorf("by cursors backwards: %v, want %v", backward, allIDs)
	}

	// Refusals.
	admin := env.Admin()
	for _, c := range []struct {
		vars  apitest.Vars
		field string
	}{
		{apitest.Vars{"filter": apitest.Vars{"record": apitest.Vars{"recordType": "DEBT", "recordId": "abc"}}}, "filter.record.recordId"},
		{apitest.Vars{"filter": apitest.Vars{"record": apitest.Vars{"recordType": "DEBT", "recordId": "0"}}}, "filter.record.recordId"},
		{apitest.Vars{"filter": apitest.Vars{"record": apitest.Vars{"recordType": "CLIENT", "recordId": "12"}}}, "filter.record.recordId"},
		{apitest.Vars{"filter": apitest.Vars{"operation": "deleteEverything"}}, "filter.operation"},
		{apitest.Vars{"filter": apitest.Vars{"from": "2026-03-02T00:00:00Z", "to": "2026-03-01T00:00:00Z"}}, "filter.to"},
		{apitest.Vars{"after": "bm90IGEgY3Vyc29y"}, "after"},
		{apitest.Vars{"page": 1, "first": 2}, "page"},
		{apitest.Vars{"rowsPerPage": 101}, "rowsPerPage"},
	} {
		admin.Do(t, auditListQuery, c.vars).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", c.field)
	}
	// A cursor of another list is refused too.
	var debts struct {
		Edges []struct{ Cursor string }
	}
	admin.Do(t, `query($c: UUID!) { debts(clientId: $c, first: 1) { edges { cursor node { id } } } }`, apitest.Vars{"c": f.clientID}).Field(t, "debts", &debts)
	admin.Do(t, auditListQuery, apitest.Vars{"after": debts.Edges[0].Cursor}).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "after")
}

// TestAuditTenancy: auditEvents is ADMIN's; a CLIENT key reads its own
// debts' timelines, without the agency's keys, and never another client's.
func TestAuditTenancy(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 3, 10, 12, 0, 0, 0, apitest.Stockholm))
	f := auditEveryMutation(t, env)
	client := env.As(f.clientSecret)

	// The trail lists its own client's events only (api.md §9a), with the
	// keys of ADMIN events hidden; another client by filter is FORBIDDEN.
	var own, all struct {
		AuditEvents struct {
			TotalCount int
			Nodes      []struct {
				ClientID   *string
				Role       string
				APIKeyID   *string
				APIKeyName *string
			}
		}
	}
	client.Do(t, `{ auditEvents(rowsPerPage: 100) { totalCount nodes { clientId role apiKeyId apiKeyName } } }`, nil).OK(t, &own)
	env.Admin().Do(t, `query($c: UUID!) { auditEvents(filter: {clientId: $c}, rowsPerPage: 100) { totalCount } }`,
		apitest.Vars{"c": f.clientID}).OK(t, &all)
	if own.AuditEvents.TotalCount == 0 || own.AuditEvents.TotalCount != all.AuditEvents.TotalCount || len(own.AuditEvents.Nodes) != own.AuditEvents.TotalCount {
		t.Fatalf("a CLIENT key lists %d events (%d nodes), ADMIN lists %d of its client", own.AuditEvents.TotalCount, len(own.AuditEvents.Nodes), all.AuditEvents.TotalCount)
	}
	for _, e := range own.AuditEvents.Nodes {
		if e.ClientID == nil || *e.ClientID != f.clientID {
			t.Errorf("a CLIENT key lists an event of client %v", e.ClientID)
		}
		if e.Role == "ADMIN" && (e.APIKeyID != nil || e.APIKeyName != nil) {
			t.Errorf("an ADMIN key's event shows the key to a CLIENT: %+v", e)
		}
	}
	client.Do(t, `{ auditEvents(filter: {clientId: "`+f.clientID+`"}) { totalCount } }`, nil).OK(t, nil)
	otherID, _ := env.NewClient(t, "Annan AB")
	client.Do(t, `{ auditEvents(filter: {clientId: "`+otherID+`"}) { nodes { id } } }`, nil).Refused(t, http.StatusForbidden, "FORBIDDEN", "")

	// Its own debt: created by ADMIN (key hidden), paid by itself (shown).
	events := debtEvents(t, client, f.clientID, f.debtID)
	if got := operations(events); !reflect.DeepEqual(got, []string{"createDebt", "addDebtPayment"}) {
		t.Fatalf("timeline of its debt: %v", got)
	}
	if events[0].APIKeyID != nil || events[0].APIKeyName != nil || events[0].Role != "ADMIN" {
		t.Errorf("an ADMIN key's event shows the key to a CLIENT: %+v", events[0])
	}
	if events[1].APIKeyID == nil || *events[1].APIKeyID != f.clientKeyID {
		t.Errorf("its own key's event: apiKeyId %v, want %s", events[1].APIKeyID, f.clientKeyID)
	}
	// ADMIN reads the same timeline, with the keys.
	adminEvents := debtEvents(t, env.Admin(), f.clientID, f.debtID)
	if !reflect.DeepEqual(eventIDs(adminEvents), eventIDs(events)) || adminEvents[0].APIKeyID == nil || *adminEvents[0].APIKeyID != f.adminKeyID {
		t.Errorf("ADMIN's timeline: %+v", adminEvents)
	}

	// Another client's debt is not reachable: FORBIDDEN by its id, null
	// under its own client, and absent from nested lists.
	otherClient, otherDebt, _ := paymentDebt(t, env, "10.00")
	client.Do(t, `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { events { id } } }`,
		apitest.Vars{"c": otherClient, "id": otherDebt}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
	if got := debtEvents(t, client, f.clientID, otherDebt); got != nil {
		t.Errorf("another client's debt under its own client id: %+v", got)
	}
	var list struct {
		Nodes []struct {
			ID     int
			Events []struct {
				ClientID *string
				Records  []struct{ RecordType, RecordID string }
			}
		}
	}
	client.Do(t, `query($c: UUID!) { debts(clientId: $c, rowsPerPage: 100) { nodes { id events { clientId records { recordType recordId } } } } }`,
		apitest.Vars{"c": f.clientID}).Field(t, "debts", &list)
	if len(list.Nodes) != 2 {
		t.Fatalf("its debts: %+v", list.Nodes)
	}
	for _, d := range list.Nodes {
		for _, e := range d.Events {
			if e.ClientID == nil || *e.ClientID != f.clientID {
				t.Errorf("debt %d shows an event of client %v", d.ID, e.ClientID)
			}
		}
	}
}

// TestNoMutationReachesTheAuditTrail: the schema has no operation that
// changes or deletes events; the Mutation type is exactly these
// mutations, each of which only appends.
func TestNoMutationReachesTheAuditTrail(t *testing.T) {
	env := apitest.New(t)
	var out struct {
		Type struct{ Fields []struct{ Name string } } `json:"__type"`
	}
	env.Admin().Do(t, `{ __type(name: "Mutation") { fields { name } } }`, nil).OK(t, &out)
	var names []string
	for _, f := range out.Type.Fields {
		names = append(names, f.Name)
	}
	want := []string{"createClient", "updateClient", "createDebtor", "updateDebtor", "createInvoice", "withdrawInvoice",
		"createDebt", "createDebts", "addDebtPayment", "withdrawDebt", "createApiKey", "revokeApiKey", "setReferenceRate", "setCollectionTerms",
		"disputeDebt", "resolveDispute", "applyForPaymentOrder", "anonymizeDebtor",
		"createWebhookEndpoint", "updateWebhookEndpoint", "deleteWebhookEndpoint", "retryWebhookDelivery"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("mutations %v, want %v (a new mutation must append its audit event, and none may change the trail)", names, want)
	}
}

// TestLaterRootFieldsSeeEarlierWrites: the root fields of a mutation run one
// after the other, and each answers from the database as the fields before
// it left it: the second payment's debt lists both payments' events, not
// the timeline cached while answering the first.
func TestLaterRootFieldsSeeEarlierWrites(t *testing.T) {
	env := apitest.New(t)
	clientID, debtID, itemID := paymentDebt(t, env, "10.00")
	var out struct {
		A, B struct {
			Debt struct {
				PaidAmount string
				Events     []struct{ Operation string }
			}
		}
	}
	env.Admin().Do(t, `mutation($c: UUID!, $i: DebtPaymentInput!) {
	  a: addDebtPayment(clientId: $c, input: $i) { debt { paidAmount events { operation } } }
	  b: addDebtPayment(clientId: $c, input: $i) { debt { paidAmount events { operation } } } }`,
		apitest.Vars{"c": clientID, "i": apitest.Vars{"debtId": debtID, "invoiceId": itemID, "amount": "1.00", "transactionDate": "2024-06-01"}}).
		OK(t, &out)
	if len(out.B.Debt.Events) != len(out.A.Debt.Events)+1 {
		t.Errorf("events: a sees %d, b sees %d; want b to see a's payment and its own", len(out.A.Debt.Events), len(out.B.Debt.Events))
	}
	if out.A.Debt.PaidAmount == out.B.Debt.PaidAmount {
		t.Errorf("paidAmount: a %s, b %s; want b's to include both payments", out.A.Debt.PaidAmount, out.B.Debt.PaidAmount)
	}
}
