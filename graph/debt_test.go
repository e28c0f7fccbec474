package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/ent/debtitem"
	"github.com/debtql/debtql/ent/payment"
	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/auth"
)

// API tests of debts (collection cases): createDebt, addDebtPayment,
// withdrawDebt, the debt and debts queries, and how debts show on invoices
// and debtors (api.md §5-§8). Every helper is prefixed debtCase.

// debtCasePayment is a Payment as the API answers it.
type debtCasePayment struct {
	ID              int
	Amount          string
	TransactionDate string
	BookedDate      *string
	Source          string
	CreatedAt       string
	Debt            struct{ ID int }
	Invoice         struct{ ID int }
}

// debtCaseItem is a DebtInvoice as the API answers it.
type debtCaseItem struct {
	ID              int
	InvoiceNumber   string
	Description     *string
	InvoiceDate     string
	DueDate         string
	ReminderDate    *string
	Amount          string
	PaidAmount      string
	RemainingAmount string
	CreatedAt       string
	Invoice         *struct{ ID string }
	Payments        []debtCasePayment
}

// debtCaseDebt is a Debt as the API answers it.
type debtCaseDebt struct {
	ID     int
	Client struct{ ID string }
	Debtor struct {
		ID                   string
		Name                 string
		IdentificationNumber string
	}
	Invoices        []debtCaseItem
	Payments        []debtCasePayment
	OriginalAmount  string
	PaidAmount      string
	RemainingAmount string
	OverpaidAmount  string
	PaymentStatus   string
	MainStatus      string
	UnderStatus     string
	ActiveStatus    string
	IsCompleted     bool
	WithdrawnAt     *string
	WithdrawComment *string
	CreatedAt       string
	UpdatedAt       string
}

const debtCasePaymentSelection = `id amount transactionDate bookedDate source createdAt debt { id } invoice { id }`

const debtCaseSelection = `id client { id } debtor { id name identificationNumber }
  invoices { id invoiceNumber description invoiceDate dueDate reminderDate amount paidAmount remainingAmount createdAt
    invoice { id } payments { ` + debtCasePaymentSelection + ` } }
  payments { ` + debtCasePaymentSelection + ` }
  originalAmount paidAmount remainingAmount overpaidAmount paymentStatus mainStatus underStatus activeStatus isCompleted
  withdrawnAt withdrawComment createdAt updatedAt`

const debtCaseCreateMutation = `mutation($clientId: UUID!, $input: DebtorWithDebtsInput!) {
  createDebt(clientId: $clientId, input: $input) { ` + debtCaseSelection + ` } }`

const debtCaseQuery = `query($clientId: UUID!, $id: Int!) { debt(clientId: $clientId, id: $id) { ` + debtCaseSelection + ` } }`

const debtCasePayMutation = `mutation($clientId: UUID!, $input: DebtPaymentInput!) {
  addDebtPayment(clientId: $clientId, input: $input) { ` + debtCasePaymentSelection + ` } }`

const debtCaseWithdrawMutation = `mutation($clientId: UUID!, $input: WithdrawDebtInput!) {
  withdrawDebt(clientId: $clientId, input: $input) { ` + debtCaseSelection + ` } }`

// debtCaseSEAddress is a Swedish address: identification numbers are checked.
func debtCaseSEAddress() apitest.Vars {
	return apitest.Vars{"address1": "Storgatan 1", "zipCode": "111 22", "city": "Stockholm", "countryCode": "SE"}
}

// debtCaseInput is a DebtorWithDebtsInput of a private Swedish debtor.
func debtCaseInput(ident, name string, items ...apitest.Vars) apitest.Vars {
	return apitest.Vars{"isCorporation": false, "identificationNumber": ident, "name": name,
		"address": debtCaseSEAddress(), "debts": items}
}

// debtCaseForeign is a DebtorWithDebtsInput of a Norwegian debtor, whose
// identification number is free-form.
func debtCaseForeign(ident, name string, items ...apitest.Vars) apitest.Vars {
	return apitest.Vars{"isCorporation": false, "identificationNumber": ident, "name": name,
		"address": apitest.Vars{"address1": "Storgata 1", "zipCode": "0150", "city": "Oslo", "countryCode": "NO"}, "debts": items}
}

// debtCaseItemInput is a valid DebtItemInput.
func debtCaseItemInput(number string, amount any) apitest.Vars {
	return apitest.Vars{"invoiceNumber": number, "invoiceDate": "2026-09-01T10:00:00+02:00",
		"dueDate": "2026-10-01T10:00:00+02:00", "amount": amount}
}

func debtCaseCreate(t testing.TB, c *apitest.Caller, clientID string, in apitest.Vars) *apitest.Response {
	t.Helper()
	return c.Do(t, debtCaseCreateMutation, apitest.Vars{"clientId": clientID, "input": in})
}

func debtCaseMustCreate(t testing.TB, c *apitest.Caller, clientID string, in apitest.Vars) debtCaseDebt {
	t.Helper()
	var d debtCaseDebt
	debtCaseCreate(t, c, clientID, in).Field(t, "createDebt", &d)
	return d
}

// debtCaseGet reads a debt; nil when the API answers null.
func debtCaseGet(t *testing.T, c *apitest.Caller, clientID string, id int) *debtCaseDebt {
	t.Helper()
	var d *debtCaseDebt
	c.Do(t, debtCaseQuery, apitest.Vars{"clientId": clientID, "id": id}).Field(t, "debt", &d)
	return d
}

func debtCaseMustGet(t *testing.T, c *apitest.Caller, clientID string, id int) debtCaseDebt {
	t.Helper()
	d := debtCaseGet(t, c, clientID, id)
	if d == nil {
		t.Fatalf("debt %d of client %s reads null", id, clientID)
	}
	return *d
}

func debtCasePay(t *testing.T, c *apitest.Caller, clientID string, debtID, itemID int, amount any, date string) *apitest.Response {
	t.Helper()
	return c.Do(t, debtCasePayMutation, apitest.Vars{"clientId": clientID,
		"input": apitest.Vars{"debtId": debtID, "invoiceId": itemID, "amount": amount, "transactionDate": date}})
}

func debtCaseWithdraw(t *testing.T, c *apitest.Caller, clientID string, in apitest.Vars) *apitest.Response {
	t.Helper()
	return c.Do(t, debtCaseWithdrawMutation, apitest.Vars{"clientId": clientID, "input": in})
}

// debtCaseRow is a debt in a list.
type debtCaseRow struct {
	ID             int
	OriginalAmount string
	PaidAmount     string
	PaymentStatus  string
	MainStatus     string
	UnderStatus    string
	ActiveStatus   string
	IsCompleted    bool
	CreatedAt      string
}

type debtCasePage struct {
	TotalCount int
	Nodes      []debtCaseRow
	Edges      []struct {
		Cursor string
		Node   struct{ ID int }
	}
	PageInfo struct {
		HasNextPage     bool
		HasPreviousPage bool
		StartCursor     *string
		EndCursor       *string
	}
}

const debtCaseListQuery = `query($clientId: UUID!, $filter: DebtFilter, $orderBy: DebtOrder, $page: Int, $rowsPerPage: Int,
  $first: Int, $after: String, $last: Int, $before: String) {
  debts(clientId: $clientId, filter: $filter, orderBy: $orderBy, page: $page, rowsPerPage: $rowsPerPage,
    first: $first, after: $after, last: $last, before: $before) {
    totalCount
    nodes { id originalAmount paidAmount paymentStatus mainStatus underStatus activeStatus isCompleted createdAt }
    edges { cursor node { id } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`

// debtCaseList lists a client's debts; vars add filter, orderBy and paging.
func debtCaseList(t *testing.T, c *apitest.Caller, clientID string, vars apitest.Vars) debtCasePage {
	t.Helper()
	all := apitest.Vars{"clientId": clientID}
	for k, v := range vars {
		all[k] = v
	}
	var p debtCasePage
	c.Do(t, debtCaseListQuery, all).Field(t, "debts", &p)
	if len(p.Edges) != len(p.Nodes) {
		t.Fatalf("debts: %d edges but %d nodes", len(p.Edges), len(p.Nodes))
	}
	for i := range p.Nodes {
		if p.Edges[i].Node.ID != p.Nodes[i].ID {
			t.Fatalf("debts: edge %d is debt %d but node %d is %d", i, p.Edges[i].Node.ID, i, p.Nodes[i].ID)
		}
	}
	return p
}

func debtCaseIDs(rows []debtCaseRow) []int {
	ids := make([]int, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

// debtCaseSorted returns ids sorted ascending.
func debtCaseSorted(ids []int) []int {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// debtCaseCounts counts a client's debts and debtors through the API, and
// its debt items and payments in the database.
func debtCaseCounts(t *testing.T, env *apitest.Env, clientID string) (debts, debtors, items, payments int) {
	t.Helper()
	var out struct {
		Debts   struct{ TotalCount int }
		Debtors struct{ TotalCount int }
	}
	env.Admin().Do(t, `query($c: UUID!) { debts(clientId: $c) { totalCount } debtors(clientId: $c) { totalCount } }`,
		apitest.Vars{"c": clientID}).OK(t, &out)
	ctx := auth.System(context.Background())
	var err error
	if items, err = env.DB.Ent.DebtItem.Query().Where(debtitem.ClientID(clientID)).Count(ctx); err != nil {
		t.Fatal(err)
	}
	if payments, err = env.DB.Ent.Payment.Query().Where(payment.ClientID(clientID)).Count(ctx); err != nil {
		t.Fatal(err)
	}
	return out.Debts.TotalCount, out.Debtors.TotalCount, items, payments
}

// debtCaseErrFields lists the extensions.field of a response's errors.
func debtCaseErrFields(r *apitest.Response) []string {
	var out []string
	for _, e := range r.Errors {
		out = append(out, e.Extensions.Field)
	}
	return out
}

// debtCaseCents reads a 2-decimal money string as öre.
func debtCaseCents(t *testing.T, s string) int64 {
	t.Helper()
	whole, frac, ok := strings.Cut(s, ".")
	if !ok || len(frac) != 2 {
		t.Fatalf("amount %q does not have exactly 2 decimals", s)
	}
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("amount %q is not a decimal", s)
	}
	return w*100 + f
}

func debtCaseTime(t *testing.T, s string) time.Time {
	t.Helper()
	if !dateTimeRE.MatchString(s) {
		t.Fatalf("%q is not an RFC 3339 UTC DateTime", s)
	}
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// debtCaseStockholmDay is the instant at hour:minute of the day days after
// the Stockholm calendar date of t.
func debtCaseStockholmDay(t time.Time, days, hour, minute int) time.Time {
	s := t.In(apitest.Stockholm)
	return time.Date(s.Year(), s.Month(), s.Day()+days, hour, minute, 0, 0, apitest.Stockholm)
}

// debtCaseJSON is v as JSON, to compare values that hold pointers.
func debtCaseJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// 1. createDebt returns every field, and the debt reads back and is listed.
func TestDebtCaseCreateReturnsEveryField(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Fields AB")
	in := debtCaseInput(apitest.Personnr, "  Sven Svensson  ",
		apitest.Vars{"invoiceNumber": " F-2026-100 ", "description": " Konsulttjänster oktober ",
			"invoiceDate": "2026-10-01T00:00:00+02:00", "dueDate": "2026-10-31T00:00:00+01:00",
			"reminderDate": "2026-11-10T09:15:30.5+01:00", "amount": "1000.50",
			"payments": []apitest.Vars{
				// Local 23:30 on the 15th; UTC is still the 15th, but the
				// booked date 00:30 on the 16th is the 15th in UTC.
				{"amount": "100.25", "transactionDate": "2026-10-15T23:30:00+02:00", "bookedDate": "2026-10-16T00:30:00+02:00"},
				// Local 20:00 on the 20th is the 21st in UTC.
				{"amount": 50, "transactionDate": "2026-10-20T20:00:00-05:00", "bookedDate": nil},
			}},
		apitest.Vars{"invoiceNumber": "F-2026-099", "invoiceDate": "2026-09-15T12:00:00Z", "dueDate": "2026-10-15T12:00:00Z", "amount": 200},
		apitest.Vars{"invoiceNumber": "A-1", "invoiceDate": "2026-09-15T12:00:00Z", "dueDate": "2026-09-15T12:00:00Z", "amount": "0.01", "payments": []apitest.Vars{}},
	)
	in["email"] = "sven@example.se"
	in["phone"] = "070-123 45 67"
	before := time.Now()
	var raw json.RawMessage
	debtCaseCreate(t, env.Admin(), clientID, in).Field(t, "createDebt", &raw)
	after := time.Now()
	var d debtCaseDebt
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}

	if d.ID <= 0 {
		t.Errorf("id %d is not a positive Int", d.ID)
	}
	if d.Client.ID != clientID {
		t.Errorf("client %s, want %s", d.Client.ID, clientID)
	}
	if !uuidRE.MatchString(d.Debtor.ID) || d.Debtor.Name != "Sven Svensson" || d.Debtor.IdentificationNumber != apitest.Personnr {
		t.Errorf("debtor %+v", d.Debtor)
	}
	str := func(s string) *string { return &s }
	type itemWant struct {
		number                              string
		description                         *string
		invoiceDate, dueDate                string
		reminderDate                        *string
		amount, paidAmount, remainingAmount string
		payments                            int
	}
	wantItems := []itemWant{
		{"F-2026-100", str("Konsulttjänster oktober"), "2026-09-30T22:00:00Z", "2026-10-30T23:00:00Z", str("2026-11-10T08:15:30.5Z"), "1000.50", "150.25", "850.25", 2},
		{"F-2026-099", nil, "2026-09-15T12:00:00Z", "2026-10-15T12:00:00Z", nil, "200.00", "0.00", "200.00", 0},
		{"A-1", nil, "2026-09-15T12:00:00Z", "2026-09-15T12:00:00Z", nil, "0.01", "0.00", "0.01", 0},
	}
	if len(d.Invoices) != len(wantItems) {
		t.Fatalf("%d invoices, want %d: %s", len(d.Invoices), len(wantItems), raw)
	}
	ptr := func(p *string) string {
		if p == nil {
			return "<null>"
		}
		return *p
	}
	seenItem := map[int]bool{}
	for i, w := range wantItems {
		it := d.Invoices[i]
		got := itemWant{it.InvoiceNumber, it.Description, it.InvoiceDate, it.DueDate, it.ReminderDate, it.Amount, it.PaidAmount, it.RemainingAmount, len(it.Payments)}
		if got.number != w.number || ptr(got.description) != ptr(w.description) || got.invoiceDate != w.invoiceDate || got.dueDate != w.dueDate ||
			ptr(got.reminderDate) != ptr(w.reminderDate) || got.amount != w.amount || got.paidAmount != w.paidAmount ||
			got.remainingAmount != w.remainingAmount || got.payments != w.payments {
			t.Errorf("invoice %d: got %+v (description %s, reminderDate %s), want %+v (description %s, reminderDate %s)",
				i, got, ptr(got.description), ptr(got.reminderDate), w, ptr(w.description), ptr(w.reminderDate))
		}
		if it.ID <= 0 || seenItem[it.ID] {
			t.Errorf("invoice %d has id %d: not a new positive Int", i, it.ID)
		}
		seenItem[it.ID] = true
		if !dateTimeRE.MatchString(it.CreatedAt) {
			t.Errorf("invoice %d createdAt %q", i, it.CreatedAt)
		}
		if it.Invoice != nil {
			t.Errorf("invoice %d: no invoice is registered, but invoice reads %+v", i, it.Invoice)
		}
	}
	type payWant struct {
		amount, transactionDate string
		bookedDate              *string
	}
	wantPays := []payWant{{"100.25", "2026-10-15", str("2026-10-16")}, {"50.00", "2026-10-20", nil}}
	checkPays := func(where string, pays []debtCasePayment) {
		t.Helper()
		if len(pays) != len(wantPays) {
			t.Fatalf("%s: %d payments, want %d", where, len(pays), len(wantPays))
		}
		for i, w := range wantPays {
			p := pays[i]
			if p.Amount != w.amount || p.TransactionDate != w.transactionDate || ptr(p.BookedDate) != ptr(w.bookedDate) ||
				p.Source != "BEFORE_HANDOVER" || p.Debt.ID != d.ID || p.Invoice.ID != d.Invoices[0].ID || p.ID <= 0 ||
				!dateTimeRE.MatchString(p.CreatedAt) {
				t.Errorf("%s payment %d: got %+v (bookedDate %s), want %+v (bookedDate %s), source BEFORE_HANDOVER, debt %d, invoice %d",
					where, i, p, ptr(p.BookedDate), w, ptr(w.bookedDate), d.ID, d.Invoices[0].ID)
			}
		}
		if pays[0].ID >= pays[1].ID {
			t.Errorf("%s: payments are not oldest first: ids %d, %d", where, pays[0].ID, pays[1].ID)
		}
	}
	checkPays("debt", d.Payments)
	checkPays("invoice 0", d.Invoices[0].Payments)

	if d.OriginalAmount != "1200.51" || d.PaidAmount != "150.25" || d.RemainingAmount != "1050.26" || d.OverpaidAmount != "0.00" {
		t.Errorf("amounts: original %s paid %s remaining %s overpaid %s, want 1200.51 150.25 1050.26 0.00",
			d.OriginalAmount, d.PaidAmount, d.RemainingAmount, d.OverpaidAmount)
	}
	if d.PaymentStatus != "PARTIALLY_PAID" || d.MainStatus != "COLLECTION" || d.UnderStatus != "DEMAND_SENT" ||
		d.ActiveStatus != "ACTIVE" || d.IsCompleted {
		t.Errorf("statuses: %s %s %s %s completed=%v, want PARTIALLY_PAID COLLECTION DEMAND_SENT ACTIVE false",
			d.PaymentStatus, d.MainStatus, d.UnderStatus, d.ActiveStatus, d.IsCompleted)
	}
	if d.WithdrawnAt != nil || d.WithdrawComment != nil {
		t.Errorf("a new debt has withdrawnAt %s, withdrawComment %s", ptr(d.WithdrawnAt), ptr(d.WithdrawComment))
	}
	created := debtCaseTime(t, d.CreatedAt)
	debtCaseTime(t, d.UpdatedAt)
	if created.Before(before.Add(-time.Minute)) || created.After(after.Add(time.Minute)) {
		t.Errorf("createdAt %s is not the time of creation (%s..%s)", d.CreatedAt, before.UTC(), after.UTC())
	}

	// The debtor was created with the contact details.
	var debtor struct {
		Name               string
		IsCorporation      bool
		Address            struct{ Address1, ZipCode, City, CountryCode string }
		ContactInformation *struct{ Email, Phone *string }
		Debts              struct {
			TotalCount int
			Nodes      []struct{ ID int }
		}
	}
	env.Admin().Do(t, `query($c: UUID!, $id: UUID!) { debtor(clientId: $c, id: $id) { name isCorporation
	  address { address1 zipCode city countryCode } contactInformation { email phone } debts { totalCount nodes { id } } } }`,
		apitest.Vars{"c": clientID, "id": d.Debtor.ID}).Field(t, "debtor", &debtor)
	if debtor.Name != "Sven Svensson" || debtor.IsCorporation || debtor.Address.City != "Stockholm" || debtor.Address.CountryCode != "SE" ||
		debtor.ContactInformation == nil || ptr(debtor.ContactInformation.Email) != "sven@example.se" || ptr(debtor.ContactInformation.Phone) != "070-123 45 67" {
		t.Errorf("debtor created as %+v", debtor)
	}

	// A second debt without payments is UNPAID.
	other := debtCaseMustCreate(t, env.Admin(), clientID, debtCaseInput(apitest.Samordning, "Olle Olsson", debtCaseItemInput("O-1", "10")))
	if other.PaymentStatus != "UNPAID" || other.PaidAmount != "0.00" || other.RemainingAmount != "10.00" || other.OriginalAmount != "10.00" ||
		len(other.Payments) != 0 || other.Debtor.ID == d.Debtor.ID || other.ID == d.ID {
		t.Errorf("a debt without payments: %+v", other)
	}

	// debt(clientId, id) reads the same.
	var read json.RawMessage
	env.Admin().Do(t, debtCaseQuery, apitest.Vars{"clientId": strings.ToUpper(clientID), "id": d.ID}).Field(t, "debt", &read)
	if string(read) != string(raw) {
		t.Errorf("debt(clientId, id) reads\n%s\nbut createDebt returned\n%s", read, raw)
	}
	// Client.debts lists both, newest first; Debtor.debts the debtor's own.
	var client struct {
		Debts struct {
			TotalCount int
			Nodes      []struct{ ID int }
		}
	}
	env.Admin().Do(t, `query($id: UUID!) { client(id: $id) { debts { totalCount nodes { id } } } }`, apitest.Vars{"id": clientID}).Field(t, "client", &client)
	if client.Debts.TotalCount != 2 || len(client.Debts.Nodes) != 2 || client.Debts.Nodes[0].ID != other.ID || client.Debts.Nodes[1].ID != d.ID {
		t.Errorf("Client.debts: %+v, want [%d %d]", client.Debts, other.ID, d.ID)
	}
	if debtor.Debts.TotalCount != 1 || len(debtor.Debts.Nodes) != 1 || debtor.Debts.Nodes[0].ID != d.ID {
		t.Errorf("Debtor.debts: %+v, want [%d]", debtor.Debts, d.ID)
	}
	if p := debtCaseList(t, env.Admin(), clientID, nil); !slices.Equal(debtCaseIDs(p.Nodes), []int{other.ID, d.ID}) || p.TotalCount != 2 {
		t.Errorf("debts lists %v (total %d), want [%d %d]", debtCaseIDs(p.Nodes), p.TotalCount, other.ID, d.ID)
	}
}

// 2. createDebt reuses the client's debtor with the same identification
// number, whatever its separators, and refreshes its details.
func TestDebtCaseReusesTheDebtor(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Reuse AB")
	admin := env.Admin()

	in1 := debtCaseInput("811228-9874", "Sven Svensson", debtCaseItemInput("R-1", 100))
	in1["address"] = apitest.Vars{"address1": "Gamla vägen 1", "address2": "Lgh 1101", "careOf": "Anna", "zipCode": "111 22", "city": "Stockholm", "countryCode": "SE"}
	in1["email"], in1["phone"] = "sven@example.se", "070-111 11 11"
	first := debtCaseMustCreate(t, admin, clientID, in1)

	in2 := debtCaseInput("8112289874", "Sven Karlsson", debtCaseItemInput("R-2", 200))
	in2["address"] = apitest.Vars{"address1": "Nya vägen 2", "zipCode": "222 33", "city": "Lund", "countryCode": "se"}
	second := debtCaseMustCreate(t, admin, clientID, in2)
	if second.Debtor.ID != first.Debtor.ID {
		t.Fatalf("8112289874 created debtor %s instead of reusing %s (811228-9874)", second.Debtor.ID, first.Debtor.ID)
	}

	type debtorOut struct {
		ID      string
		Name    string
		Address struct {
			Address1, ZipCode, City, CountryCode string
			Address2, CareOf                     *string
		}
		ContactInformation *struct{ Email, Phone *string }
		Debts              struct {
			TotalCount int
			Nodes      []struct{ ID int }
		}
	}
	readDebtor := func(id string) debtorOut {
		t.Helper()
		var d debtorOut
		admin.Do(t, `query($c: UUID!, $id: UUID!) { debtor(clientId: $c, id: $id) { id name
		  address { address1 address2 careOf zipCode city countryCode } contactInformation { email phone }
		  debts { totalCount nodes { id } } } }`, apitest.Vars{"c": clientID, "id": id}).Field(t, "debtor", &d)
		return d
	}
	contact := func(d debtorOut) (string, string) {
		if d.ContactInformation == nil {
			return "<none>", "<none>"
		}
		s := func(p *string) string {
			if p == nil {
				return "<null>"
			}
			return *p
		}
		return s(d.ContactInformation.Email), s(d.ContactInformation.Phone)
	}

	d := readDebtor(first.Debtor.ID)
	if d.Name != "Sven Karlsson" || d.Address.Address1 != "Nya vägen 2" || d.Address.ZipCode != "222 33" || d.Address.City != "Lund" ||
		d.Address.CountryCode != "SE" || d.Address.Address2 != nil || d.Address.CareOf != nil {
		t.Errorf("the reused debtor's name and address were not refreshed: %+v", d)
	}
	if email, phone := contact(d); email != "sven@example.se" || phone != "070-111 11 11" {
		t.Errorf("omitted e-mail and phone must be kept, got %s, %s", email, phone)
	}

	in3 := debtCaseInput("811228 9874", "Sven Karlsson", debtCaseItemInput("R-3", 300))
	in3["email"], in3["phone"] = "ny@example.se", "08-123 456"
	third := debtCaseMustCreate(t, admin, clientID, in3)
	if third.Debtor.ID != first.Debtor.ID {
		t.Fatalf("811228 9874 created debtor %s instead of reusing %s", third.Debtor.ID, first.Debtor.ID)
	}
	d = readDebtor(first.Debtor.ID)
	if email, phone := contact(d); email != "ny@example.se" || phone != "08-123 456" {
		t.Errorf("given e-mail and phone must replace the old ones, got %s, %s", email, phone)
	}
	if got := []int{}; d.Debts.TotalCount != 3 || len(d.Debts.Nodes) != 3 ||
		!slices.Equal(append(got, d.Debts.Nodes[0].ID, d.Debts.Nodes[1].ID, d.Debts.Nodes[2].ID), []int{third.ID, second.ID, first.ID}) {
		t.Errorf("Debtor.debts %+v, want [%d %d %d]", d.Debts, third.ID, second.ID, first.ID)
	}

	// The 12-digit form is another number: another debtor.
	long := debtCaseMustCreate(t, admin, clientID, debtCaseInput("19811228-9874", "Sven Tolv", debtCaseItemInput("R-4", 10)))
	if long.Debtor.ID == first.Debtor.ID {
		t.Errorf("19811228-9874 reused the debtor of 811228-9874")
	}
	if _, debtors, _, _ := debtCaseCounts(t, env, clientID); debtors != 2 {
		t.Errorf("client has %d debtors, want 2", debtors)
	}

	// Another client gets its own debtor.
	otherID, _ := env.NewClient(t, "Other AB")
	other := debtCaseMustCreate(t, admin, otherID, debtCaseInput(apitest.Personnr, "Sven i Annat", debtCaseItemInput("R-1", 100)))
	if other.Debtor.ID == first.Debtor.ID || other.Client.ID != otherID {
		t.Errorf("another client reused the debtor of the first: %+v", other)
	}
	if d := readDebtor(first.Debtor.ID); d.Name != "Sven Karlsson" || d.Debts.TotalCount != 3 {
		t.Errorf("another client's createDebt changed the first client's debtor: %+v", d)
	}
	if _, debtors, _, _ := debtCaseCounts(t, env, clientID); debtors != 2 {
		t.Errorf("client has %d debtors after another client's createDebt, want 2", debtors)
	}
}

// 3. The input rules of createDebt, each refused on its path, and nothing
// written.
func TestDebtCaseInputRules(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Rules AB")
	valid := func() apitest.Vars {
		return debtCaseInput(apitest.Personnr, "Sven Svensson", debtCaseItemInput("F-1", "100.00"))
	}
	item := func(over apitest.Vars) func(apitest.Vars) {
		return func(in apitest.Vars) {
			it := in["debts"].([]apitest.Vars)[0]
			for k, v := range over {
				it[k] = v
			}
		}
	}
	many := func(n int) []apitest.Vars {
		items := make([]apitest.Vars, n)
		for i := range items {
			items[i] = debtCaseItemInput(fmt.Sprintf("M-%d", i), 1)
		}
		return items
	}
	cases := []struct {
		name   string
		change func(apitest.Vars)
		field  string // "" when valid
	}{
		{"no items", func(in apitest.Vars) { in["debts"] = []apitest.Vars{} }, "input.debts"},
		{"debts null", func(in apitest.Vars) { in["debts"] = nil }, "input.debts"},
		{"debts omitted", func(in apitest.Vars) { delete(in, "debts") }, "input.debts"},
		{"1,001 items", func(in apitest.Vars) { in["debts"] = many(1001) }, "input.debts"},
		{"amount 0", item(apitest.Vars{"amount": 0}), "input.debts.0.amount"},
		{"amount negative", item(apitest.Vars{"amount": "-5.00"}), "input.debts.0.amount"},
		{"amount with 3 decimals (string)", item(apitest.Vars{"amount": "1.005"}), "input.debts.0.amount"},
		{"amount with 3 decimals (number)", item(apitest.Vars{"amount": 1.005}), "input.debts.0.amount"},
		{"amount not a number", item(apitest.Vars{"amount": "ten"}), "input.debts.0.amount"},
		{"blank invoice number", item(apitest.Vars{"invoiceNumber": " \t "}), "input.debts.0.invoiceNumber"},
		{"invoice number of 256 characters", item(apitest.Vars{"invoiceNumber": strings.Repeat("9", 256)}), "input.debts.0.invoiceNumber"},
		{"description of 2,001 characters", item(apitest.Vars{"description": strings.Repeat("d", 2001)}), "input.debts.0.description"},
		{"description of 2,000 characters", item(apitest.Vars{"description": strings.Repeat("d", 2000)}), ""},
		{"duplicate invoice number", func(in apitest.Vars) {
			in["debts"] = []apitest.Vars{debtCaseItemInput("F-1", 1), debtCaseItemInput("F-1", 2)}
		}, "input.debts.1.invoiceNumber"},
		{"duplicate invoice number after trimming", func(in apitest.Vars) {
			in["debts"] = []apitest.Vars{debtCaseItemInput("F-1", 1), debtCaseItemInput("F-2", 2), debtCaseItemInput(" F-1 ", 3)}
		}, "input.debts.2.invoiceNumber"},
		{"dueDate before invoiceDate", item(apitest.Vars{"invoiceDate": "2026-10-02T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00"}), "input.debts.0.dueDate"},
		{"dueDate on the invoice date, earlier in the day", item(apitest.Vars{"invoiceDate": "2026-10-02T23:00:00+02:00", "dueDate": "2026-10-02T01:00:00+02:00"}), ""},
		{"opening payments equal to the amount", item(apitest.Vars{"payments": []apitest.Vars{
			{"amount": "60.00", "transactionDate": "2026-09-10T12:00:00+02:00"}, {"amount": "40.00", "transactionDate": "2026-09-11T12:00:00+02:00"}}}), "input.debts.0.payments"},
		{"opening payments above the amount", item(apitest.Vars{"payments": []apitest.Vars{
			{"amount": "100.01", "transactionDate": "2026-09-10T12:00:00+02:00"}}}), "input.debts.0.payments"},
		{"opening payments just below the amount", item(apitest.Vars{"payments": []apitest.Vars{
			{"amount": "99.99", "transactionDate": "2026-09-10T12:00:00+02:00"}}}), ""},
		{"payment amount 0", item(apitest.Vars{"payments": []apitest.Vars{{"amount": 0, "transactionDate": "2026-09-10T12:00:00+02:00"}}}), "input.debts.0.payments.0.amount"},
		{"payment amount negative", item(apitest.Vars{"payments": []apitest.Vars{
			{"amount": "10", "transactionDate": "2026-09-10T12:00:00+02:00"}, {"amount": "-1", "transactionDate": "2026-09-10T12:00:00+02:00"}}}), "input.debts.0.payments.1.amount"},
		{"payment amount with 3 decimals", item(apitest.Vars{"payments": []apitest.Vars{{"amount": "0.001", "transactionDate": "2026-09-10T12:00:00+02:00"}}}), "input.debts.0.payments.0.amount"},
		{"payment without transactionDate", item(apitest.Vars{"payments": []apitest.Vars{{"amount": 1}}}), "input.debts.0.payments.0.transactionDate"},
		{"payment transactionDate without offset", item(apitest.Vars{"payments": []apitest.Vars{{"amount": 1, "transactionDate": "2026-09-10T12:00:00"}}}), "input.debts.0.payments.0.transactionDate"},
		{"invoiceDate without offset", item(apitest.Vars{"invoiceDate": "2026-09-01T10:00:00"}), "input.debts.0.invoiceDate"},
		{"dueDate as a date only", item(apitest.Vars{"dueDate": "2026-10-01"}), "input.debts.0.dueDate"},
		{"reminderDate without offset", item(apitest.Vars{"reminderDate": "2026-10-10T10:00:00"}), "input.debts.0.reminderDate"},
		{"blank name", func(in apitest.Vars) { in["name"] = "  " }, "input.name"},
		{"personnummer with a wrong check digit", func(in apitest.Vars) { in["identificationNumber"] = "811228-9875" }, "input.identificationNumber"},
		{"blank identification number", func(in apitest.Vars) { in["identificationNumber"] = " " }, "input.identificationNumber"},
		{"bad e-mail", func(in apitest.Vars) { in["email"] = "sven.example.se" }, "input.email"},
		{"phone of 256 characters", func(in apitest.Vars) { in["phone"] = strings.Repeat("1", 256) }, "input.phone"},
		{"blank zip code", func(in apitest.Vars) { in["address"].(apitest.Vars)["zipCode"] = " " }, "input.address.zipCode"},
		{"unknown country", func(in apitest.Vars) { in["address"].(apitest.Vars)["countryCode"] = "XX" }, "input.address.countryCode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := valid()
			tc.change(in)
			r := debtCaseCreate(t, env.Admin(), clientID, in)
			if tc.field != "" {
				r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", tc.field)
				return
			}
			// Withdraw a valid case's debt, so that its invoice number is
			// free for the next.
			var out struct{ CreateDebt struct{ ID int } }
			r.OK(t, &out)
			debtCaseWithdraw(t, env.Admin(), clientID, apitest.Vars{"id": out.CreateDebt.ID}).OK(t, nil)
		})
	}

	t.Run("only the second occurrence of a repeated number is refused", func(t *testing.T) {
		in := valid()
		in["debts"] = []apitest.Vars{debtCaseItemInput("D-1", 1), debtCaseItemInput("D-1", 2)}
		r := debtCaseCreate(t, env.Admin(), clientID, in)
		r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.debts.1.invoiceNumber")
		if slices.Contains(debtCaseErrFields(r), "input.debts.0.invoiceNumber") {
			t.Errorf("the first occurrence is refused too: %s", r.Body)
		}
	})
	t.Run("every broken field is reported", func(t *testing.T) {
		in := valid()
		in["name"] = ""
		in["debts"] = []apitest.Vars{debtCaseItemInput("E-1", 1), debtCaseItemInput("E-2", 0), debtCaseItemInput(" ", 1)}
		r := debtCaseCreate(t, env.Admin(), clientID, in)
		for _, f := range []string{"input.name", "input.debts.1.amount", "input.debts.2.invoiceNumber"} {
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", f)
		}
	})

	// Refused cases wrote nothing; valid ones wrote one debtor and three
	// (withdrawn) debts.
	if debts, debtors, items, payments := debtCaseCounts(t, env, clientID); debts != 3 || debtors != 1 || items != 3 || payments != 1 {
		t.Errorf("after the rule cases: %d debts, %d debtors, %d items, %d payments; want 3, 1, 3, 1", debts, debtors, items, payments)
	}

	t.Run("all or nothing", func(t *testing.T) {
		otherID, _ := env.NewClient(t, "All Or Nothing AB")
		in := debtCaseInput(apitest.Personnr, "Sven Svensson",
			apitest.Vars{"invoiceNumber": "OK-1", "invoiceDate": "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00", "amount": 100,
				"payments": []apitest.Vars{{"amount": 10, "transactionDate": "2026-09-10T12:00:00+02:00"}}},
			debtCaseItemInput("OK-2", 200),
			debtCaseItemInput("BAD-3", "-1"))
		debtCaseCreate(t, env.Admin(), otherID, in).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.debts.2.amount")
		if debts, debtors, items, payments := debtCaseCounts(t, env, otherID); debts+debtors+items+payments != 0 {
			t.Errorf("a refused createDebt wrote %d debts, %d debtors, %d items, %d payments", debts, debtors, items, payments)
		}
	})
}

// 4. An invoice number an unwithdrawn debt of the client holds is CONFLICT.
func TestDebtCaseInvoiceNumberConflict(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Conflict AB")
	admin := env.Admin()
	held := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Sven Svensson",
		debtCaseItemInput("INV-1", 100), debtCaseItemInput("INV-2", 200)))

	for _, number := range []string{"INV-2", " INV-2 "} {
		in := debtCaseInput(apitest.Samordning, "Olle Olsson",
			apitest.Vars{"invoiceNumber": "NEW-1", "invoiceDate": "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00", "amount": 100,
				"payments": []apitest.Vars{{"amount": 10, "transactionDate": "2026-09-10T12:00:00+02:00"}}},
			debtCaseItemInput(number, 50))
		r := debtCaseCreate(t, admin, clientID, in)
		r.Refused(t, http.StatusConflict, "CONFLICT", "input.debts.1.invoiceNumber")
		if slices.Contains(debtCaseErrFields(r), "input.debts.0.invoiceNumber") {
			t.Errorf("the free number NEW-1 is refused too: %s", r.Body)
		}
	}
	if debts, debtors, items, payments := debtCaseCounts(t, env, clientID); debts != 1 || debtors != 1 || items != 2 || payments != 0 {
		t.Errorf("a refused createDebt wrote: %d debts, %d debtors, %d items, %d payments; want 1, 1, 2, 0", debts, debtors, items, payments)
	}

	// Another client may collect the same number.
	otherID, _ := env.NewClient(t, "Other AB")
	debtCaseMustCreate(t, admin, otherID, debtCaseInput(apitest.Samordning, "Olle Olsson", debtCaseItemInput("INV-2", 50)))

	// Once the holding debt is withdrawn, the number is free again.
	debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": held.ID}).OK(t, nil)
	again := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Samordning, "Olle Olsson", debtCaseItemInput("INV-2", 50), debtCaseItemInput("INV-1", 5)))
	if len(again.Invoices) != 2 || again.Invoices[0].InvoiceNumber != "INV-2" {
		t.Errorf("re-collected debt: %+v", again)
	}
	// And held again by the new debt.
	debtCaseCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Sven Svensson", debtCaseItemInput("INV-1", 1))).
		Refused(t, http.StatusConflict, "CONFLICT", "input.debts.0.invoiceNumber")
}

// 5. withdrawDebt.
func TestDebtCaseWithdraw(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Withdraw AB")
	admin := env.Admin()
	newDebt := func(number string) debtCaseDebt {
		t.Helper()
		return debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Sven Svensson",
			apitest.Vars{"invoiceNumber": number, "invoiceDate": "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00", "amount": "300.00",
				"payments": []apitest.Vars{{"amount": "25.00", "transactionDate": "2026-09-10T12:00:00+02:00"}}}))
	}

	d := newDebt("W-1")
	debtCasePay(t, admin, clientID, d.ID, d.Invoices[0].ID, "50.00", "2026-11-01").OK(t, nil)
	var w debtCaseDebt
	debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": d.ID, "comment": "  Skickad av misstag  "}).Field(t, "withdrawDebt", &w)
	if w.ID != d.ID || w.WithdrawComment == nil || *w.WithdrawComment != "Skickad av misstag" || w.WithdrawnAt == nil {
		t.Fatalf("withdrawDebt returned id %d, comment %v, withdrawnAt %v", w.ID, w.WithdrawComment, w.WithdrawnAt)
	}
	debtCaseTime(t, *w.WithdrawnAt)
	if w.MainStatus != "CLOSED" || w.UnderStatus != "WITHDRAWN" || w.ActiveStatus != "INACTIVE" || !w.IsCompleted {
		t.Errorf("withdrawn debt statuses: %s %s %s %v, want CLOSED WITHDRAWN INACTIVE true", w.MainStatus, w.UnderStatus, w.ActiveStatus, w.IsCompleted)
	}
	if w.PaidAmount != "75.00" || w.RemainingAmount != "225.00" || w.OriginalAmount != "300.00" || w.OverpaidAmount != "0.00" ||
		w.PaymentStatus != "PARTIALLY_PAID" || len(w.Payments) != 2 || len(w.Invoices[0].Payments) != 2 || w.Invoices[0].PaidAmount != "75.00" {
		t.Errorf("withdrawal must keep payments and amounts: %+v", w)
	}
	if read := debtCaseMustGet(t, admin, clientID, d.ID); read.WithdrawnAt == nil || *read.WithdrawnAt != *w.WithdrawnAt ||
		read.WithdrawComment == nil || *read.WithdrawComment != "Skickad av misstag" || read.UnderStatus != "WITHDRAWN" || read.RemainingAmount != "225.00" {
		t.Errorf("the withdrawn debt reads %+v", read)
	}

	t.Run("twice is CONFLICT", func(t *testing.T) {
		debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": d.ID, "comment": "again"}).Refused(t, http.StatusConflict, "CONFLICT", "")
		if read := debtCaseMustGet(t, admin, clientID, d.ID); read.WithdrawComment == nil || *read.WithdrawComment != "Skickad av misstag" ||
			*read.WithdrawnAt != *w.WithdrawnAt {
			t.Errorf("a refused withdrawal changed the debt: %+v", read)
		}
	})
	t.Run("blank or no comment is null", func(t *testing.T) {
		for i, in := range []apitest.Vars{{"comment": " \t "}, {}, {"comment": nil}} {
			e := newDebt(fmt.Sprintf("W-BLANK-%d", i))
			in["id"] = e.ID
			var got debtCaseDebt
			debtCaseWithdraw(t, admin, clientID, in).Field(t, "withdrawDebt", &got)
			if got.WithdrawComment != nil || got.WithdrawnAt == nil || got.UnderStatus != "WITHDRAWN" {
				t.Errorf("withdrawal with %v: comment %v, withdrawnAt %v, %s", in, got.WithdrawComment, got.WithdrawnAt, got.UnderStatus)
			}
		}
	})
	t.Run("a debt paid in full is CONFLICT", func(t *testing.T) {
		for _, amount := range []string{"275.00", "300.00"} { // exactly, and overpaid
			e := newDebt("W-PAID-" + amount)
			debtCasePay(t, admin, clientID, e.ID, e.Invoices[0].ID, amount, "2026-11-01").OK(t, nil)
			debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": e.ID}).Refused(t, http.StatusConflict, "CONFLICT", "")
			if read := debtCaseMustGet(t, admin, clientID, e.ID); read.WithdrawnAt != nil || read.UnderStatus != "PAID_IN_FULL" {
				t.Errorf("a refused withdrawal of a paid debt: withdrawnAt %v, %s", read.WithdrawnAt, read.UnderStatus)
			}
		}
	})
	t.Run("input.clientId", func(t *testing.T) {
		e := newDebt("W-CLIENT")
		otherID, _ := env.NewClient(t, "Other AB")
		debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": e.ID, "clientId": otherID}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.clientId")
		if read := debtCaseMustGet(t, admin, clientID, e.ID); read.WithdrawnAt != nil {
			t.Fatalf("a refused withdrawal withdrew the debt")
		}
		// A CLIENT key: another clientId argument is FORBIDDEN first,
		// whatever input.clientId says.
		_, secret := env.NewKey(t, "CLIENT", clientID)
		own := env.As(secret)
		debtCaseWithdraw(t, own, otherID, apitest.Vars{"id": e.ID, "clientId": clientID}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
		debtCaseWithdraw(t, own, otherID, apitest.Vars{"id": e.ID, "clientId": otherID}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
		debtCaseWithdraw(t, own, clientID, apitest.Vars{"id": e.ID, "clientId": otherID}).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.clientId")
		if read := debtCaseMustGet(t, admin, clientID, e.ID); read.WithdrawnAt != nil {
			t.Fatalf("a refused withdrawal withdrew the debt")
		}
		// Equal (in any case) is fine.
		var got debtCaseDebt
		debtCaseWithdraw(t, own, clientID, apitest.Vars{"id": e.ID, "clientId": strings.ToUpper(clientID)}).Field(t, "withdrawDebt", &got)
		if got.UnderStatus != "WITHDRAWN" {
			t.Errorf("withdrawal with the same input.clientId: %s", got.UnderStatus)
		}
	})
	t.Run("unknown debt or client is NOT_FOUND", func(t *testing.T) {
		debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": 999999}).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		debtCaseWithdraw(t, admin, "6f1c0a47-1f7e-4bd4-9a53-000000000000", apitest.Vars{"id": d.ID}).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
	})
	t.Run("comment length", func(t *testing.T) {
		e := newDebt("W-LONG")
		debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": e.ID, "comment": strings.Repeat("ö", 2001)}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.comment")
		debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": e.ID, "comment": strings.Repeat("x", 2001)}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.comment")
		if read := debtCaseMustGet(t, admin, clientID, e.ID); read.WithdrawnAt != nil {
			t.Fatalf("a refused withdrawal withdrew the debt")
		}
		var got debtCaseDebt
		debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": e.ID, "comment": strings.Repeat("x", 2000)}).Field(t, "withdrawDebt", &got)
		if got.WithdrawComment == nil || len([]rune(*got.WithdrawComment)) != 2000 {
			t.Errorf("a comment of 2,000 characters was not kept")
		}
	})
}

// 6. addDebtPayment: fields, rules, and amounts.
func TestDebtCaseAddPayment(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Pay AB")
	admin := env.Admin()
	// 00:30 on 21 November in Stockholm is still the 20th in UTC: today is
	// the 21st, tomorrow the 22nd.
	env.Clock.Set(time.Date(2026, 11, 21, 0, 30, 0, 0, apitest.Stockholm))
	d := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Sven Svensson",
		debtCaseItemInput("P-1", "60.00"), debtCaseItemInput("P-2", "40.00")))
	other := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Samordning, "Olle Olsson", debtCaseItemInput("P-3", "10.00")))
	itemA, itemB := d.Invoices[0].ID, d.Invoices[1].ID

	var p debtCasePayment
	debtCasePay(t, admin, clientID, d.ID, itemA, "12.50", "2026-11-22").Field(t, "addDebtPayment", &p)
	if p.ID <= 0 || p.Amount != "12.50" || p.TransactionDate != "2026-11-22" || p.BookedDate != nil || p.Source != "REPORTED" ||
		p.Debt.ID != d.ID || p.Invoice.ID != itemA || !dateTimeRE.MatchString(p.CreatedAt) {
		t.Errorf("addDebtPayment returned %+v", p)
	}

	unchanged := func(t *testing.T) {
		t.Helper()
		got := debtCaseMustGet(t, admin, clientID, d.ID)
		if got.PaidAmount != "12.50" || len(got.Payments) != 1 || got.Invoices[0].PaidAmount != "12.50" || got.Invoices[1].PaidAmount != "0.00" {
			t.Errorf("a refused payment changed the debt: paid %s, %d payments, items %s/%s",
				got.PaidAmount, len(got.Payments), got.Invoices[0].PaidAmount, got.Invoices[1].PaidAmount)
		}
		if o := debtCaseMustGet(t, admin, clientID, other.ID); o.PaidAmount != "0.00" || len(o.Payments) != 0 {
			t.Errorf("a refused payment changed another debt: %+v", o)
		}
	}
	for _, tc := range []struct {
		name        string
		debt, item  int
		amount      any
		date        string
		status      int
		code, field string
	}{
		{"amount 0", d.ID, itemA, 0, "2026-11-20", 400, "BAD_USER_INPUT", "input.amount"},
		{"amount negative", d.ID, itemA, "-1.00", "2026-11-20", 400, "BAD_USER_INPUT", "input.amount"},
		{"amount with 3 decimals", d.ID, itemA, "1.005", "2026-11-20", 400, "BAD_USER_INPUT", "input.amount"},
		{"day after tomorrow", d.ID, itemA, "1.00", "2026-11-23", 400, "BAD_USER_INPUT", "input.transactionDate"},
		{"a date with a time", d.ID, itemA, "1.00", "2026-11-20T10:00:00Z", 400, "BAD_USER_INPUT", "input.transactionDate"},
		{"another debt's item", d.ID, other.Invoices[0].ID, "1.00", "2026-11-20", 400, "BAD_USER_INPUT", "input.invoiceId"},
		{"an item that does not exist", d.ID, 999999, "1.00", "2026-11-20", 400, "BAD_USER_INPUT", "input.invoiceId"},
		{"a debt that does not exist", 999999, itemA, "1.00", "2026-11-20", 404, "NOT_FOUND", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debtCasePay(t, admin, clientID, tc.debt, tc.item, tc.amount, tc.date).Refused(t, tc.status, tc.code, tc.field)
			unchanged(t)
		})
	}
	debtCasePay(t, admin, "6f1c0a47-1f7e-4bd4-9a53-000000000000", d.ID, itemA, "1.00", "2026-11-20").Refused(t, http.StatusNotFound, "NOT_FOUND", "")
	unchanged(t)

	// An integer amount; a date long ago.
	var p2 debtCasePayment
	debtCasePay(t, admin, clientID, d.ID, itemA, 10, "2020-01-01").Field(t, "addDebtPayment", &p2)
	if p2.Amount != "10.00" || p2.TransactionDate != "2020-01-01" || p2.ID <= p.ID {
		t.Errorf("integer payment: %+v", p2)
	}
	got := debtCaseMustGet(t, admin, clientID, d.ID)
	if got.PaidAmount != "22.50" || got.RemainingAmount != "77.50" || got.PaymentStatus != "PARTIALLY_PAID" || got.MainStatus != "COLLECTION" ||
		got.Invoices[0].PaidAmount != "22.50" || got.Invoices[0].RemainingAmount != "37.50" || got.Invoices[1].RemainingAmount != "40.00" ||
		len(got.Invoices[0].Payments) != 2 || len(got.Invoices[1].Payments) != 0 || len(got.Payments) != 2 {
		t.Errorf("after 12.50 + 10 on P-1: %+v", got)
	}
	if got.Payments[0].ID != p.ID || got.Payments[1].ID != p2.ID || got.Payments[0].Source != "REPORTED" {
		t.Errorf("Debt.payments is not the payments oldest first: %+v", got.Payments)
	}

	// Overpaying one item and then the debt: accepted.
	debtCasePay(t, admin, clientID, d.ID, itemA, "50.00", "2026-11-21").OK(t, nil)
	got = debtCaseMustGet(t, admin, clientID, d.ID)
	if got.Invoices[0].PaidAmount != "72.50" || got.Invoices[0].RemainingAmount != "0.00" || got.PaidAmount != "72.50" ||
		got.RemainingAmount != "27.50" || got.PaymentStatus != "PARTIALLY_PAID" || got.MainStatus != "COLLECTION" || got.OverpaidAmount != "0.00" {
		t.Errorf("after overpaying item P-1: %+v", got)
	}
	debtCasePay(t, admin, clientID, d.ID, itemB, "40.00", "2026-11-21").OK(t, nil)
	got = debtCaseMustGet(t, admin, clientID, d.ID)
	if got.PaidAmount != "112.50" || got.RemainingAmount != "0.00" || got.OverpaidAmount != "12.50" || got.PaymentStatus != "OVERPAID" ||
		got.MainStatus != "CLOSED" || got.UnderStatus != "PAID_IN_FULL" || got.ActiveStatus != "INACTIVE" || !got.IsCompleted ||
		got.Invoices[1].PaidAmount != "40.00" || got.Invoices[1].RemainingAmount != "0.00" {
		t.Errorf("after overpaying the debt: %+v", got)
	}
	// A closed (paid) debt still takes payments: money received is a fact.
	debtCasePay(t, admin, clientID, d.ID, itemB, "1.00", "2026-11-21").OK(t, nil)
	if got = debtCaseMustGet(t, admin, clientID, d.ID); got.OverpaidAmount != "13.50" || got.Invoices[1].PaidAmount != "41.00" {
		t.Errorf("a payment on a paid debt: %+v", got)
	}

	// A withdrawn debt takes none.
	debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": other.ID}).OK(t, nil)
	debtCasePay(t, admin, clientID, other.ID, other.Invoices[0].ID, "1.00", "2026-11-20").Refused(t, http.StatusConflict, "CONFLICT", "")
	if o := debtCaseMustGet(t, admin, clientID, other.ID); o.PaidAmount != "0.00" || len(o.Payments) != 0 {
		t.Errorf("a payment on a withdrawn debt was booked: %+v", o)
	}
}

// 7. A debt is DEMAND_SENT on the day it was created and the 8 days after,
// DEMAND_EXPIRED from the 9th, by the date in Stockholm.
func TestDebtCaseDemandDays(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Days AB")
	admin := env.Admin()
	d := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Sven Svensson", debtCaseItemInput("T-1", 100)))
	created := debtCaseTime(t, d.CreatedAt)
	withdrawn := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Samordning, "Olle Olsson", debtCaseItemInput("T-2", 100)))
	debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": withdrawn.ID}).OK(t, nil)

	for _, tc := range []struct {
		days, hour, minute int
		want               string
	}{
		{0, 0, 0, "DEMAND_SENT"},
		{0, 23, 59, "DEMAND_SENT"},
		{1, 12, 0, "DEMAND_SENT"},
		{7, 12, 0, "DEMAND_SENT"},
		{8, 0, 0, "DEMAND_SENT"},
		{8, 23, 59, "DEMAND_SENT"},
		// 00:30 in Stockholm is still the day before in UTC.
		{9, 0, 30, "DEMAND_EXPIRED"},
		{9, 12, 0, "DEMAND_EXPIRED"},
		{40, 12, 0, "DEMAND_EXPIRED"},
	} {
		at := debtCaseStockholmDay(created, tc.days, tc.hour, tc.minute)
		env.Clock.Set(at)
		got := debtCaseMustGet(t, admin, clientID, d.ID)
		if got.UnderStatus != tc.want || got.MainStatus != "COLLECTION" || got.ActiveStatus != "ACTIVE" || got.IsCompleted {
			t.Errorf("created %s, at %s (day +%d): %s %s %s, want COLLECTION %s ACTIVE", created.In(apitest.Stockholm).Format(time.RFC3339),
				at.Format(time.RFC3339), tc.days, got.MainStatus, got.UnderStatus, got.ActiveStatus, tc.want)
		}
		if w := debtCaseMustGet(t, admin, clientID, withdrawn.ID); w.UnderStatus != "WITHDRAWN" {
			t.Errorf("at day +%d a withdrawn debt reads %s", tc.days, w.UnderStatus)
		}
		// The list filter agrees with the field.
		p := debtCaseList(t, admin, clientID, apitest.Vars{"filter": apitest.Vars{"underStatus": tc.want}})
		if !slices.Equal(debtCaseIDs(p.Nodes), []int{d.ID}) || p.TotalCount != 1 {
			t.Errorf("at day +%d, underStatus %s lists %v (total %d), want [%d]", tc.days, tc.want, debtCaseIDs(p.Nodes), p.TotalCount, d.ID)
		}
	}
}

// debtCaseInvoiceInput is a valid InvoiceInput.
func debtCaseInvoiceInput(number, total, invoiceDate, dueDate string) apitest.Vars {
	return apitest.Vars{"invoiceNumber": number, "invoiceDate": invoiceDate, "daysUntilExpiration": 30, "dueDate": dueDate,
		"totalExcludingVAT": total, "totalVATAmount": "0", "totalAmountIncludingVAT": total,
		"articles": []apitest.Vars{{"name": "Tjänst", "priceExcludingVAT": total, "totalVATAmount": 0, "totalAmountIncludingVAT": total,
			"totalAmountExcludingVAT": total, "quantity": 1, "vatPercentage": 0, "discount": 0}}}
}

// debtCaseInvoice is an Invoice with the fields debts move.
type debtCaseInvoice struct {
	ID                   string
	InvoiceNumber        string
	Status               string
	ProcessStatus        string
	PaymentStatus        string
	ReceivableMainStatus string
	ReceivableSubStatus  string
	ActiveStatus         string
	IsCompleted          bool
	PaidAmount           string
	RemainingAmount      string
	Debt                 *struct{ ID int }
}

// 8. Invoices a debt holds.
func TestDebtCaseInvoiceSide(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Invoice Side AB")
	admin := env.Admin()
	now := time.Now()
	env.Clock.Set(now)
	date := func(days int) string { return now.In(apitest.Stockholm).AddDate(0, 0, days).Format("2006-01-02") }

	invoiceIDs := map[string]string{}
	for _, inv := range []struct{ number, total string }{{"INV-OPEN", "500.00"}, {"INV-LATE", "800.00"}, {"INV-PAID", "300.00"}, {"INV-ALONE", "100.00"}} {
		due := date(20)
		if inv.number == "INV-LATE" || inv.number == "INV-PAID" {
			due = date(-10)
		}
		var out struct{ CreateInvoice struct{ ID string } }
		admin.Do(t, `mutation($c: UUID!, $i: InvoiceInput!) { createInvoice(clientId: $c, input: $i) { id } }`,
			apitest.Vars{"c": clientID, "i": debtCaseInvoiceInput(inv.number, inv.total, date(-60), due)}).OK(t, &out)
		invoiceIDs[inv.number] = out.CreateInvoice.ID
	}
	readInvoices := func(t *testing.T) map[string]debtCaseInvoice {
		t.Helper()
		var out struct {
			Invoices struct{ Nodes []debtCaseInvoice }
		}
		admin.Do(t, `query($c: UUID!) { invoices(clientId: $c) { nodes { id invoiceNumber status processStatus paymentStatus
		  receivableMainStatus receivableSubStatus activeStatus isCompleted paidAmount remainingAmount debt { id } } } }`,
			apitest.Vars{"c": clientID}).OK(t, &out)
		m := map[string]debtCaseInvoice{}
		for _, n := range out.Invoices.Nodes {
			m[n.InvoiceNumber] = n
		}
		// The single lookup agrees with the list.
		var one debtCaseInvoice
		admin.Do(t, `query($c: UUID!, $id: UUID!) { invoice(clientId: $c, id: $id) { id invoiceNumber status processStatus paymentStatus
		  receivableMainStatus receivableSubStatus activeStatus isCompleted paidAmount remainingAmount debt { id } } }`,
			apitest.Vars{"c": clientID, "id": invoiceIDs["INV-OPEN"]}).Field(t, "invoice", &one)
		if debtCaseJSON(t, one) != debtCaseJSON(t, m["INV-OPEN"]) {
			t.Errorf("invoice(id) reads %+v, invoices lists %+v", one, m["INV-OPEN"])
		}
		return m
	}
	check := func(t *testing.T, inv debtCaseInvoice, status, process, payment, main, sub, active string, completed bool, paid, remaining string, debtID int) {
		t.Helper()
		gotDebt := 0
		if inv.Debt != nil {
			gotDebt = inv.Debt.ID
		}
		if inv.Status != status || inv.ProcessStatus != process || inv.PaymentStatus != payment || inv.ReceivableMainStatus != main ||
			inv.ReceivableSubStatus != sub || inv.ActiveStatus != active || inv.IsCompleted != completed || inv.PaidAmount != paid ||
			inv.RemainingAmount != remaining || gotDebt != debtID {
			t.Errorf("invoice %s reads %s %s %s %s/%s %s completed=%v paid %s remaining %s debt %d\n want %s %s %s %s/%s %s completed=%v paid %s remaining %s debt %d",
				inv.InvoiceNumber, inv.Status, inv.ProcessStatus, inv.PaymentStatus, inv.ReceivableMainStatus, inv.ReceivableSubStatus, inv.ActiveStatus,
				inv.IsCompleted, inv.PaidAmount, inv.RemainingAmount, gotDebt,
				status, process, payment, main, sub, active, completed, paid, remaining, debtID)
		}
	}
	withdrawInvoice := func(t *testing.T, number string) *apitest.Response {
		t.Helper()
		return admin.Do(t, `mutation($c: UUID!, $id: UUID!) { withdrawInvoice(clientId: $c, id: $id, comment: "test") { id status } }`,
			apitest.Vars{"c": clientID, "id": invoiceIDs[number]})
	}

	held := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Sven Svensson",
		apitest.Vars{"invoiceNumber": "INV-OPEN", "invoiceDate": date(-60) + "T12:00:00+01:00", "dueDate": date(20) + "T12:00:00+01:00", "amount": "500.00",
			"payments": []apitest.Vars{{"amount": "100.00", "transactionDate": date(-30) + "T12:00:00+01:00"}}},
		debtCaseItemInput("INV-LATE", "800.00"),
		debtCaseItemInput("NO-INVOICE", "50.00")))
	paidDebt := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Samordning, "Olle Olsson", debtCaseItemInput("INV-PAID", "300.00")))

	if it := held.Invoices[0]; it.Invoice == nil || it.Invoice.ID != invoiceIDs["INV-OPEN"] {
		t.Errorf("DebtInvoice INV-OPEN.invoice is %+v, want %s", it.Invoice, invoiceIDs["INV-OPEN"])
	}
	if it := held.Invoices[1]; it.Invoice == nil || it.Invoice.ID != invoiceIDs["INV-LATE"] {
		t.Errorf("DebtInvoice INV-LATE.invoice is %+v, want %s", it.Invoice, invoiceIDs["INV-LATE"])
	}
	if it := held.Invoices[2]; it.Invoice != nil {
		t.Errorf("DebtInvoice NO-INVOICE.invoice is %+v, want null", it.Invoice)
	}

	t.Run("transferred", func(t *testing.T) {
		m := readInvoices(t)
		check(t, m["INV-OPEN"], "TRANSFERRED_TO_COLLECTION", "SENT_TO_COLLECTION", "PARTIALLY_PAID", "COLLECTION", "DEMAND_SENT", "ACTIVE", true, "100.00", "400.00", held.ID)
		check(t, m["INV-LATE"], "TRANSFERRED_TO_COLLECTION", "SENT_TO_COLLECTION", "UNPAID", "COLLECTION", "DEMAND_SENT", "ACTIVE", true, "0.00", "800.00", held.ID)
		check(t, m["INV-PAID"], "TRANSFERRED_TO_COLLECTION", "SENT_TO_COLLECTION", "UNPAID", "COLLECTION", "DEMAND_SENT", "ACTIVE", true, "0.00", "300.00", paidDebt.ID)
		check(t, m["INV-ALONE"], "OPEN", "AWAITING_DUE", "UNPAID", "INVOICING", "NOT_DUE", "ACTIVE", false, "0.00", "100.00", 0)
		for _, n := range []string{"INV-OPEN", "INV-LATE"} {
			withdrawInvoice(t, n).Refused(t, http.StatusConflict, "CONFLICT", "")
		}
	})
	t.Run("follows the debt's demand days", func(t *testing.T) {
		env.Clock.Set(debtCaseStockholmDay(debtCaseTime(t, held.CreatedAt), 9, 12, 0))
		defer env.Clock.Set(now)
		m := readInvoices(t)
		d := debtCaseMustGet(t, admin, clientID, held.ID)
		if d.UnderStatus != "DEMAND_EXPIRED" {
			t.Fatalf("debt at day +9: %s", d.UnderStatus)
		}
		check(t, m["INV-OPEN"], "TRANSFERRED_TO_COLLECTION", "SENT_TO_COLLECTION", "PARTIALLY_PAID", d.MainStatus, d.UnderStatus, "ACTIVE", true, "100.00", "400.00", held.ID)
	})
	t.Run("paid in full through the debt", func(t *testing.T) {
		debtCasePay(t, admin, clientID, paidDebt.ID, paidDebt.Invoices[0].ID, "300.00", date(0)).OK(t, nil)
		m := readInvoices(t)
		check(t, m["INV-PAID"], "PAID", "CLOSED", "PAID", "CLOSED", "PAID_IN_FULL", "INACTIVE", true, "300.00", "0.00", paidDebt.ID)
		withdrawInvoice(t, "INV-PAID").Refused(t, http.StatusConflict, "CONFLICT", "")
	})
	t.Run("after withdrawDebt", func(t *testing.T) {
		debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": held.ID}).OK(t, nil)
		m := readInvoices(t)
		check(t, m["INV-OPEN"], "OPEN", "AWAITING_DUE", "PARTIALLY_PAID", "INVOICING", "NOT_DUE", "ACTIVE", false, "100.00", "400.00", held.ID)
		check(t, m["INV-LATE"], "OVERDUE", "DUE_DATE_PASSED", "UNPAID", "INVOICING", "OVERDUE", "ACTIVE", false, "0.00", "800.00", held.ID)
		var w struct{ WithdrawInvoice struct{ Status string } }
		withdrawInvoice(t, "INV-OPEN").OK(t, &w)
		if w.WithdrawInvoice.Status != "WITHDRAWN" {
			t.Errorf("withdrawn invoice reads %s", w.WithdrawInvoice.Status)
		}
	})
	t.Run("collected again by a new debt", func(t *testing.T) {
		again := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Sven Svensson", debtCaseItemInput("INV-LATE", "800.00")))
		debtCasePay(t, admin, clientID, again.ID, again.Invoices[0].ID, "50.00", date(0)).OK(t, nil)
		m := readInvoices(t)
		check(t, m["INV-LATE"], "TRANSFERRED_TO_COLLECTION", "SENT_TO_COLLECTION", "PARTIALLY_PAID", "COLLECTION", "DEMAND_SENT", "ACTIVE", true, "50.00", "750.00", again.ID)
	})
}

// debtCaseDebtorStatus is a debtor's statuses.
type debtCaseDebtorStatus struct {
	ID                  string
	Name                string
	PaymentStatus       *string
	ErrandStatus        *string
	ErrandProcessStatus *string
	IsCompleted         bool
}

func (d debtCaseDebtorStatus) String() string {
	s := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	return fmt.Sprintf("%s: payment %s, errand %s/%s, completed %v", d.Name, s(d.PaymentStatus), s(d.ErrandStatus), s(d.ErrandProcessStatus), d.IsCompleted)
}

// 9. A debtor's statuses over its debts, and the debtor filters that look
// at debts.
func TestDebtCaseDebtorSide(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Debtor Side AB")
	admin := env.Admin()
	read := func(t *testing.T, id string) string {
		t.Helper()
		var d debtCaseDebtorStatus
		admin.Do(t, `query($c: UUID!, $id: UUID!) { debtor(clientId: $c, id: $id) { id name paymentStatus errandStatus errandProcessStatus isCompleted } }`,
			apitest.Vars{"c": clientID, "id": id}).Field(t, "debtor", &d)
		return d.String()
	}
	pay := func(d debtCaseDebt, item int, amount string) {
		t.Helper()
		debtCasePay(t, admin, clientID, d.ID, d.Invoices[item].ID, amount, "2026-11-01").OK(t, nil)
	}

	// P: an open debt, then a later one paid in full.
	p1 := debtCaseMustCreate(t, admin, clientID, debtCaseForeign("1001", "Petra",
		apitest.Vars{"invoiceNumber": "PX-1001", "invoiceDate": "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00", "amount": "100.00",
			"payments": []apitest.Vars{{"amount": "10.00", "transactionDate": "2026-09-10T10:00:00+02:00"}}}))
	if got, want := read(t, p1.Debtor.ID), "Petra: payment PARTIALLY_PAID, errand COLLECTION/DEMAND_SENT, completed false"; got != want {
		t.Errorf("one open debt: %s, want %s", got, want)
	}
	p2 := debtCaseMustCreate(t, admin, clientID, debtCaseForeign("1001", "Petra", debtCaseItemInput("PX-1002", "50.00")))
	pay(p2, 0, "50.00")
	// Over both: 150 owed, 60 paid; the errand is the open debt, not the latest.
	if got, want := read(t, p1.Debtor.ID), "Petra: payment PARTIALLY_PAID, errand COLLECTION/DEMAND_SENT, completed false"; got != want {
		t.Errorf("an open and a later paid debt: %s, want %s", got, want)
	}
	// Withdrawing the open one: only the paid debt counts for payment, all
	// are closed, and the errand is the latest debt.
	debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": p1.ID}).OK(t, nil)
	if got, want := read(t, p1.Debtor.ID), "Petra: payment PAID, errand CLOSED/PAID_IN_FULL, completed true"; got != want {
		t.Errorf("a withdrawn and a later paid debt: %s, want %s", got, want)
	}

	// Q: only a withdrawn debt.
	q := debtCaseMustCreate(t, admin, clientID, debtCaseForeign("2002", "Quentin", debtCaseItemInput("QY-2002", "70.00")))
	debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": q.ID}).OK(t, nil)
	if got, want := read(t, q.Debtor.ID), "Quentin: payment null, errand CLOSED/WITHDRAWN, completed true"; got != want {
		t.Errorf("only a withdrawn debt: %s, want %s", got, want)
	}

	// T: a paid debt, then a later withdrawn one: the errand is the latest.
	t1 := debtCaseMustCreate(t, admin, clientID, debtCaseForeign("3003", "Tove", debtCaseItemInput("TZ-3003", "20.00")))
	pay(t1, 0, "25.00")
	t2 := debtCaseMustCreate(t, admin, clientID, debtCaseForeign("3003", "Tove", debtCaseItemInput("TZ-3004", "20.00")))
	if got, want := read(t, t1.Debtor.ID), "Tove: payment PARTIALLY_PAID, errand COLLECTION/DEMAND_SENT, completed false"; got != want {
		t.Errorf("an overpaid and an open debt: %s, want %s", got, want)
	}
	debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": t2.ID}).OK(t, nil)
	if got, want := read(t, t1.Debtor.ID), "Tove: payment OVERPAID, errand CLOSED/WITHDRAWN, completed true"; got != want {
		t.Errorf("an overpaid and a later withdrawn debt: %s, want %s", got, want)
	}

	// R: no debts.
	var r struct{ CreateDebtor struct{ ID string } }
	admin.Do(t, `mutation($c: UUID!, $i: DebtorInput!) { createDebtor(clientId: $c, input: $i) { id } }`, apitest.Vars{"c": clientID,
		"i": apitest.Vars{"isCorporation": false, "identificationNumber": "4004", "name": "Rut",
			"address": apitest.Vars{"address1": "Gate 1", "zipCode": "0150", "city": "Oslo", "countryCode": "NO"}}}).OK(t, &r)
	if got, want := read(t, r.CreateDebtor.ID), "Rut: payment null, errand null/null, completed false"; got != want {
		t.Errorf("no debts: %s, want %s", got, want)
	}

	// U: one open debt with an item number of spaces.
	u := debtCaseMustCreate(t, admin, clientID, debtCaseForeign("5005", "Ulla", debtCaseItemInput("U 5005-77", "10.00")))

	debtors := func(t *testing.T, filter apitest.Vars) []string {
		t.Helper()
		var out struct {
			Debtors struct {
				TotalCount int
				Nodes      []struct{ Name string }
			}
		}
		admin.Do(t, `query($c: UUID!, $f: DebtorFilter) { debtors(clientId: $c, filter: $f) { totalCount nodes { name } } }`,
			apitest.Vars{"c": clientID, "f": filter}).OK(t, &out)
		var names []string
		for _, n := range out.Debtors.Nodes {
			names = append(names, n.Name)
		}
		sort.Strings(names)
		if out.Debtors.TotalCount != len(names) {
			t.Errorf("filter %v: totalCount %d for %d debtors", filter, out.Debtors.TotalCount, len(names))
		}
		return names
	}
	expect := func(t *testing.T, filter apitest.Vars, want ...string) {
		t.Helper()
		sort.Strings(want)
		if got := debtors(t, filter); !slices.Equal(got, want) {
			t.Errorf("debtors with %v: %v, want %v", filter, got, want)
		}
	}

	t.Run("status filters", func(t *testing.T) {
		expect(t, apitest.Vars{"isCompleted": true}, "Petra", "Quentin", "Tove")
		expect(t, apitest.Vars{"isCompleted": false}, "Rut", "Ulla")
		expect(t, apitest.Vars{"paymentStatus": "PAID"}, "Petra")
		expect(t, apitest.Vars{"paymentStatus": "OVERPAID"}, "Tove")
		expect(t, apitest.Vars{"paymentStatus": "UNPAID"}, "Ulla")
		expect(t, apitest.Vars{"errandStatus": "COLLECTION"}, "Ulla")
		expect(t, apitest.Vars{"errandProcessStatus": "WITHDRAWN"}, "Quentin", "Tove")
		expect(t, apitest.Vars{"errandProcessStatus": "PAID_IN_FULL"}, "Petra")
	})
	t.Run("invoiceCreatedDate", func(t *testing.T) {
		// The latest item creation of each debtor.
		latest := map[string]time.Time{}
		for _, d := range []debtCaseDebt{p1, p2, q, t1, t2, u} {
			at := debtCaseTime(t, d.Invoices[0].CreatedAt)
			if at.After(latest[d.Debtor.Name]) {
				latest[d.Debtor.Name] = at
			}
		}
		for _, name := range []string{"Petra", "Quentin", "Tove", "Ulla"} {
			at := latest[name]
			var want []string
			for n, l := range latest {
				if !l.Before(at) {
					want = append(want, n)
				}
			}
			// The instant, at or after; in another offset; and just after.
			expect(t, apitest.Vars{"invoiceCreatedDate": at.Format(time.RFC3339Nano)}, want...)
			expect(t, apitest.Vars{"invoiceCreatedDate": at.In(time.FixedZone("", 5*3600)).Format("2006-01-02T15:04:05.999999-07:00")}, want...)
			var after []string
			for n, l := range latest {
				if l.After(at) {
					after = append(after, n)
				}
			}
			expect(t, apitest.Vars{"invoiceCreatedDate": at.Add(time.Microsecond).Format(time.RFC3339Nano)}, after...)
		}
	})
	t.Run("search through debts", func(t *testing.T) {
		expect(t, apitest.Vars{"searchType": "INVOICE_NUMBER", "searchTerm": "px 1002"}, "Petra")
		expect(t, apitest.Vars{"searchType": "INVOICE_NUMBER", "searchTerm": "u5005"}, "Ulla")
		expect(t, apitest.Vars{"searchType": "INVOICE_NUMBER", "searchTerm": "5005-77"}, "Ulla")
		expect(t, apitest.Vars{"searchType": "INVOICE_NUMBER", "searchTerm": "z-30"}, "Tove")
		expect(t, apitest.Vars{"searchType": "INVOICE_NUMBER", "searchTerm": "00"}, "Petra", "Quentin", "Tove", "Ulla")
		expect(t, apitest.Vars{"searchType": "INVOICE_NUMBER", "searchTerm": "4004"})
		expect(t, apitest.Vars{"searchType": "DEBT_ID", "searchTerm": strconv.Itoa(q.ID)}, "Quentin")
		expect(t, apitest.Vars{"searchType": "DEBT_ID", "searchTerm": " " + strconv.Itoa(t2.ID) + " "}, "Tove")
		expect(t, apitest.Vars{"searchType": "DEBT_ID", "searchTerm": "999999"})
		admin.Do(t, `query($c: UUID!, $f: DebtorFilter) { debtors(clientId: $c, filter: $f) { totalCount } }`,
			apitest.Vars{"c": clientID, "f": apitest.Vars{"searchType": "DEBT_ID", "searchTerm": "PX-1001"}}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "filter.searchTerm")
	})
}

// debtCaseFacts is what a debt of the list fixture was made of, to compute
// the expected results of searches.
type debtCaseFacts struct {
	id                 int
	name, ident, email string
	numbers            []string
}

// debtCaseListFixture creates 12 debts over four debtors in every status;
// it returns the facts of each, in creation order.
func debtCaseListFixture(t *testing.T, env *apitest.Env, clientID string) []debtCaseFacts {
	t.Helper()
	admin := env.Admin()
	type debtorDef struct{ ident, name, email string }
	anna := debtorDef{apitest.Personnr, "Anna Andersson", "anna@example.se"}
	bertil := debtorDef{"NO 0101-77", "Bertil Berg", "bertil@post.no"}
	asa := debtorDef{"9988 7766", "Åsa Öberg", ""}
	corp := debtorDef{"923 609 016", "Cecilia 100% AB", "faktura@cecilia.no"}
	type itemDef struct{ number, amount string }
	defs := []struct {
		who   debtorDef
		items []itemDef
	}{
		{anna, []itemDef{{"INV-1001", "99.99"}, {"BERG-7", "0.01"}}},
		{anna, []itemDef{{"INV-1002", "300.00"}}},
		{bertil, []itemDef{{"X 55-66", "100.00"}}},
		{bertil, []itemDef{{"X-77", "50.00"}}},
		{asa, []itemDef{{"ÅÖ-1", "300.00"}}},
		{corp, []itemDef{{"C-1", "75.50"}}},
		{corp, []itemDef{{"C-2", "1000.00"}}},
		{anna, []itemDef{{"INV-1003", "100.00"}}},
		{bertil, []itemDef{{"X-88", "20.00"}}},
		{asa, []itemDef{{"ÅÖ-2", "5.00"}}},
		{corp, []itemDef{{"C-3", "300.00"}}},
		{corp, []itemDef{{"C-4", "999.99"}}},
	}
	var facts []debtCaseFacts
	var created []debtCaseDebt
	for _, def := range defs {
		var items []apitest.Vars
		var numbers []string
		for _, it := range def.items {
			items = append(items, debtCaseItemInput(it.number, it.amount))
			numbers = append(numbers, it.number)
		}
		var in apitest.Vars
		if def.who.ident == apitest.Personnr {
			in = debtCaseInput(def.who.ident, def.who.name, items...)
		} else {
			in = debtCaseForeign(def.who.ident, def.who.name, items...)
		}
		if def.who == corp {
			in["isCorporation"] = true
		}
		if def.who.email != "" {
			in["email"] = def.who.email
		}
		d := debtCaseMustCreate(t, admin, clientID, in)
		created = append(created, d)
		facts = append(facts, debtCaseFacts{d.ID, def.who.name, def.who.ident, def.who.email, numbers})
	}
	pay := func(i int, amount string) {
		debtCasePay(t, admin, clientID, created[i].ID, created[i].Invoices[0].ID, amount, "2026-11-01").OK(t, nil)
	}
	withdraw := func(i int) {
		debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": created[i].ID}).OK(t, nil)
	}
	pay(1, "300.00") // paid in full
	pay(3, "60.00")  // overpaid
	pay(4, "100.00") // partially paid
	withdraw(5)      // withdrawn, unpaid
	pay(6, "10.00")
	withdraw(6) // withdrawn, partially paid
	pay(10, "300.00")
	return facts
}

// 10. The debts list: orders, paging, status filters and search.
func TestDebtCaseList(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "List AB")
	admin := env.Admin()
	facts := debtCaseListFixture(t, env, clientID)
	// Another client's debts are never listed.
	otherID, _ := env.NewClient(t, "Other AB")
	debtCaseMustCreate(t, admin, otherID, debtCaseInput(apitest.Personnr, "Anna Andersson", debtCaseItemInput("INV-1001", 100)))

	all := debtCaseList(t, admin, clientID, apitest.Vars{"rowsPerPage": 100})
	if all.TotalCount != len(facts) || len(all.Nodes) != len(facts) {
		t.Fatalf("debts lists %d (total %d), want %d", len(all.Nodes), all.TotalCount, len(facts))
	}
	rows := map[int]debtCaseRow{}
	for _, r := range all.Nodes {
		rows[r.ID] = r
	}
	type key struct {
		at     time.Time
		amount int64
		id     int
	}
	keys := map[int]key{}
	for id, r := range rows {
		keys[id] = key{debtCaseTime(t, r.CreatedAt), debtCaseCents(t, r.OriginalAmount), id}
	}
	expected := func(field, direction string) []int {
		ids := make([]int, 0, len(keys))
		for id := range keys {
			ids = append(ids, id)
		}
		less := func(a, b key) int {
			c := 0
			switch field {
			case "CREATED_AT":
				c = a.at.Compare(b.at)
			case "ORIGINAL_AMOUNT":
				c = int(a.amount - b.amount)
			}
			if c == 0 {
				c = a.id - b.id
			}
			if direction == "DESC" {
				c = -c
			}
			return c
		}
		slices.SortFunc(ids, func(a, b int) int { return less(keys[a], keys[b]) })
		return ids
	}

	t.Run("default is newest first", func(t *testing.T) {
		want := expected("CREATED_AT", "DESC")
		if got := debtCaseIDs(all.Nodes); !slices.Equal(got, want) {
			t.Errorf("default order %v, want %v", got, want)
		}
		// Creation order is id order here.
		creation := make([]int, len(facts))
		for i, f := range facts {
			creation[len(facts)-1-i] = f.id
		}
		if !slices.Equal(want, creation) {
			t.Errorf("newest first %v is not the reverse creation order %v", want, creation)
		}
	})
	orders := []struct{ field, direction string }{
		{"CREATED_AT", "ASC"}, {"CREATED_AT", "DESC"}, {"ID", "ASC"}, {"ID", "DESC"},
		{"ORIGINAL_AMOUNT", "ASC"}, {"ORIGINAL_AMOUNT", "DESC"}, {"ORIGINAL_AMOUNT", ""}, {"", ""},
	}
	for _, o := range orders {
		name := o.field + " " + o.direction
		var orderBy any
		field, direction := o.field, o.direction
		switch {
		case o.field == "":
			field, direction, name = "CREATED_AT", "DESC", "default"
		case o.direction == "":
			orderBy, direction, name = apitest.Vars{"field": o.field}, "ASC", o.field+" (ASC by default)"
		default:
			orderBy = apitest.Vars{"field": o.field, "direction": o.direction}
		}
		want := expected(field, direction)
		t.Run(name, func(t *testing.T) {
			vars := func(v apitest.Vars) apitest.Vars {
				if orderBy != nil {
					v["orderBy"] = orderBy
				}
				return v
			}
			p := debtCaseList(t, admin, clientID, vars(apitest.Vars{"rowsPerPage": 100}))
			if got := debtCaseIDs(p.Nodes); !slices.Equal(got, want) {
				t.Fatalf("order %v, want %v", got, want)
			}
			// By page.
			var paged []int
			for page := 1; page <= 4; page++ {
				p := debtCaseList(t, admin, clientID, vars(apitest.Vars{"page": page, "rowsPerPage": 5}))
				if p.TotalCount != len(want) || p.PageInfo.HasPreviousPage != (page > 1) || p.PageInfo.HasNextPage != (page < 3) {
					t.Errorf("page %d: total %d, pageInfo %+v", page, p.TotalCount, p.PageInfo)
				}
				paged = append(paged, debtCaseIDs(p.Nodes)...)
			}
			if !slices.Equal(paged, want) {
				t.Errorf("pages of 5 gave %v, want %v", paged, want)
			}
			// Forward by cursor.
			var forward []int
			v := vars(apitest.Vars{"first": 5})
			for range len(want) + 1 {
				p := debtCaseList(t, admin, clientID, v)
				forward = append(forward, debtCaseIDs(p.Nodes)...)
				if !p.PageInfo.HasNextPage {
					break
				}
				v = vars(apitest.Vars{"first": 5, "after": *p.PageInfo.EndCursor})
			}
			if !slices.Equal(forward, want) {
				t.Errorf("forward cursors gave %v, want %v", forward, want)
			}
			// Backward by cursor.
			var backward []int
			v = vars(apitest.Vars{"last": 5})
			for range len(want) + 1 {
				p := debtCaseList(t, admin, clientID, v)
				backward = append(debtCaseIDs(p.Nodes), backward...)
				if !p.PageInfo.HasPreviousPage {
					break
				}
				v = vars(apitest.Vars{"last": 5, "before": *p.PageInfo.StartCursor})
			}
			if !slices.Equal(backward, want) {
				t.Errorf("backward cursors gave %v, want %v", backward, want)
			}
			// An edge's cursor continues after that edge.
			p = debtCaseList(t, admin, clientID, vars(apitest.Vars{"first": 3}))
			next := debtCaseList(t, admin, clientID, vars(apitest.Vars{"first": 4, "after": p.Edges[1].Cursor}))
			if !slices.Equal(debtCaseIDs(next.Nodes), want[2:6]) {
				t.Errorf("after the 2nd edge: %v, want %v", debtCaseIDs(next.Nodes), want[2:6])
			}
		})
	}
	t.Run("a cursor of another order is refused", func(t *testing.T) {
		p := debtCaseList(t, admin, clientID, apitest.Vars{"first": 2, "orderBy": apitest.Vars{"field": "CREATED_AT"}})
		admin.Do(t, debtCaseListQuery, apitest.Vars{"clientId": clientID, "first": 2, "after": *p.PageInfo.EndCursor,
			"orderBy": apitest.Vars{"field": "ORIGINAL_AMOUNT"}}).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "after")
	})

	t.Run("status filters", func(t *testing.T) {
		created := debtCaseTime(t, all.Nodes[0].CreatedAt)
		reached := map[string]bool{}
		for _, days := range []int{0, 9} {
			env.Clock.Set(debtCaseStockholmDay(created, days, 12, 0))
			now := debtCaseList(t, admin, clientID, apitest.Vars{"rowsPerPage": 100})
			for _, f := range []struct {
				filter string
				value  func(debtCaseRow) string
				values []string
			}{
				{"activeStatus", func(r debtCaseRow) string { return r.ActiveStatus }, []string{"ACTIVE", "INACTIVE"}},
				{"mainStatus", func(r debtCaseRow) string { return r.MainStatus }, []string{"INVOICING", "COLLECTION", "CLOSED"}},
				{"underStatus", func(r debtCaseRow) string { return r.UnderStatus },
					[]string{"NOT_DUE", "OVERDUE", "REMINDED", "DEMAND_SENT", "DEMAND_EXPIRED", "PAID_IN_FULL", "WITHDRAWN"}},
				{"paymentStatus", func(r debtCaseRow) string { return r.PaymentStatus }, []string{"UNPAID", "PARTIALLY_PAID", "PAID", "OVERPAID"}},
			} {
				for _, v := range f.values {
					var want []int
					for _, r := range now.Nodes {
						if f.value(r) == v {
							want = append(want, r.ID)
						}
					}
					if len(want) > 0 {
						reached[f.filter+"="+v] = true
					}
					p := debtCaseList(t, admin, clientID, apitest.Vars{"rowsPerPage": 100, "filter": apitest.Vars{f.filter: v}})
					if got := debtCaseSorted(debtCaseIDs(p.Nodes)); !slices.Equal(got, debtCaseSorted(want)) || p.TotalCount != len(want) {
						t.Errorf("day +%d: %s=%s lists %v (total %d), but the debts whose %s reads it are %v",
							days, f.filter, v, got, p.TotalCount, f.filter, debtCaseSorted(want))
					}
				}
			}
			// Filters combine with AND.
			var want []int
			for _, r := range now.Nodes {
				if r.MainStatus == "CLOSED" && r.PaymentStatus == "PARTIALLY_PAID" {
					want = append(want, r.ID)
				}
			}
			p := debtCaseList(t, admin, clientID, apitest.Vars{"rowsPerPage": 100, "filter": apitest.Vars{"mainStatus": "CLOSED", "paymentStatus": "PARTIALLY_PAID"}})
			if got := debtCaseSorted(debtCaseIDs(p.Nodes)); !slices.Equal(got, debtCaseSorted(want)) || len(want) == 0 {
				t.Errorf("day +%d: CLOSED and PARTIALLY_PAID lists %v, want %v", days, got, debtCaseSorted(want))
			}
		}
		env.Clock.Set(time.Time{})
		for _, v := range []string{"activeStatus=ACTIVE", "activeStatus=INACTIVE", "mainStatus=COLLECTION", "mainStatus=CLOSED",
			"underStatus=DEMAND_SENT", "underStatus=DEMAND_EXPIRED", "underStatus=PAID_IN_FULL", "underStatus=WITHDRAWN",
			"paymentStatus=UNPAID", "paymentStatus=PARTIALLY_PAID", "paymentStatus=PAID", "paymentStatus=OVERPAID"} {
			if !reached[v] {
				t.Errorf("the fixture never reads %s: that filter is not tested", v)
			}
		}
	})

	// totalCount over all of a client's debts, its open ones or its closed
	// ones is read from debt_counts (kept by triggers, checked against the
	// rows after every test by apitest): every way of asking for it must
	// agree with the rows, and none of them may count.
	t.Run("kept totals", func(t *testing.T) {
		const totalOnly = `query($clientId: UUID!, $filter: DebtFilter, $page: Int, $rowsPerPage: Int) {
  debts(clientId: $clientId, filter: $filter, page: $page, rowsPerPage: $rowsPerPage) { totalCount }
}`
		open := map[bool]int{}
		for _, r := range all.Nodes {
			open[r.MainStatus == "COLLECTION"]++
		}
		if open[true] == 0 || open[false] == 0 {
			t.Fatalf("the fixture has %d open and %d closed debts: both are needed", open[true], open[false])
		}
		for _, main := range []string{"", "COLLECTION", "CLOSED"} {
			for _, active := range []string{"", "ACTIVE", "INACTIVE"} {
				filter, want := apitest.Vars{}, len(all.Nodes)
				if main != "" {
					filter["mainStatus"], want = main, open[main == "COLLECTION"]
				}
				if active != "" {
					filter["activeStatus"] = active
					switch {
					case main == "":
						want = open[active == "ACTIVE"]
					case (main == "COLLECTION") != (active == "ACTIVE"):
						want = 0
					}
				}
				env.Statements.Reset()
				p := debtCaseList(t, admin, clientID, apitest.Vars{"rowsPerPage": 100, "filter": filter})
				var only struct{ TotalCount int }
				admin.Do(t, totalOnly, apitest.Vars{"clientId": clientID, "filter": filter}).Field(t, "debts", &only)
				past := debtCaseList(t, admin, clientID, apitest.Vars{"page": 50, "rowsPerPage": 5, "filter": filter})
				if p.TotalCount != want || len(p.Nodes) != want || only.TotalCount != want || past.TotalCount != want {
					t.Errorf("filter %v: totalCount %d with %d rows, %d alone, %d past the last page; want %d",
						filter, p.TotalCount, len(p.Nodes), only.TotalCount, past.TotalCount, want)
				}
				if want == 0 {
					continue // counted by the rows: nothing to count
				}
				kept := false
				for _, q := range env.Statements.Log() {
					kept = kept || strings.Contains(q, "debt_counts")
					if strings.Contains(strings.ToUpper(q), "COUNT(") {
						t.Errorf("filter %v: a statement counts rows: %s", filter, q)
					}
				}
				if !kept {
					t.Errorf("filter %v: no statement read debt_counts", filter)
				}
			}
		}
	})

	t.Run("search", func(t *testing.T) {
		norm := func(s string) string { return strings.ToLower(strings.NewReplacer(" ", "", "-", "").Replace(s)) }
		match := func(typ, term string, f debtCaseFacts) bool {
			term = strings.TrimSpace(term)
			byName := strings.Contains(strings.ToLower(f.name), strings.ToLower(term))
			byEmail := f.email != "" && strings.Contains(strings.ToLower(f.email), strings.ToLower(term))
			byIdent := strings.Contains(norm(f.ident), norm(term))
			byNumber := false
			for _, n := range f.numbers {
				byNumber = byNumber || strings.Contains(norm(n), norm(term))
			}
			byID := strconv.Itoa(f.id) == term
			switch typ {
			case "NAME":
				return byName
			case "EMAIL":
				return byEmail
			case "IDENTIFICATION_NUMBER":
				return byIdent
			case "INVOICE_NUMBER":
				return byNumber
			case "DEBT_ID":
				return byID
			}
			return byName || byEmail || byIdent || byNumber || byID
		}
		check := func(t *testing.T, typ, term string, hard ...int) {
			t.Helper()
			var want []int
			for _, f := range facts {
				if match(typ, term, f) {
					want = append(want, f.id)
				}
			}
			if hard != nil && !slices.Equal(debtCaseSorted(hard), debtCaseSorted(want)) {
				t.Fatalf("test model: %s %q gives %v, the test says %v", typ, term, want, hard)
			}
			filter := apitest.Vars{"searchTerm": term}
			if typ != "" {
				filter["searchType"] = typ
			}
			p := debtCaseList(t, admin, clientID, apitest.Vars{"rowsPerPage": 100, "filter": filter})
			if got := debtCaseSorted(debtCaseIDs(p.Nodes)); !slices.Equal(got, debtCaseSorted(want)) || p.TotalCount != len(want) {
				t.Errorf("search %s %q lists %v (total %d), want %v", typ, term, got, p.TotalCount, debtCaseSorted(want))
			}
		}
		id := func(i int) int { return facts[i].id }
		// DEBT_ID is exact: 1 finds debt 1, not 10, 11 or 12.
		for _, f := range facts {
			check(t, "DEBT_ID", strconv.Itoa(f.id), f.id)
		}
		check(t, "DEBT_ID", " "+strconv.Itoa(id(3))+" ", id(3))
		check(t, "DEBT_ID", "999999", []int{}...)
		for _, term := range []string{"abc", "1.5", "-"} {
			admin.Do(t, debtCaseListQuery, apitest.Vars{"clientId": clientID, "filter": apitest.Vars{"searchType": "DEBT_ID", "searchTerm": term}}).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "filter.searchTerm")
		}
		check(t, "NAME", "anna", id(0), id(1), id(7))
		check(t, "NAME", "BERG", id(2), id(3), id(8), id(4), id(9))
		check(t, "NAME", "ÖBERG", id(4), id(9))
		check(t, "NAME", "100%", id(5), id(6), id(10), id(11))
		check(t, "NAME", "%")
		check(t, "NAME", "_")
		check(t, "NAME", "inv")
		check(t, "IDENTIFICATION_NUMBER", "8112289874", id(0), id(1), id(7))
		check(t, "IDENTIFICATION_NUMBER", "1228-98", id(0), id(1), id(7))
		check(t, "IDENTIFICATION_NUMBER", "923609", id(5), id(6), id(10), id(11))
		check(t, "IDENTIFICATION_NUMBER", "01 01-77", id(2), id(3), id(8))
		check(t, "EMAIL", "EXAMPLE.SE", id(0), id(1), id(7))
		check(t, "EMAIL", "@", id(0), id(1), id(7), id(2), id(3), id(8), id(5), id(6), id(10), id(11))
		check(t, "EMAIL", "anna andersson")
		check(t, "INVOICE_NUMBER", "inv1001", id(0))
		check(t, "INVOICE_NUMBER", "INV-100", id(0), id(1), id(7))
		check(t, "INVOICE_NUMBER", "55 66", id(2))
		check(t, "INVOICE_NUMBER", "x5566", id(2))
		check(t, "INVOICE_NUMBER", "berg", id(0))
		check(t, "INVOICE_NUMBER", "åö", id(4), id(9))
		check(t, "INVOICE_NUMBER", "anna")
		// ALL is the union.
		check(t, "ALL", "berg", id(0), id(2), id(3), id(8), id(4), id(9))
		check(t, "", "berg", id(0), id(2), id(3), id(8), id(4), id(9))
		check(t, "ALL", "example.se", id(0), id(1), id(7))
		check(t, "ALL", "77")
		check(t, "ALL", strconv.Itoa(id(4)))
		check(t, "ALL", "  ")
		if p := debtCaseList(t, admin, clientID, apitest.Vars{"filter": apitest.Vars{"searchTerm": " "}}); p.TotalCount != len(facts) {
			t.Errorf("a blank term must not search: total %d", p.TotalCount)
		}
		// A search combines with a status filter.
		p := debtCaseList(t, admin, clientID, apitest.Vars{"filter": apitest.Vars{"searchType": "NAME", "searchTerm": "anna", "paymentStatus": "PAID"}})
		if !slices.Equal(debtCaseIDs(p.Nodes), []int{id(1)}) {
			t.Errorf("NAME anna and PAID: %v, want [%d]", debtCaseIDs(p.Nodes), id(1))
		}
	})
}

// 11. A CLIENT key sees and changes only its own client's debts.
func TestDebtCaseTenancy(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin()
	ownID, own := env.ClientCaller(t, "Own AB")
	otherID, _ := env.NewClient(t, "Other AB")
	const unknown = "6f1c0a47-1f7e-4bd4-9a53-000000000000"

	theirs := debtCaseMustCreate(t, admin, otherID, debtCaseInput(apitest.Personnr, "Sven Svensson", debtCaseItemInput("SHARED-1", "100.00")))
	var inv struct{ CreateInvoice struct{ ID string } }
	admin.Do(t, `mutation($c: UUID!, $i: InvoiceInput!) { createInvoice(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": otherID, "i": debtCaseInvoiceInput("OWN-1", "100.00", "2026-09-01", "2030-01-01")}).OK(t, &inv)
	mine := debtCaseMustCreate(t, own, ownID, debtCaseInput(apitest.Personnr, "Sven Svensson", debtCaseItemInput("OWN-1", "100.00"), debtCaseItemInput("SHARED-1", "5.00")))
	if mine.Debtor.ID == theirs.Debtor.ID {
		t.Errorf("a client reused another client's debtor")
	}
	if mine.Invoices[0].Invoice != nil {
		t.Errorf("a debt item shows another client's invoice of the same number: %+v", mine.Invoices[0].Invoice)
	}
	// Also to ADMIN, who may read both clients.
	if it := debtCaseMustGet(t, admin, ownID, mine.ID).Invoices[0]; it.Invoice != nil {
		t.Errorf("to ADMIN, a debt item shows another client's invoice of the same number: %+v", it.Invoice)
	}
	theirsBefore := debtCaseMustGet(t, admin, otherID, theirs.ID)

	t.Run("another client is FORBIDDEN", func(t *testing.T) {
		for _, c := range []string{otherID, unknown} {
			debtCaseCreate(t, own, c, debtCaseInput(apitest.Samordning, "Olle", debtCaseItemInput("X-1", 1))).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
			own.Do(t, debtCaseQuery, apitest.Vars{"clientId": c, "id": theirs.ID}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
			own.Do(t, debtCaseListQuery, apitest.Vars{"clientId": c}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
			debtCasePay(t, own, c, theirs.ID, theirs.Invoices[0].ID, "1.00", "2026-11-01").Refused(t, http.StatusForbidden, "FORBIDDEN", "")
			debtCaseWithdraw(t, own, c, apitest.Vars{"id": theirs.ID}).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
		}
	})
	t.Run("another client's debt id is unknown", func(t *testing.T) {
		if d := debtCaseGet(t, own, ownID, theirs.ID); d != nil {
			t.Errorf("debt(own client, their id) reads %+v, want null", d)
		}
		debtCasePay(t, own, ownID, theirs.ID, theirs.Invoices[0].ID, "1.00", "2026-11-01").Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		debtCaseWithdraw(t, own, ownID, apitest.Vars{"id": theirs.ID}).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		// Their item on our debt is not an item of our debt.
		debtCasePay(t, own, ownID, mine.ID, theirs.Invoices[0].ID, "1.00", "2026-11-01").Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.invoiceId")
		p := debtCaseList(t, own, ownID, nil)
		if !slices.Equal(debtCaseIDs(p.Nodes), []int{mine.ID}) || p.TotalCount != 1 {
			t.Errorf("own debts list %v (total %d), want [%d]", debtCaseIDs(p.Nodes), p.TotalCount, mine.ID)
		}
		for _, typ := range []string{"DEBT_ID", "ALL"} {
			p := debtCaseList(t, own, ownID, apitest.Vars{"filter": apitest.Vars{"searchType": typ, "searchTerm": strconv.Itoa(theirs.ID)}})
			if slices.Contains(debtCaseIDs(p.Nodes), theirs.ID) {
				t.Errorf("%s search for their debt id finds it: %v", typ, debtCaseIDs(p.Nodes))
			}
		}
		var client struct {
			Debts struct{ Nodes []struct{ ID int } }
		}
		own.Do(t, `query($id: UUID!) { client(id: $id) { debts { nodes { id } } } }`, apitest.Vars{"id": ownID}).Field(t, "client", &client)
		if len(client.Debts.Nodes) != 1 || client.Debts.Nodes[0].ID != mine.ID {
			t.Errorf("Client.debts of the own client: %+v", client.Debts)
		}
		if after := debtCaseMustGet(t, admin, otherID, theirs.ID); debtCaseJSON(t, after) != debtCaseJSON(t, theirsBefore) {
			t.Errorf("their debt changed:\n%+v\nwas\n%+v", after, theirsBefore)
		}
		if m := debtCaseMustGet(t, admin, ownID, mine.ID); m.PaidAmount != "0.00" {
			t.Errorf("our debt changed: %+v", m)
		}
	})
	t.Run("an unknown client is NOT_FOUND for ADMIN", func(t *testing.T) {
		debtCaseCreate(t, admin, unknown, debtCaseInput(apitest.Samordning, "Olle", debtCaseItemInput("X-1", 1))).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		admin.Do(t, debtCaseQuery, apitest.Vars{"clientId": unknown, "id": theirs.ID}).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		admin.Do(t, debtCaseListQuery, apitest.Vars{"clientId": unknown}).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		debtCasePay(t, admin, unknown, theirs.ID, theirs.Invoices[0].ID, "1.00", "2026-11-01").Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		// ADMIN asking under the wrong client: null, not the other client's debt.
		if d := debtCaseGet(t, admin, ownID, theirs.ID); d != nil {
			t.Errorf("debt(own client, their id) as ADMIN reads %+v", d)
		}
	})
	t.Run("their invoice is not moved by our debt", func(t *testing.T) {
		var out struct {
			Invoice struct {
				Status string
				Debt   *struct{ ID int }
			}
		}
		admin.Do(t, `query($c: UUID!, $id: UUID!) { invoice(clientId: $c, id: $id) { status debt { id } } }`,
			apitest.Vars{"c": otherID, "id": inv.CreateInvoice.ID}).OK(t, &out)
		if out.Invoice.Status != "OPEN" || out.Invoice.Debt != nil {
			t.Errorf("another client's debt moved the invoice: %+v", out.Invoice)
		}
	})
}

// 12. createDebt takes 1,000 items (with 1,000 opening payments) and
// returns them in order.
func TestDebtCaseThousandItems(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Bulk AB")
	items := make([]apitest.Vars, 1000)
	for i := range items {
		items[i] = apitest.Vars{"invoiceNumber": fmt.Sprintf("N-%04d", 999-i), "invoiceDate": "2026-09-01T10:00:00+02:00",
			"dueDate": "2026-10-01T10:00:00+02:00", "amount": strconv.Itoa(i + 1),
			"payments": []apitest.Vars{{"amount": "0.50", "transactionDate": "2026-09-10T10:00:00+02:00"}}}
	}
	var out struct {
		CreateDebt struct {
			ID             int
			OriginalAmount string
			PaidAmount     string
			Invoices       []struct {
				ID            int
				InvoiceNumber string
				Amount        string
				PaidAmount    string
			}
		}
	}
	debtCaseCreate(t, env.Admin(), clientID, debtCaseInput(apitest.Personnr, "Sven Svensson", items...)).OK(t, &out)
	d := out.CreateDebt
	if len(d.Invoices) != 1000 {
		t.Fatalf("%d invoices, want 1000", len(d.Invoices))
	}
	seen := map[int]bool{}
	for i, it := range d.Invoices {
		if it.InvoiceNumber != fmt.Sprintf("N-%04d", 999-i) || it.Amount != fmt.Sprintf("%d.00", i+1) || it.PaidAmount != "0.50" || seen[it.ID] {
			t.Fatalf("invoice %d is %+v", i, it)
		}
		seen[it.ID] = true
	}
	if d.OriginalAmount != "500500.00" || d.PaidAmount != "500.00" {
		t.Errorf("original %s paid %s, want 500500.00 and 500.00", d.OriginalAmount, d.PaidAmount)
	}
	if debts, debtors, items, payments := debtCaseCounts(t, env, clientID); debts != 1 || debtors != 1 || items != 1000 || payments != 1000 {
		t.Errorf("%d debts, %d debtors, %d items, %d payments", debts, debtors, items, payments)
	}
}

// Lengths are counted in characters (api.md §5: "every string is at most
// 255 characters except description and comment (2,000)"), also when a
// character takes more than one byte in UTF-8.
func TestDebtCaseTextLengthsCountCharacters(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Längder AB")
	admin := env.Admin()
	long := func(n int) string { return strings.Repeat("ö", n) }
	in := debtCaseInput(apitest.Personnr, long(255), apitest.Vars{"invoiceNumber": strings.Repeat("Å", 255),
		"description": long(2000), "invoiceDate": "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00", "amount": 1})
	in["address"] = apitest.Vars{"address1": long(255), "zipCode": "111 22", "city": long(255), "countryCode": "SE"}
	in["phone"] = long(255)
	r := debtCaseCreate(t, admin, clientID, in)
	if r.Status != http.StatusOK {
		t.Errorf("createDebt with strings of 255 (description 2,000) characters of 2 bytes each: %s", r)
	}
	d := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Samordning, "Olle Olsson", debtCaseItemInput("L-1", 1)))
	r = debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": d.ID, "comment": long(2000)})
	if r.Status != http.StatusOK {
		t.Errorf("withdrawDebt with a comment of 2,000 characters of 2 bytes each: %s", r)
	}
}

// TestDebtCaseForeignNumbersWithLettersStayApart: numbers with letters are
// compared as written (case, spaces and hyphens aside), not by their
// digits, so two people are never merged into one debtor.
func TestDebtCaseForeignNumbersWithLettersStayApart(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Utland AB")
	create := func(number, name, invoice string) string {
		var out struct {
			CreateDebt struct{ Debtor struct{ ID, Name string } }
		}
		env.Admin().Do(t, `mutation($c: UUID!, $i: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $i) { debtor { id name } } }`,
			apitest.Vars{"c": clientID, "i": apitest.Vars{"isCorporation": false, "identificationNumber": number, "name": name,
				"address": apitest.Vars{"address1": "Gate 1", "zipCode": "0150", "city": "Oslo", "countryCode": "NO"},
				"debts":   []apitest.Vars{{"invoiceNumber": invoice, "invoiceDate": "2026-01-01T00:00:00Z", "dueDate": "2026-01-31T00:00:00Z", "amount": 10}}}}).
			OK(t, &out)
		return out.CreateDebt.Debtor.ID
	}
	abc := create("ABC", "Alfa", "U-1")
	xyz := create("XYZ", "Beta", "U-2")
	ab123 := create("AB-123", "Gamma", "U-3")
	cd123 := create("CD-123", "Delta", "U-4")
	again := create("ab 123", "Gamma Again", "U-5")
	if abc == xyz || ab123 == cd123 {
		t.Fatalf("different numbers were merged into one debtor: %s %s %s %s", abc, xyz, ab123, cd123)
	}
	if again != ab123 {
		t.Errorf("\"ab 123\" did not reuse the debtor of \"AB-123\"")
	}
	var alfa struct{ Name string }
	env.Admin().Do(t, `query($c: UUID!, $id: UUID!) { debtor(clientId: $c, id: $id) { name } }`, apitest.Vars{"c": clientID, "id": abc}).Field(t, "debtor", &alfa)
	if alfa.Name != "Alfa" {
		t.Errorf("the debtor of ABC was renamed to %q", alfa.Name)
	}
}
