package graph_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/schema"
	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/ledger"
	"github.com/debtql/debtql/internal/server"
	"github.com/debtql/debtql/internal/store"
)

// TestAuditTrailIsAppendOnly: not even the server's own code can change or
// delete an event or its records through ent.
func TestAuditTrailIsAppendOnly(t *testing.T) {
	env := apitest.New(t)
	clientID, debtID, _ := paymentDebt(t, env, "10.00")
	env.Admin().Do(t, `mutation($c: UUID!, $id: Int!) { withdrawDebt(clientId: $c, input: {id: $id}) { id } }`,
		apitest.Vars{"c": clientID, "id": debtID}).OK(t, nil)
	before := auditList(t, env, apitest.Vars{"rowsPerPage": 100})
	if before.TotalCount == 0 {
		t.Fatal("no events to protect")
	}

	ctx := auth.System(context.Background())
	db := env.DB.Ent
	event, err := db.AuditEvent.Query().First(ctx)
	if err != nil {
		t.Fatal(err)
	}
	record, err := db.AuditEventRecord.Query().First(ctx)
	if err != nil {
		t.Fatal(err)
	}
	attempts := map[string]func(c *ent.Client) error{
		"delete every event":  func(c *ent.Client) error { _, err := c.AuditEvent.Delete().Exec(ctx); return err },
		"delete one event":    func(c *ent.Client) error { return c.AuditEvent.DeleteOneID(event.ID).Exec(ctx) },
		"update every event":  func(c *ent.Client) error { _, err := c.AuditEvent.Update().Save(ctx); return err },
		"update one event":    func(c *ent.Client) error { return c.AuditEvent.UpdateOneID(event.ID).Exec(ctx) },
		"delete every record": func(c *ent.Client) error { _, err := c.AuditEventRecord.Delete().Exec(ctx); return err },
		"delete one record":   func(c *ent.Client) error { return c.AuditEventRecord.DeleteOneID(record.ID).Exec(ctx) },
		"update every record": func(c *ent.Client) error { _, err := c.AuditEventRecord.Update().Save(ctx); return err },
		"update one record":   func(c *ent.Client) error { return c.AuditEventRecord.UpdateOneID(record.ID).Exec(ctx) },
	}
	for what, attempt := range attempts {
		if err := attempt(db); !errors.Is(err, schema.ErrAppendOnly) {
			t.Errorf("%s: err = %v, want ErrAppendOnly", what, err)
		}
		tx, err := db.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := attempt(tx.Client()); !errors.Is(err, schema.ErrAppendOnly) {
			t.Errorf("%s in a transaction: err = %v, want ErrAppendOnly", what, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	after := auditList(t, env, apitest.Vars{"rowsPerPage": 100})
	if !reflect.DeepEqual(after.Nodes, before.Nodes) {
		t.Errorf("the trail changed:\nbefore %+v\nafter  %+v", before.Nodes, after.Nodes)
	}
}

// TestAuditTrailRefusesRawSQL: on PostgreSQL the trail is append-only below
// ent too: a trigger refuses UPDATE and DELETE from any SQL session.
func TestAuditTrailRefusesRawSQL(t *testing.T) {
	env := apitest.New(t)
	if !env.DB.IsPostgres() {
		t.Skip("the append-only trigger is PostgreSQL's (a migration); SQLite relies on the ent hook")
	}
	paymentDebt(t, env, "10.00")
	ctx := context.Background()
	var events int
	if err := env.DB.SQL.QueryRowContext(ctx, `SELECT count(*) FROM audit_events`).Scan(&events); err != nil || events == 0 {
		t.Fatalf("events = %d, err = %v; want some to protect", events, err)
	}
	for _, stmt := range []string{
		`UPDATE audit_events SET operation = 'forged'`,
		`DELETE FROM audit_events`,
		`UPDATE audit_event_records SET after = NULL`,
		`DELETE FROM audit_event_records`,
	} {
		_, err := env.DB.SQL.ExecContext(ctx, stmt)
		if err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: err = %v, want the append-only refusal", stmt, err)
		}
	}
	var after int
	if err := env.DB.SQL.QueryRowContext(ctx, `SELECT count(*) FROM audit_events WHERE operation <> 'forged'`).Scan(&after); err != nil || after != events {
		t.Errorf("events after = %d (err %v), want %d unchanged", after, err, events)
	}
}

// TestDebtEventsLoadInFixedStatements: Debt.events and their records are
// eager-loaded, one statement each, however many debts a page holds.
func TestDebtEventsLoadInFixedStatements(t *testing.T) {
	var mu sync.Mutex
	counting := false
	audit := 0
	env := apitest.NewWith(t, func(o *server.Options) {
		drv := dialect.DebugWithContext(entsql.OpenDB(o.DB.Dialect, o.DB.SQL), func(ctx context.Context, v ...any) {
			if ledger.IsBackground(ctx) {
				return // the event feed's reads are no request's
			}
			mu.Lock()
			defer mu.Unlock()
			if counting && strings.Contains(fmt.Sprint(v...), "audit_event") {
				audit++
			}
		})
		o.DB = &store.DB{Ent: ent.NewClient(ent.Driver(drv)), SQL: o.DB.SQL, Dialect: o.DB.Dialect}
	})
	clientID, debtID, itemID := paymentDebt(t, env, "100.00")
	env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(debtID, itemID, "1.00")}).OK(t, nil)
	invoiceCreate(t, env.Admin(), clientID, invoiceInput("F-1")).OK(t, nil)
	// count runs a query and returns the statements it made on the audit
	// tables, and the events it read.
	count := func(query string) (statements, events int) {
		t.Helper()
		mu.Lock()
		counting, audit = true, 0
		mu.Unlock()
		r := env.Admin().Do(t, query, apitest.Vars{"c": clientID})
		r.OK(t, nil)
		mu.Lock()
		statements, counting = audit, false
		mu.Unlock()
		return statements, strings.Count(string(r.Body), `"operation"`)
	}
	// Debts with their events and records, and the events of each debt
	// reached through its payments (entgql's eager loading).
	const debts = `query($c: UUID!) { debts(clientId: $c, rowsPerPage: 100) { nodes { id
	  events { operation records { recordType } } payments { debt { events { id } } } } } }`
	// Invoices' debts, which the loaders find, with their events.
	const invoices = `query($c: UUID!) { invoices(clientId: $c, rowsPerPage: 100) { nodes {
	  debt { id events { operation records { recordType } } } } } }`
	oneDebts, events := count(debts)
	if events != 2 {
		t.Fatalf("1 debt: %d events", events)
	}
	oneInvoices, events := count(invoices)
	if events != 2 {
		t.Fatalf("1 invoice: %d events", events)
	}
	for i := range 5 {
		var d struct {
			ID       int
			Invoices []struct{ ID int }
		}
		number := fmt.Sprintf("M-%d", i)
		env.Admin().Do(t, `mutation($c: UUID!, $input: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $input) { id invoices { id } } }`,
			apitest.Vars{"c": clientID, "input": debtCaseInput(apitest.Personnr, "Sven Svensson", debtCaseItemInput(number, "10"))}).
			Field(t, "createDebt", &d)
		env.Admin().Do(t, addPayment, apitest.Vars{"c": clientID, "i": paymentInput(d.ID, d.Invoices[0].ID, "1.00")}).OK(t, nil)
		invoiceCreate(t, env.Admin(), clientID, invoiceInput(number)).OK(t, nil)
	}
	sixDebts, events := count(debts)
	if events != 12 {
		t.Fatalf("6 debts: %d events", events)
	}
	sixInvoices, events := count(invoices)
	if events != 12 {
		t.Fatalf("6 invoices: %d events", events)
	}
	if oneDebts != 3 || sixDebts != oneDebts {
		t.Errorf("debts: %d statements on the audit tables for 1 debt, %d for 6; want 3 for both", oneDebts, sixDebts)
	}
	if oneInvoices != 2 || sixInvoices != oneInvoices {
		t.Errorf("invoices: %d statements on the audit tables for 1 invoice, %d for 6; want 2 for both", oneInvoices, sixInvoices)
	}
}

// TestAuditTenantFilter checks the tenant filter below the resolvers: a
// CLIENT viewer's unfiltered queries of the trail see only its client's
// events and records, and it cannot write an event of another client.
func TestAuditTenantFilter(t *testing.T) {
	env := apitest.New(t)
	ownID, _ := env.NewClient(t, "Own AB")
	otherID, otherDebt, _ := paymentDebt(t, env, "10.00")
	_, secret := env.NewKey(t, "CLIENT", ownID)
	_, otherSecret := env.NewKey(t, "CLIENT", otherID)
	env.As(otherSecret).Do(t, `mutation($c: UUID!, $id: Int!) { withdrawDebt(clientId: $c, input: {id: $id}) { id } }`,
		apitest.Vars{"c": otherID, "id": otherDebt}).OK(t, nil)
	db := env.DB.Ent
	viewer, err := auth.Authenticate(context.Background(), db, "Bearer "+secret)
	if err != nil {
		t.Fatal(err)
	}
	ctx := auth.WithViewer(context.Background(), viewer)

	events, err := db.AuditEvent.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 {
		t.Fatal("the client's own events (createClient, createApiKey) are not visible")
	}
	for _, e := range events {
		if e.ClientID == nil || *e.ClientID != ownID {
			t.Errorf("a CLIENT viewer saw an event of client %v: %+v", e.ClientID, e)
		}
	}
	records, err := db.AuditEventRecord.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if r.ClientID == nil || *r.ClientID != ownID {
			t.Errorf("a CLIENT viewer saw a record of client %v: %+v", r.ClientID, r)
		}
	}
	all, err := db.AuditEvent.Query().Count(auth.System(context.Background()))
	if err != nil || all <= len(events) {
		t.Fatalf("the trail has %d events (err %v), the viewer saw %d: the test proves nothing", all, err, len(events))
	}
	if _, err := db.AuditEvent.Create().SetClientID(otherID).SetAPIKeyID(viewer.Key.ID).SetAPIKeyName("x").
		SetRole("CLIENT").SetOperation("withdrawDebt").Save(ctx); err == nil {
		t.Error("a CLIENT viewer wrote an event of another client below the resolvers")
	}
}
