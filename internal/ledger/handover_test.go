package ledger_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/apitest"
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

// TestHandoverLockScope guards the scope of a hand-over's locks on
// PostgreSQL: while one createDebt of a client is open (written, not yet
// committed), another of the same client on a different debtor and number
// completes (neither a client-wide lock nor the kept debt counts make it
// wait), while one on the same invoice number waits for the first to
// commit and is then CONFLICT, and one on the same debtor waits and then
// reuses it.
func TestHandoverLockScope(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("SQLite runs one writer at a time: there is no lock scope to guard")
	}
	svc := ledger.New(env.DB, ledger.Clock{})
	ctx := context.Background()
	admin := adminActor(t, env, "")
	c, err := svc.CreateClient(ctx, admin, apitestClient())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := env.DB.Ent.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	open := ent.NewTxContext(ent.NewContext(ctx, tx.Client()), tx)
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

func asAPIError(err error, target **apierr.Error) bool {
	var list apierr.List
	if errors.As(err, &list) && len(list) > 0 {
		*target = list[0]
		return true
	}
	return errors.As(err, target)
}
