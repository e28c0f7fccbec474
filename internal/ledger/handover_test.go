package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/ledger"
)

// handoverRecord is a Norwegian debtor (free-form identification number)
// with one item of the given invoice number.
func handoverRecord(t *testing.T, ident, number string) collection.DebtorWithDebtsRecord {
	return collection.DebtorWithDebtsRecord{IdentificationNumber: ident, Name: "Debitor " + ident,
		Address: collection.AddressRecord{Address1: "Storgata 1", ZipCode: "0150", City: "Oslo", CountryCode: "NO"},
		Debts: []collection.DebtItemRecord{{InvoiceNumber: number, Amount: mustMoney(t, "100.00"),
			InvoiceDate: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), DueDate: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)}}}
}

// postgresClient is a service on PostgreSQL (the test is skipped on
// SQLite, for why), its ADMIN actor and a client of it.
func postgresClient(t *testing.T, why string) (*apitest.Env, *ledger.Service, ledger.Actor, *ent.Creditor) {
	t.Helper()
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip(why)
	}
	svc := ledger.New(env.DB, ledger.Clock{})
	admin := adminActor(t, env, "")
	c, err := svc.CreateClient(context.Background(), admin, apitestClient())
	if err != nil {
		t.Fatal(err)
	}
	return env, svc, admin, c
}

// openTx opens a transaction rolled back when the test ends, and the
// context that runs use cases in it (as a request's transaction does).
func openTx(t *testing.T, env *apitest.Env) (*ent.Tx, context.Context) {
	t.Helper()
	tx, err := env.DB.Ent.Tx(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	return tx, ent.NewTxContext(ent.NewContext(context.Background(), tx.Client()), tx)
}

// TestHandoverLockScope guards the scope of a hand-over's locks on
// PostgreSQL: while one createDebt of a client is open (written, not yet
// committed), another of the same client on a different debtor and number
// completes (neither a client-wide lock nor the kept debt counts make it
// wait), while one on the same invoice number waits for the first to
// commit and is then CONFLICT, and one on the same debtor waits and then
// reuses it.
func TestHandoverLockScope(t *testing.T) {
	env, svc, admin, c := postgresClient(t, "SQLite runs one writer at a time: there is no lock scope to guard")
	ctx := context.Background()
	tx, open := openTx(t, env)
	if _, err := svc.CreateDebt(open, admin, c.ID, handoverRecord(t, "NO-A", "N-1")); err != nil {
		t.Fatal(err)
	}

	type result struct {
		d   *ent.Debt
		err error
	}
	start := func(in collection.DebtorWithDebtsRecord) chan result {
		done := make(chan result, 1)
		go func() {
			d, err := svc.CreateDebt(ctx, admin, c.ID, in)
			done <- result{d, err}
		}()
		return done
	}
	select {
	case r := <-start(handoverRecord(t, "NO-B", "N-2")):
		if r.err != nil {
			t.Fatalf("another debtor and number: %v", r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a createDebt of another debtor and number waited for an open one of the same client")
	}
	sameNumber := start(handoverRecord(t, "NO-C", "N-1"))
	sameDebtor := start(handoverRecord(t, "NO-A", "N-3"))
	select {
	case r := <-sameNumber:
		t.Fatalf("a createDebt of the same invoice number did not wait: %v", r.err)
	case r := <-sameDebtor:
		t.Fatalf("a createDebt of the same debtor did not wait: %v", r.err)
	case <-time.After(500 * time.Millisecond):
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	r := <-sameNumber
	var ae *apierr.Error
	if !asAPIError(r.err, &ae) || ae.Code != apierr.Conflict || ae.Field != "input.debts.0.invoiceNumber" {
		t.Errorf("the same invoice number after the commit: %v, want CONFLICT on input.debts.0.invoiceNumber", r.err)
	}
	if r := <-sameDebtor; r.err != nil {
		t.Errorf("the same debtor after the commit: %v", r.err)
	}
	var debtors int
	if err := env.DB.SQL.QueryRow(`SELECT count(*) FROM debtors WHERE client_id = $1`, c.ID).Scan(&debtors); err != nil || debtors != 2 {
		t.Errorf("%d debtors (%v), want 2", debtors, err)
	}
}

// TestHandoverLooksUpByKey guards the plans of a hand-over's lookups
// (PostgreSQL): once its keys are locked, the rest of its transaction runs
// without bitmap scans, so that its debtors are read by identification key
// through a btree, never through a trigram index (reachable by bitmap
// scans only): a cached generic plan of the lookup took one on a young
// table, at 4–8 ms a group of 16 calls and 1.7 s a batch of 500. And
// each number and key is looked up by its unique index even where the
// statistics were taken before the client had rows: the lookup written
// with "= ANY($3)" was then planned as every debtor of the client
// matched against the keys.
func TestHandoverLooksUpByKey(t *testing.T) {
	env, svc, admin, c := postgresClient(t, "plans are PostgreSQL's")
	ctx := context.Background()
	// A young client on young tables: statistics taken when the client
	// had no rows, and 2,000 debtors and invoices since.
	if _, err := env.DB.SQL.Exec(`ANALYZE debtors, debt_invoices, debts`); err != nil {
		t.Fatal(err)
	}
	for b := range 4 {
		batch := make([]collection.DebtorWithDebtsRecord, 500)
		for i := range batch {
			n := b*500 + i
			batch[i] = handoverRecord(t, fmt.Sprintf("NO-S%d", n), fmt.Sprintf("S-%d", n))
		}
		if _, err := svc.CreateDebts(ctx, admin, c.ID, batch); err != nil {
			t.Fatal(err)
		}
	}
	tx, open := openTx(t, env)
	lines := func(query string) string {
		t.Helper()
		return strings.Join(append(apitest.Strings(t, tx, query), ""), "\n")
	}
	// The lookup of a group of 16 calls, as a cached statement planned
	// without its arguments: prepared anew each time, since a cached plan
	// does not follow the settings.
	var numbers, keys []string
	for i := range 16 {
		numbers, keys = append(numbers, fmt.Sprintf("'N-%d'", i)), append(keys, fmt.Sprintf("'no-%d'", i))
	}
	if _, err := tx.ExecContext(ctx, `SET LOCAL plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	plan := func() string {
		t.Helper()
		if _, err := tx.ExecContext(ctx, `PREPARE handover_lookup(uuid, text[], text[]) AS `+ledger.HandoverHeldSQL); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if _, err := tx.ExecContext(ctx, `DEALLOCATE handover_lookup`); err != nil {
				t.Fatal(err)
			}
		}()
		return lines(`EXPLAIN (COSTS OFF) EXECUTE handover_lookup('` + c.ID + `', ARRAY[` + strings.Join(numbers, ", ") +
			`], ARRAY[` + strings.Join(keys, ", ") + `])`)
	}
	if got := lines(`SHOW enable_bitmapscan`); got != "on\n" {
		t.Fatalf("enable_bitmapscan %q before the hand-over, want on", got)
	}
	t.Logf("the lookup's plan before the hand-over's locks:\n%s", plan())
	// The hand-over's lookup runs on its plan made without the arguments
	// whatever the transaction's setting, which it leaves as it found it.
	setPlans := func(mode string) {
		t.Helper()
		if _, err := tx.ExecContext(ctx, `SET LOCAL plan_cache_mode = `+mode); err != nil {
			t.Fatal(err)
		}
	}
	setPlans("force_custom_plan")
	if _, err := svc.CreateDebt(open, admin, c.ID, handoverRecord(t, "NO-A", "N-1")); err != nil {
		t.Fatal(err)
	}
	if got := lines(`SHOW enable_bitmapscan`); got != "off\n" {
		t.Errorf("enable_bitmapscan %q in a hand-over's transaction, want off", got)
	}
	// pgx prepared the lookup on this connection (the batches above ran
	// it too).
	plans := apitest.Strings(t, tx, `SELECT custom_plans || ' custom, ' || (generic_plans > 0) || ' generic'
	  FROM pg_prepared_statements WHERE statement = $1`, ledger.HandoverHeldSQL)
	if !slices.Equal(plans, []string{"0 custom, true generic"}) {
		t.Errorf("the lookup's plans: %q, want no custom plan", plans)
	}
	if got := lines(`SHOW plan_cache_mode`); got != "force_custom_plan\n" {
		t.Errorf("plan_cache_mode %q after the hand-over, want force_custom_plan as before it", got)
	}
	setPlans("force_generic_plan")
	got := plan()
	t.Logf("the lookup's plan in the hand-over's transaction:\n%s", got)
	if strings.Contains(got, "Bitmap") || strings.Contains(got, "trgm") {
		t.Errorf("the hand-over's lookup of its numbers and debtors, planned without its arguments:\n%swant no bitmap scan", got)
	}
	// Each number and key by the unique index of both columns, not the
	// client's rows matched against them.
	for _, index := range []string{"debtinvoice_client_id_invoice_number", "debtor_client_id_identification_key"} {
		if !strings.Contains(got, " "+index+" ") {
			t.Errorf("the hand-over's lookup, planned without its arguments:\n%swant a scan of %s", got, index)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.Contains(line, "Filter:") && (strings.Contains(line, "invoice_number") || strings.Contains(line, "identification_key")) {
			t.Errorf("the hand-over's lookup, planned without its arguments:\n%swant no filter on the numbers or keys", got)
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	var setting string
	if err := env.DB.SQL.QueryRow(`SHOW enable_bitmapscan`).Scan(&setting); err != nil || setting != "on" {
		t.Errorf("enable_bitmapscan %q (%v) after the transaction, want on", setting, err)
	}
}

func asAPIError(err error, target **apierr.Error) bool {
	var list apierr.List
	if errors.As(err, &list) && len(list) > 0 {
		*target = list[0]
		return true
	}
	return errors.As(err, target)
}

// TestCreateDebtCallsCommitTogether guards the group commit of createDebt
// calls run alone (PostgreSQL): the calls of one client and key that
// arrive while one of theirs is handed over are handed over together,
// in one transaction, each debt with its own request's event; a call whose
// request ends while it waits writes nothing; a call of another key is
// not held behind them; and when a group fails, each of its calls is
// handed over on its own, so that one call's refusal is its alone.
func TestCreateDebtCallsCommitTogether(t *testing.T) {
	env, svc, admin, c := postgresClient(t, "SQLite hands each createDebt over in its request's transaction")
	ctx := context.Background()
	type result struct {
		d   *ent.Debt
		err error
	}
	start := func(ctx context.Context, a ledger.Actor, in collection.DebtorWithDebtsRecord) chan result {
		done := make(chan result, 1)
		go func() {
			d, err := svc.CreateDebt(ledger.Alone(ctx), a, c.ID, in)
			done <- result{d, err}
		}()
		return done
	}
	as := func(requestID string) ledger.Actor {
		a := admin
		a.RequestID = requestID
		return a
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	// hold takes the lock of number in an open transaction, as a
	// hand-over of it does, and starts a call run alone on the same
	// number, which then runs and waits for that lock: the group's run is
	// going on. The open transaction writes nothing, so that it holds no
	// row another call of the client may need: a hand-over left open
	// would hold its shard of the kept counts, which one transaction in
	// 16 of the client's also writes.
	hold := func(number string) (commit func(), running chan result) {
		tx, _ := openTx(t, env)
		if err := env.DB.Lock(ctx, tx, ledger.InvoiceLock(c.ID, number)); err != nil {
			t.Fatal(err)
		}
		running = start(ctx, as("running-"+number), handoverRecord(t, "NO-RUN-"+number, number))
		waitFor("the running call to wait for the open transaction's lock", func() bool {
			var n int
			_ = env.DB.SQL.QueryRow(`SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
				AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n)
			return n > 0
		})
		return func() {
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}, running
	}
	// ran checks that the running call handed its number over once the
	// lock was let go.
	ran := func(r result) {
		t.Helper()
		if r.err != nil {
			t.Errorf("the running call on the held number: %v", r.err)
		}
	}
	conflict := func(r result, what string) {
		t.Helper()
		var ae *apierr.Error
		if !asAPIError(r.err, &ae) || ae.Code != apierr.Conflict || ae.Field != "input.debts.0.invoiceNumber" {
			t.Errorf("%s: %v, want CONFLICT on input.debts.0.invoiceNumber", what, r.err)
		}
	}
	// handed is the debts the calls of chans handed over, in order; any
	// call's error fails the test.
	handed := func(what string, chans []chan result) []*ent.Debt {
		t.Helper()
		debts := make([]*ent.Debt, len(chans))
		for i, ch := range chans {
			r := <-ch
			if r.err != nil {
				t.Fatalf("%s %d: %v", what, i+1, r.err)
			}
			debts[i] = r.d
		}
		return debts
	}
	xacts := func(debts ...*ent.Debt) (distinct int) {
		t.Helper()
		ids := make([]int64, len(debts))
		for i, d := range debts {
			ids[i] = int64(d.ID)
		}
		if err := env.DB.SQL.QueryRow(`SELECT count(DISTINCT xact) FROM audit_events WHERE debt_id = ANY($1)`, ids).Scan(&distinct); err != nil {
			t.Fatal(err)
		}
		return distinct
	}

	// Beside a small run going on (fewer calls than a crowd) another
	// runs at once, as two callers would ungrouped.
	commit, running := hold("G-P")
	select {
	case r := <-start(ctx, as("beside"), handoverRecord(t, "NO-BESIDE", "G-BESIDE")):
		if r.err != nil {
			t.Fatalf("a call beside a small run: %v", r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a call waited behind a small run of its key")
	}
	commit()
	ran(<-running)
	// From here one run at a time, so that calls wait behind a held one.
	svc.SetHandoverParallel(1)

	// Five calls wait behind a running one; a sixth's request ends while
	// it waits; a call of another key runs at once.
	commit, running = hold("G-0")
	var waiting []chan result
	for i := 1; i <= 5; i++ {
		waiting = append(waiting, start(ctx, as(fmt.Sprintf("req-%d", i)), handoverRecord(t, fmt.Sprintf("NO-%d", i), fmt.Sprintf("G-%d", i))))
	}
	gone, cancel := context.WithCancel(ctx)
	left := start(gone, as("gone"), handoverRecord(t, "NO-GONE", "G-GONE"))
	waitFor("six calls to wait", func() bool { return svc.HandoversWaiting(c.ID, admin.KeyID) == 6 })
	cancel()
	if r := <-left; !errors.Is(r.err, context.Canceled) {
		t.Errorf("a call whose request ended while it waited: %v, want context.Canceled", r.err)
	}
	keyID, _ := env.NewKey(t, "CLIENT", c.ID)
	other := ledger.Actor{KeyID: keyID, KeyName: "client", Role: apikey.RoleCLIENT, ClientID: c.ID, RequestID: "other-key"}
	select {
	case r := <-start(ctx, other, handoverRecord(t, "NO-OTHER", "G-OTHER")):
		if r.err != nil {
			t.Fatalf("another key's call: %v", r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("another key's call waited behind this key's group")
	}
	if n := svc.HandoversWaiting(c.ID, admin.KeyID); n != 5 {
		t.Fatalf("%d calls wait, want 5", n)
	}
	commit()
	ran(<-running)
	grouped := handed("waiting call", waiting)
	for i, d := range grouped {
		// Bound to the client, not the group's closed transaction.
		items, err := d.QueryInvoices().All(auth.System(ctx))
		if err != nil || len(items) != 1 || items[0].InvoiceNumber != fmt.Sprintf("G-%d", i+1) {
			t.Fatalf("waiting call %d's debt has items %v (%v)", i+1, items, err)
		}
	}
	if n := xacts(grouped...); n != 1 {
		t.Errorf("the five waiting calls committed in %d transactions, want 1", n)
	}
	for i, d := range grouped {
		var requestID, op string
		if err := env.DB.SQL.QueryRow(`SELECT request_id, operation FROM audit_events WHERE debt_id = $1`, int64(d.ID)).Scan(&requestID, &op); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("req-%d", i+1); requestID != want || op != ledger.OpCreateDebt {
			t.Errorf("debt %d's event: %s by %q, want %s by %q", d.ID, op, requestID, ledger.OpCreateDebt, want)
		}
	}
	var gones int
	if err := env.DB.SQL.QueryRow(`SELECT count(*) FROM debt_invoices WHERE invoice_number = 'G-GONE'`).Scan(&gones); err != nil || gones != 0 {
		t.Errorf("the call whose request ended wrote %d items (%v)", gones, err)
	}

	// A group with a number already in collection: each of its calls is
	// handed over on its own.
	commit, running = hold("G-10")
	a := start(ctx, as("a"), handoverRecord(t, "NO-A", "G-11"))
	b := start(ctx, as("b"), handoverRecord(t, "NO-B", "G-0"))
	d := start(ctx, as("d"), handoverRecord(t, "NO-D", "G-12"))
	waitFor("three calls to wait", func() bool { return svc.HandoversWaiting(c.ID, admin.KeyID) == 3 })
	commit()
	ran(<-running)
	ra, rb, rd := <-a, <-b, <-d
	if ra.err != nil || rd.err != nil {
		t.Fatalf("the calls beside a refused one: %v, %v", ra.err, rd.err)
	}
	conflict(rb, "the call on a number in collection")
	if n := xacts(ra.d, rd.d); n != 2 {
		t.Errorf("after the group failed its calls committed in %d transactions, want 2 (one each)", n)
	}

	// Calls of 25 invoices each (26 locks): two fit in a group's 64
	// locks, the third goes in the next group.
	heavy := func(ident string) collection.DebtorWithDebtsRecord {
		in := handoverRecord(t, ident, ident+"-0")
		for j := 1; j < 25; j++ {
			it := in.Debts[0]
			it.InvoiceNumber = fmt.Sprintf("%s-%d", ident, j)
			in.Debts = append(in.Debts, it)
		}
		return in
	}
	commit, running = hold("G-20")
	var heavies []chan result
	for _, ident := range []string{"H-1", "H-2", "H-3"} {
		heavies = append(heavies, start(ctx, as(ident), heavy(ident)))
	}
	waitFor("three heavy calls to wait", func() bool { return svc.HandoversWaiting(c.ID, admin.KeyID) == 3 })
	commit()
	ran(<-running)
	hd := handed("heavy call", heavies)
	if n := xacts(hd...); n != 2 {
		t.Errorf("three heavy calls committed in %d transactions, want 2 (two in one group, the third beyond its locks)", n)
	}
}
