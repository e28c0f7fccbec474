package ledger_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/ledger"
	"github.com/debtql/debtql/internal/scalar"
)

// handoverRows are the rows of a client's hand-overs, each table's as
// JSON without what differs between two clients or two runs (ids, instants,
// the client): a row that names another names it by its place (a debt by
// its rank among the client's debts, a debtor by its identification key).
var handoverRows = map[string]string{
	"debtors": `SELECT (to_jsonb(t) - 'id' - 'client_id' - 'created_at' - 'updated_at'
	    || jsonb_build_object('refreshed', t.updated_at > t.created_at))::text
	  FROM debtors t WHERE client_id = $1 ORDER BY identification_key`,
	"debts": `SELECT (to_jsonb(t) - 'id' - 'client_id' - 'created_at' - 'updated_at' - 'debtor_id' - 'demand_sent_at'
	    || jsonb_build_object('debtor', (SELECT identification_key FROM debtors WHERE id = t.debtor_id),
	       'demand', CASE WHEN t.demand_sent_at = t.created_at THEN 'at hand-over' ELSE t.demand_sent_at::text END))::text
	  FROM debts t WHERE client_id = $1 ORDER BY id`,
	"items": `SELECT (to_jsonb(t) - 'id' - 'client_id' - 'created_at' - 'debt_id'
	    || jsonb_build_object('debt', (SELECT count(*) FROM debts WHERE client_id = t.client_id AND id <= t.debt_id)))::text
	  FROM debt_invoices t WHERE client_id = $1 ORDER BY id`,
	"fees": `SELECT (to_jsonb(t) - 'id' - 'client_id' - 'created_at' - 'debt_id'
	    || jsonb_build_object('debt', (SELECT count(*) FROM debts WHERE client_id = t.client_id AND id <= t.debt_id)))::text
	  FROM fees t WHERE client_id = $1 ORDER BY id`,
	"payments": `SELECT (to_jsonb(t) - 'id' - 'client_id' - 'created_at' - 'debt_id' - 'debt_invoice_id'
	    || jsonb_build_object('debt', (SELECT count(*) FROM debts WHERE client_id = t.client_id AND id <= t.debt_id),
	       'item', (SELECT count(*) FROM debt_invoices WHERE client_id = t.client_id AND id <= t.debt_invoice_id)))::text
	  FROM payments t WHERE client_id = $1 ORDER BY id`,
	"events": `SELECT (to_jsonb(t) - 'id' - 'client_id' - 'created_at' - 'xact' - 'debt_id'
	    || jsonb_build_object('debt', (SELECT count(*) FROM debts WHERE client_id = t.client_id AND id <= t.debt_id)))::text
	  FROM audit_events t WHERE client_id = $1 AND debt_id IS NOT NULL ORDER BY id`,
	"records": `SELECT (to_jsonb(r) - 'id' - 'client_id' - 'event_id' - 'record_id'
	    || jsonb_build_object('event', (SELECT count(*) FROM audit_events WHERE client_id = r.client_id AND debt_id IS NOT NULL AND id <= r.event_id),
	       'record', CASE r.record_type
	         WHEN 'DEBTOR' THEN (SELECT identification_key FROM debtors WHERE id::text = r.record_id)
	         WHEN 'DEBT' THEN (SELECT count(*) FROM debts WHERE client_id = r.client_id AND id <= r.record_id::bigint)::text
	         WHEN 'DEBT_INVOICE' THEN (SELECT count(*) FROM debt_invoices WHERE client_id = r.client_id AND id <= r.record_id::bigint)::text
	         WHEN 'FEE' THEN (SELECT count(*) FROM fees WHERE client_id = r.client_id AND id <= r.record_id::bigint)::text
	         WHEN 'PAYMENT' THEN (SELECT count(*) FROM payments WHERE client_id = r.client_id AND id <= r.record_id::bigint)::text
	       END))::text
	  FROM audit_event_records r WHERE client_id = $1
	   AND event_id IN (SELECT id FROM audit_events WHERE client_id = $1 AND debt_id IS NOT NULL) ORDER BY id`,
	"name suffixes": `SELECT s.suffix || ' ' || d.identification_key FROM debtor_name_suffixes s JOIN debtors d ON d.id = s.debtor_id
	  WHERE s.client_id = $1 ORDER BY 1`,
}

// TestHandoverInsertsAsEnt holds the one statement that writes a
// hand-over's rows on PostgreSQL (insertHandover) to the inserts through
// ent that write them on SQLite: the same hand-overs of two clients, one
// written each way, leave the same rows in every table they touch, in the
// same order of ids. The hand-overs carry every optional field: contact
// details, an address's second line and c/o, a description, a reminder
// date and fee, an agreed rate, opening payments booked or not, terms with
// a collection fee, a demand sent earlier, a debtor handed over twice in
// one batch, and one that existed before (refreshed).
func TestHandoverInsertsAsEnt(t *testing.T) {
	env, one, admin, c1 := postgresClient(t, "SQLite has only the inserts through ent")
	viaEnt := ledger.New(env.DB, ledger.Clock{})
	viaEnt.SetHandoverInOneStatement(false)
	c2, err := viaEnt.CreateClient(context.Background(), admin, apitestClient())
	if err != nil {
		t.Fatal(err)
	}
	day := func(m, d int) time.Time { return time.Date(2026, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	ptr := func(s string) *string { return &s }
	money := func(s string) *collection.Money { m := mustMoney(t, s); return &m }
	rate := collection.Rate(80000)
	demand := scalar.DateOf(day(10, 15))
	entries := func() []collection.DebtorWithDebtsRecord {
		full := handoverRecord(t, "NO-FULL", "F-1")
		full.Email, full.Phone = ptr("Kari@Example.no"), ptr("+47 22 00 00 00")
		full.Address.Address2, full.Address.CareOf = ptr("Postboks 7"), ptr("Ola Nordmann")
		full.IsCorporation = true
		full.Terms = &collection.Terms{CollectionFee: mustMoney(t, "180.00")}
		full.DemandSentOn = &demand
		full.Debts[0].Description = ptr("Faktura för oktober")
		full.Debts[0].ReminderDate = ptr2(day(10, 10))
		full.Debts[0].ReminderFee = money("60.00")
		full.Debts[0].InterestRate = &rate
		full.Debts[0].Payments = []collection.ItemPaymentRecord{
			{Amount: mustMoney(t, "10.00"), TransactionDate: day(10, 5), BookedDate: ptr2(day(10, 6))},
			{Amount: mustMoney(t, "5.50"), TransactionDate: day(10, 7)}}
		second := handoverRecord(t, "NO-FULL", "F-2") // the same debtor again
		second.Debts = append(second.Debts, handoverRecord(t, "x", "F-3").Debts[0])
		second.Debts[1].Payments = []collection.ItemPaymentRecord{{Amount: mustMoney(t, "1.00"), TransactionDate: day(10, 8)}}
		return []collection.DebtorWithDebtsRecord{full, handoverRecord(t, "NO-OLD", "O-2"), second, handoverRecord(t, "NO-NEW", "N-1")}
	}
	for _, w := range []struct {
		svc      *ledger.Service
		clientID string
	}{{one, c1.ID}, {viaEnt, c2.ID}} {
		ctx := context.Background()
		if _, err := w.svc.CreateDebt(ctx, admin, w.clientID, handoverRecord(t, "NO-OLD", "O-1")); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.CreateDebts(ctx, admin, w.clientID, entries()); err != nil {
			t.Fatal(err)
		}
	}
	for table, query := range handoverRows {
		a, b := apitest.Strings(t, env.DB.SQL, query, c1.ID), apitest.Strings(t, env.DB.SQL, query, c2.ID)
		if len(a) == 0 {
			t.Errorf("%s: no rows written: the test compares nothing", table)
		}
		if !slices.Equal(a, b) {
			t.Errorf("%s: one statement wrote\n%s\nent's inserts\n%s", table, fmt.Sprint(a), fmt.Sprint(b))
		}
	}
}

func ptr2[T any](v T) *T { return &v }
