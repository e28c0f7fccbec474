package graph_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

// API tests of the date range (decisions.md, "Dates"): every Date and
// DateTime input, filters included, is from 1900-01-01 to 9999-12-31 (a
// DateTime both in the offset given and in UTC); an earlier one is
// BAD_USER_INPUT on its field, and nothing is written.

// TestDateRangeTransactionDate: the case the review found, transactionDate
// 0001-01-01, and the edges of the range, in variables and written in the
// document.
func TestDateRangeTransactionDate(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin()
	clientID, _ := env.NewClient(t, "Datum AB")
	d := debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Anna Ek", debtCaseItemInput("D-1", "1000.00")))
	item := d.Invoices[0].ID
	payments := func() int { return len(debtCaseMustGet(t, admin, clientID, d.ID).Payments) }

	for _, date := range []string{"0001-01-01", "0000-01-01", "1000-01-01", "1899-12-31"} {
		r := debtCasePay(t, admin, clientID, d.ID, item, "1.00", date)
		r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.transactionDate")
		if msg := r.Errors[0].Message; msg != "must be a date from 1900-01-01 to 9999-12-31" {
			t.Errorf("%s: message %q", date, msg)
		}
	}
	inline := strings.NewReplacer("@C@", clientID, "@D@", strconv.Itoa(d.ID), "@I@", strconv.Itoa(item)).Replace(
		`mutation { addDebtPayment(clientId: "@C@", input: {debtId: @D@, invoiceId: @I@, amount: "1.00", transactionDate: "0001-01-01"}) { id } }`)
	admin.Do(t, inline, nil).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.transactionDate")
	if n := payments(); n != 0 {
		t.Fatalf("%d payments booked by refused requests", n)
	}
	debtCasePay(t, admin, clientID, d.ID, item, "1.00", "1900-01-01").OK(t, nil)
	if n := payments(); n != 1 {
		t.Fatalf("%d payments, want the one of 1900-01-01", n)
	}
}

// TestDateRangeEveryInput sends a date before 1900 in every Date and
// DateTime input field: refused on that field, nothing written.
func TestDateRangeEveryInput(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin()
	clientID, _ := env.NewClient(t, "Datum AB")
	count := func(list string) int {
		var out struct{ TotalCount int }
		admin.Do(t, `query($c: UUID!) { `+list+`(clientId: $c) { totalCount } }`, apitest.Vars{"c": clientID}).Field(t, list, &out)
		return out.TotalCount
	}

	// createDebt: the item's dates and its opening payments' dates
	// (DateTime). 1900-01-01T00:00:00+01:00 is 1899 in UTC.
	for _, early := range []string{"0001-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "1900-01-01T00:00:00+01:00", "1899-12-31T23:30:00-01:00"} {
		for _, tc := range []struct{ field, key string }{
			{"input.debts.0.invoiceDate", "invoiceDate"},
			{"input.debts.0.dueDate", "dueDate"},
			{"input.debts.0.reminderDate", "reminderDate"},
			{"input.debts.0.payments.0.transactionDate", "transactionDate"},
			{"input.debts.0.payments.0.bookedDate", "bookedDate"},
		} {
			item := debtCaseItemInput("E-1", "100.00")
			payment := apitest.Vars{"amount": "1.00", "transactionDate": "2026-09-02T10:00:00+02:00"}
			switch tc.key {
			case "transactionDate", "bookedDate":
				payment[tc.key] = early
			default:
				item[tc.key] = early
			}
			item["payments"] = []apitest.Vars{payment}
			debtCaseCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Anna Ek", item)).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", tc.field)
		}
	}
	if n := count("debts"); n != 0 {
		t.Fatalf("%d debts created by refused requests", n)
	}
	// The first instant of 1900 is accepted (the due date may not be
	// before the invoice date).
	first := debtCaseItemInput("E-2", "100.00")
	first["invoiceDate"], first["dueDate"] = "1900-01-01T00:00:00Z", "1900-01-31T00:00:00-05:00"
	debtCaseMustCreate(t, admin, clientID, debtCaseInput(apitest.Personnr, "Anna Ek", first))

	// createInvoice: its Date fields.
	for _, early := range []string{"0001-01-01", "1899-12-31"} {
		for _, field := range []string{"invoiceDate", "dueDate", "reminderDate"} {
			invoiceCreate(t, admin, clientID, invoiceInput("E-3", apitest.Vars{field: early})).
				Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input."+field)
		}
	}
	if n := count("invoices"); n != 0 {
		t.Fatalf("%d invoices created by refused requests", n)
	}
	invoiceMust(t, admin, clientID, invoiceInput("E-4", apitest.Vars{"invoiceDate": "1900-01-01", "dueDate": "1900-01-31"}))

	// Filters take the same range.
	for _, tc := range []struct{ doc, field string }{
		{`query($c: UUID!, $d: DateTime) { debtors(clientId: $c, filter: {invoiceCreatedDate: $d}) { totalCount } }`, "filter.invoiceCreatedDate"},
		{`query($c: UUID!, $d: DateTime) { invoices(clientId: $c, filter: {invoiceCreatedDate: $d}) { totalCount } }`, "filter.invoiceCreatedDate"},
		{`query($c: UUID, $d: DateTime) { auditEvents(filter: {clientId: $c, from: $d}) { totalCount } }`, "filter.from"},
		{`query($c: UUID, $d: DateTime) { auditEvents(filter: {clientId: $c, to: $d}) { totalCount } }`, "filter.to"},
	} {
		admin.Do(t, tc.doc, apitest.Vars{"c": clientID, "d": "0001-01-01T00:00:00Z"}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", tc.field)
		admin.Do(t, tc.doc, apitest.Vars{"c": clientID, "d": "1900-01-01T00:00:00Z"}).OK(t, nil)
	}
}
