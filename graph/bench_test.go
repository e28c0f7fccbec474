package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/auth"
)

// Benchmarks of the hot paths through the real server (docs/benchmarks-go.md).
// They run only with -bench, on PostgreSQL when it answers (as the tests
// do: DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres),
// else on SQLite; each logs which.

// benchBackend logs the database a benchmark runs on.
func benchBackend(b *testing.B, env *apitest.Env) {
	if env.Postgres {
		b.Log("database: PostgreSQL")
	} else {
		b.Log("database: SQLite")
	}
}

// q1Query is the benchmark operation Q1 (issue 5): the first 50 of a
// client's open debts, newest first, each with its debtor and items, with
// totalCount.
const q1Query = `query($c: UUID!) { debts(clientId: $c, filter: {activeStatus: ACTIVE}, rowsPerPage: 50) {
  totalCount pageInfo { hasNextPage endCursor }
  nodes { id originalAmount paidAmount remainingAmount mainStatus underStatus paymentStatus createdAt
    debtor { id name identificationNumber }
    invoices { id invoiceNumber amount paidAmount dueDate } } } }`

// listBench seeds 60 debtors with 90 debts for the list benchmarks.
func listBench(b *testing.B) (*apitest.Env, string) {
	env := apitest.New(b)
	benchBackend(b, env)
	clientID := listFixture(b, env, 60)
	return env, clientID
}

// BenchmarkQ1HTTP is Q1 over HTTP (TCP on loopback): the full path of a
// request, from parsing to JSON.
func BenchmarkQ1HTTP(b *testing.B) {
	env, clientID := listBench(b)
	vars := apitest.Vars{"c": clientID}
	if got := rows(b, env.Admin().Do(b, q1Query, vars), []string{"debts", "nodes"}); got != 50 {
		b.Fatalf("%d rows, want 50", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		env.Admin().Do(b, q1Query, vars).OK(b, nil)
	}
}

// BenchmarkQ1Handler is Q1 through the server's handler in process, without
// the network: authentication, the gqlgen executor, resolvers, ent and the
// database.
func BenchmarkQ1Handler(b *testing.B) {
	env, clientID := listBench(b)
	body, err := json.Marshal(map[string]any{"query": q1Query, "variables": map[string]any{"c": clientID}})
	if err != nil {
		b.Fatal(err)
	}
	serve := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+apitest.AdminKey)
		w := httptest.NewRecorder()
		env.Server.ServeHTTP(w, req)
		return w
	}
	if w := serve(); w.Code != http.StatusOK || bytes.Contains(w.Body.Bytes(), []byte(`"errors"`)) {
		b.Fatalf("%d %s", w.Code, w.Body)
	}
	b.ReportAllocs()
	for b.Loop() {
		if w := serve(); w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkQ1Ent is the data of Q1 read through ent alone, as the
// resolvers read it: the count, the page with debtors and items eager-loaded
// (4 statements; the API adds the API key and the client's existence).
func BenchmarkQ1Ent(b *testing.B) {
	env, clientID := listBench(b)
	ctx := auth.System(context.Background())
	b.ReportAllocs()
	for b.Loop() {
		q := env.DB.Ent.Debt.Query().Where(debt.ClientID(clientID), debt.WithdrawnAtIsNil())
		if _, err := q.Clone().Count(ctx); err != nil {
			b.Fatal(err)
		}
		page, err := q.WithDebtor().WithInvoices().
			Order(debt.ByCreatedAt(sql.OrderDesc()), debt.ByID(sql.OrderDesc())).
			Limit(51).All(ctx)
		if err != nil || len(page) != 51 {
			b.Fatalf("%d debts, %v", len(page), err)
		}
	}
}

// BenchmarkCreateDebt1000Items is createDebt with 1,000 items, each with
// an opening payment, over HTTP (issue 5: under 1 second on PostgreSQL).
// Each operation uses new invoice numbers, for the same debtor.
func BenchmarkCreateDebt1000Items(b *testing.B) {
	env := apitest.New(b)
	benchBackend(b, env)
	clientID, _ := env.NewClient(b, "Bulk AB")
	const query = `mutation($c: UUID!, $i: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $i) {
	  id originalAmount paidAmount invoices { id invoiceNumber } } }`
	input := func(n int) apitest.Vars {
		items := make([]apitest.Vars, 1000)
		for i := range items {
			items[i] = apitest.Vars{"invoiceNumber": fmt.Sprintf("B%d-%04d", n, i), "invoiceDate": "2026-09-01T10:00:00+02:00",
				"dueDate": "2026-10-01T10:00:00+02:00", "amount": "1000.00", "description": "Konsulttjänster september",
				"payments": []apitest.Vars{{"amount": "100.00", "transactionDate": "2026-09-10T10:00:00+02:00"}}}
		}
		return debtCaseInput(apitest.Personnr, "Sven Svensson", items...)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		b.StopTimer()
		vars := apitest.Vars{"c": clientID, "i": input(n)}
		n++
		b.StartTimer()
		var out struct {
			CreateDebt struct {
				Invoices []struct{ ID int }
			}
		}
		env.Admin().Do(b, query, vars).OK(b, &out)
		if len(out.CreateDebt.Invoices) != 1000 {
			b.Fatalf("%d items, want 1000", len(out.CreateDebt.Invoices))
		}
	}
}

// BenchmarkAddDebtPayment is addDebtPayment over HTTP: lock the debt, update
// the item and the debt, insert the payment, in one transaction.
func BenchmarkAddDebtPayment(b *testing.B) {
	env := apitest.New(b)
	benchBackend(b, env)
	clientID, _ := env.NewClient(b, "Pay AB")
	d := debtCaseMustCreate(b, env.Admin(), clientID, debtCaseInput(apitest.Personnr, "Sven Svensson", debtCaseItemInput("P-1", "1000000")))
	today := time.Now().In(apitest.Stockholm).Format(time.DateOnly)
	vars := apitest.Vars{"clientId": clientID,
		"input": apitest.Vars{"debtId": d.ID, "invoiceId": d.Invoices[0].ID, "amount": "0.01", "transactionDate": today}}
	b.ReportAllocs()
	for b.Loop() {
		env.Admin().Do(b, debtCasePayMutation, vars).OK(b, nil)
	}
}

// BenchmarkAddDebtPaymentIdempotent is addDebtPayment with an
// Idempotency-Key (a new key each time): the payment and its idempotency
// record in one transaction.
func BenchmarkAddDebtPaymentIdempotent(b *testing.B) {
	env := apitest.New(b)
	benchBackend(b, env)
	clientID, _ := env.NewClient(b, "Pay AB")
	d := debtCaseMustCreate(b, env.Admin(), clientID, debtCaseInput(apitest.Personnr, "Sven Svensson", debtCaseItemInput("P-1", "1000000")))
	today := time.Now().In(apitest.Stockholm).Format(time.DateOnly)
	vars := apitest.Vars{"clientId": clientID,
		"input": apitest.Vars{"debtId": d.ID, "invoiceId": d.Invoices[0].ID, "amount": "0.01", "transactionDate": today}}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		env.Admin().Do(b, debtCasePayMutation, vars, "Idempotency-Key", fmt.Sprintf("bench-%d", n)).OK(b, nil)
	}
}

// claimsPageQuery is Q1's page with each debt's claim: the target
// is at least 0.8 of Q1's requests per second.
const claimsPageQuery = `query($c: UUID!) { debts(clientId: $c, filter: {activeStatus: ACTIVE}, rowsPerPage: 50) {
  totalCount pageInfo { hasNextPage endCursor }
  nodes { id originalAmount paidAmount remainingAmount mainStatus underStatus paymentStatus createdAt
    debtor { id name identificationNumber }
    invoices { id invoiceNumber amount paidAmount dueDate }
    claim { total { outstanding } interest { outstanding } } } } }`

// BenchmarkClaimsPageHTTP is BenchmarkQ1HTTP with the claims: the facts of
// the page's 50 debts are read with three statements, and each claim is
// computed in memory.
func BenchmarkClaimsPageHTTP(b *testing.B) {
	env, clientID := listBench(b)
	vars := apitest.Vars{"c": clientID}
	if got := rows(b, env.Admin().Do(b, claimsPageQuery, vars), []string{"debts", "nodes"}); got != 50 {
		b.Fatalf("%d rows, want 50", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		env.Admin().Do(b, claimsPageQuery, vars).OK(b, nil)
	}
}

// BenchmarkAddDebtPayment10 is addDebtPayment on debts with 10 earlier
// payments, under default terms and under statutory interest (whose
// payment recomputes the claim in a transaction): the target is
// the second at least 0.8 of the first. The payments go round 200 such
// debts, so that each keeps about 10 earlier payments during the run.
func BenchmarkAddDebtPayment10(b *testing.B) {
	for _, interest := range []string{"NONE", "STATUTORY"} {
		b.Run(interest, func(b *testing.B) {
			env := apitest.New(b)
			benchBackend(b, env)
			clientID, _ := env.NewClient(b, "Pay AB")
			today := time.Now().In(apitest.Stockholm)
			var debts []apitest.Vars
			for i := range 200 {
				item := debtCaseItemInput(fmt.Sprintf("P-%d", i), "1000000")
				item["invoiceDate"] = today.AddDate(0, -3, 0).Format(time.RFC3339)
				item["dueDate"] = today.AddDate(0, -2, 0).Format(time.RFC3339)
				var opening []apitest.Vars
				for j := range 10 {
					opening = append(opening, apitest.Vars{"amount": "10.00", "transactionDate": today.AddDate(0, 0, -40+j).Format(time.RFC3339)})
				}
				item["payments"] = opening
				in := debtCaseInput(apitest.Personnr, "Sven Svensson", item)
				in["terms"] = apitest.Vars{"interest": interest, "collectionFee": "180.00", "lateCompensation": false}
				d := debtCaseMustCreate(b, env.Admin(), clientID, in)
				debts = append(debts, apitest.Vars{"clientId": clientID, "input": apitest.Vars{"debtId": d.ID, "invoiceId": d.Invoices[0].ID,
					"amount": "0.01", "transactionDate": today.Format(time.DateOnly)}})
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				env.Admin().Do(b, debtCasePayMutation, debts[n%len(debts)]).OK(b, nil)
				n++
			}
		})
	}
}
