package graph_test

import (
	stdsql "database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/collection"
)

// The collection terms, fees, claims, allocations and payment references
// of api.md §10, through the API.

const termsClaimSelection = `id originalAmount paidAmount remainingAmount overpaidAmount paymentReference
  terms { interest collectionFee lateCompensation }
  invoices { id interestRate reminderFee claim(asOf: $asOf) { principal { charged paid outstanding } interest { charged paid outstanding } } }
  claim(asOf: $asOf) { asOf principal { charged paid outstanding } interest { charged paid outstanding }
    fees { charged paid outstanding } total { charged paid outstanding } overpaidAmount charges { kind amount chargedOn } }
  payments { id amount allocation { fees interest principal credit } }`

type termsPart struct{ Charged, Paid, Outstanding string }

type termsDebt struct {
	ID               int
	OriginalAmount   string
	PaidAmount       string
	RemainingAmount  string
	OverpaidAmount   string
	PaymentReference string
	Terms            struct {
		Interest         string
		CollectionFee    string
		LateCompensation bool
	}
	Invoices []struct {
		ID           int
		InterestRate *string
		ReminderFee  *string
		Claim        struct{ Principal, Interest termsPart }
	}
	Claim struct {
		AsOf                             string
		Principal, Interest, Fees, Total termsPart
		OverpaidAmount                   string
		Charges                          []struct{ Kind, Amount, ChargedOn string }
	}
	Payments []struct {
		ID         int
		Amount     string
		Allocation struct{ Fees, Interest, Principal, Credit string }
	}
}

func termsCreate(t *testing.T, c *apitest.Caller, clientID string, in apitest.Vars) *apitest.Response {
	t.Helper()
	return c.Do(t, `mutation($c: UUID!, $in: DebtorWithDebtsInput!, $asOf: Date) { createDebt(clientId: $c, input: $in) { `+termsClaimSelection+` } }`,
		apitest.Vars{"c": clientID, "in": in, "asOf": nil})
}

func termsRead(t *testing.T, c *apitest.Caller, clientID string, id int, asOf any) termsDebt {
	t.Helper()
	var out struct{ Debt termsDebt }
	c.Do(t, `query($c: UUID!, $id: Int!, $asOf: Date) { debt(clientId: $c, id: $id) { `+termsClaimSelection+` } }`,
		apitest.Vars{"c": clientID, "id": id, "asOf": asOf}).OK(t, &out)
	return out.Debt
}

func termsMustCreate(t *testing.T, c *apitest.Caller, clientID string, in apitest.Vars) termsDebt {
	t.Helper()
	var out struct{ CreateDebt termsDebt }
	termsCreate(t, c, clientID, in).OK(t, &out)
	return out.CreateDebt
}

func termsPay(t *testing.T, c *apitest.Caller, clientID string, debtID, itemID int, amount, date string) {
	t.Helper()
	debtCasePay(t, c, clientID, debtID, itemID, amount, date).OK(t, nil)
}

// A debt under default terms reads its claim as the part-one amounts.
func TestTermsDefaultClaimIsThePartOneAmounts(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Standard AB")
	var client struct {
		Client struct {
			CollectionTerms struct {
				Interest         string
				CollectionFee    string
				LateCompensation bool
			}
		}
	}
	c.Do(t, `query($c: UUID!) { client(id: $c) { collectionTerms { interest collectionFee lateCompensation } } }`, apitest.Vars{"c": clientID}).OK(t, &client)
	if ct := client.Client.CollectionTerms; ct.Interest != "NONE" || ct.CollectionFee != "0.00" || ct.LateCompensation {
		t.Fatalf("a new client's terms are %+v, want NONE, 0.00, false", ct)
	}
	d := termsMustCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson",
		debtCaseItemInput("F-1", "1000.00"), debtCaseItemInput("F-2", "500.00")))
	termsPay(t, c, clientID, d.ID, d.Invoices[1].ID, "600.00", "2026-10-05")
	got := termsRead(t, c, clientID, d.ID, nil)
	want := termsPart{Charged: "1500.00", Paid: "600.00", Outstanding: "900.00"}
	if got.Claim.Principal != want || got.Claim.Total != want || got.Claim.Interest != (termsPart{"0.00", "0.00", "0.00"}) ||
		got.Claim.Fees != (termsPart{"0.00", "0.00", "0.00"}) || len(got.Claim.Charges) != 0 || got.Claim.OverpaidAmount != "0.00" {
		t.Errorf("claim under default terms: %+v, want principal and total %+v and nothing else", got.Claim, want)
	}
	if got.RemainingAmount != got.Claim.Total.Outstanding || got.OverpaidAmount != got.Claim.OverpaidAmount {
		t.Errorf("remaining %s / overpaid %s differ from the claim %+v", got.RemainingAmount, got.OverpaidAmount, got.Claim)
	}
	// The payment on F-2 (500.00) pays F-2 and then 100.00 of F-1.
	if a := got.Payments[0].Allocation; a.Principal != "600.00" || a.Fees != "0.00" || a.Interest != "0.00" || a.Credit != "0.00" {
		t.Errorf("allocation %+v, want 600.00 of principal", a)
	}
	if ic := got.Invoices[1].Claim.Principal; ic != (termsPart{"500.00", "500.00", "0.00"}) {
		t.Errorf("F-2's principal part %+v, want paid in full", ic)
	}
	if ic := got.Invoices[0].Claim.Principal; ic != (termsPart{"1000.00", "100.00", "900.00"}) {
		t.Errorf("F-1's principal part %+v, want 100.00 paid", ic)
	}
	if got.Invoices[0].InterestRate != nil || got.Invoices[0].ReminderFee != nil {
		t.Errorf("an item without agreed rate or reminder fee reads %v / %v, want null", got.Invoices[0].InterestRate, got.Invoices[0].ReminderFee)
	}
	// The payment reference is the id, a length digit and a check digit,
	// and finds the debt (spaces ignored), on its own and under ALL.
	if id, ok := collection.ParsePaymentReference(got.PaymentReference); !ok || id != d.ID {
		t.Fatalf("paymentReference %q does not name debt %d", got.PaymentReference, d.ID)
	}
	spaced := got.PaymentReference[:2] + " " + got.PaymentReference[2:]
	for _, typ := range []string{"PAYMENT_REFERENCE", "ALL"} {
		page := debtCaseList(t, c, clientID, apitest.Vars{"filter": apitest.Vars{"searchType": typ, "searchTerm": spaced}})
		if ids := debtCaseIDs(page.Nodes); len(ids) != 1 || ids[0] != d.ID {
			t.Errorf("%s search for %q finds %v, want [%d]", typ, spaced, ids, d.ID)
		}
	}
	wrong := got.PaymentReference[:len(got.PaymentReference)-1] + string(rune('0'+(got.PaymentReference[len(got.PaymentReference)-1]-'0'+1)%10))
	c.Do(t, `query($c: UUID!, $t: String!) { debts(clientId: $c, filter: {searchType: PAYMENT_REFERENCE, searchTerm: $t}) { totalCount } }`,
		apitest.Vars{"c": clientID, "t": wrong}).Refused(t, 400, "BAD_USER_INPUT", "filter.searchTerm")
}

// setCollectionTerms: ADMIN only, range-checked, one audit event; new debts
// copy the terms, existing ones keep theirs.
func TestSetCollectionTerms(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Villkor AB")
	before := termsMustCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput("F-1", "1000.00")))
	const set = `mutation($c: UUID!, $in: CollectionTermsInput!) { setCollectionTerms(clientId: $c, input: $in) { collectionTerms { interest collectionFee lateCompensation } } }`
	terms := apitest.Vars{"interest": "STATUTORY", "collectionFee": "180.00", "lateCompensation": true}
	c.Do(t, set, apitest.Vars{"c": clientID, "in": terms}).Refused(t, 403, "FORBIDDEN", "")
	for _, fee := range []string{"180.01", "-0.01"} {
		env.Admin().Do(t, set, apitest.Vars{"c": clientID, "in": apitest.Vars{"interest": "NONE", "collectionFee": fee, "lateCompensation": false}}).
			Refused(t, 400, "BAD_USER_INPUT", "input.collectionFee")
	}
	env.Admin().Do(t, set, apitest.Vars{"c": "00000000-0000-4000-8000-000000000000", "in": terms}).Refused(t, 404, "NOT_FOUND", "")
	if n := operationEvents(t, env, "setCollectionTerms"); n != 0 {
		t.Fatalf("refusals wrote %d events", n)
	}
	env.Admin().Do(t, set, apitest.Vars{"c": clientID, "in": terms}).OK(t, nil)
	if n := operationEvents(t, env, "setCollectionTerms"); n != 1 {
		t.Errorf("setCollectionTerms wrote %d events, want 1", n)
	}
	after := termsMustCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput("F-2", "1000.00")))
	if after.Terms.Interest != "STATUTORY" || after.Terms.CollectionFee != "180.00" || !after.Terms.LateCompensation {
		t.Errorf("a new debt's terms %+v, want the client's", after.Terms)
	}
	// A private debtor: the collection fee, not the late compensation.
	if ch := after.Claim.Charges; len(ch) != 1 || ch[0].Kind != "COLLECTION_FEE" || ch[0].Amount != "180.00" {
		t.Errorf("charges %+v, want the collection fee 180.00", ch)
	}
	if old := termsRead(t, c, clientID, before.ID, nil); old.Terms.Interest != "NONE" || old.Terms.CollectionFee != "0.00" || len(old.Claim.Charges) != 0 {
		t.Errorf("the earlier debt's terms changed: %+v, charges %+v", old.Terms, old.Claim.Charges)
	}
}

// operationEvents counts the audit events of an operation.
func operationEvents(t *testing.T, env *apitest.Env, operation string) int {
	t.Helper()
	var out struct{ AuditEvents struct{ TotalCount int } }
	env.Admin().Do(t, `query($o: String!) { auditEvents(filter: {operation: $o}) { totalCount } }`, apitest.Vars{"o": operation}).OK(t, &out)
	return out.AuditEvents.TotalCount
}

// Terms given with the debt, an agreed rate and reminder fees: the fees
// are charged at hand-over, interest accrues by the day, and a payment
// pays fees, then the item's interest, then principal.
func TestTermsInterestFeesAndAllocation(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 3, 1, 12, 0, 0, 0, apitest.Stockholm))
	clientID, c := env.ClientCaller(t, "Ränta AB")
	item := debtCaseItemInput("F-1", "1000.00")
	item["invoiceDate"], item["dueDate"] = "2025-12-01T10:00:00+01:00", "2026-01-01T10:00:00+01:00"
	item["interestRate"], item["reminderFee"] = "10", "60.00"
	in := apitest.Vars{"isCorporation": true, "identificationNumber": "5560360793", "name": "Gäldär AB",
		"address": debtCaseSEAddress(), "debts": []apitest.Vars{item},
		"terms": apitest.Vars{"interest": "NONE", "collectionFee": "180.00", "lateCompensation": true}}
	d := termsMustCreate(t, c, clientID, in)
	if r := d.Invoices[0]; r.InterestRate == nil || *r.InterestRate != "10.00" || r.ReminderFee == nil || *r.ReminderFee != "60.00" {
		t.Errorf("item reads rate %v, reminder fee %v", r.InterestRate, r.ReminderFee)
	}
	// A corporate debtor under lateCompensation: 450.00 instead of 180.00.
	if ch := d.Claim.Charges; len(ch) != 2 || ch[0].Kind != "REMINDER_FEE" || ch[0].Amount != "60.00" ||
		ch[1].Kind != "LATE_COMPENSATION" || ch[1].Amount != "450.00" {
		t.Fatalf("charges %+v, want the reminder fee and the late compensation", ch)
	}
	// 1000.00 at 10 % from 2026-01-02 to 2026-12-31 (364 days):
	// 100000 öre × 0.10 × 364 / 365 = 9972.6 öre, 99.73.
	got := termsRead(t, c, clientID, d.ID, "2026-12-31")
	if got.Claim.Interest != (termsPart{"99.73", "0.00", "99.73"}) || got.Claim.Fees != (termsPart{"510.00", "0.00", "510.00"}) ||
		got.Claim.Total != (termsPart{"1609.73", "0.00", "1609.73"}) || got.Claim.AsOf != "2026-12-31" {
		t.Errorf("claim on 2026-12-31: %+v", got.Claim)
	}
	if ch := d.Claim.Charges; ch[0].ChargedOn != "2026-03-01" || ch[1].ChargedOn != "2026-03-01" {
		t.Errorf("fees charged on %s and %s, want the hand-over day 2026-03-01", ch[0].ChargedOn, ch[1].ChargedOn)
	}
	// A payment of 600.00 on the hand-over day pays the fees (510.00),
	// then F-1's interest to that day (59 days: 100000 öre × 0.10 × 59 /
	// 365 = 1616.4 öre, 16.16), then 73.84 of principal.
	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, "600.00", "2026-03-01")
	got = termsRead(t, c, clientID, d.ID, "2026-03-01")
	if a := got.Payments[0].Allocation; a.Fees != "510.00" || a.Interest != "16.16" || a.Principal != "73.84" || a.Credit != "0.00" {
		t.Errorf("allocation %+v, want fees 510.00, interest 16.16, principal 73.84", a)
	}
	if p := got.Invoices[0].Claim.Principal; p != (termsPart{"1000.00", "73.84", "926.16"}) {
		t.Errorf("item principal %+v", p)
	}
	// A payment dated before the fees were charged pays principal only
	// (interest first): 50.00 on 2026-02-01 pays the 8.49 of interest
	// accrued by then (31 days: 849.3 öre) and 41.51 of principal, and the
	// later payment is applied again after it.
	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, "50.00", "2026-02-01")
	got = termsRead(t, c, clientID, d.ID, "2026-03-01")
	byAmount := map[string]struct{ Fees, Interest, Principal, Credit string }{}
	for _, p := range got.Payments {
		byAmount[p.Amount] = p.Allocation
	}
	if a := byAmount["50.00"]; a.Fees != "0.00" || a.Interest != "8.49" || a.Principal != "41.51" {
		t.Errorf("backdated payment's allocation %+v, want interest 8.49, principal 41.51", a)
	}
	// Interest to 2026-03-01 on the reduced principal: 31 days on 1000.00
	// (849.3 öre) and 28 days on 958.49 (735.3 öre): 1584.6 öre, 15.85 in
	// all, of which 8.49 is paid: 7.36 is left for the second payment.
	if a := byAmount["600.00"]; a.Fees != "510.00" || a.Interest != "7.36" || a.Principal != "82.64" {
		t.Errorf("re-applied payment's allocation %+v, want fees 510.00, interest 7.36, principal 82.64", a)
	}
	// A date before 1900 is refused on asOf.
	c.Do(t, `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { claim(asOf: "1899-12-31") { asOf } } }`,
		apitest.Vars{"c": clientID, "id": d.ID}).Refused(t, 400, "BAD_USER_INPUT", "")
}

// Out-of-range terms and item fields are refused with their field, and
// nothing is written.
func TestTermsInputRules(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Fel AB")
	cases := []struct {
		name  string
		edit  func(in apitest.Vars)
		field string
	}{
		{"collection fee above 180", func(in apitest.Vars) {
			in["terms"] = apitest.Vars{"interest": "NONE", "collectionFee": "180.01", "lateCompensation": false}
		}, "input.terms.collectionFee"},
		{"agreed rate above 100", func(in apitest.Vars) { in["debts"].([]apitest.Vars)[0]["interestRate"] = "100.01" }, "input.debts.0.interestRate"},
		{"negative agreed rate", func(in apitest.Vars) { in["debts"].([]apitest.Vars)[0]["interestRate"] = "-1" }, "input.debts.0.interestRate"},
		{"reminder fee above 60", func(in apitest.Vars) { in["debts"].([]apitest.Vars)[0]["reminderFee"] = "60.01" }, "input.debts.0.reminderFee"},
	}
	for _, tc := range cases {
		in := debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput("F-1", "1000.00"))
		tc.edit(in)
		r := termsCreate(t, c, clientID, in)
		r.Refused(t, 400, "BAD_USER_INPUT", tc.field)
		if !strings.Contains(string(r.Body), tc.field) {
			t.Errorf("%s: %s", tc.name, r.Body)
		}
	}
	if debts, _, _, _ := debtCaseCounts(t, env, clientID); debts != 0 {
		t.Errorf("refused hand-overs wrote %d debts", debts)
	}
	var fees int
	if err := env.DB.SQL.QueryRow(`SELECT count(*) FROM fees`).Scan(&fees); err != nil {
		t.Fatal(err)
	}
	if fees != 0 {
		t.Errorf("refused hand-overs charged %d fees", fees)
	}
}

// A withdrawn debt's claim reads as on the day it was withdrawn.
func TestTermsWithdrawnClaimStops(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Återkallat AB")
	item := debtCaseItemInput("F-1", "1000.00")
	item["invoiceDate"], item["dueDate"], item["interestRate"] = "2025-12-01T10:00:00+01:00", "2026-01-01T10:00:00+01:00", "10"
	d := termsMustCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson", item))
	debtCaseWithdraw(t, c, clientID, apitest.Vars{"id": d.ID}).OK(t, nil)
	today := termsRead(t, c, clientID, d.ID, nil)
	later := termsRead(t, c, clientID, d.ID, "2040-01-01")
	if later.Claim.AsOf != today.Claim.AsOf || later.Claim.Interest != today.Claim.Interest {
		t.Errorf("a withdrawn debt's claim moved on: %+v (today) vs %+v (2040)", today.Claim, later.Claim)
	}
}

// A debt's claim is computed once per operation, however many of its
// items and payments ask for their part: as many statements for one
// payment as for four.
func TestTermsClaimReadOncePerDebt(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Engång AB")
	d := termsMustCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson",
		debtCaseItemInput("F-1", "1000.00"), debtCaseItemInput("F-2", "500.00")))
	const read = `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) {
	  claim { total { outstanding } } invoices { claim { principal { paid } } } payments { allocation { principal credit } } } }`
	count := func() int {
		termsRead(t, c, clientID, d.ID, nil) // the key's lastUsedAt is written once
		env.Statements.Reset()
		c.Do(t, read, apitest.Vars{"c": clientID, "id": d.ID}).OK(t, nil)
		return env.Statements.Count()
	}
	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, "10.00", "2026-10-05")
	one := count()
	for range 3 {
		termsPay(t, c, clientID, d.ID, d.Invoices[1].ID, "10.00", "2026-10-06")
	}
	if four := count(); four != one {
		t.Errorf("%d statements with one payment, %d with four: the claim is read per payment", one, four)
	}
}

// A page of debts that selects their claims reads the claims' facts with
// the same statements whatever the page's size: items, payments and fees
// of the whole page at once, and the reference rates once.
func TestTermsClaimPageStatementsFixed(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Sida AB")
	for i := range 12 {
		item := debtCaseItemInput(fmt.Sprintf("F-%d", i), "1000.00")
		item["invoiceDate"], item["dueDate"] = "2026-01-01T10:00:00+01:00", "2026-02-01T10:00:00+01:00"
		in := debtCaseInput("198112189876", "Anna Andersson", item)
		in["terms"] = apitest.Vars{"interest": "STATUTORY", "collectionFee": "180.00", "lateCompensation": false}
		d := termsMustCreate(t, c, clientID, in)
		termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, "100.00", "2026-03-01")
	}
	const page = `query($c: UUID!, $n: Int!) { debts(clientId: $c, rowsPerPage: $n) { nodes { id remainingAmount
	  claim { total { outstanding } interest { outstanding } } } } }`
	count := func(n int) int {
		c.Do(t, page, apitest.Vars{"c": clientID, "n": n}).OK(t, nil) // the key's lastUsedAt is written once
		env.Statements.Reset()
		var out struct {
			Debts struct {
				Nodes []struct {
					RemainingAmount string
					Claim           struct{ Total, Interest termsPart }
				}
			}
		}
		c.Do(t, page, apitest.Vars{"c": clientID, "n": n}).OK(t, &out)
		for _, d := range out.Debts.Nodes {
			if d.Claim.Interest.Outstanding == "0.00" || d.RemainingAmount != d.Claim.Total.Outstanding {
				t.Fatalf("a debt of the page reads interest %+v, remaining %s, total %+v", d.Claim.Interest, d.RemainingAmount, d.Claim.Total)
			}
		}
		if len(out.Debts.Nodes) != n {
			t.Fatalf("a page of %d holds %d debts", n, len(out.Debts.Nodes))
		}
		return env.Statements.Count()
	}
	if small, large := count(2), count(12); small != large {
		t.Errorf("%d statements for a page of 2, %d for a page of 12: the claims are read per debt", small, large)
	}
}

// An item handed over before its due day was kept (due_on empty) has its
// due day read from its due date in the service's time zone: its claim is
// the same.
func TestTermsClaimOfAnItemWithoutItsDueDay(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 3, 1, 12, 0, 0, 0, apitest.Stockholm))
	clientID, c := env.ClientCaller(t, "Äldre AB")
	item := debtCaseItemInput("F-1", "1000.00")
	item["invoiceDate"], item["dueDate"] = "2025-12-01T10:00:00+01:00", "2026-01-01T10:00:00+01:00"
	item["interestRate"] = "10"
	d := termsMustCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson", item))
	before := termsRead(t, c, clientID, d.ID, "2026-03-01")
	if _, err := env.DB.SQL.Exec("UPDATE debt_invoices SET due_on = NULL WHERE debt_id = " + fmt.Sprint(d.ID)); err != nil {
		t.Fatal(err)
	}
	after := termsRead(t, c, clientID, d.ID, "2026-03-01")
	if before.Claim.Interest != after.Claim.Interest || before.Claim.Interest.Charged == "0.00" {
		t.Errorf("interest with due_on %+v, without %+v", before.Claim.Interest, after.Claim.Interest)
	}
}

// The claims of a page whose selection loads the debts' items (under any
// alias, with any of their fields) take the items from that load: the
// claims are the same as when the facts statement reads them, and a page
// of debts with neither payments nor fees reads no facts at all.
func TestTermsClaimPageFromLoadedItems(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 6, 1, 12, 0, 0, 0, apitest.Stockholm))
	clientID, c := env.ClientCaller(t, "Laddat AB")
	dated := func(number, amount, due string) apitest.Vars {
		it := debtCaseItemInput(number, amount)
		it["invoiceDate"], it["dueDate"] = "2026-01-01T10:00:00+01:00", due
		return it
	}
	agreed := dated("A-2", "500.00", "2026-02-15T10:00:00+01:00")
	agreed["interestRate"] = "12"
	statutory := debtCaseInput("198112189876", "Anna Andersson", dated("A-1", "1000.00", "2026-02-01T10:00:00+01:00"), agreed)
	statutory["terms"] = apitest.Vars{"interest": "STATUTORY", "collectionFee": "180.00", "lateCompensation": false}
	s := termsMustCreate(t, c, clientID, statutory)
	termsPay(t, c, clientID, s.ID, s.Invoices[1].ID, "200.00", "2026-04-01")
	old := dated("B-1", "800.00", "2026-03-01T10:00:00+01:00")
	old["interestRate"] = "9"
	o := termsMustCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson", old))
	// Handed over before the due day was kept: the claim dates it by its due date.
	if _, err := env.DB.SQL.Exec(fmt.Sprintf("UPDATE debt_invoices SET due_on = NULL WHERE debt_id = %d", o.ID)); err != nil {
		t.Fatal(err)
	}
	termsMustCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson", dated("C-1", "300.00", "2026-05-01T10:00:00+02:00")))

	const claim = `claim { principal { charged paid outstanding } interest { charged paid outstanding } fees { charged paid outstanding } total { charged paid outstanding } }`
	claims := func(items string) map[int]any {
		var out struct {
			Debts struct {
				Nodes []struct {
					ID    int
					Claim any
				}
			}
		}
		c.Do(t, `query($c: UUID!) { debts(clientId: $c) { nodes { id `+items+` `+claim+` } } }`, apitest.Vars{"c": clientID}).OK(t, &out)
		m := map[int]any{}
		for _, n := range out.Debts.Nodes {
			m[n.ID] = n.Claim
		}
		return m
	}
	read := claims("")
	if len(read) != 3 {
		t.Fatalf("%d debts", len(read))
	}
	for _, items := range []string{"invoices { amount }", "lines: invoices { invoiceNumber }", "invoices { id } other: invoices { dueDate }"} {
		if loaded := claims(items); !reflect.DeepEqual(loaded, read) {
			t.Errorf("with %s the claims are\n%v\nread apart they are\n%v", items, loaded, read)
		}
	}
	if fmt.Sprint(read[s.ID]) == fmt.Sprint(read[o.ID]) || !strings.Contains(fmt.Sprint(read[o.ID]), "charged:") {
		t.Fatalf("claims %v", read)
	}

	// Unpaid debts without fees: the page's load is all the claims need.
	client2, c2 := env.ClientCaller(t, "Enkel AB")
	for i := range 3 {
		termsMustCreate(t, c2, client2, debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput(fmt.Sprintf("E-%d", i), "100.00")))
	}
	// Their items' claims read the page's items once and nothing more (the
	// debts' own claims follow from their kept amounts:
	// TestTermsClaimFromKeptAmounts).
	q := `query($c: UUID!) { debts(clientId: $c) { nodes { id invoices { amount claim { principal { outstanding } } } } } }`
	c2.Do(t, q, apitest.Vars{"c": client2}).OK(t, nil)
	env.Statements.Reset()
	c2.Do(t, q, apitest.Vars{"c": client2}).OK(t, nil)
	pages, items := 0, 0
	for _, st := range env.Statements.Log() {
		switch {
		case strings.Contains(st, "payments") || strings.Contains(st, "fees"):
			t.Errorf("the claims of unpaid debts without fees read %s", st)
		case strings.Contains(st, `FROM "debt_invoices"`) || strings.Contains(st, "FROM `debt_invoices`"):
			items++
		case strings.Contains(st, `FROM "debts"`) || strings.Contains(st, "FROM `debts`"):
			pages++
		}
	}
	if pages == 0 || items != pages {
		t.Errorf("%d reads of the page, %d of its items: %v", pages, items, env.Statements.Log())
	}
}

// A debt without interest, fees or withdrawal answers its claim from its
// kept amounts when read on or after its latest payment
// (debts.last_payment_on), and from its facts before: a payment dated
// tomorrow, or a claim asked of a day in the past.
func TestTermsClaimFromKeptAmounts(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(time.Date(2026, 6, 1, 12, 0, 0, 0, apitest.Stockholm))
	clientID, c := env.ClientCaller(t, "Kvar AB")
	first := debtCaseItemInput("K-1", "1000.00")
	first["payments"] = []apitest.Vars{{"amount": "50.00", "transactionDate": "2026-04-30T23:30:00+02:00"},
		{"amount": "25.00", "transactionDate": "2026-03-01T10:00:00+01:00"}}
	d := termsMustCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson", first, debtCaseItemInput("K-2", "500.00")))
	plain := termsMustCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput("K-3", "100.00")))

	last := func(id int) string {
		t.Helper()
		var v stdsql.NullString
		if err := env.DB.SQL.QueryRow(fmt.Sprintf("SELECT CAST(last_payment_on AS TEXT) FROM debts WHERE id = %d", id)).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v.String
	}
	type part struct{ Charged, Paid, Outstanding string }
	type claim struct {
		Total          part
		OverpaidAmount string
	}
	const sel = `total { charged paid outstanding } overpaidAmount`
	// claims reads d's claim on asOf ("": today) through Query.debt and the
	// debts page, and what its items' claims (always from the facts) paid.
	claims := func(asOf string) claim {
		t.Helper()
		arg := ""
		if asOf != "" {
			arg = `(asOf: "` + asOf + `")`
		}
		var one struct {
			Debt struct {
				Claim    claim
				Invoices []struct{ Claim struct{ Principal part } }
			}
		}
		c.Do(t, `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { claim`+arg+` { `+sel+` }
			invoices { claim`+arg+` { principal { charged paid outstanding } } } } }`,
			apitest.Vars{"c": clientID, "id": d.ID}).OK(t, &one)
		var page struct {
			Debts struct {
				Nodes []struct {
					ID    int
					Claim claim
				}
			}
		}
		c.Do(t, `query($c: UUID!) { debts(clientId: $c) { nodes { id claim`+arg+` { `+sel+` } } } }`,
			apitest.Vars{"c": clientID}).OK(t, &page)
		for _, n := range page.Debts.Nodes {
			if n.ID == d.ID && n.Claim != one.Debt.Claim {
				t.Errorf("claim %s: %+v on the page, %+v alone", asOf, n.Claim, one.Debt.Claim)
			}
		}
		money := func(s string) collection.Money {
			m, err := collection.ParseMoney(s)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		var paid collection.Money
		for _, it := range one.Debt.Invoices {
			paid += money(it.Claim.Principal.Paid)
		}
		if got := money(one.Debt.Claim.Total.Paid); got != paid {
			t.Errorf("claim %s: total paid %s, its items' %s", asOf, got, paid)
		}
		return one.Debt.Claim
	}
	check := func(asOf, paid, outstanding, overpaid string) {
		t.Helper()
		got := claims(asOf)
		if want := (claim{Total: part{"1500.00", paid, outstanding}, OverpaidAmount: overpaid}); got != want {
			t.Errorf("claim %q = %+v, want %+v", asOf, got, want)
		}
	}

	// The opening payments' latest day, in the offset given (api.md §10).
	if got := last(d.ID); got != "2026-04-30" {
		t.Fatalf("last_payment_on after the hand-over = %q, want 2026-04-30", got)
	}
	if got := last(plain.ID); got != "" {
		t.Fatalf("last_payment_on without payments = %q, want NULL", got)
	}
	check("", "75.00", "1425.00", "0.00")

	termsPay(t, c, clientID, d.ID, d.Invoices[1].ID, "300.00", "2026-05-20")
	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, "200.00", "2026-06-02") // tomorrow
	termsPay(t, c, clientID, d.ID, d.Invoices[1].ID, "100.00", "2026-05-01") // backdated
	if got := last(d.ID); got != "2026-06-02" {
		t.Fatalf("last_payment_on = %q, want 2026-06-02", got)
	}
	check("", "475.00", "1025.00", "0.00")           // without tomorrow's payment
	check("2026-06-02", "675.00", "825.00", "0.00")  // with it
	check("2026-05-10", "175.00", "1325.00", "0.00") // a day in the past
	check("2026-02-01", "0.00", "1500.00", "0.00")   // before every payment

	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, "1500.00", "2026-06-01")
	check("", "1500.00", "0.00", "475.00")
	check("2026-06-02", "1500.00", "0.00", "675.00")
	check("2026-12-31", "1500.00", "0.00", "675.00")

	// A page of debts paid on or before today reads the same statements
	// with their claims as without: the kept amounts are the claims.
	client2, c2 := env.ClientCaller(t, "Betalt AB")
	for i := range 3 {
		p := termsMustCreate(t, c2, client2, debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput(fmt.Sprintf("B-%d", i), "100.00")))
		termsPay(t, c2, client2, p.ID, p.Invoices[0].ID, "40.00", "2026-05-15")
	}
	count := func(sel string) int {
		q := `query($c: UUID!) { debts(clientId: $c) { nodes { id paidAmount ` + sel + ` } } }`
		c2.Do(t, q, apitest.Vars{"c": client2}).OK(t, nil)
		env.Statements.Reset()
		c2.Do(t, q, apitest.Vars{"c": client2}).OK(t, nil)
		return env.Statements.Count()
	}
	if without, with := count(""), count("claim { total { outstanding } interest { outstanding } }"); with != without {
		t.Errorf("%d statements with the claims, %d without: the payments are read", with, without)
	}
}
