package ledger_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/ledger"
	"github.com/debtql/debtql/internal/scalar"
)

// adminActor is the actor of the Env's bootstrap ADMIN key.
func adminActor(t *testing.T, env *apitest.Env, requestID string) ledger.Actor {
	t.Helper()
	v, err := auth.Authenticate(context.Background(), env.DB.Ent, "Bearer "+apitest.AdminKey)
	if err != nil {
		t.Fatal(err)
	}
	return ledger.ActorOf(v, requestID)
}

func mustMoney(t *testing.T, s string) collection.Money {
	t.Helper()
	m, err := collection.ParseMoney(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The use cases run without GraphQL, as the command line or a job would
// call them: each in a transaction of its own, each with its audit event
// naming the actor, the operation and the request; what they wrote reads
// back through the API.
func TestUseCasesRunOutsideGraphQL(t *testing.T) {
	env := apitest.New(t)
	svc := ledger.New(env.DB, ledger.Clock{})
	ctx := context.Background()
	admin := adminActor(t, env, "job-1")

	c, err := svc.CreateClient(ctx, admin, apitestClient())
	if err != nil {
		t.Fatalf("CreateClient: %v", err)
	}
	in := collection.DebtorWithDebtsRecord{IdentificationNumber: apitest.Personnr, Name: "Sven Svensson",
		Address: collection.AddressRecord{Address1: "Vägen 2", ZipCode: "123 45", City: "Malmö", CountryCode: "SE"},
		Debts: []collection.DebtItemRecord{{InvoiceNumber: "J-1", Amount: mustMoney(t, "100.00"),
			InvoiceDate: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), DueDate: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)}},
	}
	d, err := svc.CreateDebt(ctx, admin, c.ID, in)
	if err != nil {
		t.Fatalf("CreateDebt: %v", err)
	}
	items, err := d.QueryInvoices().All(auth.System(ctx))
	if err != nil || len(items) != 1 {
		t.Fatalf("items %v, %v", items, err)
	}
	p, err := svc.AddDebtPayment(ctx, admin, c.ID, collection.PaymentRecord{DebtID: d.ID, InvoiceID: items[0].ID,
		Amount: mustMoney(t, "40.00"), TransactionDate: scalar.NewDate(2026, 10, 5)})
	if err != nil {
		t.Fatalf("AddDebtPayment: %v", err)
	}
	if p.Amount != mustMoney(t, "40.00") {
		t.Errorf("payment of %s", p.Amount)
	}

	var out struct {
		AuditEvents struct {
			Nodes []struct {
				Operation, RequestID string
				ApiKeyName           *string
			}
		}
		Debt struct{ PaidAmount string }
	}
	env.Admin().Do(t, `query($c: UUID!, $d: Int!) { auditEvents { nodes { operation requestId apiKeyName } }
	  debt(clientId: $c, id: $d) { paidAmount } }`, apitest.Vars{"c": c.ID, "d": d.ID}).OK(t, &out)
	if out.Debt.PaidAmount != "40.00" {
		t.Errorf("paidAmount %s, want 40.00", out.Debt.PaidAmount)
	}
	var ops []string
	for _, e := range out.AuditEvents.Nodes {
		if e.RequestID != "job-1" {
			t.Errorf("event %s has request id %q, want job-1", e.Operation, e.RequestID)
		}
		ops = append(ops, e.Operation)
	}
	if len(ops) != 3 || ops[0] != "addDebtPayment" || ops[1] != "createDebt" || ops[2] != "createClient" {
		t.Errorf("events %v, want addDebtPayment, createDebt, createClient (newest first)", ops)
	}
}

// The use cases authorize their actor themselves: a CLIENT actor naming
// another client is FORBIDDEN, and may not create clients; a refusal
// writes nothing.
func TestUseCasesAuthorizeTheActor(t *testing.T) {
	env := apitest.New(t)
	svc := ledger.New(env.DB, ledger.Clock{})
	ctx := context.Background()
	admin := adminActor(t, env, "")
	a, err := svc.CreateClient(ctx, admin, apitestClient())
	if err != nil {
		t.Fatal(err)
	}
	other := apitestClient()
	other.Name = "Other AB"
	b, err := svc.CreateClient(ctx, admin, other)
	if err != nil {
		t.Fatal(err)
	}
	keyID, _ := env.NewKey(t, "CLIENT", a.ID)
	client := ledger.Actor{KeyID: keyID, KeyName: "client", Role: apikey.RoleCLIENT, ClientID: a.ID}
	_, err = svc.CreateDebtor(ctx, client, b.ID, collection.DebtorRecord{})
	wantCode(t, err, apierr.Forbidden)
	_, err = svc.CreateClient(ctx, client, apitestClient())
	wantCode(t, err, apierr.Forbidden)
	var out struct{ Clients struct{ TotalCount int } }
	env.Admin().Do(t, `{ clients { totalCount } }`, nil).OK(t, &out)
	if out.Clients.TotalCount != 2 {
		t.Errorf("%d clients, want 2", out.Clients.TotalCount)
	}
}

func wantCode(t *testing.T, err error, code apierr.Code) {
	t.Helper()
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Errorf("error %v, want %s", err, code)
	}
}

// apitestClient is a valid client record.
func apitestClient() collection.ClientRecord {
	return collection.ClientRecord{Name: "Jobb AB", OrganizationNumber: "556036-0793", Adress1: "Storgatan 1", Address2: "Box 12", ZipCode: "111 22",
		City: "Stockholm", CountryCode: "SE", BankNumber: "5050-1055", Email: "faktura@example.se", ContactName: "Anna Andersson",
		ContactEmail: "anna@example.se", ContactPhone: "+46 8 123 456"}
}
