package graph_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// The invariant of api.md §7: a status filter returns exactly the records
// whose field of the same meaning reads that value now, and totalCount
// agrees. It is checked here for every status filter of invoices and
// debtors, every value, and several days around the dates that move
// statuses (due dates, reminder dates, the 8 days of a collection demand),
// over fixtures that reach every status.

// invariantBase is the fixtures' reference date.
var invariantBase = time.Date(2026, 3, 10, 12, 0, 0, 0, apitest.Stockholm)

func day(n int) scalar.Date { return scalar.DateOf(invariantBase.AddDate(0, 0, n)) }

// invariantFixture builds invoices and debtors in every status. Debts are
// written directly (the facts a debt has after creation, payments and
// withdrawal), since this test is about projecting facts.
type invariantFixture struct {
	env      *apitest.Env
	clientID string
	db       *ent.Client
	ctx      context.Context
	debtorN  int
}

func (f *invariantFixture) invoice(t *testing.T, number string, due, reminder int, total string) {
	t.Helper()
	in := apitest.Vars{
		"invoiceNumber": number, "invoiceDate": day(-30).String(), "daysUntilExpiration": 30,
		"dueDate": day(due).String(), "totalExcludingVAT": total, "totalVATAmount": "0",
		"totalAmountIncludingVAT": total,
		"articles": []apitest.Vars{{"name": "Tjänst", "priceExcludingVAT": total, "totalVATAmount": 0,
			"totalAmountIncludingVAT": total, "totalAmountExcludingVAT": total, "quantity": 1, "vatPercentage": 0, "discount": 0}},
	}
	if reminder != 0 {
		in["reminderDate"] = day(reminder).String()
	}
	f.env.Admin().Do(t, `mutation($c: UUID!, $i: InvoiceInput!) { createInvoice(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": f.clientID, "i": in}).OK(t, nil)
}

func (f *invariantFixture) debtor(t *testing.T) string {
	t.Helper()
	f.debtorN++
	var out struct{ CreateDebtor struct{ ID string } }
	f.env.Admin().Do(t, `mutation($c: UUID!, $i: DebtorInput!) { createDebtor(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": f.clientID, "i": apitest.Vars{"isCorporation": false, "identificationNumber": fmt.Sprintf("NO-%04d", f.debtorN),
			"name": fmt.Sprintf("Debtor %d", f.debtorN), "address": apitest.Vars{"address1": "Gate 1", "zipCode": "0150", "city": "Oslo", "countryCode": "NO"}}}).
		OK(t, &out)
	return out.CreateDebtor.ID
}

type item struct {
	number       string
	amount, paid collection.Money
}

// debt writes a debt with its items, created createdDay days from the base.
func (f *invariantFixture) debt(t *testing.T, debtorID string, createdDay int, withdrawn bool, items ...item) {
	t.Helper()
	f.debtAt(t, debtorID, invariantBase.AddDate(0, 0, createdDay).UTC(), withdrawn, items...)
}

// debtAt writes a debt created at an exact instant.
func (f *invariantFixture) debtAt(t *testing.T, debtorID string, created time.Time, withdrawn bool, items ...item) {
	t.Helper()
	f.debtWith(t, debtorID, created, debtOpts{withdrawn: withdrawn}, items...)
}

// debtOpts are the facts of a debt beyond its items: withdrawal, fees
// charged (its charged amount is its items' plus these), the process's
// state, and a demand sent earlier than the debt was created.
type debtOpts struct {
	withdrawn, legal, disputed bool
	fees                       collection.Money
	demandDay                  *int // days from the base; nil: the creation instant
}

// debtWith writes a debt created at an exact instant, with opts.
func (f *invariantFixture) debtWith(t *testing.T, debtorID string, created time.Time, opts debtOpts, items ...item) {
	t.Helper()
	var original, paid collection.Money
	for _, it := range items {
		original += it.amount
		paid += it.paid
	}
	demand := created
	if opts.demandDay != nil {
		demand = day(*opts.demandDay).Start(apitest.Stockholm)
	}
	c := f.db.Debt.Create().SetClientID(f.clientID).SetDebtorID(debtorID).
		SetOriginalAmount(original).SetPaidAmount(paid).SetCreatedAt(created).
		SetChargedAmount(original + opts.fees).SetDemandSentAt(demand)
	if opts.withdrawn {
		c.SetWithdrawnAt(created.Add(time.Hour))
	}
	if opts.legal {
		c.SetPaymentOrderAppliedAt(created.Add(time.Minute))
	}
	if opts.disputed {
		c.SetDisputedAt(created.Add(time.Minute)).SetDisputeComment("disputed")
	}
	d, err := c.Save(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range items {
		if _, err := f.db.DebtItem.Create().SetClientID(f.clientID).SetDebtID(d.ID).SetPosition(i).
			SetInvoiceNumber(it.number).SetInvoiceDate(created).SetDueDate(created).
			SetAmount(it.amount).SetPaidAmount(it.paid).SetCreatedAt(created).Save(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// processDebts writes debts of part two's process and charges: in LEGAL
// (paid its items in full, not its fees: open), disputed with a demand
// sent before the hand-over, closed after a payment order by paying its
// fees too, and overpaid beyond its fees.
func (f *invariantFixture) processDebts(t *testing.T) {
	t.Helper()
	minus10 := -10
	d := f.debtor(t)
	f.debtWith(t, d, invariantBase.AddDate(0, 0, -12).UTC(), debtOpts{legal: true, fees: 68000}, item{"HELD-LEGAL", 100000, 100000})
	d = f.debtor(t)
	f.debtWith(t, d, invariantBase.AddDate(0, 0, -3).UTC(), debtOpts{disputed: true, demandDay: &minus10}, item{"DISPUTED", 50000, 0})
	d = f.debtor(t)
	f.debtWith(t, d, invariantBase.AddDate(0, 0, -20).UTC(), debtOpts{legal: true, fees: 68000}, item{"LEGAL-PAID", 10000, 78000})
	d = f.debtor(t)
	f.debtWith(t, d, invariantBase.AddDate(0, 0, -1).UTC(), debtOpts{fees: 5000, disputed: true}, item{"FEES-OVERPAID", 10000, 16000})
}

func TestStatusFiltersMatchFields(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Invariant AB")
	f := &invariantFixture{env: env, clientID: clientID, db: env.DB.Ent, ctx: auth.System(context.Background())}

	// Invoices without debts: open, due soon, reminded early, overdue, withdrawn.
	f.invoice(t, "OPEN", 5, 0, "1000")
	f.invoice(t, "DUE-TODAY", 0, 0, "1000")
	f.invoice(t, "REMINDED-EARLY", 6, 2, "1000")
	f.invoice(t, "OVERDUE", -3, 0, "1000")
	f.invoice(t, "OVERDUE-REMINDED", -8, -1, "1000")
	f.invoice(t, "WITHDRAWN", -3, 0, "1000")
	var w struct{ WithdrawInvoice struct{ ID string } }
	var all struct {
		Invoices struct {
			Nodes []struct{ ID, InvoiceNumber string }
		}
	}
	env.Admin().Do(t, `query($c: UUID!) { invoices(clientId: $c, rowsPerPage: 100) { nodes { id invoiceNumber } } }`, apitest.Vars{"c": clientID}).OK(t, &all)
	for _, n := range all.Invoices.Nodes {
		if n.InvoiceNumber == "WITHDRAWN" {
			env.Admin().Do(t, `mutation($c: UUID!, $id: UUID!) { withdrawInvoice(clientId: $c, id: $id) { id } }`, apitest.Vars{"c": clientID, "id": n.ID}).OK(t, &w)
		}
	}
	// Invoices in debts.
	for _, n := range []string{"HELD-NEW", "HELD-OLD", "HELD-PARTIAL", "IN-WITHDRAWN-DEBT", "PAID", "OVERPAID", "HELD-BY-CLOSED", "HELD-LEGAL", "DISPUTED"} {
		f.invoice(t, n, -20, 0, "1000")
	}

	// Debtors: none, open new, open old, closed (withdrawn), mixed, paid.
	f.debtor(t) // no debts
	d1 := f.debtor(t)
	f.debt(t, d1, -2, false, item{"HELD-NEW", 100000, 0})
	d2 := f.debtor(t)
	f.debt(t, d2, -12, false, item{"HELD-OLD", 100000, 0}, item{"EXTRA-1", 5000, 0})
	d3 := f.debtor(t)
	f.debt(t, d3, -5, true, item{"IN-WITHDRAWN-DEBT", 100000, 30000})
	d4 := f.debtor(t)
	f.debt(t, d4, -9, false, item{"HELD-PARTIAL", 100000, 40000})
	f.debt(t, d4, -1, false, item{"PAID", 100000, 100000})
	d5 := f.debtor(t)
	f.debt(t, d5, -4, false, item{"OVERPAID", 100000, 120000})
	f.debt(t, d5, -3, true, item{"EXTRA-2", 7000, 0})
	d6 := f.debtor(t)
	// A debt paid in full overall while the held invoice's own item is not.
	f.debt(t, d6, -6, false, item{"HELD-BY-CLOSED", 100000, 10000}, item{"EXTRA-3", 10000, 100000})
	d7 := f.debtor(t)
	// Created at the first instant of its day: on the 8th day after it the
	// demand still runs, on the 9th it has expired.
	f.debtAt(t, d7, day(-8).Start(apitest.Stockholm), false, item{"EXTRA-4", 5000, 0})
	f.processDebts(t)

	for _, offset := range []int{-3, -1, 0, 1, 2, 3, 6, 7, 8, 9, 30} {
		today := invariantBase.AddDate(0, 0, offset)
		env.Clock.Set(today)
		t.Run("today "+scalar.DateOf(today).String(), func(t *testing.T) {
			checkInvoiceFilters(t, env, clientID)
			checkDebtorFilters(t, env, clientID)
			checkDebtFilters(t, env, clientID)
		})
	}
}

// filterCheck is one status filter and the field it must agree with.
type filterCheck struct {
	filter string   // the filter's field
	field  string   // the record's field of the same meaning
	values []string // every value of the field's type
}

var (
	paymentValues = []string{"UNPAID", "PARTIALLY_PAID", "PAID", "OVERPAID"}
	stageValues   = []string{"INVOICING", "COLLECTION", "LEGAL", "CLOSED"}
	subValues     = []string{"NOT_DUE", "OVERDUE", "REMINDED", "DEMAND_SENT", "DEMAND_EXPIRED", "PAYMENT_ORDER_APPLIED", "PAID_IN_FULL", "WITHDRAWN"}
	boolValues    = []string{"true", "false"}
)

func checkInvoiceFilters(t *testing.T, env *apitest.Env, clientID string) {
	checks := []filterCheck{
		{"paymentStatus", "paymentStatus", paymentValues},
		{"invoiceStatus", "status", []string{"OPEN", "OVERDUE", "PAID", "WITHDRAWN", "TRANSFERRED_TO_COLLECTION"}},
		{"invoiceProcessStatus", "processStatus", []string{"AWAITING_DUE", "DUE_DATE_PASSED", "REMINDER_SENT", "SENT_TO_COLLECTION", "CLOSED"}},
		{"receivableMainStatus", "receivableMainStatus", stageValues},
		{"receivableSubStatus", "receivableSubStatus", subValues},
		{"activeStatus", "activeStatus", []string{"ACTIVE", "INACTIVE"}},
		{"isCompleted", "isCompleted", boolValues},
	}
	checkFilters(t, env, clientID, "invoices", "InvoiceFilter", "invoiceNumber", checks)
}

func checkDebtorFilters(t *testing.T, env *apitest.Env, clientID string) {
	checks := []filterCheck{
		{"paymentStatus", "paymentStatus", paymentValues},
		{"errandStatus", "errandStatus", stageValues},
		{"errandProcessStatus", "errandProcessStatus", subValues},
		{"isCompleted", "isCompleted", boolValues},
	}
	checkFilters(t, env, clientID, "debtors", "DebtorFilter", "name", checks)
}

func checkDebtFilters(t *testing.T, env *apitest.Env, clientID string) {
	checks := []filterCheck{
		{"paymentStatus", "paymentStatus", paymentValues},
		{"mainStatus", "mainStatus", stageValues},
		{"underStatus", "underStatus", subValues},
		{"activeStatus", "activeStatus", []string{"ACTIVE", "INACTIVE"}},
		{"isDisputed", "isDisputed", boolValues},
	}
	checkFilters(t, env, clientID, "debts", "DebtFilter", "id", checks)
}

// checkFilters reads every record with its fields, then asks each filter for
// each value and compares.
func checkFilters(t *testing.T, env *apitest.Env, clientID, list, filterType, label string, checks []filterCheck) {
	t.Helper()
	fields := []string{"id", label}
	for _, c := range checks {
		fields = append(fields, c.field)
	}
	var all map[string]struct {
		TotalCount int
		Nodes      []map[string]any
	}
	env.Admin().Do(t, fmt.Sprintf(`query($c: UUID!) { %s(clientId: $c, rowsPerPage: 100) { totalCount nodes { %s } } }`, list, strings.Join(fields, " ")),
		apitest.Vars{"c": clientID}).OK(t, &all)
	records := all[list].Nodes
	reached := map[string]bool{}
	for _, c := range checks {
		for _, v := range c.values {
			var want []string
			for _, r := range records {
				if fmt.Sprint(r[c.field]) == v {
					want = append(want, fmt.Sprint(r[label]))
				}
			}
			if len(want) > 0 {
				reached[c.field+"="+v] = true
			}
			var got map[string]struct {
				TotalCount int
				Nodes      []map[string]any
			}
			env.Admin().Do(t, fmt.Sprintf(`query($c: UUID!, $f: %s) { %s(clientId: $c, filter: $f, rowsPerPage: 100) { totalCount nodes { %s } } }`, filterType, list, label),
				apitest.Vars{"c": clientID, "f": apitest.Vars{c.filter: literal(v)}}).OK(t, &got)
			var gotLabels []string
			for _, r := range got[list].Nodes {
				gotLabels = append(gotLabels, fmt.Sprint(r[label]))
			}
			sort.Strings(want)
			sort.Strings(gotLabels)
			if strings.Join(want, ",") != strings.Join(gotLabels, ",") {
				t.Errorf("%s filter %s=%s returned %v, but the records whose %s reads %s are %v", list, c.filter, v, gotLabels, c.field, v, want)
			}
			if got[list].TotalCount != len(want) {
				t.Errorf("%s filter %s=%s: totalCount %d, want %d", list, c.filter, v, got[list].TotalCount, len(want))
			}
		}
	}
	t.Logf("%s: %d records, values reached: %d", list, len(records), len(reached))
}

func literal(v string) any {
	switch v {
	case "true":
		return true
	case "false":
		return false
	}
	return v
}

// TestStatusFixturesReachEveryValue guards the invariant test itself: its
// fixtures must produce every status value somewhere on its days, or a
// broken filter for that value would go unnoticed.
func TestStatusFixturesReachEveryValue(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Reach AB")
	f := &invariantFixture{env: env, clientID: clientID, db: env.DB.Ent, ctx: auth.System(context.Background())}
	f.invoice(t, "OPEN", 5, 0, "1000")
	f.invoice(t, "REMINDED-EARLY", 6, -1, "1000")
	f.invoice(t, "OVERDUE", -3, 0, "1000")
	for _, n := range []string{"HELD-NEW", "HELD-OLD", "PAID", "OVERPAID", "PARTIAL"} {
		f.invoice(t, n, -20, 0, "1000")
	}
	d1 := f.debtor(t)
	f.debt(t, d1, -2, false, item{"HELD-NEW", 100000, 0})
	d2 := f.debtor(t)
	f.debt(t, d2, -12, false, item{"HELD-OLD", 100000, 0})
	d3 := f.debtor(t)
	f.debt(t, d3, -5, true, item{"X", 100000, 30000})
	d4 := f.debtor(t)
	f.debt(t, d4, -1, false, item{"PAID", 100000, 100000})
	f.debt(t, d4, -1, false, item{"PARTIAL", 100000, 40000})
	d5 := f.debtor(t)
	f.debt(t, d5, -4, false, item{"OVERPAID", 100000, 120000})
	f.invoice(t, "HELD-LEGAL", -20, 0, "1000")
	f.processDebts(t)
	env.Clock.Set(invariantBase)

	seen := map[string]bool{}
	var out struct {
		Invoices struct {
			Nodes []map[string]any
		}
		Debtors struct {
			Nodes []map[string]any
		}
	}
	env.Admin().Do(t, `query($c: UUID!) {
	  invoices(clientId: $c, rowsPerPage: 100) { nodes { paymentStatus status processStatus receivableMainStatus receivableSubStatus activeStatus } }
	  debtors(clientId: $c, rowsPerPage: 100) { nodes { paymentStatus errandStatus errandProcessStatus } } }`, apitest.Vars{"c": clientID}).OK(t, &out)
	for _, n := range append(out.Invoices.Nodes, out.Debtors.Nodes...) {
		for _, v := range n {
			seen[fmt.Sprint(v)] = true
		}
	}
	for _, v := range []string{"UNPAID", "PARTIALLY_PAID", "PAID", "OVERPAID", "OPEN", "OVERDUE", "TRANSFERRED_TO_COLLECTION",
		"AWAITING_DUE", "DUE_DATE_PASSED", "REMINDER_SENT", "SENT_TO_COLLECTION", "CLOSED", "INVOICING", "COLLECTION", "LEGAL",
		"NOT_DUE", "REMINDED", "DEMAND_SENT", "DEMAND_EXPIRED", "PAYMENT_ORDER_APPLIED", "PAID_IN_FULL", "WITHDRAWN", "ACTIVE", "INACTIVE"} {
		if !seen[v] {
			t.Errorf("no fixture reads %s", v)
		}
	}
}

// TestStatusInvariantThroughTheAPI builds its facts only through the API
// (createDebt, addDebtPayment, withdrawDebt, withdrawInvoice) and checks the
// invariant on both sides of the 8-day demand boundary.
func TestStatusInvariantThroughTheAPI(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Flows AB")
	admin := env.Admin()
	today := time.Now().In(apitest.Stockholm)
	date := func(days int) string { return scalar.DateOf(today.AddDate(0, 0, days)).String() }
	instant := func(days int) string { return today.AddDate(0, 0, days).Format(time.RFC3339) }

	invoice := func(number string, due int) string {
		var out struct{ CreateInvoice struct{ ID string } }
		admin.Do(t, `mutation($c: UUID!, $i: InvoiceInput!) { createInvoice(clientId: $c, input: $i) { id } }`, apitest.Vars{"c": clientID, "i": apitest.Vars{
			"invoiceNumber": number, "invoiceDate": date(-40), "daysUntilExpiration": 30, "dueDate": date(due),
			"totalExcludingVAT": "500", "totalVATAmount": "0", "totalAmountIncludingVAT": "500",
			"articles": []apitest.Vars{{"name": "Vara", "priceExcludingVAT": 500, "totalVATAmount": 0, "totalAmountIncludingVAT": 500, "totalAmountExcludingVAT": 500, "quantity": 1, "vatPercentage": 0, "discount": 0}},
		}}).OK(t, &out)
		return out.CreateInvoice.ID
	}
	type created struct {
		CreateDebt struct {
			ID       int
			Invoices []struct{ ID int }
		}
	}
	debt := func(ident, name string, numbers ...string) created {
		var items []apitest.Vars
		for _, n := range numbers {
			items = append(items, apitest.Vars{"invoiceNumber": n, "invoiceDate": instant(-40), "dueDate": instant(-10), "amount": "500"})
		}
		var out created
		admin.Do(t, `mutation($c: UUID!, $i: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $i) { id invoices { id } } }`, apitest.Vars{"c": clientID, "i": apitest.Vars{
			"isCorporation": false, "identificationNumber": ident, "name": name,
			"address": apitest.Vars{"address1": "Gate 1", "zipCode": "0150", "city": "Oslo", "countryCode": "NO"}, "debts": items,
		}}).OK(t, &out)
		return out
	}
	pay := func(d created, item int, amount string) {
		admin.Do(t, `mutation($c: UUID!, $i: DebtPaymentInput!) { addDebtPayment(clientId: $c, input: $i) { id } }`, apitest.Vars{"c": clientID,
			"i": apitest.Vars{"debtId": d.CreateDebt.ID, "invoiceId": d.CreateDebt.Invoices[item].ID, "amount": amount, "transactionDate": date(0)}}).OK(t, nil)
	}
	withdraw := func(d created) {
		admin.Do(t, `mutation($c: UUID!, $i: WithdrawDebtInput!) { withdrawDebt(clientId: $c, input: $i) { id } }`, apitest.Vars{"c": clientID,
			"i": apitest.Vars{"id": d.CreateDebt.ID}}).OK(t, nil)
	}

	invoice("A", -10)
	invoice("B", -10)
	invoice("C", 5)
	withdrawnInvoice := invoice("D", 3)
	admin.Do(t, `mutation($c: UUID!, $id: UUID!) { withdrawInvoice(clientId: $c, id: $id, comment: "sent by mistake") { id } }`,
		apitest.Vars{"c": clientID, "id": withdrawnInvoice}).OK(t, nil)
	invoice("E", -2)

	open := debt("P-1", "Open Partial", "A", "X1")
	pay(open, 0, "100.00")
	paid := debt("P-2", "Paid Off", "B")
	pay(paid, 0, "500.00")
	gone := debt("P-3", "Withdrawn", "E")
	pay(gone, 0, "50.00")
	withdraw(gone)
	over := debt("P-4", "Overpaid", "X2")
	pay(over, 0, "600.00")
	again := debt("P-1", "Open Partial", "X3") // the same debtor: two open debts
	_ = again
	debt("P-5", "Untouched", "C")
	// Part two, through its mutations: a case taken over with an expired
	// demand and statutory interest escalated to a payment order and
	// partly paid; another disputed; a third with a collection fee whose
	// items alone are paid.
	handOver := func(ident, name, number, demand string, terms apitest.Vars) created {
		var out created
		admin.Do(t, `mutation($c: UUID!, $i: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $i) { id invoices { id } } }`, apitest.Vars{"c": clientID, "i": apitest.Vars{
			"isCorporation": false, "identificationNumber": ident, "name": name, "demandSentOn": demand, "terms": terms,
			"address": apitest.Vars{"address1": "Gate 1", "zipCode": "0150", "city": "Oslo", "countryCode": "NO"},
			"debts":   []apitest.Vars{{"invoiceNumber": number, "invoiceDate": instant(-40), "dueDate": instant(-30), "amount": "500"}},
		}}).OK(t, &out)
		return out
	}
	statutory := apitest.Vars{"interest": "STATUTORY", "collectionFee": "180.00", "lateCompensation": false}
	legal := handOver("P-6", "Legal", "L1", date(-20), statutory)
	admin.Do(t, `mutation($c: UUID!, $i: PaymentOrderInput!) { applyForPaymentOrder(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": clientID, "i": apitest.Vars{"id": legal.CreateDebt.ID}}).OK(t, nil)
	pay(legal, 0, "600.00")
	disputed := handOver("P-7", "Disputed", "D1", date(-3), nil)
	admin.Do(t, `mutation($c: UUID!, $i: DisputeDebtInput!) { disputeDebt(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": clientID, "i": apitest.Vars{"id": disputed.CreateDebt.ID, "comment": "bestrids"}}).OK(t, nil)
	fees := handOver("P-8", "Fees", "F1", date(0), apitest.Vars{"interest": "NONE", "collectionFee": "180.00", "lateCompensation": false})
	pay(fees, 0, "500.00")

	for _, offset := range []int{0, 1, 8, 9, 10, 40} {
		env.Clock.Set(today.AddDate(0, 0, offset))
		t.Run(fmt.Sprintf("day +%d", offset), func(t *testing.T) {
			checkInvoiceFilters(t, env, clientID)
			checkDebtorFilters(t, env, clientID)
			checkDebtFilters(t, env, clientID)
		})
	}
}
