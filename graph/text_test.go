package graph_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

// API tests of the text rule (decisions.md, "Text"): every String input is
// valid UTF-8 without control characters (but TAB, LF and CR) or Unicode
// noncharacters, and only descriptions and comments may hold tabs and line
// breaks. A refusal is BAD_USER_INPUT (HTTP 400, no data) on the field,
// writes nothing, and is the same on PostgreSQL (which cannot store NUL)
// and SQLite (which can).

// textCase is a character put in the middle of a value ("a" + it + "b").
type textCase struct {
	name, char string
	// code is how the refusal names the character.
	code string
	// line is true for TAB, LF and CR: refused only in single-line fields.
	line bool
}

var textCases = []textCase{
	{"NUL", "\x00", "U+0000", false},
	{"U+0001", "\x01", "U+0001", false},
	{"U+001F", "\x1f", "U+001F", false},
	{"DEL U+007F", "\x7f", "U+007F", false},
	{"C1 U+0080", "\u0080", "U+0080", false},
	{"C1 NEL U+0085", "\u0085", "U+0085", false},
	{"C1 U+009F", "\u009f", "U+009F", false},
	{"noncharacter U+FFFF", "\uffff", "U+FFFF", false},
	{"noncharacter U+FFFE", "\ufffe", "U+FFFE", false},
	{"noncharacter U+FDD0", "\ufdd0", "U+FDD0", false},
	{"noncharacter U+FDEF", "\ufdef", "U+FDEF", false},
	{"noncharacter U+10FFFF", "\U0010ffff", "U+10FFFF", false},
	{"LF", "\n", "U+000A", true},
	{"CR LF", "\r\n", "U+000D", true},
	{"TAB", "\t", "U+0009", true},
}

// textTarget is a String input field, reached through one operation.
type textTarget struct {
	name  string
	field string // extensions.field of a refusal
	// multiline: free text (descriptions, comments) takes tabs and line
	// breaks.
	multiline bool
	// send sends value in the field.
	send func(t *testing.T, value string) *apitest.Response
	// written counts the records the operation writes; nil for queries.
	written func(t *testing.T) int
}

// textFixture is a client with a debt and an invoice, and the targets that
// reach every kind of String input through it.
func textTargets(t *testing.T, env *apitest.Env) []textTarget {
	admin := env.Admin()
	clientID, _ := env.NewClient(t, "Text AB")
	var seq atomic.Int64
	next := func(prefix string) string { return fmt.Sprintf("%s-%d", prefix, seq.Add(1)) }

	// A debt to withdraw: a new one for every send, since an accepted
	// comment withdraws it.
	newDebt := func(t *testing.T) int {
		d := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Anna Ek", debtCaseItemInput(next("W"), "100.00")))
		return d.ID
	}
	newInvoice := func(t *testing.T) string {
		return invoiceMust(t, admin, clientID, invoiceInput(next("WI"))).ID
	}
	count := func(query, field string, vars apitest.Vars) func(t *testing.T) int {
		return func(t *testing.T) int {
			t.Helper()
			all := apitest.Vars{"c": clientID}
			for k, v := range vars {
				all[k] = v
			}
			var out struct{ TotalCount int }
			admin.Do(t, query, all).Field(t, field, &out)
			return out.TotalCount
		}
	}
	debtors := count(`query($c: UUID!) { debtors(clientId: $c) { totalCount } }`, "debtors", nil)
	debts := count(`query($c: UUID!) { debts(clientId: $c) { totalCount } }`, "debts", nil)
	invoices := count(`query($c: UUID!) { invoices(clientId: $c) { totalCount } }`, "invoices", nil)
	withdrawnDebts := count(`query($c: UUID!) { debts(clientId: $c, filter: {activeStatus: INACTIVE}) { totalCount } }`, "debts", nil)
	withdrawnInvoices := count(`query($c: UUID!) { invoices(clientId: $c, filter: {invoiceStatus: WITHDRAWN}) { totalCount } }`, "invoices", nil)
	clients := func(t *testing.T) int {
		var out struct{ TotalCount int }
		admin.Do(t, `{ clients { totalCount } }`, nil).Field(t, "clients", &out)
		return out.TotalCount
	}
	apiKeys := func(t *testing.T) int {
		var out struct{ TotalCount int }
		admin.Do(t, `{ apiKeys { totalCount } }`, nil).Field(t, "apiKeys", &out)
		return out.TotalCount
	}
	search := func(list, filterType string) func(t *testing.T, s string) *apitest.Response {
		q := fmt.Sprintf(`query($c: UUID!, $f: %s) { %s(clientId: $c, filter: $f) { totalCount } }`, filterType, list)
		return func(t *testing.T, s string) *apitest.Response {
			return admin.Do(t, q, apitest.Vars{"c": clientID, "f": apitest.Vars{"searchTerm": s}})
		}
	}
	return []textTarget{
		{name: "debts search term", field: "filter.searchTerm", send: search("debts", "DebtFilter")},
		{name: "debtors search term", field: "filter.searchTerm", send: search("debtors", "DebtorFilter")},
		{name: "invoices search term", field: "filter.searchTerm", send: search("invoices", "InvoiceFilter")},
		{name: "clients search", field: "search", send: func(t *testing.T, s string) *apitest.Response {
			return admin.Do(t, `query($s: String) { clients(search: $s) { totalCount } }`, apitest.Vars{"s": s})
		}},
		{name: "debtor name", field: "input.name", written: debtors, send: func(t *testing.T, s string) *apitest.Response {
			return debtorCreate(t, admin, clientID, debtorInput(s, apitest.Samordning))
		}},
		{name: "debtor city", field: "input.address.city", written: debtors, send: func(t *testing.T, s string) *apitest.Response {
			return debtorCreate(t, admin, clientID, debtorSet(debtorInput("Eva Ek", apitest.Samordning), "address.city", s))
		}},
		{name: "client name", field: "input.name", written: clients, send: func(t *testing.T, s string) *apitest.Response {
			return admin.Do(t, apitest.CreateClientMutation, apitest.Vars{"input": apitest.ClientInput(s)})
		}},
		{name: "API key name", field: "input.name", written: apiKeys, send: func(t *testing.T, s string) *apitest.Response {
			return admin.Do(t, `mutation($n: String!) { createApiKey(input: {name: $n, role: ADMIN}) { secret } }`, apitest.Vars{"n": s})
		}},
		{name: "invoice number", field: "input.invoiceNumber", written: invoices, send: func(t *testing.T, s string) *apitest.Response {
			return invoiceCreate(t, admin, clientID, invoiceInput(s))
		}},
		{name: "article description", field: "input.articles.0.description", multiline: true, written: invoices,
			send: func(t *testing.T, s string) *apitest.Response {
				in := invoiceInput(next("AD"))
				invoiceArticles(in)[0]["description"] = s
				return invoiceCreate(t, admin, clientID, in)
			}},
		{name: "debt item invoice number", field: "input.debts.0.invoiceNumber", written: debts, send: func(t *testing.T, s string) *apitest.Response {
			return debtCaseCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Anna Ek", debtCaseItemInput(s, "100.00")))
		}},
		{name: "debt item description", field: "input.debts.0.description", multiline: true, written: debts,
			send: func(t *testing.T, s string) *apitest.Response {
				item := debtCaseItemInput(next("DD"), "100.00")
				item["description"] = s
				return debtCaseCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Anna Ek", item))
			}},
		{name: "withdrawDebt comment", field: "input.comment", multiline: true, written: withdrawnDebts,
			send: func(t *testing.T, s string) *apitest.Response {
				return debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": newDebt(t), "comment": s})
			}},
		{name: "withdrawInvoice comment", field: "comment", multiline: true, written: withdrawnInvoices,
			send: func(t *testing.T, s string) *apitest.Response {
				return invoiceWithdraw(t, admin, clientID, newInvoice(t), s)
			}},
	}
}

// TestTextRule sends every refused character through every kind of String
// input: refused with BAD_USER_INPUT on the field, naming the character,
// and nothing written; tabs and line breaks are accepted in descriptions
// and comments only.
func TestTextRule(t *testing.T) {
	env := apitest.New(t)
	for _, target := range textTargets(t, env) {
		t.Run(target.name, func(t *testing.T) {
			for _, tc := range textCases {
				t.Run(tc.name, func(t *testing.T) {
					before := 0
					if target.written != nil {
						before = target.written(t)
					}
					r := target.send(t, "a"+tc.char+"b")
					after := 0
					if target.written != nil {
						after = target.written(t)
					}
					if tc.line && target.multiline {
						r.OK(t, nil)
						if target.written != nil && after != before+1 {
							t.Fatalf("accepted, but %d records before and %d after", before, after)
						}
						return
					}
					r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", target.field)
					if len(r.Errors) != 1 {
						t.Errorf("want one error, got %s", r)
					}
					if msg := r.Errors[0].Message; !strings.Contains(msg, tc.code) {
						t.Errorf("the message %q does not name %s", msg, tc.code)
					}
					if after != before {
						t.Errorf("refused, but %d records before and %d after", before, after)
					}
				})
			}
		})
	}
}

// TestTextRuleSameInline: a value written in the document (a GraphQL
// string escape) is refused as the same value in a variable is: the code,
// the status and the field are the same.
func TestTextRuleSameInline(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin()
	clientID, _ := env.NewClient(t, "Inline AB")
	invoice := invoiceMust(t, admin, clientID, invoiceInput("INL-1")).ID
	debt := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Anna Ek", debtCaseItemInput("INL-2", "100.00"))).ID
	for _, tc := range []struct {
		name, doc, field string
	}{
		{"search term", `{ debts(clientId: "@C@", filter: {searchTerm: "a\u0000b"}) { totalCount } }`, "filter.searchTerm"},
		{"search term tab", `{ debtors(clientId: "@C@", filter: {searchTerm: "a\tb"}) { totalCount } }`, "filter.searchTerm"},
		{"clients search", `{ clients(search: "\uFFFF") { totalCount } }`, "search"},
		{"debtor name", `mutation { createDebtor(clientId: "@C@", input: {isCorporation: false, identificationNumber: "X1",
		  name: "a\u0085b", address: {address1: "Gata 1", zipCode: "0150", city: "Oslo", countryCode: "NO"}}) { id } }`, "input.name"},
		{"debtor name newline", `mutation { createDebtor(clientId: "@C@", input: {isCorporation: false, identificationNumber: "X1",
		  name: "a\nb", address: {address1: "Gata 1", zipCode: "0150", city: "Oslo", countryCode: "NO"}}) { id } }`, "input.name"},
		{"withdrawInvoice comment", `mutation { withdrawInvoice(clientId: "@C@", id: "@I@", comment: "a\u0000b") { id } }`, "comment"},
		{"withdrawDebt comment", `mutation { withdrawDebt(clientId: "@C@", input: {id: @D@, comment: "\uFDD0"}) { id } }`, "input.comment"},
		{"cursor", `{ debts(clientId: "@C@", after: "a\u0000b") { totalCount } }`, "after"},
		{"audit operation", `{ auditEvents(filter: {operation: "createDebt\u007F"}) { totalCount } }`, "filter.operation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.NewReplacer("@C@", clientID, "@I@", invoice, "@D@", fmt.Sprint(debt)).Replace(tc.doc)
			r := admin.Do(t, doc, nil)
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", tc.field)
		})
	}
	// Nothing was withdrawn or created.
	if got := invoiceRead(t, admin, clientID, invoice); got == nil || got.WithdrawnAt != nil {
		t.Errorf("the invoice was withdrawn: %+v", got)
	}
	if got := debtCaseMustGet(t, admin, clientID, debt); got.WithdrawnAt != nil {
		t.Errorf("the debt was withdrawn: %+v", got)
	}
	if n := len(debtorList(t, admin, clientID, nil).Nodes); n != 1 {
		t.Errorf("the client has %d debtors, want 1", n)
	}
}

// TestTextRuleKeepsText: what the rule allows is stored as given: line
// breaks and tabs inside a description and a comment, and characters that
// are neither controls nor noncharacters (U+FFFD, U+00A0, emoji, U+202E).
func TestTextRuleKeepsText(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin()
	clientID, _ := env.NewClient(t, "Keeps AB")
	desc := "rad 1\r\nrad 2\tkolumn"
	name := "Åsa \u00a0Öberg \ufffd 😀 \u202e"
	item := debtCaseItemInput("K-1", "100.00")
	item["description"] = desc
	d := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, name, item))
	if got := d.Invoices[0].Description; got == nil || *got != desc {
		t.Errorf("description = %q, want %q", debtorDeref(got), desc)
	}
	if d.Debtor.Name != name {
		t.Errorf("name = %q, want %q", d.Debtor.Name, name)
	}
	comment := "första raden\nandra raden"
	var w debtCaseDebt
	debtCaseWithdraw(t, admin, clientID, apitest.Vars{"id": d.ID, "comment": comment}).Field(t, "withdrawDebt", &w)
	if w.WithdrawComment == nil || *w.WithdrawComment != comment {
		t.Errorf("comment = %q, want %q", debtorDeref(w.WithdrawComment), comment)
	}
	// Surrounding white space, newlines included, is trimmed, not refused.
	var out struct{ ID, Name string }
	debtorCreate(t, admin, clientID, debtorInput("\n Eva Ek\t\n", apitest.Samordning)).Field(t, "createDebtor", &out)
	if out.Name != "Eva Ek" {
		t.Errorf("name = %q, want it trimmed to %q", out.Name, "Eva Ek")
	}
}
