package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/payment"
	"github.com/debtql/debtql/internal/scalar"
	"github.com/debtql/debtql/internal/store"
)

// insertHandover writes a hand-over's new debtors (handoverDebtors made
// their rows), debts, items, fees, opening payments, events and the events'
// records on PostgreSQL in one statement, the rows handOver's inserts
// through ent write on SQLite, in the same order (so their ids grow in the
// same order), and returns the debts as written, in the entries' order.
//
// A grouped createDebt spends most of its transaction on round trips, not
// on the database's work (docs/performance.md, "Bulk hand-over"): one
// statement instead of one insert a table takes four to six of them out of
// every hand-over. Each entry's debt id and event id, and each item's, fee's
// and payment's id, are drawn from their sequences in the statement, in the
// entries' order; the rows then name each other by the entries' ordinals.
// TestHandoverInsertsAsEnt holds the rows to those of the inserts through
// ent.
//
// In a piped transaction (a grouped createDebt's) the statement goes with
// the COMMIT, in the same round trip (piped.AtCommit), and the debts are
// filled in when it has committed. A failure of the statement rolls the
// transaction back; rows that could not be read afterwards (a defect
// that TestHandoverInsertsAsEnt guards against) fail the calls although
// the transaction has committed.
func (s *Service) insertHandover(ctx context.Context, tx *ent.Tx, piped *store.PipedTx, clientID string, created time.Time,
	newDebtors []*ent.Debtor, hs []handover, ev func(int) event) ([]*ent.Debt, error) {
	n := len(hs)
	var (
		// One per entry: its debt and its event.
		debtorIDs                                                  = make([]string, n)
		originals, paids, chargeds, collectionFees                 = make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		lastPayments                                               = make([]*string, n)
		bearing, lateComps                                         = make([]bool, n), make([]bool, n)
		demands                                                    = make([]time.Time, n)
		rules, afters, keyIDs, keyNames, roles, operations, reqIDs = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		// One per item.
		itemEntries, positions, amounts, itemPaids []int64
		numbers, numberKeys                        []string
		descriptions, dueOns                       []*string
		invoiceDates, dueDates                     []time.Time
		reminders                                  []*time.Time
		rates, reminderFees                        []*int64
		// One per fee and per opening payment.
		feeEntries, feeAmounts, payEntries, payItems, payAmounts []int64
		feeKinds, feeDays, payDays                               []string
		payBooked                                                []*string
	)
	for i := range hs {
		h := &hs[i]
		d := h.debt(clientID, created)
		debtorIDs[i], originals[i], paids[i], chargeds[i] = d.DebtorID, int64(d.OriginalAmount), int64(d.PaidAmount), int64(d.ChargedAmount)
		lastPayments[i] = dateText(d.LastPaymentOn)
		bearing[i], demands[i], rules[i], collectionFees[i], lateComps[i] = d.InterestBearing, d.DemandSentAt, d.InterestRule.String(), int64(d.CollectionFee), d.LateCompensation
		after, err := json.Marshal(s.debtStatuses(d))
		if err != nil {
			return nil, err
		}
		afters[i] = string(after)
		e := ev(i)
		keyIDs[i], keyNames[i], roles[i], operations[i], reqIDs[i] = e.KeyID, e.KeyName, e.Role.String(), e.operation, e.RequestID
		for pos, it := range h.in.Debts {
			item := h.item(pos)
			itemEntries, positions = append(itemEntries, int64(i+1)), append(positions, int64(pos))
			numbers, numberKeys = append(numbers, item.InvoiceNumber), append(numberKeys, item.InvoiceNumberKey)
			descriptions, dueOns = append(descriptions, item.Description), append(dueOns, dateText(item.DueOn))
			invoiceDates, dueDates, reminders = append(invoiceDates, item.InvoiceDate), append(dueDates, item.DueDate), append(reminders, item.ReminderDate)
			amounts, itemPaids = append(amounts, int64(item.Amount)), append(itemPaids, int64(item.PaidAmount))
			rates, reminderFees = append(rates, (*int64)(item.InterestRate)), append(reminderFees, (*int64)(item.ReminderFee))
			for _, p := range it.Payments {
				pm := h.payment(p)
				payEntries, payItems = append(payEntries, int64(i+1)), append(payItems, int64(len(numbers)))
				payAmounts, payDays, payBooked = append(payAmounts, int64(pm.Amount)), append(payDays, pm.TransactionDate.String()), append(payBooked, dateText(pm.BookedDate))
			}
		}
		for _, f := range h.fees {
			feeEntries, feeKinds = append(feeEntries, int64(i+1)), append(feeKinds, f.Kind.String())
			feeAmounts, feeDays = append(feeAmounts, int64(f.Amount)), append(feeDays, f.ChargedOn.String())
		}
	}
	var debtors debtorColumns
	for _, d := range newDebtors {
		debtors.add(d)
	}
	args := []any{clientID, created,
		debtorIDs, originals, paids, chargeds, lastPayments, bearing, demands, rules, collectionFees, lateComps,
		afters, keyIDs, keyNames, roles, operations, reqIDs,
		itemEntries, positions, numbers, numberKeys, descriptions, invoiceDates, dueDates, reminders, dueOns,
		amounts, itemPaids, rates, reminderFees,
		feeEntries, feeKinds, feeAmounts, feeDays,
		payEntries, payItems, payAmounts, payDays, payBooked}
	args = append(args, debtors.args()...)
	db := s.db(ctx)
	// Filled in by position: in a piped transaction, when it commits.
	debts := make([]*ent.Debt, n)
	scan := func(rows store.Rows) error {
		written := 0
		for rows.Next() {
			var row ent.RowScanner
			d, err := row.ScanDebt(db, debt.Columns)
			if err != nil {
				return err
			}
			if err := row.Read(rows); err != nil {
				return err
			}
			if written < n {
				debts[written] = d
			}
			written++
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if written != n {
			return fmt.Errorf("ledger: the hand-over statement wrote %d debts of %d", written, n)
		}
		return nil
	}
	s.afterCommit(ctx)
	p := &store.Pipeline{}
	p.Query(handoverInsertSQL, scan, args...)
	if piped != nil {
		piped.AtCommit(p)
		return debts, nil
	}
	if err := p.RunIn(ctx, tx); err != nil {
		return nil, err
	}
	return debts, nil
}

// nextID is the SQL that draws the next id of table's identity column
// (PostgreSQL). The sequence is looked up once per statement, by an
// uncorrelated subquery: pg_get_serial_sequence called in each row costs
// about 5 µs a row, 11 ms of a batch of 500 debts' 2,000 ids.
func nextID(table string) string {
	return "nextval((SELECT pg_get_serial_sequence('" + table + "', 'id')::regclass))"
}

// dateText is a date as the statement reads it (text, cast there), or nil.
func dateText(d *scalar.Date) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}

// handoverInsertSQL is insertHandover's statement. nd: the new debtors
// (the debts' foreign keys are checked at the statement's end, when they
// are in); x: the entries, each
// with its debt's and event's ids; y: the items, each with its entry
// (1-based) and id; f: the fees; z: the opening payments, each with its
// entry and item (1-based, of y). Arrays whose values are dates or JSON
// arrive as text and are cast here.
var handoverInsertSQL = strings.Join([]string{
	`WITH x AS MATERIALIZED (SELECT u.*, ` + nextID("debts") + ` AS id,`,
	` ` + nextID("audit_events") + ` AS event_id`,
	` FROM unnest($3::uuid[], $4::bigint[], $5::bigint[], $6::bigint[], $7::text[], $8::boolean[], $9::timestamptz[],`,
	` $10::text[], $11::bigint[], $12::boolean[], $13::text[], $14::uuid[], $15::text[], $16::text[], $17::text[], $18::text[])`,
	` WITH ORDINALITY AS u(debtor_id, original_amount, paid_amount, charged_amount, last_payment_on, interest_bearing,`,
	` demand_sent_at, interest_rule, collection_fee, late_compensation, after, key_id, key_name, role, operation, request_id, n)),`,
	`y AS MATERIALIZED (SELECT u.*, ` + nextID("debt_invoices") + ` AS id`,
	` FROM unnest($19::bigint[], $20::bigint[], $21::text[], $22::text[], $23::text[], $24::timestamptz[], $25::timestamptz[],`,
	` $26::timestamptz[], $27::text[], $28::bigint[], $29::bigint[], $30::bigint[], $31::bigint[])`,
	` WITH ORDINALITY AS u(entry, position, invoice_number, invoice_number_key, description, invoice_date, due_date,`,
	` reminder_date, due_on, amount, paid_amount, interest_rate, reminder_fee, n)),`,
	`f AS MATERIALIZED (SELECT u.*, ` + nextID("fees") + ` AS id`,
	` FROM unnest($32::bigint[], $33::text[], $34::bigint[], $35::text[]) WITH ORDINALITY AS u(entry, kind, amount, charged_on, n)),`,
	`z AS MATERIALIZED (SELECT u.*, ` + nextID("payments") + ` AS id`,
	` FROM unnest($36::bigint[], $37::bigint[], $38::bigint[], $39::text[], $40::text[])`,
	` WITH ORDINALITY AS u(entry, item, amount, transaction_date, booked_date, n)),`,
	`nd AS (INSERT INTO debtors (id, created_at, updated_at, client_id, is_corporation, identification_number,`,
	` identification_key, name, name_key, address1, address2, care_of, zip_code, city, country_code, email, email_key, phone)`,
	` SELECT u.id, $2, $2, $1::uuid, u.is_corporation, u.identification_number, u.identification_key, u.name, u.name_key,`,
	` u.address1, u.address2, u.care_of, u.zip_code, u.city, u.country_code, u.email, u.email_key, u.phone`,
	` FROM unnest($41::uuid[], $42::boolean[], $43::text[], $44::text[], $45::text[], $46::text[], $47::text[], $48::text[],`,
	` $49::text[], $50::text[], $51::text[], $52::text[], $53::text[], $54::text[], $55::text[])`,
	` AS u(id, is_corporation, identification_number, identification_key, name, name_key, address1, address2, care_of,`,
	` zip_code, city, country_code, email, email_key, phone)),`,
	`d AS (INSERT INTO debts (id, created_at, updated_at, client_id, debtor_id, original_amount, paid_amount, charged_amount,`,
	` last_payment_on, interest_bearing, demand_sent_at, interest_rule, collection_fee, late_compensation)`,
	` SELECT id, $2, $2, $1::uuid, debtor_id, original_amount, paid_amount, charged_amount, last_payment_on::date,`,
	` interest_bearing, demand_sent_at, interest_rule, collection_fee, late_compensation FROM x ORDER BY n`,
	` RETURNING ` + strings.Join(debt.Columns, ", ") + `),`,
	`i AS (INSERT INTO debt_invoices (id, created_at, client_id, debt_id, position, invoice_number, invoice_number_key,`,
	` description, invoice_date, due_date, reminder_date, due_on, amount, paid_amount, interest_rate, reminder_fee)`,
	` SELECT y.id, $2, $1::uuid, x.id, y.position, y.invoice_number, y.invoice_number_key, y.description, y.invoice_date,`,
	` y.due_date, y.reminder_date, y.due_on::date, y.amount, y.paid_amount, y.interest_rate, y.reminder_fee`,
	` FROM y JOIN x ON x.n = y.entry ORDER BY y.n),`,
	`fi AS (INSERT INTO fees (id, created_at, client_id, debt_id, kind, amount, charged_on)`,
	` SELECT f.id, $2, $1::uuid, x.id, f.kind, f.amount, f.charged_on::date FROM f JOIN x ON x.n = f.entry ORDER BY f.n),`,
	`p AS (INSERT INTO payments (id, created_at, client_id, debt_id, debt_invoice_id, amount, transaction_date, booked_date, source)`,
	` SELECT z.id, $2, $1::uuid, x.id, y.id, z.amount, z.transaction_date::date, z.booked_date::date, '` + payment.SourceBEFORE_HANDOVER.String() + `'`,
	` FROM z JOIN x ON x.n = z.entry JOIN y ON y.n = z.item ORDER BY z.n),`,
	`e AS (INSERT INTO audit_events (id, created_at, client_id, api_key_id, api_key_name, role, operation, request_id, debt_id)`,
	` SELECT event_id, $2, $1::uuid, key_id, key_name, role, operation, request_id, id FROM x ORDER BY n),`,
	// Each event's records in the order of the inserts through ent: the
	// debtor, the debt (with its statuses), the items, fees and payments.
	`r AS (INSERT INTO audit_event_records (client_id, event_id, record_type, record_id, before, after)`,
	` SELECT $1::uuid, x.event_id, q.record_type, q.record_id, NULL, q.after::jsonb FROM x JOIN (`,
	`SELECT n AS entry, 1 AS k, 0::bigint AS o, '` + auditeventrecord.RecordTypeDEBTOR.String() + `' AS record_type, debtor_id::text AS record_id, NULL::text AS after FROM x`,
	` UNION ALL SELECT n, 2, 0, '` + auditeventrecord.RecordTypeDEBT.String() + `', id::text, after FROM x`,
	` UNION ALL SELECT entry, 3, n, '` + auditeventrecord.RecordTypeDEBT_INVOICE.String() + `', id::text, NULL FROM y`,
	` UNION ALL SELECT entry, 4, n, '` + auditeventrecord.RecordTypeFEE.String() + `', id::text, NULL FROM f`,
	` UNION ALL SELECT entry, 5, n, '` + auditeventrecord.RecordTypePAYMENT.String() + `', id::text, NULL FROM z`,
	`) q ON q.entry = x.n ORDER BY x.n, q.k, q.o)`,
	`SELECT ` + strings.Join(debt.Columns, ", ") + ` FROM d ORDER BY id`,
}, "\n")

// queueHeld queues readHeld's one read (PostgreSQL), between the two
// statements that have it run on its plan without arguments: the
// unwithdrawn debts of the client that hold the numbers, and the client's
// debtors of the identification keys, as (kind, key, id) rows read into
// held. A grouped createDebt sends them with its BEGIN (handOverPiped);
// createDebts runs them in its transaction (readHeld).
func queueHeld(p *store.Pipeline, held handoverHeld, clientID string, numbers, keys []string) {
	p.Exec(genericPlansSQL)
	p.Query(handoverHeldSQL, held.scan, clientID, numbers, keys)
	p.Exec(plansRestoredSQL)
}

// genericPlansSQL and plansRestoredSQL surround handoverHeldSQL, which
// PostgreSQL would otherwise plan for its arguments at every execution:
// their arrays make a plan of their own look cheaper than the one made
// without them, and planning it takes 0.3–0.4 ms where the statement runs
// in 0.03–0.07 ms on its plan without arguments (the lookups by the unique
// indexes, below). The transaction's setting is kept in
// debtql.plan_cache_mode and put back after.
const (
	genericPlansSQL = `SELECT set_config('debtql.plan_cache_mode', current_setting('plan_cache_mode'), true),
       set_config('plan_cache_mode', 'force_generic_plan', true)`
	plansRestoredSQL = `SELECT set_config('plan_cache_mode', current_setting('debtql.plan_cache_mode'), true)`
)

// scan reads the rows of handoverHeldSQL into held.
func (held handoverHeld) scan(rows store.Rows) error {
	for rows.Next() {
		var kind, key, id string
		if err := rows.Scan(&kind, &key, &id); err != nil {
			return err
		}
		switch kind {
		case "n":
			debtID, err := strconv.Atoi(id)
			if err != nil {
				return err
			}
			held.numbers[key] = scalar.IntID(debtID)
		case "d":
			held.debtors[key] = id
		}
	}
	return rows.Err()
}

// clientSQL reads a client's row, as scanClient reads it.
var clientSQL = "SELECT " + strings.Join(creditor.Columns, ", ") + " FROM " + creditor.Table + " WHERE id = $1::uuid"

// scanClient reads the client of clientSQL's rows, or nil when there is
// none; its edges are queried through db.
func scanClient(db *ent.Client, rows store.Rows) (*ent.Creditor, error) {
	var c *ent.Creditor
	for rows.Next() {
		var row ent.RowScanner
		e, err := row.ScanCreditor(db, creditor.Columns)
		if err != nil {
			return nil, err
		}
		if err := row.Read(rows); err != nil {
			return nil, err
		}
		c = e
	}
	return c, rows.Err()
}

// handoverHeldSQL is queueHeld's read. Each number and key is
// looked up on its own, in a subquery that OFFSET 0 keeps from being
// merged into a join with the array's elements: its one plan is a lookup
// by the unique index of (client, number) or (client, identification
// key), whatever the statistics say of the client's rows. pgx prepares
// the statement and PostgreSQL may cache a plan made without the
// arguments; written as "identification_key = ANY($3)", or as a plain
// join, such a plan on a young table (statistics of a few rows a client)
// read every row of the client and matched them against the array: 3.4
// ms a group of createDebt calls and 88 ms a batch of 500 once the client
// had 10,000 debts, against 0.2 and 2.4 ms (docs/performance.md, "Bulk
// hand-over"). The transaction's lock statement switched bitmap scans off
// (store.LockKeys), so that no lookup is planned on a trigram index
// either.
const handoverHeldSQL = `SELECT 'n', i.invoice_number, i.debt_id::text FROM unnest($2::text[]) AS k(number),
  LATERAL (SELECT i.invoice_number, i.debt_id FROM debt_invoices AS i
    JOIN debts AS d ON d.id = i.debt_id AND d.withdrawn_at IS NULL
   WHERE i.client_id = $1::uuid AND i.invoice_number = k.number OFFSET 0) AS i
UNION ALL
SELECT 'd', d.identification_key, d.id::text FROM unnest($3::text[]) AS k(key),
  LATERAL (SELECT d.identification_key, d.id FROM debtors AS d
   WHERE d.client_id = $1::uuid AND d.identification_key = k.key OFFSET 0) AS d`
