// Command handover-bench measures the bulk hand-over (docs/performance.md,
// "Bulk hand-over"): N debts of two items each for one client, sent to a
// running GraphQL server, and reports the elapsed time and debts per
// second. Modes:
//
//   - single: createDebt, one debt per request, from -c concurrent
//     connections (16 by default);
//   - batch: createDebts, -batch debts per request (500 by default), from
//     -c concurrent connections;
//   - postgraphile: the same hand-over through PostGraphile's generated
//     mutations on the anchor schema (bench/schema.sql): createDebtor and
//     createDebt in one request, then createDebtInvoice for the two items
//     in a second, from -c concurrent connections (PostGraphile 5's Amber
//     naming: a column id is rowId). scripts/bench.sh handover runs it.
//
// DebtQL needs a key with the right to hand over for the client (-key or
// DEBTQL_KEY); without -client, the ADMIN key creates a client first.
// Every run tags its invoice numbers and identification numbers (-tag,
// the start time by default), so runs against one database do not collide.
// Any refused request fails the run (exit status 1), after the report.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

var (
	url      = flag.String("url", "http://127.0.0.1:8080/graphql", "GraphQL endpoint")
	key      = flag.String("key", os.Getenv("DEBTQL_KEY"), "API key for DebtQL (default $DEBTQL_KEY)")
	mode     = flag.String("mode", "single", "single (createDebt), batch (createDebts) or postgraphile")
	n        = flag.Int("n", 20000, "debts to hand over")
	conns    = flag.Int("c", 16, "concurrent connections")
	batch    = flag.Int("batch", 500, "debts per createDebts request (mode batch)")
	clientID = flag.String("client", "", "client id; DebtQL modes create a client when empty, postgraphile needs one")
	tag      = flag.String("tag", strconv.FormatInt(time.Now().Unix(), 36), "tag of this run's numbers")
)

func main() {
	flag.Parse()
	if *n < 1 || *conns < 1 || *batch < 1 {
		fmt.Fprintln(os.Stderr, "-n, -c and -batch must be at least 1")
		os.Exit(2)
	}
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAILED:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	c := &caller{http: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		MaxIdleConns: *conns, MaxIdleConnsPerHost: *conns, MaxConnsPerHost: *conns}}}
	var send func(ctx context.Context, from, count int) error
	per := 1
	switch *mode {
	case "single", "batch":
		if *key == "" {
			return errors.New("-key or DEBTQL_KEY is required for DebtQL")
		}
		if *clientID == "" {
			id, err := c.createClient(ctx)
			if err != nil {
				return fmt.Errorf("creating the client: %w", err)
			}
			*clientID = id
		}
		send = c.createDebt
		if *mode == "batch" {
			send, per = c.createDebts, *batch
		}
	case "postgraphile":
		if *clientID == "" {
			return errors.New("-client (a client id of the anchor database) is required for postgraphile")
		}
		send = c.postgraphile
	default:
		return fmt.Errorf("unknown -mode %q", *mode)
	}

	// Work is handed out in requests of per debts; each connection takes
	// the next request until none is left.
	var next atomic.Int64
	var failed atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range *conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				from := int(next.Add(int64(per))) - per
				if from >= *n {
					return
				}
				if err := send(ctx, from, min(per, *n-from)); err != nil {
					failed.Add(1)
					once.Do(func() { firstErr = err })
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	fmt.Printf("mode=%s n=%d items=2 c=%d batch=%d client=%s\n", *mode, *n, *conns, per, *clientID)
	fmt.Printf("elapsed %.2f s, %.0f debts/s, %d failed requests\n", elapsed.Seconds(), float64(*n)/elapsed.Seconds(), failed.Load())
	if firstErr != nil {
		return fmt.Errorf("%d requests failed; the first: %w", failed.Load(), firstErr)
	}
	return nil
}

type caller struct{ http *http.Client }

// do sends one GraphQL request and decodes its data into out; a non-200
// answer or any error in the answer fails it.
func (c *caller) do(ctx context.Context, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, *url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if *key != "" {
		req.Header.Set("Authorization", "Bearer "+*key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var answer struct {
		Data   json.RawMessage   `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(b, &answer); err != nil || resp.StatusCode != http.StatusOK || len(answer.Errors) > 0 {
		if len(b) > 500 {
			b = b[:500]
		}
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(answer.Data, out)
}

func (c *caller) createClient(ctx context.Context) (string, error) {
	var out struct{ CreateClient struct{ ID string } }
	err := c.do(ctx, `mutation($in: ClientInput!) { createClient(input: $in) { id } }`, map[string]any{"in": map[string]any{
		"name": "Hand-over bench " + *tag, "organizationNumber": "556036-0793", "adress1": "Storgatan 1", "address2": "Box 1",
		"zipCode": "111 22", "city": "Stockholm", "countryCode": "SE", "bankNumber": "5050-1055",
		"email": "bench@example.se", "contactName": "Bench", "contactEmail": "bench@example.se", "contactPhone": "+46 8 123 456",
	}}, &out)
	return out.CreateClient.ID, err
}

// The i-th debt of the run: a Norwegian debtor (free-form identification
// number, no check digit) with two items of 500.00 and 750.00.
func identification(i int) string { return fmt.Sprintf("HB-%s-%07d", *tag, i) }

func number(i, item int) string { return fmt.Sprintf("HB-%s-%07d-%d", *tag, i, item) }

func entry(i int) map[string]any {
	items := make([]map[string]any, 2)
	for j := range items {
		items[j] = map[string]any{"invoiceNumber": number(i, j+1), "invoiceDate": "2026-09-01T00:00:00+02:00",
			"dueDate": "2026-10-01T00:00:00+02:00", "amount": []string{"500.00", "750.00"}[j]}
	}
	return map[string]any{"isCorporation": false, "identificationNumber": identification(i), "name": fmt.Sprintf("Debitor %d", i),
		"address": map[string]any{"address1": "Storgata 1", "zipCode": "0150", "city": "Oslo", "countryCode": "NO"},
		"debts":   items}
}

func (c *caller) createDebt(ctx context.Context, from, count int) error {
	for i := from; i < from+count; i++ {
		if err := c.do(ctx, `mutation($c: UUID!, $in: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $in) { id } }`,
			map[string]any{"c": *clientID, "in": entry(i)}, nil); err != nil {
			return err
		}
	}
	return nil
}

func (c *caller) createDebts(ctx context.Context, from, count int) error {
	in := make([]map[string]any, count)
	for i := range in {
		in[i] = entry(from + i)
	}
	var out struct{ CreateDebts []struct{ ID int } }
	if err := c.do(ctx, `mutation($c: UUID!, $in: [DebtorWithDebtsInput!]!) { createDebts(clientId: $c, input: $in) { id } }`,
		map[string]any{"c": *clientID, "in": in}, &out); err != nil {
		return err
	}
	if len(out.CreateDebts) != count {
		return fmt.Errorf("createDebts answered %d debts for %d entries", len(out.CreateDebts), count)
	}
	return nil
}

// postgraphile hands the debts over with PostGraphile's generated CRUD
// mutations on the anchor schema: the debtor (its uuid chosen here, as the
// table has no default) and the debt in one request, whose answer has the
// debt's serial id, then the two items in a second.
func (c *caller) postgraphile(ctx context.Context, from, count int) error {
	const debtorAndDebt = `mutation($debtor: DebtorInput!, $debt: DebtInput!) {
  createDebtor(input: {debtor: $debtor}) { debtor { rowId } }
  createDebt(input: {debt: $debt}) { debt { rowId } }
}`
	const items = `mutation($a: DebtInvoiceInput!, $b: DebtInvoiceInput!) {
  a: createDebtInvoice(input: {debtInvoice: $a}) { debtInvoice { rowId } }
  b: createDebtInvoice(input: {debtInvoice: $b}) { debtInvoice { rowId } }
}`
	for i := from; i < from+count; i++ {
		debtorID := uuid.NewString()
		var out struct {
			CreateDebt struct{ Debt struct{ RowID int } }
		}
		if err := c.do(ctx, debtorAndDebt, map[string]any{
			"debtor": map[string]any{"rowId": debtorID, "clientId": *clientID, "identificationNumber": identification(i),
				"name": fmt.Sprintf("Debitor %d", i), "address1": "Storgata 1", "zipCode": "0150", "city": "Oslo", "countryCode": "NO"},
			"debt": map[string]any{"clientId": *clientID, "debtorId": debtorID, "originalAmount": "1250.00"},
		}, &out); err != nil {
			return err
		}
		item := func(j int, amount string) map[string]any {
			return map[string]any{"debtId": out.CreateDebt.Debt.RowID, "invoiceNumber": number(i, j),
				"invoiceDate": "2026-09-01", "dueDate": "2026-10-01", "amount": amount}
		}
		if err := c.do(ctx, items, map[string]any{"a": item(1, "500.00"), "b": item(2, "750.00")}, nil); err != nil {
			return err
		}
	}
	return nil
}
