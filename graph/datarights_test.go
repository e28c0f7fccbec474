package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/collection"
)

// API tests of data rights (api.md §14): anonymizeDebtor and
// debtorDataExport over HTTP, and a search of the whole database for an
// anonymised debtor's former data.

const (
	dataRightsAnonymize = `mutation($c: UUID!, $id: UUID!) { anonymizeDebtor(clientId: $c, id: $id) {
  id identificationNumber name address { address1 address2 careOf zipCode city countryCode }
  contactInformation { email phone } anonymizedAt isCompleted paymentStatus } }`
	dataRightsExport = `query($c: UUID!, $id: UUID!) { debtorDataExport(clientId: $c, id: $id) }`
	// dataRightsCreateDebt answers the debtor's data, so that the stored
	// idempotent answer holds it.
	dataRightsCreateDebt = `mutation($c: UUID!, $input: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $input) {
  id debtor { id name identificationNumber address { address1 address2 careOf zipCode city } contactInformation { email phone } }
  invoices { id description } } }`
	dataRightsEvents = `query($f: AuditEventFilter) { auditEvents(filter: $f, rowsPerPage: 100) {
  totalCount nodes { id operation clientId apiKeyId records { recordType recordId before { paymentStatus } after { paymentStatus } } } } }`
)

// dataRightsPerson is the personal data of the debtor the tests erase:
// values distinctive enough that finding one anywhere is finding it.
var dataRightsPerson = struct {
	Name, Surname, Ident, IdentDigits, Address1, Address2, CareOf, Zip, City, Email, Phone string
}{
	Name: "Zacharias Qvarnström", Surname: "Qvarnström", Ident: apitest.Personnr, IdentDigits: "8112289874",
	Address1: "Vårdkasevägen 77", Address2: "Lägenhet 4711", CareOf: "Ingrid Tornqvist-Ybbs",
	Zip: "987 65", City: "Yxlanöby", Email: "Zacharias.Qvarnstrom@example.org", Phone: "+46 70 555 01 23",
}

// dataRightsValues are the former values searched for: each as given and
// in lower case (the search keys).
func dataRightsValues() []string {
	p := dataRightsPerson
	var out []string
	for _, v := range []string{p.Name, p.Surname, p.Ident, p.IdentDigits, p.Address1, p.Address2, p.CareOf, p.Zip, p.City, p.Email, p.Phone} {
		out = append(out, v)
		if l := strings.ToLower(v); l != v {
			out = append(out, l)
		}
	}
	return out
}

func dataRightsDebtInput(items ...apitest.Vars) apitest.Vars {
	p := dataRightsPerson
	return apitest.Vars{"isCorporation": false, "identificationNumber": p.Ident, "name": p.Name,
		"address": apitest.Vars{"address1": p.Address1, "address2": p.Address2, "careOf": p.CareOf,
			"zipCode": p.Zip, "city": p.City, "countryCode": "SE"},
		"email": p.Email, "phone": p.Phone, "debts": items}
}

type dataRightsDebt struct {
	ID     int
	Debtor struct {
		ID   string
		Name string
	}
	Invoices []struct {
		ID          int
		Description *string
	}
}

// dataRightsPlaces lists every column of every table of the test's
// database that holds one of values, as "table.column: value". Every
// column is searched, whatever its type (text, JSON, bytes): PostgreSQL's
// from information_schema, SQLite's from sqlite_master and table_info.
func dataRightsPlaces(t *testing.T, env *apitest.Env, values []string) []string {
	t.Helper()
	ctx := context.Background()
	type column struct{ table, name, typ string }
	var cols []column
	if env.Postgres {
		rows, err := env.DB.SQL.QueryContext(ctx, `SELECT table_name, column_name, data_type
  FROM information_schema.columns c
 WHERE table_schema = current_schema()
   AND EXISTS (SELECT 1 FROM information_schema.tables x
                WHERE x.table_schema = c.table_schema AND x.table_name = c.table_name AND x.table_type = 'BASE TABLE')
 ORDER BY table_name, ordinal_position`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c column
			if err := rows.Scan(&c.table, &c.name, &c.typ); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		tables := apitest.Strings(t, env.DB.SQL, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
		for _, table := range tables {
			rows, err := env.DB.SQL.QueryContext(ctx, `SELECT name, type FROM pragma_table_info(?)`, table)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				c := column{table: table}
				if err := rows.Scan(&c.name, &c.typ); err != nil {
					t.Fatal(err)
				}
				cols = append(cols, c)
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(cols) < 50 {
		t.Fatalf("found only %d columns to search: %v", len(cols), cols)
	}
	var places []string
	for _, c := range cols {
		var cond string
		switch {
		case !env.Postgres:
			cond = fmt.Sprintf(`instr(CAST("%s" AS TEXT), ?) > 0`, c.name)
		case c.typ == "bytea":
			cond = fmt.Sprintf(`position(convert_to($1, 'UTF8') in "%s") > 0`, c.name)
		default:
			cond = fmt.Sprintf(`strpos("%s"::text, $1) > 0`, c.name)
		}
		query := fmt.Sprintf(`SELECT count(*) FROM "%s" WHERE %s`, c.table, cond)
		for _, v := range values {
			var n int
			if err := env.DB.SQL.QueryRowContext(ctx, query, v).Scan(&n); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			if n > 0 {
				places = append(places, c.table+"."+c.name+": "+v)
			}
		}
	}
	return places
}

// dataRightsCount counts a table's rows.
func dataRightsCount(t *testing.T, env *apitest.Env, table string) int {
	t.Helper()
	var n int
	if err := env.DB.SQL.QueryRowContext(context.Background(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDataRightsAnonymizeErasesEverywhere(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 11, 2, 12, 0, 0, 0, apitest.Stockholm))
	clientID, own := env.ClientCaller(t, "Own AB")
	otherID, other := env.ClientCaller(t, "Other AB")
	admin := env.Admin()
	p := dataRightsPerson

	// Two debts, handed over with an Idempotency-Key whose stored answer
	// repeats the debtor's data; an item's description and a withdrawal
	// comment repeat it too.
	createVars := apitest.Vars{"c": clientID, "input": dataRightsDebtInput(
		apitest.Vars{"invoiceNumber": "DR-1", "invoiceDate": "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00",
			"amount": "100.00", "description": "Consulting for " + p.Name + ", " + p.Address1},
		apitest.Vars{"invoiceNumber": "DR-2", "invoiceDate": "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00", "amount": "50.00"},
	)}
	// The client's own invoice of an item's number names the debtor in an
	// article.
	invoice := debtCaseInvoiceInput("DR-1", "100.00", "2026-09-01", "2026-10-01")
	invoice["articles"].([]apitest.Vars)[0]["name"] = "Consulting for " + p.Name
	invoice["articles"].([]apitest.Vars)[0]["description"] = p.Name
	own.Do(t, `mutation($c: UUID!, $i: InvoiceInput!) { createInvoice(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": clientID, "i": invoice}).OK(t, nil)
	created := own.Do(t, dataRightsCreateDebt, createVars, "Idempotency-Key", "handover-1")
	var first dataRightsDebt
	created.Field(t, "createDebt", &first)
	debtorID := first.Debtor.ID
	var second dataRightsDebt
	admin.Do(t, dataRightsCreateDebt, apitest.Vars{"c": clientID, "input": dataRightsDebtInput(
		apitest.Vars{"invoiceNumber": "DR-3", "invoiceDate": "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00", "amount": "70.00"},
	)}, "Idempotency-Key", "admin-handover").Field(t, "createDebt", &second)
	if second.Debtor.ID != debtorID {
		t.Fatalf("the second debt did not reuse the debtor: %s, %s", second.Debtor.ID, debtorID)
	}
	// A debtor of the same client that stays as it is.
	control := debtCaseMustCreate(t, own, clientID, debtCaseInput(apitest.Samordning, "Berit Kontroll", debtCaseItemInput("C-1", "10.00")))

	anonymize := func(c *apitest.Caller, client, id string) *apitest.Response {
		return c.Do(t, dataRightsAnonymize, apitest.Vars{"c": client, "id": id})
	}
	events := func() int { return dataRightsCount(t, env, "audit_events") }

	t.Run("refused while a debt is open, nothing written", func(t *testing.T) {
		before := events()
		anonymize(own, clientID, debtorID).Refused(t, http.StatusConflict, "CONFLICT", "")
		// One debt closed, one still open: still refused.
		debtCasePay(t, own, clientID, first.ID, first.Invoices[0].ID, "100.00", "2026-11-01").OK(t, nil)
		debtCasePay(t, own, clientID, first.ID, first.Invoices[1].ID, "50.00", "2026-11-01").OK(t, nil)
		before += 2
		anonymize(admin, clientID, debtorID).Refused(t, http.StatusConflict, "CONFLICT", "")
		if got := events(); got != before {
			t.Errorf("a refused anonymisation wrote %d audit events", got-before)
		}
		var d struct{ Debtor struct{ Name string } }
		own.Do(t, `query($c: UUID!, $id: UUID!) { debtor(clientId: $c, id: $id) { name } }`,
			apitest.Vars{"c": clientID, "id": debtorID}).OK(t, &d)
		if d.Debtor.Name != p.Name {
			t.Errorf("after a refusal the debtor reads %q", d.Debtor.Name)
		}
	})
	dispute(t, own, clientID, second.ID, p.Name+" says the invoice was paid").OK(t, nil)
	debtCaseWithdraw(t, own, clientID, apitest.Vars{"id": second.ID, "comment": "Creditor settled directly with " + p.Name + " (" + p.Email + ")"}).OK(t, nil)

	t.Run("authorization", func(t *testing.T) {
		before := events()
		anonymize(other, clientID, debtorID).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
		anonymize(other, otherID, debtorID).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		anonymize(admin, otherID, debtorID).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		anonymize(admin, "6f1c0a47-1f7e-4bd4-9a53-000000000000", debtorID).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		anonymize(own, clientID, debtorUnknownID).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		anonymize(own, clientID, "not-a-uuid").Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "id")
		anonymize(own, "nope", debtorID).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "clientId")
		if got := events(); got != before {
			t.Errorf("refusals wrote %d audit events", got-before)
		}
	})

	// Before: the search finds the data where it is expected, so that
	// finding none afterwards means something.
	placesBefore := dataRightsPlaces(t, env, dataRightsValues())
	for _, want := range []string{"debtors.name: " + p.Name, "debtors.email: " + p.Email, "debt_invoices.description: " + p.Name,
		"debts.withdraw_comment: " + p.Name, "debts.dispute_comment: " + p.Name, "debt_steps.comment: " + p.Name, "idempotency_records.body: " + p.Name,
		"invoice_articles.name: " + p.Name, "invoice_articles.name_key: " + strings.ToLower(p.Name), "invoice_articles.description: " + p.Name, "idempotency_records.body: " + p.Ident} {
		if !containsString(placesBefore, want) {
			t.Errorf("before anonymisation the search does not find %q; it found %v", want, placesBefore)
		}
	}
	if env.Postgres && !containsString(placesBefore, "debtor_name_suffixes.suffix: "+strings.ToLower(p.Name)) {
		t.Errorf("before anonymisation the search does not find the name suffixes; it found %v", placesBefore)
	}
	t.Logf("before anonymisation the former values were in %d places", len(placesBefore))

	var debtsBefore [2]debtCaseDebt
	debtsBefore[0] = debtCaseMustGet(t, own, clientID, first.ID)
	debtsBefore[1] = debtCaseMustGet(t, own, clientID, second.ID)

	var out struct {
		AnonymizeDebtor struct {
			ID                   string
			IdentificationNumber string
			Name                 string
			Address              debtorAddressOut
			ContactInformation   *debtorContactOut
			AnonymizedAt         *string
			IsCompleted          bool
			PaymentStatus        *string
		}
	}
	anonymize(own, clientID, debtorID).OK(t, &out)
	got := out.AnonymizeDebtor
	const placeholder = "[anonymized]"
	if got.Name != placeholder || got.IdentificationNumber != placeholder || got.Address.Address1 != placeholder ||
		got.Address.ZipCode != placeholder || got.Address.City != placeholder || got.Address.Address2 != nil ||
		got.Address.CareOf != nil || got.ContactInformation != nil || got.Address.CountryCode != "SE" {
		t.Errorf("anonymised debtor reads %+v", got)
	}
	if got.AnonymizedAt == nil || *got.AnonymizedAt != "2026-11-02T11:00:00Z" {
		t.Errorf("anonymizedAt = %v, want the clock's 2026-11-02T11:00:00Z", got.AnonymizedAt)
	}
	if !got.IsCompleted {
		t.Errorf("the anonymised debtor's statuses changed: %+v", got)
	}

	t.Run("the whole database holds none of the former values", func(t *testing.T) {
		if places := dataRightsPlaces(t, env, dataRightsValues()); len(places) > 0 {
			t.Errorf("after anonymisation the database still holds the debtor's data: %v", places)
		}
	})

	t.Run("amounts, payments and statuses stay", func(t *testing.T) {
		for i, id := range []int{first.ID, second.ID} {
			after := debtCaseMustGet(t, own, clientID, id)
			b := debtsBefore[i]
			b.Debtor, after.Debtor = struct {
				ID                   string
				Name                 string
				IdentificationNumber string
			}{}, struct {
				ID                   string
				Name                 string
				IdentificationNumber string
			}{}
			// Free text that repeated the debtor is erased; the rest is equal.
			// Erasing a comment changes the row, and so updatedAt.
			if b.WithdrawComment != nil {
				b.WithdrawComment, after.WithdrawComment = nil, nil
				b.UpdatedAt, after.UpdatedAt = "", ""
			}
			for j := range b.Invoices {
				b.Invoices[j].Description, after.Invoices[j].Description = nil, nil
			}
			if debtCaseJSON(t, b) != debtCaseJSON(t, after) {
				t.Errorf("debt %d changed:\nbefore %s\nafter  %s", id, debtCaseJSON(t, b), debtCaseJSON(t, after))
			}
		}
		var d dataRightsDebt
		own.Do(t, `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { id debtor { id name } invoices { id description } } }`,
			apitest.Vars{"c": clientID, "id": first.ID}).Field(t, "debt", &d)
		if d.Debtor.Name != placeholder || d.Invoices[0].Description == nil ||
			*d.Invoices[0].Description != "Consulting for [anonymized], [anonymized]" {
			t.Errorf("the debt reads %+v", d)
		}
	})

	t.Run("no search finds the debtor by its former data", func(t *testing.T) {
		for _, term := range []struct{ typ, term string }{
			{"NAME", p.Surname}, {"NAME", p.Name}, {"IDENTIFICATION_NUMBER", p.Ident}, {"IDENTIFICATION_NUMBER", p.IdentDigits},
			{"EMAIL", p.Email}, {"EMAIL", "qvarnstrom"}, {"ALL", p.Surname}, {"ALL", p.IdentDigits}, {"ALL", p.Email},
		} {
			filter := apitest.Vars{"searchType": term.typ, "searchTerm": term.term}
			var debtors struct{ Debtors struct{ TotalCount int } }
			own.Do(t, `query($c: UUID!, $f: DebtorFilter) { debtors(clientId: $c, filter: $f) { totalCount nodes { id } } }`,
				apitest.Vars{"c": clientID, "f": filter}).OK(t, &debtors)
			var debts struct{ Debts struct{ TotalCount int } }
			own.Do(t, `query($c: UUID!, $f: DebtFilter) { debts(clientId: $c, filter: $f) { totalCount nodes { id } } }`,
				apitest.Vars{"c": clientID, "f": filter}).OK(t, &debts)
			if debtors.Debtors.TotalCount != 0 || debts.Debts.TotalCount != 0 {
				t.Errorf("search %s %q still finds %d debtors and %d debts", term.typ, term.term, debtors.Debtors.TotalCount, debts.Debts.TotalCount)
			}
		}
		var invoices struct{ Invoices struct{ TotalCount int } }
		own.Do(t, `query($c: UUID!, $f: InvoiceFilter) { invoices(clientId: $c, filter: $f) { totalCount } }`,
			apitest.Vars{"c": clientID, "f": apitest.Vars{"searchType": "NAME", "searchTerm": p.Surname}}).OK(t, &invoices)
		if invoices.Invoices.TotalCount != 0 {
			t.Errorf("an article name search still finds %d invoices", invoices.Invoices.TotalCount)
		}
		// The control debtor is still found by its name.
		var debtors struct{ Debtors struct{ TotalCount int } }
		own.Do(t, `query($c: UUID!, $f: DebtorFilter) { debtors(clientId: $c, filter: $f) { totalCount } }`,
			apitest.Vars{"c": clientID, "f": apitest.Vars{"searchType": "NAME", "searchTerm": "Kontroll"}}).OK(t, &debtors)
		if debtors.Debtors.TotalCount != 1 {
			t.Errorf("the control debtor is found %d times by name", debtors.Debtors.TotalCount)
		}
	})

	t.Run("a replayed idempotent answer holds none of it", func(t *testing.T) {
		replay := own.Do(t, dataRightsCreateDebt, createVars, "Idempotency-Key", "handover-1")
		if replay.Status != http.StatusOK {
			t.Fatalf("replay: %s", replay)
		}
		for _, v := range dataRightsValues() {
			if strings.Contains(strings.ToLower(string(replay.Body)), strings.ToLower(v)) {
				t.Errorf("the replayed answer holds %q: %s", v, replay.Body)
			}
		}
		var d dataRightsDebt
		replay.Field(t, "createDebt", &d)
		if d.ID != first.ID || d.Debtor.ID != debtorID || d.Debtor.Name != placeholder {
			t.Errorf("the replay is not the first answer less the erased values: %s", replay.Body)
		}
		if n := dataRightsCount(t, env, "debts"); n != 3 {
			t.Errorf("the replay created a debt: %d debts", n)
		}
	})

	t.Run("anonymising again or updating is CONFLICT", func(t *testing.T) {
		before := events()
		anonymize(own, clientID, debtorID).Refused(t, http.StatusConflict, "CONFLICT", "")
		anonymize(admin, clientID, debtorID).Refused(t, http.StatusConflict, "CONFLICT", "")
		// Its record cannot be filled in again either.
		own.Do(t, debtorUpdateMutation, apitest.Vars{"clientId": clientID, "id": debtorID, "input": debtorInput(p.Name, p.Ident)}).
			Refused(t, http.StatusConflict, "CONFLICT", "")
		if got := events(); got != before {
			t.Errorf("a refusal wrote %d audit events", got-before)
		}
	})

	t.Run("the audit event names the debtor and the time", func(t *testing.T) {
		var ev struct {
			AuditEvents struct {
				TotalCount int
				Nodes      []struct {
					ID        int
					Operation string
					ClientID  string
					Records   []struct{ RecordType, RecordID string }
				}
			}
		}
		admin.Do(t, dataRightsEvents, apitest.Vars{"f": apitest.Vars{"operation": "anonymizeDebtor"}}).OK(t, &ev)
		if ev.AuditEvents.TotalCount != 1 || len(ev.AuditEvents.Nodes[0].Records) != 1 ||
			ev.AuditEvents.Nodes[0].Records[0].RecordType != "DEBTOR" || ev.AuditEvents.Nodes[0].Records[0].RecordID != debtorID ||
			ev.AuditEvents.Nodes[0].ClientID != clientID {
			t.Errorf("anonymizeDebtor events: %+v", ev.AuditEvents)
		}
	})

	t.Run("lists show anonymizedAt", func(t *testing.T) {
		// The planned path writes the list; the tests' server compares it
		// with gqlgen's answer.
		var list struct {
			Debtors struct {
				Nodes []struct {
					ID, Name     string
					AnonymizedAt *string
				}
			}
		}
		own.Do(t, `query($c: UUID!) { debtors(clientId: $c) { nodes { id name anonymizedAt } } }`, apitest.Vars{"c": clientID}).OK(t, &list)
		seen := 0
		for _, n := range list.Debtors.Nodes {
			switch n.ID {
			case debtorID:
				seen++
				if n.AnonymizedAt == nil || *n.AnonymizedAt != "2026-11-02T11:00:00Z" || n.Name != placeholder {
					t.Errorf("the anonymised debtor in the list: %+v", n)
				}
			case control.Debtor.ID:
				seen++
				if n.AnonymizedAt != nil {
					t.Errorf("the control debtor in the list: %+v", n)
				}
			}
		}
		if seen != 2 {
			t.Errorf("the list: %+v", list.Debtors.Nodes)
		}
	})

	t.Run("the control debtor is untouched", func(t *testing.T) {
		var d struct{ Debtor debtorOut }
		own.Do(t, debtorLookupQuery, apitest.Vars{"clientId": clientID, "id": control.Debtor.ID}).OK(t, &d)
		if d.Debtor.Name != "Berit Kontroll" || d.Debtor.IdentificationNumber != apitest.Samordning {
			t.Errorf("the control debtor reads %+v", d.Debtor)
		}
	})

	t.Run("a new hand-over with the same number makes a new debtor", func(t *testing.T) {
		d := debtCaseMustCreate(t, own, clientID, debtCaseInput(p.Ident, "Z Q", debtCaseItemInput("DR-9", "5.00")))
		if d.Debtor.ID == debtorID {
			t.Errorf("createDebt reused the anonymised debtor")
		}
		// And a second anonymised debtor of the client keeps its own key.
		debtCaseWithdraw(t, own, clientID, apitest.Vars{"id": d.ID}).OK(t, nil)
		anonymize(own, clientID, d.Debtor.ID).OK(t, nil)
	})
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dataRightsExportDoc is the export as tests read it.
type dataRightsExportDoc struct {
	Debtor struct {
		ID                   string
		ClientID             string
		IdentificationNumber string
		Name                 string
		Address              debtorAddressOut
		ContactInformation   *debtorContactOut
		AnonymizedAt         *string
	}
	Debts []struct {
		ID              int
		OriginalAmount  string
		PaidAmount      string
		MainStatus      string
		WithdrawComment *string
		Terms           struct{ Interest, CollectionFee string }
		Invoices        []struct {
			ID            int
			InvoiceNumber string
			Amount        string
			Claim         *struct {
				Principal struct{ Charged, Paid, Outstanding string }
			}
		}
		Payments []struct {
			ID              int
			InvoiceID       int
			Amount          string
			TransactionDate string
			Source          string
			Allocation      *struct{ Principal, Credit string }
		}
		Claim struct {
			AsOf           string
			Total          struct{ Charged, Paid, Outstanding string }
			OverpaidAmount string
		}
	}
	AuditEvents []struct {
		ID         int
		Operation  string
		ClientID   *string
		APIKeyID   *string
		APIKeyName *string
		DebtID     *int
		Records    []struct {
			RecordType string
			RecordID   string
			After      map[string]any
		}
	}
}

func dataRightsExportOf(t *testing.T, c *apitest.Caller, clientID, id string) (dataRightsExportDoc, []byte) {
	t.Helper()
	var raw json.RawMessage
	c.Do(t, dataRightsExport, apitest.Vars{"c": clientID, "id": id}).Field(t, "debtorDataExport", &raw)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatalf("the export is not a JSON object: %v", err)
	}
	if len(top) != 3 || top["debtor"] == nil || top["debts"] == nil || top["auditEvents"] == nil {
		keys := make([]string, 0, len(top))
		for k := range top {
			keys = append(keys, k)
		}
		t.Errorf("the export's keys are %v, want debtor, debts and auditEvents", keys)
	}
	var doc dataRightsExportDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("decoding the export: %v\n%s", err, raw)
	}
	return doc, raw
}

func TestDataRightsExport(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 11, 2, 12, 0, 0, 0, apitest.Stockholm))
	clientID, own := env.ClientCaller(t, "Own AB")
	otherID, other := env.ClientCaller(t, "Other AB")
	admin := env.Admin()
	p := dataRightsPerson

	var d1, d2 dataRightsDebt
	admin.Do(t, dataRightsCreateDebt, apitest.Vars{"c": clientID, "input": dataRightsDebtInput(
		apitest.Vars{"invoiceNumber": "EX-1", "invoiceDate": "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00", "amount": "100.00",
			"payments": []apitest.Vars{{"amount": "10.00", "transactionDate": "2026-09-15T10:00:00+02:00"}}},
		apitest.Vars{"invoiceNumber": "EX-2", "invoiceDate": "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00", "amount": "50.00"},
	)}).Field(t, "createDebt", &d1)
	own.Do(t, dataRightsCreateDebt, apitest.Vars{"c": clientID, "input": dataRightsDebtInput(
		apitest.Vars{"invoiceNumber": "EX-3", "invoiceDate": "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00", "amount": "70.00"},
	)}).Field(t, "createDebt", &d2)
	debtCasePay(t, own, clientID, d1.ID, d1.Invoices[1].ID, "20.00", "2026-11-01").OK(t, nil)
	debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": d2.ID, "comment": "paid to the creditor"}).OK(t, nil)
	// Another debtor's debt, which the export must not show.
	other2 := debtCaseMustCreate(t, own, clientID, debtCaseInput(apitest.Samordning, "Berit Kontroll", debtCaseItemInput("C-1", "10.00")))

	doc, raw := dataRightsExportOf(t, own, clientID, d1.Debtor.ID)
	t.Run("the debtor", func(t *testing.T) {
		d := doc.Debtor
		if d.ID != d1.Debtor.ID || d.ClientID != clientID || d.Name != p.Name || d.IdentificationNumber != p.Ident ||
			d.Address.Address1 != p.Address1 || d.Address.CareOf == nil || *d.Address.CareOf != p.CareOf ||
			d.ContactInformation == nil || d.ContactInformation.Email == nil || *d.ContactInformation.Email != p.Email ||
			d.AnonymizedAt != nil {
			t.Errorf("the export's debtor: %+v", d)
		}
	})
	t.Run("its debts with items, payments and claims", func(t *testing.T) {
		if len(doc.Debts) != 2 || doc.Debts[0].ID != d1.ID || doc.Debts[1].ID != d2.ID {
			t.Fatalf("the export's debts: %+v", doc.Debts)
		}
		a, b := doc.Debts[0], doc.Debts[1]
		if a.OriginalAmount != "150.00" || a.PaidAmount != "30.00" || a.MainStatus != "COLLECTION" || a.Terms.Interest != "NONE" ||
			len(a.Invoices) != 2 || a.Invoices[0].InvoiceNumber != "EX-1" || a.Invoices[0].Amount != "100.00" ||
			a.Invoices[0].Claim == nil || a.Invoices[0].Claim.Principal.Paid != "10.00" ||
			len(a.Payments) != 2 || a.Payments[0].Source != "BEFORE_HANDOVER" || a.Payments[1].Source != "REPORTED" ||
			a.Payments[1].InvoiceID != d1.Invoices[1].ID || a.Payments[1].TransactionDate != "2026-11-01" ||
			a.Payments[1].Allocation == nil || a.Payments[1].Allocation.Principal != "20.00" ||
			a.Claim.AsOf != "2026-11-02" || a.Claim.Total.Charged != "150.00" || a.Claim.Total.Outstanding != "120.00" {
			t.Errorf("the export's first debt: %+v", a)
		}
		if b.MainStatus != "CLOSED" || b.WithdrawComment == nil || *b.WithdrawComment != "paid to the creditor" || len(b.Payments) != 0 {
			t.Errorf("the export's second debt: %+v", b)
		}
		if strings.Contains(string(raw), "C-1") || strings.Contains(string(raw), other2.Debtor.ID) {
			t.Errorf("the export holds another debtor's debt")
		}
	})
	t.Run("the audit events naming them", func(t *testing.T) {
		var ops []string
		for i, e := range doc.AuditEvents {
			ops = append(ops, e.Operation)
			if i > 0 && e.ID <= doc.AuditEvents[i-1].ID {
				t.Errorf("events are not oldest first")
			}
			if e.ClientID == nil || *e.ClientID != clientID {
				t.Errorf("event %d of client %v", e.ID, e.ClientID)
			}
		}
		if want := "createDebt createDebt addDebtPayment withdrawDebt"; strings.Join(ops, " ") != want {
			t.Errorf("the export's events are %v, want %s", ops, want)
		}
		// To a CLIENT key, an ADMIN's key is hidden (api.md §9a).
		if e := doc.AuditEvents[0]; e.APIKeyID != nil || e.APIKeyName != nil {
			t.Errorf("a CLIENT key's export shows the ADMIN key of event %d: %v %v", e.ID, e.APIKeyID, e.APIKeyName)
		}
		if e := doc.AuditEvents[1]; e.APIKeyID == nil || e.DebtID == nil || *e.DebtID != d2.ID {
			t.Errorf("the CLIENT key's own event: %+v", e)
		}
		adminDoc, _ := dataRightsExportOf(t, admin, clientID, d1.Debtor.ID)
		if e := adminDoc.AuditEvents[0]; e.APIKeyID == nil || e.APIKeyName == nil {
			t.Errorf("an ADMIN's export hides the key of event %d", e.ID)
		}
	})
	t.Run("the export is recorded", func(t *testing.T) {
		var ev struct {
			AuditEvents struct {
				TotalCount int
				Nodes      []struct {
					Operation string
					ClientID  string
					Records   []struct{ RecordType, RecordID string }
				}
			}
		}
		// The CLIENT key's export and the ADMIN's, both of the client.
		for _, c := range []*apitest.Caller{own, admin} {
			c.Do(t, dataRightsEvents, apitest.Vars{"f": apitest.Vars{"operation": "debtorDataExport"}}).OK(t, &ev)
			if ev.AuditEvents.TotalCount != 2 || ev.AuditEvents.Nodes[0].Records[0].RecordID != d1.Debtor.ID ||
				ev.AuditEvents.Nodes[0].ClientID != clientID {
				t.Errorf("debtorDataExport events: %+v", ev.AuditEvents)
			}
		}
	})
	t.Run("refusals", func(t *testing.T) {
		before := dataRightsCount(t, env, "audit_events")
		export := func(c *apitest.Caller, client, id string) *apitest.Response {
			return c.Do(t, dataRightsExport, apitest.Vars{"c": client, "id": id})
		}
		export(other, clientID, d1.Debtor.ID).Refused(t, http.StatusForbidden, "FORBIDDEN", "")
		export(other, otherID, d1.Debtor.ID).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		export(admin, otherID, d1.Debtor.ID).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		export(admin, "6f1c0a47-1f7e-4bd4-9a53-000000000000", d1.Debtor.ID).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		export(own, clientID, debtorUnknownID).Refused(t, http.StatusNotFound, "NOT_FOUND", "")
		export(own, clientID, "x").Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "id")
		export(own, "x", d1.Debtor.ID).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "clientId")
		env.As("").Do(t, dataRightsExport, apitest.Vars{"c": clientID, "id": d1.Debtor.ID}).Refused(t, http.StatusUnauthorized, "UNAUTHENTICATED", "")
		if got := dataRightsCount(t, env, "audit_events"); got != before {
			t.Errorf("refused exports wrote %d events", got-before)
		}
	})
	t.Run("after anonymisation", func(t *testing.T) {
		debtCasePay(t, own, clientID, d1.ID, d1.Invoices[0].ID, "90.00", "2026-11-01").OK(t, nil)
		debtCasePay(t, own, clientID, d1.ID, d1.Invoices[1].ID, "30.00", "2026-11-01").OK(t, nil)
		own.Do(t, dataRightsAnonymize, apitest.Vars{"c": clientID, "id": d1.Debtor.ID}).OK(t, nil)
		doc, raw := dataRightsExportOf(t, own, clientID, d1.Debtor.ID)
		if doc.Debtor.Name != "[anonymized]" || doc.Debtor.AnonymizedAt == nil || doc.Debtor.ContactInformation != nil || len(doc.Debts) != 2 {
			t.Errorf("the export after anonymisation: %+v", doc.Debtor)
		}
		for _, v := range dataRightsValues() {
			if strings.Contains(strings.ToLower(string(raw)), strings.ToLower(v)) {
				t.Errorf("the export after anonymisation holds %q", v)
			}
		}
		if last := doc.AuditEvents[len(doc.AuditEvents)-1]; last.Operation != "anonymizeDebtor" {
			t.Errorf("the last event exported is %s", last.Operation)
		}
	})
}

// TestDataRightsExportThousandDebts exports a debtor with 1,000 debts: one
// document within the response limits, read page by page.
func TestDataRightsExportThousandDebts(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 1,000 debts")
	}
	env := apitest.New(t)
	clientID, own := env.ClientCaller(t, "Own AB")
	const n = 1000
	var debtorID string
	start := time.Now()
	jobs := make(chan int)
	errs := make(chan error, n)
	ids := make(chan string, n)
	for w := 0; w < 4; w++ {
		go func() {
			for i := range jobs {
				r := own.Do(t, dataRightsCreateDebt, apitest.Vars{"c": clientID, "input": dataRightsDebtInput(
					apitest.Vars{"invoiceNumber": fmt.Sprintf("K-%04d", i), "invoiceDate": "2026-09-01T10:00:00+02:00",
						"dueDate": "2026-10-01T10:00:00+02:00", "amount": "100.00",
						"payments": []apitest.Vars{{"amount": "10.00", "transactionDate": "2026-09-15T10:00:00+02:00"}}},
				)})
				var d dataRightsDebt
				if r.Status != http.StatusOK || len(r.Errors) > 0 {
					errs <- fmt.Errorf("createDebt %d: %s", i, r)
					continue
				}
				_ = json.Unmarshal(r.Data, &struct{ CreateDebt *dataRightsDebt }{&d})
				ids <- d.Debtor.ID
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	for i := 0; i < n; i++ {
		select {
		case err := <-errs:
			t.Fatal(err)
		case id := <-ids:
			debtorID = id
		}
	}
	t.Logf("created %d debts in %v", n, time.Since(start).Round(time.Millisecond))

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// The heap's peak while the export runs, sampled.
	peak := make(chan uint64)
	stop := make(chan struct{})
	go func() {
		var m runtime.MemStats
		var top uint64
		for {
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapAlloc)
			select {
			case <-stop:
				peak <- top
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	start = time.Now()
	var raw json.RawMessage
	own.Do(t, dataRightsExport, apitest.Vars{"c": clientID, "id": debtorID}).Field(t, "debtorDataExport", &raw)
	took := time.Since(start)
	close(stop)
	heapPeak := <-peak
	runtime.ReadMemStats(&after)
	var doc dataRightsExportDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Debts) != n || len(doc.AuditEvents) != n {
		t.Fatalf("the export holds %d debts and %d events, want %d of each", len(doc.Debts), len(doc.AuditEvents), n)
	}
	for i, d := range doc.Debts {
		if i > 0 && d.ID <= doc.Debts[i-1].ID {
			t.Fatalf("debts are not in id order at %d", i)
		}
		if len(d.Invoices) != 1 || len(d.Payments) != 1 || d.Claim.Total.Outstanding != "90.00" {
			t.Fatalf("debt %d in the export: %+v", d.ID, d)
		}
	}
	// The server runs in this process: the allocations are the export's
	// (server and client), for the record in docs/decisions.md.
	t.Logf("exported %d debts (%d bytes) in %v; heap peak %.1f MB above the %.1f MB before, %.1f MB allocated in all (the test client's reading included)",
		n, len(raw), took.Round(time.Millisecond), float64(heapPeak-min(heapPeak, before.HeapAlloc))/1e6, float64(before.HeapAlloc)/1e6,
		float64(after.TotalAlloc-before.TotalAlloc)/1e6)
}

// TestDataRightsAnonymizeRacesHandover anonymises a debtor while a
// hand-over with its number arrives: either the anonymisation wins (and
// the hand-over makes a new debtor) or the hand-over does (and the
// anonymisation is CONFLICT); an anonymised debtor never has an open debt.
func TestDataRightsAnonymizeRacesHandover(t *testing.T) {
	env := apitest.New(t)
	clientID, own := env.ClientCaller(t, "Own AB")
	wins := map[string]int{}
	for round := 0; round < 10; round++ {
		first := debtCaseMustCreate(t, own, clientID, debtCaseInput(apitest.Personnr, "Anna Ek", debtCaseItemInput(fmt.Sprintf("R-%d-1", round), "10.00")))
		debtCasePay(t, own, clientID, first.ID, first.Invoices[0].ID, "10.00", "2026-11-01").OK(t, nil)
		debtorID := first.Debtor.ID
		var anonymized, handover *apitest.Response
		done := make(chan struct{})
		go func() {
			defer close(done)
			handover = own.Do(t, debtCaseCreateMutation, apitest.Vars{"clientId": clientID,
				"input": debtCaseInput(apitest.Personnr, "Anna Ek", debtCaseItemInput(fmt.Sprintf("R-%d-2", round), "10.00"))})
		}()
		anonymized = own.Do(t, dataRightsAnonymize, apitest.Vars{"c": clientID, "id": debtorID})
		<-done
		var second debtCaseDebt
		handover.Field(t, "createDebt", &second)
		switch {
		case anonymized.Status == http.StatusOK:
			wins["anonymisation"]++
			if second.Debtor.ID == debtorID {
				t.Fatalf("round %d: the hand-over reused the debtor that was anonymised", round)
			}
			// The new debtor holds the data now: close and erase it too.
			debtCasePay(t, own, clientID, second.ID, second.Invoices[0].ID, "10.00", "2026-11-01").OK(t, nil)
			own.Do(t, dataRightsAnonymize, apitest.Vars{"c": clientID, "id": second.Debtor.ID}).OK(t, nil)
		default:
			anonymized.Refused(t, http.StatusConflict, "CONFLICT", "")
			wins["hand-over"]++
			if second.Debtor.ID != debtorID {
				t.Fatalf("round %d: the hand-over made a new debtor though the anonymisation was refused", round)
			}
			debtCasePay(t, own, clientID, second.ID, second.Invoices[0].ID, "10.00", "2026-11-01").OK(t, nil)
			own.Do(t, dataRightsAnonymize, apitest.Vars{"c": clientID, "id": debtorID}).OK(t, nil)
		}
	}
	var open int
	if err := env.DB.SQL.QueryRowContext(context.Background(), `SELECT count(*) FROM debts d JOIN debtors r ON r.id = d.debtor_id
  WHERE r.anonymized_at IS NOT NULL AND `+collection.OpenConditionOf("d")).Scan(&open); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Errorf("%d open debts belong to anonymised debtors", open)
	}
	t.Logf("who came first in 10 rounds: %v", wins)
}

// A debt in LEGAL (a payment order applied for) is open: its debtor cannot
// be anonymised until it closes.
func TestDataRightsAnonymizeRefusedWhileLegal(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Rättslig AB")
	in := debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput("F-1", "1000.00"))
	in["demandSentOn"] = daysAgo(20)
	var out struct {
		CreateDebt struct {
			ID       int
			Debtor   struct{ ID string }
			Invoices []struct{ ID int }
		}
	}
	c.Do(t, `mutation($c: UUID!, $in: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $in) { id debtor { id } invoices { id } } }`,
		apitest.Vars{"c": clientID, "in": in}).OK(t, &out)
	d := out.CreateDebt
	applyPaymentOrder(t, c, clientID, d.ID).OK(t, nil)
	c.Do(t, dataRightsAnonymize, apitest.Vars{"c": clientID, "id": d.Debtor.ID}).Refused(t, http.StatusConflict, "CONFLICT", "")
	// Paying the items and the payment order's fees closes it.
	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, "1680.00", daysAgo(0))
	c.Do(t, dataRightsAnonymize, apitest.Vars{"c": clientID, "id": d.Debtor.ID}).OK(t, nil)
}
