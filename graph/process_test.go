package graph_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/scalar"
)

// The collection process of api.md §11 (dispute, resolve, payment order),
// the demand date and the part-one fields of a debt with charges (§10),
// through the API.

const processSelection = `id originalAmount paidAmount remainingAmount overpaidAmount paymentStatus mainStatus underStatus
  activeStatus isCompleted demandSentOn isDisputed disputedAt disputeComment paymentOrderAppliedAt
  steps { kind takenAt comment } invoices { id }
  claim { total { charged paid outstanding } overpaidAmount charges { kind amount chargedOn } }`

type processDebt struct {
	ID                                                     int
	OriginalAmount, PaidAmount, RemainingAmount            string
	OverpaidAmount, PaymentStatus, MainStatus, UnderStatus string
	ActiveStatus                                           string
	IsCompleted                                            bool
	DemandSentOn                                           string
	IsDisputed                                             bool
	DisputedAt, DisputeComment, PaymentOrderAppliedAt      *string
	Steps                                                  []struct {
		Kind, TakenAt string
		Comment       *string
	}
	Invoices []struct{ ID int }
	Claim    struct {
		Total          termsPart
		OverpaidAmount string
		Charges        []struct{ Kind, Amount, ChargedOn string }
	}
}

func processRead(t *testing.T, c *apitest.Caller, clientID string, id int) processDebt {
	t.Helper()
	var out struct{ Debt processDebt }
	c.Do(t, `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { `+processSelection+` } }`,
		apitest.Vars{"c": clientID, "id": id}).OK(t, &out)
	return out.Debt
}

// processStep runs a step mutation (disputeDebt, resolveDispute,
// applyForPaymentOrder) with the input given.
func processStep(t *testing.T, c *apitest.Caller, clientID, mutation, inputType string, in apitest.Vars, header ...string) *apitest.Response {
	t.Helper()
	return c.Do(t, fmt.Sprintf(`mutation($c: UUID!, $in: %s!) { %s(clientId: $c, input: $in) { %s } }`, inputType, mutation, processSelection),
		apitest.Vars{"c": clientID, "in": in}, header...)
}

func dispute(t *testing.T, c *apitest.Caller, clientID string, id int, comment string) *apitest.Response {
	t.Helper()
	return processStep(t, c, clientID, "disputeDebt", "DisputeDebtInput", apitest.Vars{"id": id, "comment": comment})
}

func resolve(t *testing.T, c *apitest.Caller, clientID string, id int, comment string) *apitest.Response {
	t.Helper()
	return processStep(t, c, clientID, "resolveDispute", "ResolveDisputeInput", apitest.Vars{"id": id, "comment": comment})
}

func applyPaymentOrder(t *testing.T, c *apitest.Caller, clientID string, id int, header ...string) *apitest.Response {
	t.Helper()
	return processStep(t, c, clientID, "applyForPaymentOrder", "PaymentOrderInput", apitest.Vars{"id": id, "comment": "ansökan"}, header...)
}

// processCreate hands in over and answers the debt with processSelection.
func processCreate(t *testing.T, c *apitest.Caller, clientID string, in apitest.Vars) processDebt {
	t.Helper()
	var out struct{ CreateDebt processDebt }
	c.Do(t, `mutation($c: UUID!, $in: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $in) { `+processSelection+` } }`,
		apitest.Vars{"c": clientID, "in": in}).OK(t, &out)
	return out.CreateDebt
}

// statutoryDebtInput is a debt of one item of amount, due 100 days ago,
// under statutory interest and the collection fee given.
func statutoryDebtInput(amount, collectionFee string) apitest.Vars {
	item := debtCaseItemInput("F-1", amount)
	item["invoiceDate"] = time.Now().In(apitest.Stockholm).AddDate(0, 0, -130).Format(time.RFC3339)
	item["dueDate"] = time.Now().In(apitest.Stockholm).AddDate(0, 0, -100).Format(time.RFC3339)
	in := debtCaseInput("198112189876", "Anna Andersson", item)
	in["terms"] = apitest.Vars{"interest": "STATUTORY", "collectionFee": collectionFee, "lateCompensation": false}
	return in
}

// daysAgo is the date n days before today in the service's time zone.
func daysAgo(n int) string {
	return scalar.DateOf(time.Now().In(apitest.Stockholm).AddDate(0, 0, -n)).String()
}

// debtsWith lists the ids of the client's debts that match filter.
func debtsWith(t *testing.T, c *apitest.Caller, clientID string, filter apitest.Vars) (ids []int, total int) {
	t.Helper()
	var out struct {
		Debts struct {
			TotalCount int
			Nodes      []struct{ ID int }
		}
	}
	c.Do(t, `query($c: UUID!, $f: DebtFilter) { debts(clientId: $c, filter: $f, rowsPerPage: 100) { totalCount nodes { id } } }`,
		apitest.Vars{"c": clientID, "f": filter}).OK(t, &out)
	for _, n := range out.Debts.Nodes {
		ids = append(ids, n.ID)
	}
	return ids, out.Debts.TotalCount
}

func TestProcessDisputeResolveAndPaymentOrder(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Process AB")
	in := debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput("F-1", "1000.00"))
	in["demandSentOn"] = daysAgo(20)
	d := processCreate(t, c, clientID, in)
	if d.DemandSentOn != daysAgo(20) || d.UnderStatus != "DEMAND_EXPIRED" || d.MainStatus != "COLLECTION" || d.IsDisputed || len(d.Steps) != 0 {
		t.Fatalf("a debt taken over with an expired demand reads %+v", d)
	}
	fresh := debtCaseMustCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput("F-2", "500.00")))

	// Refusals write nothing: no step, no fee, no event.
	applyPaymentOrder(t, c, clientID, fresh.ID).Refused(t, http.StatusConflict, "CONFLICT", "")
	dispute(t, c, clientID, d.ID, "  ").Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.comment")
	dispute(t, c, clientID, d.ID, strings.Repeat("x", 2001)).Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.comment")
	processStep(t, c, clientID, "applyForPaymentOrder", "PaymentOrderInput", apitest.Vars{"id": d.ID, "comment": strings.Repeat("x", 2001)}).
		Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.comment")
	resolve(t, c, clientID, d.ID, "löst").Refused(t, http.StatusConflict, "CONFLICT", "")
	dispute(t, c, clientID, 999999, "nej").Refused(t, http.StatusNotFound, "NOT_FOUND", "")
	if got := processRead(t, c, clientID, fresh.ID); len(got.Claim.Charges) != 0 || len(got.Steps) != 0 {
		t.Fatalf("a refused step charged %v, recorded %v", got.Claim.Charges, got.Steps)
	}
	for _, op := range []string{"disputeDebt", "resolveDispute", "applyForPaymentOrder"} {
		if n := operationEvents(t, env, op); n != 0 {
			t.Fatalf("%d %s events after refusals only", n, op)
		}
	}
	_, otherClient := env.ClientCaller(t, "Annan AB")
	processStep(t, otherClient, clientID, "disputeDebt", "DisputeDebtInput", apitest.Vars{"id": d.ID, "comment": "x"}).
		Refused(t, http.StatusForbidden, "FORBIDDEN", "")

	// Dispute: a separate axis; escalation is refused while it lasts.
	var disputed struct{ DisputeDebt processDebt }
	dispute(t, c, clientID, d.ID, "Fakturan är redan betald").OK(t, &disputed)
	if got := disputed.DisputeDebt; !got.IsDisputed || got.DisputedAt == nil || got.DisputeComment == nil ||
		*got.DisputeComment != "Fakturan är redan betald" || got.UnderStatus != "DEMAND_EXPIRED" || len(got.Steps) != 1 || got.Steps[0].Kind != "DISPUTE" {
		t.Fatalf("disputed debt reads %+v", got)
	}
	dispute(t, c, clientID, d.ID, "igen").Refused(t, http.StatusConflict, "CONFLICT", "")
	applyPaymentOrder(t, c, clientID, d.ID).Refused(t, http.StatusConflict, "CONFLICT", "")
	if ids, total := debtsWith(t, c, clientID, apitest.Vars{"isDisputed": true}); total != 1 || len(ids) != 1 || ids[0] != d.ID {
		t.Fatalf("isDisputed: true lists %v (total %d)", ids, total)
	}
	if _, total := debtsWith(t, c, clientID, apitest.Vars{"isDisputed": false}); total != 1 {
		t.Fatalf("isDisputed: false counts %d, want 1", total)
	}
	var resolved struct{ ResolveDispute processDebt }
	resolve(t, c, clientID, d.ID, "Betalningen gällde en annan faktura").OK(t, &resolved)
	if got := resolved.ResolveDispute; got.IsDisputed || got.DisputedAt != nil || got.DisputeComment != nil || len(got.Steps) != 2 ||
		got.Steps[1].Kind != "RESOLVE_DISPUTE" || got.Steps[1].Comment == nil {
		t.Fatalf("resolved debt reads %+v", got)
	}

	// The payment order: LEGAL, its fees charged today, once.
	var applied struct{ ApplyForPaymentOrder processDebt }
	applyPaymentOrder(t, c, clientID, d.ID, "Idempotency-Key", "po-1").OK(t, &applied)
	got := applied.ApplyForPaymentOrder
	today := daysAgo(0)
	if got.MainStatus != "LEGAL" || got.UnderStatus != "PAYMENT_ORDER_APPLIED" || got.PaymentOrderAppliedAt == nil ||
		got.ActiveStatus != "ACTIVE" || got.IsCompleted || got.RemainingAmount != "1680.00" || got.PaymentStatus != "UNPAID" {
		t.Fatalf("after the payment order the debt reads %+v", got)
	}
	if ch := got.Claim.Charges; len(ch) != 2 || ch[0].Kind != "PAYMENT_ORDER_FEE" || ch[0].Amount != "300.00" || ch[0].ChargedOn != today ||
		ch[1].Kind != "PAYMENT_ORDER_APPLICATION_FEE" || ch[1].Amount != "380.00" || ch[1].ChargedOn != today {
		t.Fatalf("payment-order charges %+v", ch)
	}
	// A replay answers the same and charges nothing more; a second
	// application is refused.
	var replay struct{ ApplyForPaymentOrder processDebt }
	applyPaymentOrder(t, c, clientID, d.ID, "Idempotency-Key", "po-1").OK(t, &replay)
	if replay.ApplyForPaymentOrder.RemainingAmount != "1680.00" {
		t.Fatalf("the replay reads %+v", replay.ApplyForPaymentOrder)
	}
	applyPaymentOrder(t, c, clientID, d.ID).Refused(t, http.StatusConflict, "CONFLICT", "")
	if n := operationEvents(t, env, "applyForPaymentOrder"); n != 1 {
		t.Fatalf("%d applyForPaymentOrder events, want 1", n)
	}
	if ids, total := debtsWith(t, c, clientID, apitest.Vars{"mainStatus": "LEGAL"}); total != 1 || len(ids) != 1 || ids[0] != d.ID {
		t.Fatalf("mainStatus LEGAL lists %v (total %d)", ids, total)
	}
	if ids, total := debtsWith(t, c, clientID, apitest.Vars{"mainStatus": "COLLECTION"}); total != 1 || len(ids) != 1 || ids[0] != fresh.ID {
		t.Fatalf("mainStatus COLLECTION lists %v (total %d), want only %d", ids, total, fresh.ID)
	}
	if _, total := debtsWith(t, c, clientID, apitest.Vars{"underStatus": "PAYMENT_ORDER_APPLIED"}); total != 1 {
		t.Fatalf("underStatus PAYMENT_ORDER_APPLIED counts %d", total)
	}

	// Paying the items is not enough: the fees are charged too. Paying
	// them closes the LEGAL debt; a closed debt cannot be disputed.
	item := got.Invoices[0].ID
	termsPay(t, c, clientID, d.ID, item, "1000.00", today)
	if r := processRead(t, c, clientID, d.ID); r.MainStatus != "LEGAL" || r.PaymentStatus != "PARTIALLY_PAID" || r.RemainingAmount != "680.00" {
		t.Fatalf("with the items paid the debt reads %+v", r)
	}
	termsPay(t, c, clientID, d.ID, item, "700.00", today)
	r := processRead(t, c, clientID, d.ID)
	if r.MainStatus != "CLOSED" || r.UnderStatus != "PAID_IN_FULL" || r.PaymentStatus != "OVERPAID" || r.RemainingAmount != "0.00" ||
		r.OverpaidAmount != "20.00" || r.Claim.OverpaidAmount != "20.00" || r.Claim.Total.Outstanding != "0.00" {
		t.Fatalf("with the fees paid the debt reads %+v", r)
	}
	if ids, total := debtsWith(t, c, clientID, apitest.Vars{"underStatus": "PAID_IN_FULL", "paymentStatus": "OVERPAID"}); total != 1 || ids[0] != d.ID {
		t.Fatalf("PAID_IN_FULL and OVERPAID list %v (total %d)", ids, total)
	}
	dispute(t, c, clientID, d.ID, "för sent").Refused(t, http.StatusConflict, "CONFLICT", "")

	// Each step is an audit event with the debt's statuses around it; the
	// payment order's names its fees.
	var events struct {
		Debt struct {
			Events []struct {
				Operation string
				Records   []struct {
					RecordType    string
					Before, After *struct {
						MainStatus, UnderStatus string
						IsDisputed              *bool
					}
				}
			}
		}
	}
	c.Do(t, `query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { events { operation records { recordType
	  before { mainStatus underStatus isDisputed } after { mainStatus underStatus isDisputed } } } } }`,
		apitest.Vars{"c": clientID, "id": d.ID}).OK(t, &events)
	var ops []string
	for _, e := range events.Debt.Events {
		ops = append(ops, e.Operation)
		switch e.Operation {
		case "disputeDebt":
			if b, a := e.Records[0].Before, e.Records[0].After; b == nil || a == nil || b.IsDisputed == nil || *b.IsDisputed || a.IsDisputed == nil || !*a.IsDisputed {
				t.Errorf("disputeDebt's event records %+v -> %+v", b, a)
			}
		case "applyForPaymentOrder":
			if b, a := e.Records[0].Before, e.Records[0].After; b.MainStatus != "COLLECTION" || a.MainStatus != "LEGAL" || a.UnderStatus != "PAYMENT_ORDER_APPLIED" {
				t.Errorf("applyForPaymentOrder's event records %+v -> %+v", b, a)
			}
			if len(e.Records) != 3 || e.Records[1].RecordType != "FEE" || e.Records[2].RecordType != "FEE" {
				t.Errorf("applyForPaymentOrder's event names %+v, want the debt and two fees", e.Records)
			}
		}
	}
	if want := "[createDebt disputeDebt resolveDispute applyForPaymentOrder addDebtPayment addDebtPayment]"; fmt.Sprint(ops) != want {
		t.Errorf("the debt's events are %v, want %s", ops, want)
	}
}

// The demand date: given for a case taken over, or the day of hand-over;
// DEMAND_SENT lasts the 8 days after it, and the hand-over fees are dated
// on it.
func TestDemandSentOn(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Krav AB")
	create := func(demand any, number string) *apitest.Response {
		in := debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput(number, "100.00"))
		in["demandSentOn"] = demand
		in["terms"] = apitest.Vars{"interest": "NONE", "collectionFee": "180.00", "lateCompensation": false}
		return c.Do(t, `mutation($c: UUID!, $in: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $in) { `+processSelection+` } }`,
			apitest.Vars{"c": clientID, "in": in})
	}
	tomorrow := scalar.DateOf(time.Now().In(apitest.Stockholm).AddDate(0, 0, 1)).String()
	create(tomorrow, "F-0").Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.demandSentOn")
	create("1899-12-31", "F-0").Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.demandSentOn")
	create("2026-02-30", "F-0").Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.demandSentOn")
	if n := operationEvents(t, env, "createDebt"); n != 0 {
		t.Fatalf("refused hand-overs wrote %d events", n)
	}
	for _, tt := range []struct {
		demand any
		under  string
	}{{nil, "DEMAND_SENT"}, {daysAgo(0), "DEMAND_SENT"}, {daysAgo(8), "DEMAND_SENT"}, {daysAgo(9), "DEMAND_EXPIRED"}, {"1900-01-01", "DEMAND_EXPIRED"}} {
		var out struct{ CreateDebt processDebt }
		create(tt.demand, fmt.Sprintf("F-%v", tt.demand)).OK(t, &out)
		d := out.CreateDebt
		want := daysAgo(0)
		if tt.demand != nil {
			want = tt.demand.(string)
		}
		if d.DemandSentOn != want || d.UnderStatus != tt.under {
			t.Errorf("demandSentOn %v: reads %s, %s; want %s, %s", tt.demand, d.DemandSentOn, d.UnderStatus, want, tt.under)
		}
		if ch := d.Claim.Charges; len(ch) != 1 || ch[0].Kind != "COLLECTION_FEE" || ch[0].ChargedOn != want {
			t.Errorf("demandSentOn %v: charges %+v, want the collection fee dated %s", tt.demand, ch, want)
		}
		if d.RemainingAmount != "280.00" || d.PaymentStatus != "UNPAID" {
			t.Errorf("demandSentOn %v: remaining %s, %s; want 280.00 (item and fee), UNPAID", tt.demand, d.RemainingAmount, d.PaymentStatus)
		}
	}
	if _, total := debtsWith(t, c, clientID, apitest.Vars{"underStatus": "DEMAND_EXPIRED"}); total != 2 {
		t.Errorf("underStatus DEMAND_EXPIRED counts %d, want 2", total)
	}
}

// A debt under statutory interest: its part-one amounts are its claim's
// today, and it closes when the interest is paid too.
func TestPartOneFieldsFollowTheClaim(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Ränta AB")
	d := processCreate(t, c, clientID, statutoryDebtInput("10000.00", "0.00"))
	if d.RemainingAmount != d.Claim.Total.Outstanding || d.RemainingAmount == "10000.00" || d.PaymentStatus != "UNPAID" {
		t.Fatalf("a debt with 100 days of interest reads remaining %s, claim %+v, %s", d.RemainingAmount, d.Claim.Total, d.PaymentStatus)
	}
	today := daysAgo(0)
	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, "10000.00", today)
	r := processRead(t, c, clientID, d.ID)
	// The payment paid the interest first, so principal is left.
	if r.MainStatus != "COLLECTION" || r.PaymentStatus != "PARTIALLY_PAID" || r.RemainingAmount != r.Claim.Total.Outstanding || r.RemainingAmount == "0.00" {
		t.Fatalf("after paying the principal's amount the debt reads %+v", r)
	}
	if ids, _ := debtsWith(t, c, clientID, apitest.Vars{"paymentStatus": "PARTIALLY_PAID", "mainStatus": "COLLECTION"}); len(ids) != 1 {
		t.Fatalf("the filters do not find the partly paid debt: %v", ids)
	}
	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, r.RemainingAmount, today)
	r = processRead(t, c, clientID, d.ID)
	if r.MainStatus != "CLOSED" || r.UnderStatus != "PAID_IN_FULL" || r.PaymentStatus != "PAID" || r.RemainingAmount != "0.00" || r.OverpaidAmount != "0.00" {
		t.Fatalf("after paying what remained the debt reads %+v", r)
	}
	if ids, _ := debtsWith(t, c, clientID, apitest.Vars{"paymentStatus": "PAID", "mainStatus": "CLOSED"}); len(ids) != 1 {
		t.Fatalf("the filters do not find the paid debt: %v", ids)
	}
	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, "5.00", today)
	r = processRead(t, c, clientID, d.ID)
	if r.PaymentStatus != "OVERPAID" || r.OverpaidAmount != "5.00" || r.Claim.OverpaidAmount != "5.00" {
		t.Fatalf("after paying 5.00 more the debt reads %+v", r)
	}
}

// Payments racing the payment order, and others racing a dispute, on one
// debt each: every payment is booked, the fees are charged once, one
// application and one dispute succeed.
func TestProcessStepsRacePayments(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Kapplöpning AB")
	in := debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput("F-1", "1000.00"))
	in["demandSentOn"] = daysAgo(30)
	d := processCreate(t, c, clientID, in)
	other := processCreate(t, c, clientID, debtCaseInput("198112189876", "Anna Andersson", debtCaseItemInput("F-2", "1000.00")))
	today := daysAgo(0)
	race := func(target processDebt, step func() *apitest.Response) map[string]int {
		var wg sync.WaitGroup
		var mu sync.Mutex
		outcomes := map[string]int{}
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				var r *apitest.Response
				name := "payment"
				if i%4 == 0 {
					name, r = "step", step()
				} else {
					r = debtCasePay(t, c, clientID, target.ID, target.Invoices[0].ID, "10.00", today)
				}
				mu.Lock()
				if r.Status != http.StatusOK && name == "payment" {
					t.Logf("%s", r.Body)
				}
				outcomes[fmt.Sprintf("%s %d", name, r.Status)]++
				mu.Unlock()
			}(i)
		}
		wg.Wait()
		return outcomes
	}
	want := map[string]int{"payment 200": 15, "step 200": 1, "step 409": 4}
	if got := race(d, func() *apitest.Response { return applyPaymentOrder(t, c, clientID, d.ID) }); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("payments and payment orders: outcomes %v, want %v", got, want)
	}
	r := processRead(t, c, clientID, d.ID)
	if r.PaidAmount != "150.00" || len(r.Claim.Charges) != 2 || r.RemainingAmount != "1530.00" || r.MainStatus != "LEGAL" {
		t.Fatalf("after the race the debt reads %+v", r)
	}
	if got := race(other, func() *apitest.Response { return dispute(t, c, clientID, other.ID, "bestrids") }); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("payments and disputes: outcomes %v, want %v", got, want)
	}
	r = processRead(t, c, clientID, other.ID)
	if r.PaidAmount != "150.00" || !r.IsDisputed || len(r.Steps) != 1 || r.RemainingAmount != "850.00" {
		t.Fatalf("after the race the disputed debt reads %+v", r)
	}
}

// Payments racing on a debt that bears interest: each is booked once, and
// the debt's kept charged amount stays its claim's, so that paying what
// remains closes it exactly.
func TestInterestPaymentsRace(t *testing.T) {
	env := apitest.New(t)
	clientID, c := env.ClientCaller(t, "Ränta AB")
	d := processCreate(t, c, clientID, statutoryDebtInput("10000.00", "180.00"))
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Dates spread over the last 20 days: later payments re-apply.
			statuses[i] = debtCasePay(t, c, clientID, d.ID, d.Invoices[0].ID, "100.00", daysAgo(i)).Status
		}(i)
	}
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusOK {
			t.Fatalf("payment %d answered %d", i, s)
		}
	}
	r := processRead(t, c, clientID, d.ID)
	if r.PaidAmount != "2000.00" || r.RemainingAmount != r.Claim.Total.Outstanding || r.PaymentStatus != "PARTIALLY_PAID" {
		t.Fatalf("after 20 racing payments the debt reads %+v", r)
	}
	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, r.RemainingAmount, daysAgo(0))
	r = processRead(t, c, clientID, d.ID)
	if r.MainStatus != "CLOSED" || r.PaymentStatus != "PAID" || r.RemainingAmount != "0.00" {
		t.Fatalf("after paying what remained the debt reads %+v", r)
	}
	if ids, _ := debtsWith(t, c, clientID, apitest.Vars{"paymentStatus": "PAID", "mainStatus": "CLOSED"}); len(ids) != 1 {
		t.Fatalf("the filters do not find the paid debt: %v", ids)
	}
}

// A payment on a debt that bears interest is booked with two statements
// when nothing races it: one reads the claim's facts, one books.
func TestInterestPaymentStatements(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("SQLite books every payment in a transaction of ent's statements")
	}
	clientID, c := env.ClientCaller(t, "Ränta AB")
	item := debtCaseItemInput("F-1", "10000.00")
	in := debtCaseInput("198112189876", "Anna Andersson", item)
	in["terms"] = apitest.Vars{"interest": "STATUTORY", "collectionFee": "0.00", "lateCompensation": false}
	d := termsMustCreate(t, c, clientID, in)
	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, "10.00", daysAgo(0)) // the service learns that it bears interest
	env.Statements.Reset()
	termsPay(t, c, clientID, d.ID, d.Invoices[0].ID, "10.00", daysAgo(0))
	if n := env.Statements.Count(); n != 2 {
		t.Errorf("a payment on a debt that bears interest took %d statements, want 2", n)
	}
}
