package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// answer is what one HTTP request got: a status and the first error's
// code, or err when no answer came (connection refused, reset, timeout).
type answer struct {
	status  int
	code    string
	message string
	data    json.RawMessage
	body    []byte
	err     error
	latency time.Duration
}

func (a answer) String() string {
	if a.err != nil {
		return "no answer: " + a.err.Error()
	}
	return fmt.Sprintf("%d %s %s", a.status, a.code, a.message)
}

// ok is a 200 answer without errors.
func (a answer) ok() bool { return a.err == nil && a.status == http.StatusOK && a.code == "" }

// retryable says that the call got no answer of its own: no answer at
// all, 503 (a failure of ours, never recorded under the key), or 409 for a
// request with the same key still running (one cut off by a kill whose
// transaction the database has not yet ended).
func (a answer) retryable() bool {
	switch {
	case a.err != nil:
		return true
	case a.status == http.StatusServiceUnavailable:
		return true
	case a.status == http.StatusConflict && strings.Contains(a.message, "still running"):
		return true
	}
	return false
}

type client struct {
	base string
	http *http.Client
}

func newClient(addr string) *client {
	return &client{
		base: "http://" + addr,
		http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}},
	}
}

// graphql posts one operation with the ADMIN key, and key as its
// Idempotency-Key when not empty.
func (c *client) graphql(ctx context.Context, query string, vars map[string]any, key string) answer {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/graphql", bytes.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+adminKey)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{err: err, latency: time.Since(start)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, body: b, err: err, latency: time.Since(start)}
	if err != nil {
		return a
	}
	var parsed struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message    string `json:"message"`
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(b, &parsed); err != nil {
		a.code = "NOT_JSON"
		return a
	}
	a.data = parsed.Data
	if len(parsed.Errors) > 0 {
		a.code, a.message = parsed.Errors[0].Extensions.Code, parsed.Errors[0].Message
	}
	return a
}

// get fetches a path and returns its status.
func (c *client) get(ctx context.Context, path string, timeout time.Duration) answer {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{err: err, latency: time.Since(start)}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return answer{status: resp.StatusCode, latency: time.Since(start)}
}

const createClientMutation = `mutation($input: ClientInput!) { createClient(input: $input) { id } }`

// newTestClient creates the client (creditor) the run writes under.
func (c *client) newTestClient(ctx context.Context, name string) (string, error) {
	in := map[string]any{
		"name": name, "organizationNumber": "556036-0793", "adress1": "Storgatan 1", "address2": "Box 12",
		"zipCode": "111 22", "city": "Stockholm", "countryCode": "SE", "bankNumber": "5050-1055",
		"email": "faktura@example.se", "contactName": "Anna Andersson", "contactEmail": "anna@example.se",
		"contactPhone": "+46 8 123 456",
	}
	a := c.graphql(ctx, createClientMutation, map[string]any{"input": in}, "")
	if !a.ok() {
		return "", fmt.Errorf("createClient: %s", a)
	}
	var out struct {
		CreateClient struct{ ID string } `json:"createClient"`
	}
	if err := json.Unmarshal(a.data, &out); err != nil {
		return "", err
	}
	return out.CreateClient.ID, nil
}

const createDebtMutation = `mutation($c: UUID!, $in: DebtorWithDebtsInput!) {
  createDebt(clientId: $c, input: $in) { id invoices { id invoiceNumber } }
}`

const addPaymentMutation = `mutation($c: UUID!, $in: DebtPaymentInput!) {
  addDebtPayment(clientId: $c, input: $in) { id amount }
}`

const debtQuery = `query($c: UUID!, $id: Int!) {
  debt(clientId: $c, id: $id) { id originalAmount paidAmount invoices { invoiceNumber paidAmount } payments { amount source } }
}`

// beforeHandover is the payment every generated debt brings along, in öre.
const beforeHandover = 1000

// debtInput is createDebt's input for debt n of run: a debtor of its own
// and two items (invoice numbers <run>-<n>-A and -B), the first with a
// payment made before hand-over.
func debtInput(run string, n int) map[string]any {
	item := func(suffix, amount string, payments []any) map[string]any {
		m := map[string]any{
			"invoiceNumber": fmt.Sprintf("%s-%d-%s", run, n, suffix),
			"invoiceDate":   "2026-09-01T00:00:00+02:00", "dueDate": "2026-10-01T00:00:00+02:00",
			"amount": amount,
		}
		if payments != nil {
			m["payments"] = payments
		}
		return m
	}
	return map[string]any{
		"isCorporation":        false,
		"identificationNumber": personnummer(n),
		"name":                 fmt.Sprintf("Fault Debtor %d", n),
		"address":              map[string]any{"address1": "Vägen 2", "zipCode": "123 45", "city": "Malmö", "countryCode": "SE"},
		"debts": []any{
			item("A", "1250.00", []any{map[string]any{"amount": "10.00", "transactionDate": "2026-09-20T10:00:00+02:00"}}),
			item("B", "800.00", nil),
		},
	}
}

// paymentAmount is the amount of payment j on a debt, in öre: distinct
// within a debt, so that a double or a loss shows in the sums.
func paymentAmount(j int) int64 { return int64(j+1) * 101 }

// personnummer returns a valid personnummer for n (distinct for n below
// 28*999): born 1985-03-DD, serial number from n, Luhn check digit.
func personnummer(n int) string {
	day := n/999%28 + 1
	serial := n%999 + 1
	digits := fmt.Sprintf("8503%02d%03d", day, serial)
	sum := 0
	for i, r := range digits {
		d := int(r - '0')
		if i%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	check := (10 - sum%10) % 10
	return fmt.Sprintf("%s-%s%d", digits[:6], digits[6:], check)
}

// money formats öre as a Decimal string.
func money(ore int64) string { return fmt.Sprintf("%d.%02d", ore/100, ore%100) }

// parseMoney reads a Decimal string ("12.30") in öre; -1 when it is not one.
func parseMoney(s string) int64 {
	whole, frac, _ := strings.Cut(s, ".")
	frac = (frac + "00")[:2]
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return -1
	}
	return n
}
