package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// API tests of invoices (api.md §5 InvoiceInput/ArticleInput, §6 Invoice,
// §7 lists, §8 invoice statuses and withdrawal, §9 errors, §2 tenancy),
// over HTTP against a real server and database.

// invoiceFields selects every field of an Invoice.
const invoiceFields = `id client { id } invoiceNumber invoiceDate daysUntilExpiration dueDate interestRate
  totalExcludingVAT totalVATAmount totalAmountIncludingVAT reminderDate reminderFee
  articles { name description priceExcludingVAT totalVATAmount totalAmountIncludingVAT totalAmountExcludingVAT quantity vatPercentage discount }
  paidAmount remainingAmount status processStatus paymentStatus receivableMainStatus receivableSubStatus activeStatus isCompleted
  withdrawnAt withdrawComment createdAt updatedAt`

const invoiceCreateMutation = `mutation($c: UUID!, $input: InvoiceInput!) { createInvoice(clientId: $c, input: $input) { ` + invoiceFields + ` } }`

const invoiceReadQuery = `query($c: UUID!, $id: UUID!) { invoice(clientId: $c, id: $id) { ` + invoiceFields + ` } }`

const invoiceWithdrawMutation = `mutation($c: UUID!, $id: UUID!, $comment: String) { withdrawInvoice(clientId: $c, id: $id, comment: $comment) { ` + invoiceFields + ` } }`

const invoiceListQuery = `query($c: UUID!, $filter: InvoiceFilter, $orderBy: InvoiceOrder, $page: Int, $rowsPerPage: Int, $first: Int, $after: String, $last: Int, $before: String) {
  invoices(clientId: $c, filter: $filter, orderBy: $orderBy, page: $page, rowsPerPage: $rowsPerPage, first: $first, after: $after, last: $last, before: $before) {
    totalCount
    edges { cursor node { id } }
    nodes { id invoiceNumber invoiceDate dueDate totalAmountIncludingVAT reminderDate
      status processStatus paymentStatus receivableMainStatus receivableSubStatus activeStatus isCompleted createdAt }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`

// invoiceStatuses are the status fields of api.md §8.
type invoiceStatuses struct {
	Status               string
	ProcessStatus        string
	PaymentStatus        string
	ReceivableMainStatus string
	ReceivableSubStatus  string
	ActiveStatus         string
	IsCompleted          bool
}

type invoiceArticleOut struct {
	Name                    string
	Description             *string
	PriceExcludingVAT       string
	TotalVATAmount          string
	TotalAmountIncludingVAT string
	TotalAmountExcludingVAT string
	Quantity                string
	VATPercentage           string
	Discount                string
}

type invoiceOut struct {
	ID                      string
	Client                  struct{ ID string }
	InvoiceNumber           string
	InvoiceDate             string
	DaysUntilExpiration     int
	DueDate                 string
	InterestRate            *string
	TotalExcludingVAT       string
	TotalVATAmount          string
	TotalAmountIncludingVAT string
	ReminderDate            *string
	ReminderFee             *string
	Articles                []invoiceArticleOut
	PaidAmount              string
	RemainingAmount         string
	invoiceStatuses
	WithdrawnAt     *string
	WithdrawComment *string
	CreatedAt       string
	UpdatedAt       string
}

type invoiceNode struct {
	ID                      string
	InvoiceNumber           string
	InvoiceDate             string
	DueDate                 string
	TotalAmountIncludingVAT string
	ReminderDate            *string
	invoiceStatuses
	CreatedAt string
}

type invoicePage struct {
	TotalCount int
	Edges      []struct {
		Cursor string
		Node   struct{ ID string }
	}
	Nodes    []invoiceNode
	PageInfo struct {
		HasNextPage     bool
		HasPreviousPage bool
		StartCursor     *string
		EndCursor       *string
	}
}

func (p invoicePage) ids() []string {
	out := make([]string, len(p.Nodes))
	for i, n := range p.Nodes {
		out[i] = n.ID
	}
	return out
}

// invoiceArticle is a valid ArticleInput.
func invoiceArticle(name string, over ...apitest.Vars) apitest.Vars {
	a := apitest.Vars{
		"name": name, "priceExcludingVAT": "500", "totalVATAmount": "125", "totalAmountIncludingVAT": "625",
		"totalAmountExcludingVAT": "500", "quantity": "1", "vatPercentage": "25", "discount": "0",
	}
	for _, o := range over {
		for k, v := range o {
			a[k] = v
		}
	}
	return a
}

// invoiceInput is a valid InvoiceInput with two articles (1000 + 250 VAT =
// 1250, dated 2026-03-01, due 2026-03-31), the fields of over replacing the
// defaults.
func invoiceInput(number string, over ...apitest.Vars) apitest.Vars {
	in := apitest.Vars{
		"invoiceNumber": number, "invoiceDate": "2026-03-01", "daysUntilExpiration": 30, "dueDate": "2026-03-31",
		"totalExcludingVAT": "1000", "totalVATAmount": "250", "totalAmountIncludingVAT": "1250",
		"articles": []apitest.Vars{invoiceArticle("Konsulttimmar"), invoiceArticle("Resa")},
	}
	for _, o := range over {
		for k, v := range o {
			in[k] = v
		}
	}
	return in
}

// invoiceArticles returns the articles of in, to change one.
func invoiceArticles(in apitest.Vars) []apitest.Vars { return in["articles"].([]apitest.Vars) }

func invoiceCreate(t *testing.T, c *apitest.Caller, clientID string, in apitest.Vars) *apitest.Response {
	t.Helper()
	return c.Do(t, invoiceCreateMutation, apitest.Vars{"c": clientID, "input": in})
}

// invoiceMust creates an invoice that must be accepted.
func invoiceMust(t *testing.T, c *apitest.Caller, clientID string, in apitest.Vars) invoiceOut {
	t.Helper()
	var out invoiceOut
	invoiceCreate(t, c, clientID, in).Field(t, "createInvoice", &out)
	return out
}

func invoiceRead(t *testing.T, c *apitest.Caller, clientID, id string) *invoiceOut {
	t.Helper()
	var out *invoiceOut
	c.Do(t, invoiceReadQuery, apitest.Vars{"c": clientID, "id": id}).Field(t, "invoice", &out)
	return out
}

func invoiceWithdraw(t *testing.T, c *apitest.Caller, clientID, id string, comment any) *apitest.Response {
	t.Helper()
	vars := apitest.Vars{"c": clientID, "id": id}
	if comment != nil {
		vars["comment"] = comment
	}
	return c.Do(t, invoiceWithdrawMutation, vars)
}

func invoiceList(t *testing.T, c *apitest.Caller, clientID string, vars apitest.Vars) invoicePage {
	t.Helper()
	all := apitest.Vars{"c": clientID}
	for k, v := range vars {
		all[k] = v
	}
	var p invoicePage
	c.Do(t, invoiceListQuery, all).Field(t, "invoices", &p)
	return p
}

func invoiceCount(t *testing.T, env *apitest.Env, clientID string) int {
	t.Helper()
	return invoiceList(t, env.Admin(), clientID, nil).TotalCount
}

// invoiceRefused checks a refusal: the HTTP status, no data, every error
// with the code, and exactly the given error fields (in any order; any
// fields when none are given).
func invoiceRefused(t *testing.T, r *apitest.Response, status int, code string, fields ...string) {
	t.Helper()
	if r.Status != status || r.HasData() || len(r.Errors) == 0 {
		t.Errorf("want a refusal with HTTP %d and no data, got %s", status, r)
		return
	}
	var got []string
	for _, e := range r.Errors {
		if e.Extensions.Code != code || e.Message == "" {
			t.Errorf("want every error to be %s with a message, got %s", code, r)
			return
		}
		got = append(got, e.Extensions.Field)
	}
	if len(fields) == 0 {
		return // any field
	}
	want := slices.Clone(fields)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("errors are on fields %q, want %q: %s", got, want, r)
	}
}

func invoiceJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func invoiceStr(s string) *string { return &s }

// invoiceNotDue are the statuses of an unpaid invoice before its due date.
var invoiceNotDue = invoiceStatuses{"OPEN", "AWAITING_DUE", "UNPAID", "INVOICING", "NOT_DUE", "ACTIVE", false}

// invoiceWithdrawnStatuses are the statuses of a withdrawn unpaid invoice.
var invoiceWithdrawnStatuses = invoiceStatuses{"WITHDRAWN", "CLOSED", "UNPAID", "CLOSED", "WITHDRAWN", "INACTIVE", true}

// invoiceAt is noon of a date in the service's zone.
func invoiceAt(date string) time.Time {
	d, err := time.ParseInLocation("2006-01-02", date, apitest.Stockholm)
	if err != nil {
		panic(err)
	}
	return d.Add(12 * time.Hour)
}

func TestInvoiceCreateReturnsEveryField(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(invoiceAt("2026-03-15"))
	clientID, _ := env.NewClient(t, "Fakturor AB")

	in := apitest.Vars{
		"invoiceNumber":           "  INV-2026-001  ",
		"invoiceDate":             "2026-03-01",
		"daysUntilExpiration":     30,
		"dueDate":                 "2026-03-31",
		"interestRate":            json.Number("8.5"),
		"totalExcludingVAT":       1000, // JSON integers
		"totalVATAmount":          250,
		"totalAmountIncludingVAT": 1250,
		"reminderDate":            "2026-04-10",
		"reminderFee":             "60",
		"articles": []apitest.Vars{
			// Not in alphabetical order: the order given is kept.
			{"name": "Öl", "description": "  Fatöl, mars  ", "priceExcludingVAT": "0.1", "totalVATAmount": json.Number("0.03"),
				"totalAmountIncludingVAT": "0.18", "totalAmountExcludingVAT": "0.15", "quantity": "1.5", "vatPercentage": "25", "discount": json.Number("0.05")},
			{"name": "Konsulttimmar", "priceExcludingVAT": 999, "totalVATAmount": "249.75", "totalAmountIncludingVAT": "1248.75",
				"totalAmountExcludingVAT": "999", "quantity": 1, "vatPercentage": json.Number("12.5"), "discount": 0},
			{"name": "Avgift", "description": "   ", "priceExcludingVAT": "0.85", "totalVATAmount": "0.22", "totalAmountIncludingVAT": "1.07",
				"totalAmountExcludingVAT": "0.85", "quantity": "0.0001", "vatPercentage": "0", "discount": "0.00"},
		},
	}
	got := invoiceMust(t, env.Admin(), clientID, in)

	if !uuidRE.MatchString(got.ID) {
		t.Errorf("id %q is not a canonical UUID", got.ID)
	}
	for _, ts := range []string{got.CreatedAt, got.UpdatedAt} {
		if !dateTimeRE.MatchString(ts) {
			t.Errorf("timestamp %q is not RFC 3339 UTC", ts)
		}
	}
	want := invoiceOut{
		ID: got.ID, Client: struct{ ID string }{clientID}, InvoiceNumber: "INV-2026-001",
		InvoiceDate: "2026-03-01", DaysUntilExpiration: 30, DueDate: "2026-03-31", InterestRate: invoiceStr("8.50"),
		TotalExcludingVAT: "1000.00", TotalVATAmount: "250.00", TotalAmountIncludingVAT: "1250.00",
		ReminderDate: invoiceStr("2026-04-10"), ReminderFee: invoiceStr("60.00"),
		Articles: []invoiceArticleOut{
			{Name: "Öl", Description: invoiceStr("Fatöl, mars"), PriceExcludingVAT: "0.10", TotalVATAmount: "0.03",
				TotalAmountIncludingVAT: "0.18", TotalAmountExcludingVAT: "0.15", Quantity: "1.50", VATPercentage: "25.00", Discount: "0.05"},
			{Name: "Konsulttimmar", PriceExcludingVAT: "999.00", TotalVATAmount: "249.75", TotalAmountIncludingVAT: "1248.75",
				TotalAmountExcludingVAT: "999.00", Quantity: "1.00", VATPercentage: "12.50", Discount: "0.00"},
			{Name: "Avgift", PriceExcludingVAT: "0.85", TotalVATAmount: "0.22", TotalAmountIncludingVAT: "1.07",
				TotalAmountExcludingVAT: "0.85", Quantity: "0.0001", VATPercentage: "0.00", Discount: "0.00"},
		},
		PaidAmount: "0.00", RemainingAmount: "1250.00", invoiceStatuses: invoiceNotDue,
		CreatedAt: got.CreatedAt, UpdatedAt: got.UpdatedAt,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("createInvoice returned\n%s\nwant\n%s", invoiceJSON(got), invoiceJSON(want))
	}

	// The wire form: money and rates are strings, dates YYYY-MM-DD.
	r := env.Admin().Do(t, invoiceReadQuery, apitest.Vars{"c": clientID, "id": got.ID})
	for _, frag := range []string{`"totalAmountIncludingVAT":"1250.00"`, `"interestRate":"8.50"`, `"quantity":"1.50"`,
		`"invoiceDate":"2026-03-01"`, `"reminderDate":"2026-04-10"`, `"withdrawnAt":null`, `"withdrawComment":null`} {
		if !strings.Contains(string(r.Body), frag) {
			t.Errorf("the invoice's JSON lacks %s: %s", frag, r.Body)
		}
	}

	// Read back, by id in upper case and by a CLIENT key of the client.
	if read := invoiceRead(t, env.Admin(), strings.ToUpper(clientID), strings.ToUpper(got.ID)); read == nil || !reflect.DeepEqual(*read, got) {
		t.Errorf("invoice(clientId, id) returned\n%s\nwant\n%s", invoiceJSON(read), invoiceJSON(got))
	}
	_, secret := env.NewKey(t, "CLIENT", clientID)
	if read := invoiceRead(t, env.As(secret), clientID, got.ID); read == nil || !reflect.DeepEqual(*read, got) {
		t.Errorf("invoice(clientId, id) with a CLIENT key returned\n%s\nwant\n%s", invoiceJSON(read), invoiceJSON(got))
	}

	// Client.invoices and Query.invoices list it, with the same fields.
	var viaClient struct {
		Client struct {
			Invoices struct {
				TotalCount int
				Nodes      []invoiceOut
			}
		}
	}
	env.Admin().Do(t, `query($c: UUID!) { client(id: $c) { invoices { totalCount nodes { `+invoiceFields+` } } } }`,
		apitest.Vars{"c": clientID}).OK(t, &viaClient)
	if n := viaClient.Client.Invoices; n.TotalCount != 1 || len(n.Nodes) != 1 || !reflect.DeepEqual(n.Nodes[0], got) {
		t.Errorf("Client.invoices returned\n%s\nwant the invoice\n%s", invoiceJSON(n), invoiceJSON(got))
	}
	var viaQuery struct {
		Invoices struct{ Nodes []invoiceOut }
	}
	env.Admin().Do(t, `query($c: UUID!) { invoices(clientId: $c) { nodes { `+invoiceFields+` } } }`,
		apitest.Vars{"c": clientID}).OK(t, &viaQuery)
	if n := viaQuery.Invoices.Nodes; len(n) != 1 || !reflect.DeepEqual(n[0], got) {
		t.Errorf("Query.invoices returned\n%s\nwant the invoice\n%s", invoiceJSON(n), invoiceJSON(got))
	}

	// Optional fields left out are null.
	bare := invoiceMust(t, env.Admin(), clientID, invoiceInput("INV-2026-002"))
	if bare.InterestRate != nil || bare.ReminderDate != nil || bare.ReminderFee != nil || bare.Articles[0].Description != nil {
		t.Errorf("omitted optional fields are not null: %s", invoiceJSON(bare))
	}
}

func TestInvoiceDecimalsAreExact(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Decimal AB")
	n := 0
	next := func() string { n++; return fmt.Sprintf("DEC-%03d", n) }

	t.Run("strings and JSON numbers give the same exact amounts", func(t *testing.T) {
		for _, tc := range []struct {
			name            string
			excl, vat, incl any
		}{
			{"strings", "0.10", "0.20", "0.30"},
			{"short strings", "0.1", "0.2", "0.3"},
			{"JSON numbers", json.Number("0.1"), json.Number("0.2"), json.Number("0.3")},
			{"JSON numbers with trailing zero", json.Number("0.10"), json.Number("0.20"), json.Number("0.30")},
		} {
			got := invoiceMust(t, env.Admin(), clientID, invoiceInput(next(), apitest.Vars{
				"totalExcludingVAT": tc.excl, "totalVATAmount": tc.vat, "totalAmountIncludingVAT": tc.incl}))
			if got.TotalExcludingVAT != "0.10" || got.TotalVATAmount != "0.20" || got.TotalAmountIncludingVAT != "0.30" || got.RemainingAmount != "0.30" {
				t.Errorf("%s: got %s + %s = %s (remaining %s), want 0.10 + 0.20 = 0.30", tc.name,
					got.TotalExcludingVAT, got.TotalVATAmount, got.TotalAmountIncludingVAT, got.RemainingAmount)
			}
		}
	})
	t.Run("the largest amounts survive exactly", func(t *testing.T) {
		for _, big := range []any{"999999999999999.99", json.Number("999999999999999.99")} {
			got := invoiceMust(t, env.Admin(), clientID, invoiceInput(next(), apitest.Vars{
				"totalExcludingVAT": "999999999999998.98", "totalVATAmount": json.Number("1.01"), "totalAmountIncludingVAT": big,
				"articles": []apitest.Vars{invoiceArticle("Stort", apitest.Vars{"priceExcludingVAT": big})}}))
			if got.TotalAmountIncludingVAT != "999999999999999.99" || got.TotalExcludingVAT != "999999999999998.98" ||
				got.Articles[0].PriceExcludingVAT != "999999999999999.99" || got.RemainingAmount != "999999999999999.99" {
				t.Errorf("%v: got %s", big, invoiceJSON(got))
			}
		}
	})
	t.Run("exponent notation that is exact", func(t *testing.T) {
		got := invoiceMust(t, env.Admin(), clientID, invoiceInput(next(), apitest.Vars{
			"totalExcludingVAT": json.Number("1e3"), "totalVATAmount": json.Number("2.5E2"), "totalAmountIncludingVAT": json.Number("125000e-2")}))
		if got.TotalExcludingVAT != "1000.00" || got.TotalVATAmount != "250.00" || got.TotalAmountIncludingVAT != "1250.00" {
			t.Errorf("got %s + %s = %s", got.TotalExcludingVAT, got.TotalVATAmount, got.TotalAmountIncludingVAT)
		}
	})
	t.Run("rates keep up to 4 decimals", func(t *testing.T) {
		for _, tc := range []struct {
			in   any
			want string
		}{
			{"8.125", "8.125"}, {json.Number("8.125"), "8.125"}, {"8.1255", "8.1255"}, {"0.0001", "0.0001"},
			{"100", "100.00"}, {0, "0.00"}, {"7.50", "7.50"}, {"7.5000", "7.50"},
		} {
			got := invoiceMust(t, env.Admin(), clientID, invoiceInput(next(), apitest.Vars{"interestRate": tc.in,
				"articles": []apitest.Vars{invoiceArticle("Rate", apitest.Vars{"vatPercentage": tc.in, "quantity": "2.3456"})}}))
			if got.InterestRate == nil || *got.InterestRate != tc.want || got.Articles[0].VATPercentage != tc.want || got.Articles[0].Quantity != "2.3456" {
				t.Errorf("rate %v: interestRate %v, vatPercentage %s, quantity %s; want %s and 2.3456", tc.in,
					got.InterestRate, got.Articles[0].VATPercentage, got.Articles[0].Quantity, tc.want)
			}
		}
	})

	before := invoiceCount(t, env, clientID)
	refused := []struct {
		name  string
		over  func(apitest.Vars)
		field string
	}{
		{"3 decimals as a JSON number", func(in apitest.Vars) { in["totalExcludingVAT"] = json.Number("1.005") }, "input.totalExcludingVAT"},
		{"3 decimals as a string", func(in apitest.Vars) { in["totalExcludingVAT"] = "1.005" }, "input.totalExcludingVAT"},
		{"3 written decimals, even zeros", func(in apitest.Vars) { in["totalVATAmount"] = "250.000" }, "input.totalVATAmount"},
		{"3 decimals through an exponent", func(in apitest.Vars) { in["totalVATAmount"] = json.Number("25e-3") }, "input.totalVATAmount"},
		{"3 decimals in an article", func(in apitest.Vars) { invoiceArticles(in)[0]["priceExcludingVAT"] = "1.005" }, "input.articles.0.priceExcludingVAT"},
		{"3 decimals in an article discount", func(in apitest.Vars) { invoiceArticles(in)[1]["discount"] = json.Number("0.001") }, "input.articles.1.discount"},
		{"3 decimals in the reminder fee", func(in apitest.Vars) { in["reminderFee"] = "60.125" }, "input.reminderFee"},
		{"16 integer digits", func(in apitest.Vars) { in["totalAmountIncludingVAT"] = "1000000000000000" }, "input.totalAmountIncludingVAT"},
		{"16 integer digits as a JSON number", func(in apitest.Vars) { in["totalExcludingVAT"] = json.Number("1000000000000000.00") }, "input.totalExcludingVAT"},
		{"16 integer digits through an exponent", func(in apitest.Vars) { in["totalExcludingVAT"] = json.Number("1e15") }, "input.totalExcludingVAT"},
		{"a huge exponent", func(in apitest.Vars) { in["totalExcludingVAT"] = "1e999" }, "input.totalExcludingVAT"},
		{"letters", func(in apitest.Vars) { in["totalExcludingVAT"] = "abc" }, "input.totalExcludingVAT"},
		{"empty string", func(in apitest.Vars) { in["totalVATAmount"] = "" }, "input.totalVATAmount"},
		{"decimal comma", func(in apitest.Vars) { in["totalVATAmount"] = "250,00" }, "input.totalVATAmount"},
		{"thousands separator", func(in apitest.Vars) { in["totalExcludingVAT"] = "1 000" }, "input.totalExcludingVAT"},
		{"leading space", func(in apitest.Vars) { in["totalExcludingVAT"] = " 1000" }, "input.totalExcludingVAT"},
		{"currency", func(in apitest.Vars) { in["totalExcludingVAT"] = "1000 kr" }, "input.totalExcludingVAT"},
		{"NaN", func(in apitest.Vars) { in["totalExcludingVAT"] = "NaN" }, "input.totalExcludingVAT"},
		{"Infinity", func(in apitest.Vars) { in["totalExcludingVAT"] = "Infinity" }, "input.totalExcludingVAT"},
		{"hex", func(in apitest.Vars) { in["totalExcludingVAT"] = "0x10" }, "input.totalExcludingVAT"},
		{"leading plus", func(in apitest.Vars) { in["totalExcludingVAT"] = "+1000" }, "input.totalExcludingVAT"},
		{"boolean", func(in apitest.Vars) { in["totalExcludingVAT"] = true }, "input.totalExcludingVAT"},
		{"rate with 5 decimals", func(in apitest.Vars) { in["interestRate"] = "8.12345" }, "input.interestRate"},
		{"rate with 5 decimals as a JSON number", func(in apitest.Vars) { in["interestRate"] = json.Number("8.12345") }, "input.interestRate"},
		{"quantity with 5 decimals", func(in apitest.Vars) { invoiceArticles(in)[0]["quantity"] = "1.00001" }, "input.articles.0.quantity"},
		{"VAT percentage with 5 decimals", func(in apitest.Vars) { invoiceArticles(in)[1]["vatPercentage"] = "25.00001" }, "input.articles.1.vatPercentage"},
		{"rate not a number", func(in apitest.Vars) { in["interestRate"] = "8%" }, "input.interestRate"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			in := invoiceInput(next())
			tc.over(in)
			invoiceRefused(t, invoiceCreate(t, env.Admin(), clientID, in), http.StatusBadRequest, "BAD_USER_INPUT", tc.field)
		})
	}
	if got := invoiceCount(t, env, clientID); got != before {
		t.Errorf("refused invoices were written: %d invoices, want %d", got, before)
	}
}

func TestInvoiceInputRules(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Regler AB")
	long := func(n int, s string) string { return strings.Repeat(s, n) }
	cases := []struct {
		name   string
		over   func(apitest.Vars)
		fields []string // none when valid
	}{
		{"valid", func(apitest.Vars) {}, nil},
		{"invoiceNumber empty", func(in apitest.Vars) { in["invoiceNumber"] = "" }, []string{"input.invoiceNumber"}},
		{"invoiceNumber blank", func(in apitest.Vars) { in["invoiceNumber"] = " \t\n " }, []string{"input.invoiceNumber"}},
		{"invoiceNumber of 256 characters", func(in apitest.Vars) { in["invoiceNumber"] = long(256, "9") }, []string{"input.invoiceNumber"}},
		{"invoiceNumber of 255 characters", func(in apitest.Vars) { in["invoiceNumber"] = long(255, "8") }, nil},
		{"invoiceNumber of 255 characters, trimmed", func(in apitest.Vars) { in["invoiceNumber"] = "  " + long(255, "7") + "  " }, nil},
		{"dueDate before invoiceDate", func(in apitest.Vars) { in["dueDate"] = "2026-02-28" }, []string{"input.dueDate"}},
		{"dueDate equal to invoiceDate", func(in apitest.Vars) { in["dueDate"] = "2026-03-01" }, nil},
		{"reminderDate before invoiceDate", func(in apitest.Vars) { in["reminderDate"] = "2026-02-28" }, []string{"input.reminderDate"}},
		{"reminderDate on invoiceDate", func(in apitest.Vars) { in["reminderDate"] = "2026-03-01" }, nil},
		{"daysUntilExpiration negative", func(in apitest.Vars) { in["daysUntilExpiration"] = -1 }, []string{"input.daysUntilExpiration"}},
		{"daysUntilExpiration 0", func(in apitest.Vars) { in["daysUntilExpiration"] = 0 }, nil},
		{"totalExcludingVAT negative", func(in apitest.Vars) {
			in["totalExcludingVAT"], in["totalAmountIncludingVAT"] = "-0.01", "249.99"
		}, []string{"input.totalExcludingVAT"}},
		{"totalVATAmount negative", func(in apitest.Vars) {
			in["totalVATAmount"], in["totalAmountIncludingVAT"] = "-1", "999"
		}, []string{"input.totalVATAmount"}},
		{"reminderFee negative", func(in apitest.Vars) { in["reminderFee"] = "-0.01" }, []string{"input.reminderFee"}},
		{"reminderFee 0", func(in apitest.Vars) { in["reminderFee"] = 0 }, nil},
		{"totalAmountIncludingVAT 0", func(in apitest.Vars) {
			in["totalExcludingVAT"], in["totalVATAmount"], in["totalAmountIncludingVAT"] = 0, 0, 0
		}, []string{"input.totalAmountIncludingVAT"}},
		{"totalAmountIncludingVAT negative", func(in apitest.Vars) {
			in["totalExcludingVAT"], in["totalVATAmount"], in["totalAmountIncludingVAT"] = 0, 0, "-1"
		}, []string{"input.totalAmountIncludingVAT"}},
		{"all zero but the total, within 1.00", func(in apitest.Vars) {
			in["totalExcludingVAT"], in["totalVATAmount"], in["totalAmountIncludingVAT"] = 0, 0, "1.00"
		}, nil},
		{"total 1.00 above the sum", func(in apitest.Vars) { in["totalAmountIncludingVAT"] = "1251.00" }, nil},
		{"total 1.00 below the sum", func(in apitest.Vars) { in["totalAmountIncludingVAT"] = "1249" }, nil},
		{"total 1.01 above the sum", func(in apitest.Vars) { in["totalAmountIncludingVAT"] = "1251.01" }, []string{"input.totalAmountIncludingVAT"}},
		{"total 1.01 below the sum", func(in apitest.Vars) { in["totalAmountIncludingVAT"] = "1248.99" }, []string{"input.totalAmountIncludingVAT"}},
		{"total far from the sum", func(in apitest.Vars) { in["totalAmountIncludingVAT"] = "1000" }, []string{"input.totalAmountIncludingVAT"}},
		{"interestRate negative", func(in apitest.Vars) { in["interestRate"] = "-0.0001" }, []string{"input.interestRate"}},
		{"interestRate above 100", func(in apitest.Vars) { in["interestRate"] = "100.0001" }, []string{"input.interestRate"}},
		{"interestRate 0", func(in apitest.Vars) { in["interestRate"] = "0" }, nil},
		{"interestRate 100", func(in apitest.Vars) { in["interestRate"] = 100 }, nil},
		{"interestRate null", func(in apitest.Vars) { in["interestRate"] = nil }, nil},
		{"no articles", func(in apitest.Vars) { in["articles"] = []apitest.Vars{} }, []string{"input.articles"}},
		{"article name empty", func(in apitest.Vars) { invoiceArticles(in)[1]["name"] = "" }, []string{"input.articles.1.name"}},
		{"article name blank", func(in apitest.Vars) { invoiceArticles(in)[1]["name"] = "   " }, []string{"input.articles.1.name"}},
		{"article name of 256 characters", func(in apitest.Vars) { invoiceArticles(in)[0]["name"] = long(256, "a") }, []string{"input.articles.0.name"}},
		{"article description of 2001 characters", func(in apitest.Vars) { invoiceArticles(in)[0]["description"] = long(2001, "d") }, []string{"input.articles.0.description"}},
		{"article description of 2000 characters", func(in apitest.Vars) { invoiceArticles(in)[0]["description"] = long(2000, "d") }, nil},
		{"article quantity 0", func(in apitest.Vars) { invoiceArticles(in)[0]["quantity"] = 0 }, []string{"input.articles.0.quantity"}},
		{"article quantity negative", func(in apitest.Vars) { invoiceArticles(in)[1]["quantity"] = "-1" }, []string{"input.articles.1.quantity"}},
		{"article quantity 0.0001", func(in apitest.Vars) { invoiceArticles(in)[1]["quantity"] = "0.0001" }, nil},
		{"article vatPercentage above 100", func(in apitest.Vars) { invoiceArticles(in)[0]["vatPercentage"] = "100.01" }, []string{"input.articles.0.vatPercentage"}},
		{"article vatPercentage negative", func(in apitest.Vars) { invoiceArticles(in)[0]["vatPercentage"] = "-1" }, []string{"input.articles.0.vatPercentage"}},
		{"article vatPercentage 100", func(in apitest.Vars) { invoiceArticles(in)[0]["vatPercentage"] = "100" }, nil},
		{"article discount negative", func(in apitest.Vars) { invoiceArticles(in)[1]["discount"] = "-0.01" }, []string{"input.articles.1.discount"}},
		{"article price negative", func(in apitest.Vars) { invoiceArticles(in)[0]["priceExcludingVAT"] = "-1" }, []string{"input.articles.0.priceExcludingVAT"}},
		{"article VAT negative", func(in apitest.Vars) { invoiceArticles(in)[0]["totalVATAmount"] = "-1" }, []string{"input.articles.0.totalVATAmount"}},
		{"article total incl. VAT negative", func(in apitest.Vars) { invoiceArticles(in)[0]["totalAmountIncludingVAT"] = "-1" }, []string{"input.articles.0.totalAmountIncludingVAT"}},
		{"article total excl. VAT negative", func(in apitest.Vars) { invoiceArticles(in)[0]["totalAmountExcludingVAT"] = "-1" }, []string{"input.articles.0.totalAmountExcludingVAT"}},
		{"article amounts 0", func(in apitest.Vars) {
			invoiceArticles(in)[0] = invoiceArticle("Gratis", apitest.Vars{"priceExcludingVAT": 0, "totalVATAmount": 0,
				"totalAmountIncludingVAT": 0, "totalAmountExcludingVAT": 0, "vatPercentage": 0})
		}, nil},
		{"invoiceDate 2026-02-30", func(in apitest.Vars) { in["invoiceDate"] = "2026-02-30" }, []string{"input.invoiceDate"}},
		{"dueDate month 13", func(in apitest.Vars) { in["dueDate"] = "2026-13-01" }, []string{"input.dueDate"}},
		{"dueDate without leading zeros", func(in apitest.Vars) { in["dueDate"] = "2026-3-31" }, []string{"input.dueDate"}},
		{"invoiceDate with a time", func(in apitest.Vars) { in["invoiceDate"] = "2026-03-01T00:00:00Z" }, []string{"input.invoiceDate"}},
		{"reminderDate in another format", func(in apitest.Vars) { in["reminderDate"] = "10/04/2026" }, []string{"input.reminderDate"}},
		{"reminderDate not a string", func(in apitest.Vars) { in["reminderDate"] = 20260410 }, []string{"input.reminderDate"}},
		{"invoiceDate 2028-02-29, a leap day", func(in apitest.Vars) {
			in["invoiceDate"], in["dueDate"] = "2028-02-29", "2028-02-29"
		}, nil},
		{"several broken fields at once", func(in apitest.Vars) {
			in["invoiceNumber"] = " "
			in["dueDate"] = "2026-02-01"
			in["daysUntilExpiration"] = -5
			in["interestRate"] = "101"
			in["totalAmountIncludingVAT"] = "2000"
			invoiceArticles(in)[0]["quantity"] = 0
			invoiceArticles(in)[1]["name"] = ""
			invoiceArticles(in)[1]["discount"] = "-5"
		}, []string{"input.invoiceNumber", "input.dueDate", "input.daysUntilExpiration", "input.interestRate",
			"input.totalAmountIncludingVAT", "input.articles.0.quantity", "input.articles.1.name", "input.articles.1.discount"}},
	}
	accepted := 0
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := invoiceInput(fmt.Sprintf("RULE-%03d", i))
			tc.over(in)
			r := invoiceCreate(t, env.Admin(), clientID, in)
			if len(tc.fields) == 0 {
				r.OK(t, nil)
				accepted++
				return
			}
			invoiceRefused(t, r, http.StatusBadRequest, "BAD_USER_INPUT", tc.fields...)
		})
	}

	t.Run("missing required fields", func(t *testing.T) {
		for _, f := range []string{"invoiceNumber", "invoiceDate", "daysUntilExpiration", "dueDate", "totalExcludingVAT",
			"totalVATAmount", "totalAmountIncludingVAT", "articles"} {
			in := invoiceInput("MISSING-" + f)
			delete(in, f)
			r := invoiceCreate(t, env.Admin(), clientID, in)
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
			if !strings.Contains(string(r.Body), f) {
				t.Errorf("the error does not name %s: %s", f, r.Body)
			}
		}
		for _, f := range []string{"name", "priceExcludingVAT", "totalVATAmount", "totalAmountIncludingVAT",
			"totalAmountExcludingVAT", "quantity", "vatPercentage", "discount"} {
			in := invoiceInput("MISSING-ARTICLE-" + f)
			delete(invoiceArticles(in)[1], f)
			r := invoiceCreate(t, env.Admin(), clientID, in)
			r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
			if !strings.Contains(string(r.Body), f) {
				t.Errorf("the error does not name %s: %s", f, r.Body)
			}
		}
	})

	t.Run("a mutation with a refused field writes nothing", func(t *testing.T) {
		r := env.Admin().Do(t, `mutation($c: UUID!, $a: InvoiceInput!, $b: InvoiceInput!) {
		  a: createInvoice(clientId: $c, input: $a) { id }
		  b: createInvoice(clientId: $c, input: $b) { id } }`,
			apitest.Vars{"c": clientID, "a": invoiceInput("ATOMIC-A"), "b": invoiceInput("ATOMIC-B", apitest.Vars{"dueDate": "2020-01-01"})})
		r.Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "input.dueDate")
	})

	if got := invoiceCount(t, env, clientID); got != accepted {
		t.Errorf("the client has %d invoices, want the %d accepted ones: a refused invoice was written", got, accepted)
	}
}

// TestInvoiceLengthsCountCharacters: limits are in characters (api.md §5),
// so a limit of Swedish letters, two bytes each in UTF-8, is accepted.
func TestInvoiceLengthsCountCharacters(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Längder AB")
	t.Run("invoiceNumber of 255 characters", func(t *testing.T) {
		number := strings.Repeat("Ö", 255)
		got := invoiceMust(t, env.Admin(), clientID, invoiceInput(number))
		if got.InvoiceNumber != number {
			t.Errorf("invoiceNumber came back as %d characters", len([]rune(got.InvoiceNumber)))
		}
	})
	t.Run("article name of 255 and description of 2000 characters", func(t *testing.T) {
		in := invoiceInput("LEN-ARTICLE")
		invoiceArticles(in)[0]["name"] = strings.Repeat("ä", 255)
		invoiceArticles(in)[0]["description"] = strings.Repeat("å", 2000)
		got := invoiceMust(t, env.Admin(), clientID, in)
		if got.Articles[0].Name != strings.Repeat("ä", 255) || got.Articles[0].Description == nil || *got.Articles[0].Description != strings.Repeat("å", 2000) {
			t.Errorf("the article came back changed")
		}
	})
	t.Run("withdraw comment of 2000 characters", func(t *testing.T) {
		inv := invoiceMust(t, env.Admin(), clientID, invoiceInput("LEN-COMMENT"))
		comment := strings.Repeat("é", 2000)
		var out invoiceOut
		invoiceWithdraw(t, env.Admin(), clientID, inv.ID, comment).Field(t, "withdrawInvoice", &out)
		if out.WithdrawComment == nil || *out.WithdrawComment != comment {
			t.Errorf("the comment came back changed")
		}
	})
}

func TestInvoiceNumberIsUniquePerClient(t *testing.T) {
	env := apitest.New(t)
	a, _ := env.NewClient(t, "A AB")
	b, _ := env.NewClient(t, "B AB")

	first := invoiceMust(t, env.Admin(), a, invoiceInput("INV-1"))
	for _, dup := range []string{"INV-1", " INV-1 ", "\tINV-1\n"} {
		invoiceRefused(t, invoiceCreate(t, env.Admin(), a, invoiceInput(dup)), http.StatusConflict, "CONFLICT", "input.invoiceNumber")
	}
	// Compared exactly: case and inner characters matter.
	for _, other := range []string{"inv-1", "INV1", "INV 1", "INV-1-2"} {
		invoiceMust(t, env.Admin(), a, invoiceInput(other))
	}
	// The same number is free in another client.
	invoiceMust(t, env.Admin(), b, invoiceInput("INV-1"))
	// A withdrawn invoice keeps its number.
	invoiceWithdraw(t, env.Admin(), a, first.ID, nil).OK(t, nil)
	invoiceRefused(t, invoiceCreate(t, env.Admin(), a, invoiceInput("INV-1")), http.StatusConflict, "CONFLICT", "input.invoiceNumber")

	invoiceMust(t, env.Admin(), a, invoiceInput("INV-2"))
	invoiceRefused(t, invoiceCreate(t, env.Admin(), a, invoiceInput(" INV-2 ")), http.StatusConflict, "CONFLICT", "input.invoiceNumber")

	if got := invoiceCount(t, env, a); got != 6 {
		t.Errorf("client A has %d invoices, want 6", got)
	}
	if got := invoiceCount(t, env, b); got != 1 {
		t.Errorf("client B has %d invoices, want 1", got)
	}
}

// TestInvoiceNumberIsUniqueUnderConcurrency: concurrent registrations of one
// number give one invoice and CONFLICT for the others, never INTERNAL.
func TestInvoiceNumberIsUniqueUnderConcurrency(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Samtidig AB")
	const n = 6
	responses := make([]*apitest.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			responses[i] = invoiceCreate(t, env.Admin(), clientID, invoiceInput("RACE-1"))
		}()
	}
	wg.Wait()
	ok := 0
	for _, r := range responses {
		if r.Status == http.StatusOK {
			ok++
			continue
		}
		invoiceRefused(t, r, http.StatusConflict, "CONFLICT", "input.invoiceNumber")
	}
	if ok != 1 {
		t.Errorf("%d of %d concurrent registrations of one number succeeded, want 1", ok, n)
	}
	if got := invoiceCount(t, env, clientID); got != 1 {
		t.Errorf("%d invoices written, want 1", got)
	}
}

func TestInvoiceStatusesFollowTheClock(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Klocka AB")
	// Due 2026-03-31, reminded from 2026-04-10; and one reminded early, on
	// 2026-03-20, before its due date.
	late := invoiceMust(t, env.Admin(), clientID, invoiceInput("LATE", apitest.Vars{"reminderDate": "2026-04-10"}))
	early := invoiceMust(t, env.Admin(), clientID, invoiceInput("EARLY", apitest.Vars{"reminderDate": "2026-03-20"}))
	plain := invoiceMust(t, env.Admin(), clientID, invoiceInput("PLAIN"))

	overdue := invoiceStatuses{"OVERDUE", "DUE_DATE_PASSED", "UNPAID", "INVOICING", "OVERDUE", "ACTIVE", false}
	remindedOverdue := invoiceStatuses{"OVERDUE", "REMINDER_SENT", "UNPAID", "INVOICING", "REMINDED", "ACTIVE", false}
	remindedOpen := invoiceStatuses{"OPEN", "REMINDER_SENT", "UNPAID", "INVOICING", "REMINDED", "ACTIVE", false}
	sthlm := func(y int, m time.Month, d, h, min, s int) time.Time {
		return time.Date(y, m, d, h, min, s, 0, apitest.Stockholm)
	}
	for _, tc := range []struct {
		name              string
		now               time.Time
		late, early, want invoiceStatuses
	}{
		{"on the invoice date", sthlm(2026, 3, 1, 0, 0, 0), invoiceNotDue, invoiceNotDue, invoiceNotDue},
		{"the day before the early reminder", sthlm(2026, 3, 19, 23, 59, 59), invoiceNotDue, invoiceNotDue, invoiceNotDue},
		{"from the first instant of the early reminder date", sthlm(2026, 3, 20, 0, 0, 0), invoiceNotDue, remindedOpen, invoiceNotDue},
		{"on the due date, morning", sthlm(2026, 3, 31, 0, 0, 0), invoiceNotDue, remindedOpen, invoiceNotDue},
		{"on the due date, last second", sthlm(2026, 3, 31, 23, 59, 59), invoiceNotDue, remindedOpen, invoiceNotDue},
		// 2026-03-31T22:00Z is still the due date in UTC, but Stockholm's
		// date is 2026-04-01.
		{"the day after the due date in Stockholm", sthlm(2026, 4, 1, 0, 0, 0), overdue, remindedOverdue, overdue},
		{"the day after the due date, as UTC", time.Date(2026, 3, 31, 22, 30, 0, 0, time.UTC), overdue, remindedOverdue, overdue},
		{"the day before the late reminder", sthlm(2026, 4, 9, 23, 59, 59), overdue, remindedOverdue, overdue},
		{"on the late reminder date", sthlm(2026, 4, 10, 0, 0, 0), remindedOverdue, remindedOverdue, overdue},
		{"long after", sthlm(2027, 1, 1, 12, 0, 0), remindedOverdue, remindedOverdue, overdue},
	} {
		env.Clock.Set(tc.now)
		for _, inv := range []struct {
			id   string
			want invoiceStatuses
		}{{late.ID, tc.late}, {early.ID, tc.early}, {plain.ID, tc.want}} {
			got := invoiceRead(t, env.Admin(), clientID, inv.id)
			if got == nil || got.invoiceStatuses != inv.want || got.PaidAmount != "0.00" || got.RemainingAmount != "1250.00" {
				t.Errorf("%s (%s): invoice %s reads %s, want %+v", tc.name, tc.now.Format(time.RFC3339), inv.id, invoiceJSON(got), inv.want)
			}
		}
	}

	t.Run("withdrawn", func(t *testing.T) {
		env.Clock.Set(sthlm(2026, 3, 15, 12, 0, 0))
		before := time.Now().UTC().Add(-time.Second)
		var w invoiceOut
		invoiceWithdraw(t, env.Admin(), clientID, late.ID, "  Fel kund  ").Field(t, "withdrawInvoice", &w)
		if w.invoiceStatuses != invoiceWithdrawnStatuses || w.WithdrawComment == nil || *w.WithdrawComment != "Fel kund" ||
			w.WithdrawnAt == nil || !dateTimeRE.MatchString(*w.WithdrawnAt) || w.PaidAmount != "0.00" || w.RemainingAmount != "1250.00" {
			t.Fatalf("withdrawInvoice returned %s", invoiceJSON(w))
		}
		at, err := time.Parse(time.RFC3339Nano, *w.WithdrawnAt)
		if err != nil || at.Before(before) || at.After(time.Now().Add(time.Second)) {
			t.Errorf("withdrawnAt %s is not now", *w.WithdrawnAt)
		}
		if w.UpdatedAt == late.UpdatedAt || w.CreatedAt != late.CreatedAt {
			t.Errorf("withdrawal: createdAt %s → %s, updatedAt %s → %s", late.CreatedAt, w.CreatedAt, late.UpdatedAt, w.UpdatedAt)
		}
		// Every other field is as registered.
		want := late
		want.invoiceStatuses, want.WithdrawnAt, want.WithdrawComment, want.UpdatedAt = w.invoiceStatuses, w.WithdrawnAt, w.WithdrawComment, w.UpdatedAt
		if !reflect.DeepEqual(w, want) {
			t.Errorf("withdrawal changed more than it should:\n%s\nwant\n%s", invoiceJSON(w), invoiceJSON(want))
		}
		// Withdrawn stays withdrawn whatever the date.
		for _, now := range []time.Time{sthlm(2026, 3, 1, 0, 0, 0), sthlm(2026, 4, 1, 0, 0, 0), sthlm(2026, 4, 10, 0, 0, 0)} {
			env.Clock.Set(now)
			if got := invoiceRead(t, env.Admin(), clientID, late.ID); got == nil || !reflect.DeepEqual(*got, w) {
				t.Errorf("at %s the withdrawn invoice reads %s, want %s", now, invoiceJSON(got), invoiceJSON(w))
			}
		}
	})
}

func TestInvoiceWithdraw(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(invoiceAt("2026-03-15"))
	clientID, _ := env.NewClient(t, "Återkalla AB")
	create := func(n string) invoiceOut { return invoiceMust(t, env.Admin(), clientID, invoiceInput(n)) }

	t.Run("without comment", func(t *testing.T) {
		inv := create("W-NONE")
		var out invoiceOut
		invoiceWithdraw(t, env.Admin(), clientID, inv.ID, nil).Field(t, "withdrawInvoice", &out)
		if out.invoiceStatuses != invoiceWithdrawnStatuses || out.WithdrawnAt == nil || out.WithdrawComment != nil {
			t.Errorf("got %s", invoiceJSON(out))
		}
	})
	t.Run("blank comment is null", func(t *testing.T) {
		for i, c := range []string{"", "   ", "\n\t"} {
			inv := create(fmt.Sprintf("W-BLANK-%d", i))
			var out invoiceOut
			invoiceWithdraw(t, env.Admin(), clientID, inv.ID, c).Field(t, "withdrawInvoice", &out)
			if out.invoiceStatuses != invoiceWithdrawnStatuses || out.WithdrawComment != nil {
				t.Errorf("comment %q: got %s", c, invoiceJSON(out))
			}
		}
	})
	t.Run("with comment, read back", func(t *testing.T) {
		inv := create("W-COMMENT")
		var out invoiceOut
		invoiceWithdraw(t, env.Admin(), clientID, inv.ID, "Krediterad, se kreditfaktura K-7").Field(t, "withdrawInvoice", &out)
		read := invoiceRead(t, env.Admin(), clientID, inv.ID)
		if read == nil || !reflect.DeepEqual(*read, out) || out.WithdrawComment == nil || *out.WithdrawComment != "Krediterad, se kreditfaktura K-7" {
			t.Errorf("withdrawInvoice returned %s, invoice reads %s", invoiceJSON(out), invoiceJSON(read))
		}

		// Withdrawing twice is CONFLICT and changes nothing.
		invoiceRefused(t, invoiceWithdraw(t, env.Admin(), clientID, inv.ID, "Andra gången"), http.StatusConflict, "CONFLICT", "")
		invoiceRefused(t, invoiceWithdraw(t, env.Admin(), clientID, inv.ID, nil), http.StatusConflict, "CONFLICT", "")
		if again := invoiceRead(t, env.Admin(), clientID, inv.ID); again == nil || !reflect.DeepEqual(*again, out) {
			t.Errorf("a refused second withdrawal changed the invoice: %s", invoiceJSON(again))
		}
	})
	t.Run("comment too long", func(t *testing.T) {
		inv := create("W-LONG")
		invoiceRefused(t, invoiceWithdraw(t, env.Admin(), clientID, inv.ID, strings.Repeat("x", 2001)), http.StatusBadRequest, "BAD_USER_INPUT", "comment")
		if got := invoiceRead(t, env.Admin(), clientID, inv.ID); got == nil || got.invoiceStatuses != invoiceNotDue || got.WithdrawnAt != nil {
			t.Errorf("a refused withdrawal changed the invoice: %s", invoiceJSON(got))
		}
		var out invoiceOut
		invoiceWithdraw(t, env.Admin(), clientID, inv.ID, strings.Repeat("x", 2000)).Field(t, "withdrawInvoice", &out)
		if out.WithdrawComment == nil || len(*out.WithdrawComment) != 2000 {
			t.Errorf("a comment of 2000 characters came back as %v", out.WithdrawComment)
		}
	})
	t.Run("unknown invoice is NOT_FOUND", func(t *testing.T) {
		invoiceRefused(t, invoiceWithdraw(t, env.Admin(), clientID, "6f1c0a47-1f7e-4bd4-9a53-000000000000", nil), http.StatusNotFound, "NOT_FOUND", "")
	})
	t.Run("unknown client is NOT_FOUND", func(t *testing.T) {
		inv := create("W-UNKNOWN-CLIENT")
		invoiceRefused(t, invoiceWithdraw(t, env.Admin(), "6f1c0a47-1f7e-4bd4-9a53-000000000001", inv.ID, nil), http.StatusNotFound, "NOT_FOUND", "")
		if got := invoiceRead(t, env.Admin(), clientID, inv.ID); got == nil || got.WithdrawnAt != nil {
			t.Errorf("the invoice was withdrawn: %s", invoiceJSON(got))
		}
	})
	t.Run("a bad id is BAD_USER_INPUT", func(t *testing.T) {
		invoiceRefused(t, invoiceWithdraw(t, env.Admin(), clientID, "not-a-uuid", nil), http.StatusBadRequest, "BAD_USER_INPUT", "id")
	})
	t.Run("a CLIENT key withdraws its own invoice", func(t *testing.T) {
		inv := create("W-OWN")
		_, secret := env.NewKey(t, "CLIENT", clientID)
		var out invoiceOut
		invoiceWithdraw(t, env.As(secret), clientID, inv.ID, "Egen").Field(t, "withdrawInvoice", &out)
		if out.invoiceStatuses != invoiceWithdrawnStatuses {
			t.Errorf("got %s", invoiceJSON(out))
		}
	})
}

// invoiceOrderKey is an invoice's value in an order, as a comparable
// string (money as zero-padded öre, times as fixed-width UTC).
func invoiceOrderKey(t *testing.T, field string, n invoiceNode) string {
	t.Helper()
	switch field {
	case "CREATED_AT":
		ts, err := time.Parse(time.RFC3339Nano, n.CreatedAt)
		if err != nil {
			t.Fatal(err)
		}
		return ts.UTC().Format("2006-01-02T15:04:05.000000")
	case "INVOICE_NUMBER":
		return n.InvoiceNumber
	case "INVOICE_DATE":
		return n.InvoiceDate
	case "DUE_DATE":
		return n.DueDate
	case "TOTAL_AMOUNT":
		ore, err := strconv.ParseInt(strings.Replace(n.TotalAmountIncludingVAT, ".", "", 1), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%020d", ore)
	}
	t.Fatalf("unknown order field %s", field)
	return ""
}

// invoiceExpectedOrder sorts the invoices by field then id, in direction.
func invoiceExpectedOrder(t *testing.T, all []invoiceNode, field string, desc bool) []string {
	t.Helper()
	nodes := slices.Clone(all)
	sort.Slice(nodes, func(i, j int) bool {
		ki, kj := invoiceOrderKey(t, field, nodes[i]), invoiceOrderKey(t, field, nodes[j])
		if ki == kj {
			ki, kj = nodes[i].ID, nodes[j].ID
		}
		if desc {
			return ki > kj
		}
		return ki < kj
	})
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = n.ID
	}
	return ids
}

// invoicePageAll reads a whole list in pages of size n: by page number, by
// cursors forwards and by cursors backwards.
func invoicePageAll(t *testing.T, env *apitest.Env, clientID string, orderBy any, n int) (pages, forward, backward []string) {
	t.Helper()
	for page := 1; ; page++ {
		p := invoiceList(t, env.Admin(), clientID, apitest.Vars{"orderBy": orderBy, "page": page, "rowsPerPage": n})
		pages = append(pages, p.ids()...)
		if p.PageInfo.HasPreviousPage != (page > 1) {
			t.Errorf("page %d: hasPreviousPage %v", page, p.PageInfo.HasPreviousPage)
		}
		if !p.PageInfo.HasNextPage || page > 50 {
			break
		}
	}
	vars := apitest.Vars{"orderBy": orderBy, "first": n}
	for i := 0; i < 50; i++ {
		p := invoiceList(t, env.Admin(), clientID, vars)
		forward = append(forward, p.ids()...)
		for j, e := range p.Edges {
			if e.Node.ID != p.Nodes[j].ID {
				t.Errorf("edge %d is %s, node %s", j, e.Node.ID, p.Nodes[j].ID)
			}
		}
		if !p.PageInfo.HasNextPage {
			break
		}
		vars = apitest.Vars{"orderBy": orderBy, "first": n, "after": *p.PageInfo.EndCursor}
	}
	vars = apitest.Vars{"orderBy": orderBy, "last": n}
	for i := 0; i < 50; i++ {
		p := invoiceList(t, env.Admin(), clientID, vars)
		backward = append(p.ids(), backward...)
		if !p.PageInfo.HasPreviousPage {
			break
		}
		vars = apitest.Vars{"orderBy": orderBy, "last": n, "before": *p.PageInfo.StartCursor}
	}
	return pages, forward, backward
}

func TestInvoiceListOrderAndPaging(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Ordning AB")
	otherID, _ := env.NewClient(t, "Annan AB")
	invoiceMust(t, env.Admin(), otherID, invoiceInput("A150")) // never listed under clientID

	// Equal values in every order but the invoice number (unique), so that
	// ties straddle page boundaries: three of 0.01 (a cursor value of one
	// byte), three of 100.00, two of 1250.00 and the largest amount.
	type spec struct{ number, date, due, total string }
	money := func(total string) apitest.Vars {
		return apitest.Vars{"totalExcludingVAT": total, "totalVATAmount": "0", "totalAmountIncludingVAT": total,
			"articles": []apitest.Vars{invoiceArticle("Rad")}}
	}
	for _, s := range []spec{
		{"A300", "2026-03-05", "2026-03-20", "0.01"},
		{"A100", "2026-03-01", "2026-03-31", "999999999999999.99"},
		{"A500", "2026-03-05", "2026-03-31", "100.00"},
		{"A200", "2026-03-02", "2026-03-20", "0.01"},
		{"A400", "2026-03-01", "2026-04-30", "1250.00"},
		{"A600", "2026-03-05", "2026-03-20", "100.00"},
	} {
		in := invoiceInput(s.number, money(s.total), apitest.Vars{"invoiceDate": s.date, "dueDate": s.due})
		invoiceMust(t, env.Admin(), clientID, in)
	}
	// Three invoices registered at the same instant, written directly: the
	// API cannot register two at once.
	ctx := auth.System(context.Background())
	same := time.Date(2026, 3, 2, 9, 30, 15, 123456000, time.UTC)
	for _, s := range []spec{{"A050", "2026-03-03", "2026-03-20", "1250.00"}, {"A900", "2026-03-01", "2026-03-31", "100.00"}, {"A700", "2026-03-03", "2026-03-20", "0.01"}} {
		date, _ := scalar.ParseDate(s.date)
		due, _ := scalar.ParseDate(s.due)
		total, _ := collection.ParseMoney(s.total)
		if _, err := env.DB.Ent.Invoice.Create().SetClientID(clientID).SetInvoiceNumber(s.number).SetInvoiceDate(date).
			SetDaysUntilExpiration(0).SetDueDate(due).SetTotalExcludingVat(total).SetTotalVatAmount(0).
			SetTotalAmountIncludingVat(total).SetCreatedAt(same).SetUpdatedAt(same).Save(ctx); err != nil {
			t.Fatal(err)
		}
	}

	all := invoiceList(t, env.Admin(), clientID, apitest.Vars{"rowsPerPage": 100})
	if all.TotalCount != 9 || len(all.Nodes) != 9 {
		t.Fatalf("the client has %d invoices (%d listed), want 9", all.TotalCount, len(all.Nodes))
	}

	t.Run("default is newest first", func(t *testing.T) {
		want := invoiceExpectedOrder(t, all.Nodes, "CREATED_AT", true)
		if got := all.ids(); !slices.Equal(got, want) {
			t.Errorf("default order %v, want %v", got, want)
		}
		if d := invoiceList(t, env.Admin(), clientID, nil); !slices.Equal(d.ids(), want) || d.TotalCount != 9 {
			t.Errorf("no paging arguments gave %v (total %d), want %v", d.ids(), d.TotalCount, want)
		}
		pages, forward, backward := invoicePageAll(t, env, clientID, nil, 2)
		for name, got := range map[string][]string{"pages": pages, "forward cursors": forward, "backward cursors": backward} {
			if !slices.Equal(got, want) {
				t.Errorf("%s gave %v, want %v", name, got, want)
			}
		}
	})

	for _, field := range []string{"CREATED_AT", "INVOICE_NUMBER", "INVOICE_DATE", "DUE_DATE", "TOTAL_AMOUNT"} {
		for _, dir := range []string{"", "ASC", "DESC"} {
			name := field
			orderBy := apitest.Vars{"field": field}
			if dir != "" {
				name += " " + dir
				orderBy["direction"] = dir
			} else {
				name += " (default ASC)"
			}
			t.Run(name, func(t *testing.T) {
				want := invoiceExpectedOrder(t, all.Nodes, field, dir == "DESC")
				p := invoiceList(t, env.Admin(), clientID, apitest.Vars{"orderBy": orderBy, "rowsPerPage": 100})
				if !slices.Equal(p.ids(), want) || p.TotalCount != 9 {
					t.Errorf("order gave %v (total %d), want %v", p.ids(), p.TotalCount, want)
				}
				for _, size := range []int{2, 3} {
					pages, forward, backward := invoicePageAll(t, env, clientID, orderBy, size)
					for name, got := range map[string][]string{"pages": pages, "forward cursors": forward, "backward cursors": backward} {
						if !slices.Equal(got, want) {
							t.Errorf("%s of %d gave %v, want %v", name, size, got, want)
						}
					}
				}
			})
		}
	}

	t.Run("page mode cursors continue in cursor mode", func(t *testing.T) {
		orderBy := apitest.Vars{"field": "TOTAL_AMOUNT", "direction": "DESC"}
		want := invoiceExpectedOrder(t, all.Nodes, "TOTAL_AMOUNT", true)
		p := invoiceList(t, env.Admin(), clientID, apitest.Vars{"orderBy": orderBy, "page": 2, "rowsPerPage": 3})
		if !slices.Equal(p.ids(), want[3:6]) || !p.PageInfo.HasNextPage || !p.PageInfo.HasPreviousPage {
			t.Fatalf("page 2 of 3 is %v %+v, want %v", p.ids(), p.PageInfo, want[3:6])
		}
		next := invoiceList(t, env.Admin(), clientID, apitest.Vars{"orderBy": orderBy, "first": 3, "after": *p.PageInfo.EndCursor})
		if !slices.Equal(next.ids(), want[6:]) || next.PageInfo.HasNextPage {
			t.Errorf("after page 2: %v %+v, want %v", next.ids(), next.PageInfo, want[6:])
		}
		prev := invoiceList(t, env.Admin(), clientID, apitest.Vars{"orderBy": orderBy, "last": 3, "before": *p.PageInfo.StartCursor})
		if !slices.Equal(prev.ids(), want[:3]) || prev.PageInfo.HasPreviousPage {
			t.Errorf("before page 2: %v %+v, want %v", prev.ids(), prev.PageInfo, want[:3])
		}
		if past := invoiceList(t, env.Admin(), clientID, apitest.Vars{"page": 5, "rowsPerPage": 3}); len(past.Nodes) != 0 || past.TotalCount != 9 || past.PageInfo.HasNextPage {
			t.Errorf("a page past the end: %+v", past)
		}
	})

	t.Run("a cursor of one order is refused by another", func(t *testing.T) {
		fields := []string{"CREATED_AT", "INVOICE_NUMBER", "INVOICE_DATE", "DUE_DATE", "TOTAL_AMOUNT"}
		cursors := map[string]string{}
		for _, f := range fields {
			p := invoiceList(t, env.Admin(), clientID, apitest.Vars{"orderBy": apitest.Vars{"field": f}, "first": 2})
			cursors[f] = *p.PageInfo.EndCursor
		}
		for _, from := range fields {
			for _, to := range fields {
				if from == to {
					continue
				}
				for _, arg := range []string{"after", "before"} {
					r := env.Admin().Do(t, invoiceListQuery, apitest.Vars{"c": clientID, "orderBy": apitest.Vars{"field": to}, arg: cursors[from]})
					if r.Status != http.StatusBadRequest {
						t.Errorf("a %s cursor used as %s with order %s: got %s, want 400 BAD_USER_INPUT on %s", from, arg, to, r, arg)
						continue
					}
					invoiceRefused(t, r, http.StatusBadRequest, "BAD_USER_INPUT", arg)
				}
			}
		}
	})

	t.Run("refused paging", func(t *testing.T) {
		for _, tc := range []struct {
			vars  apitest.Vars
			field string
		}{
			{apitest.Vars{"page": 0}, "page"},
			{apitest.Vars{"page": -1, "rowsPerPage": 10}, "page"},
			{apitest.Vars{"rowsPerPage": 0}, "rowsPerPage"},
			{apitest.Vars{"rowsPerPage": 101}, "rowsPerPage"},
			{apitest.Vars{"page": 1, "first": 2}, "page"},
			{apitest.Vars{"rowsPerPage": 5, "last": 2}, "rowsPerPage"},
			{apitest.Vars{"first": 0}, "first"},
			{apitest.Vars{"first": 101}, "first"},
			{apitest.Vars{"last": -1}, "last"},
			{apitest.Vars{"first": 1, "last": 1}, "last"},
			{apitest.Vars{"first": 1, "after": "not a cursor"}, "after"},
			{apitest.Vars{"before": "bm90IGEgY3Vyc29y"}, "before"},
		} {
			vars := apitest.Vars{"c": clientID}
			for k, v := range tc.vars {
				vars[k] = v
			}
			invoiceRefused(t, env.Admin().Do(t, invoiceListQuery, vars), http.StatusBadRequest, "BAD_USER_INPUT", tc.field)
		}
		env.Admin().Do(t, invoiceListQuery, apitest.Vars{"c": clientID, "orderBy": apitest.Vars{"field": "NAME"}}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
		env.Admin().Do(t, invoiceListQuery, apitest.Vars{"c": clientID, "orderBy": apitest.Vars{"direction": "DESC"}}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	})
}

// invoiceFixture is an invoice of the filter tests: due and reminder are
// days from invoiceBase (reminder only when reminded).
type invoiceFixture struct {
	number        string
	due, reminder int
	reminded      bool
	withdrawn     bool
}

// invoiceBase is the reference date of the filter tests.
var invoiceBase = time.Date(2026, 3, 10, 12, 0, 0, 0, apitest.Stockholm)

func invoiceDay(n int) string { return invoiceBase.AddDate(0, 0, n).Format("2006-01-02") }

// invoiceExpected is the oracle of api.md §8 for an invoice without debts.
func invoiceExpected(f invoiceFixture, today string) invoiceStatuses {
	if f.withdrawn {
		return invoiceWithdrawnStatuses
	}
	s := invoiceStatuses{Status: "OPEN", PaymentStatus: "UNPAID", ReceivableMainStatus: "INVOICING", ActiveStatus: "ACTIVE"}
	overdue := today > invoiceDay(f.due)
	if overdue {
		s.Status = "OVERDUE"
	}
	switch {
	case f.reminded && today >= invoiceDay(f.reminder):
		s.ProcessStatus, s.ReceivableSubStatus = "REMINDER_SENT", "REMINDED"
	case overdue:
		s.ProcessStatus, s.ReceivableSubStatus = "DUE_DATE_PASSED", "OVERDUE"
	default:
		s.ProcessStatus, s.ReceivableSubStatus = "AWAITING_DUE", "NOT_DUE"
	}
	return s
}

// invoiceFilterValues are every status filter of InvoiceFilter, the field it
// must agree with and every value of its type.
var invoiceFilterValues = []struct {
	filter string
	field  func(invoiceNode) string
	values []any
}{
	{"paymentStatus", func(n invoiceNode) string { return n.PaymentStatus }, []any{"UNPAID", "PARTIALLY_PAID", "PAID", "OVERPAID"}},
	{"invoiceStatus", func(n invoiceNode) string { return n.Status }, []any{"OPEN", "OVERDUE", "PAID", "WITHDRAWN", "TRANSFERRED_TO_COLLECTION"}},
	{"invoiceProcessStatus", func(n invoiceNode) string { return n.ProcessStatus }, []any{"AWAITING_DUE", "DUE_DATE_PASSED", "REMINDER_SENT", "SENT_TO_COLLECTION", "CLOSED"}},
	{"receivableMainStatus", func(n invoiceNode) string { return n.ReceivableMainStatus }, []any{"INVOICING", "COLLECTION", "CLOSED"}},
	{"receivableSubStatus", func(n invoiceNode) string { return n.ReceivableSubStatus }, []any{"NOT_DUE", "OVERDUE", "REMINDED", "DEMAND_SENT", "DEMAND_EXPIRED", "PAID_IN_FULL", "WITHDRAWN"}},
	{"activeStatus", func(n invoiceNode) string { return n.ActiveStatus }, []any{"ACTIVE", "INACTIVE"}},
	{"isCompleted", func(n invoiceNode) string { return strconv.FormatBool(n.IsCompleted) }, []any{true, false}},
}

// invoiceCheckFilter compares a filtered list with the expected ids.
func invoiceCheckFilter(t *testing.T, env *apitest.Env, clientID string, filter apitest.Vars, want []string) {
	t.Helper()
	p := invoiceList(t, env.Admin(), clientID, apitest.Vars{"filter": filter, "rowsPerPage": 100})
	got := p.ids()
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("filter %v returned %v, want %v", filter, got, want)
	}
	if p.TotalCount != len(want) {
		t.Errorf("filter %v: totalCount %d, want %d", filter, p.TotalCount, len(want))
	}
}

func TestInvoiceFilters(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(invoiceBase)
	clientID, clientNumber := env.NewClient(t, "Filter AB")
	otherID, otherNumber := env.NewClient(t, "Annan AB")
	invoiceMust(t, env.Admin(), otherID, invoiceInput("OTHER-OPEN"))

	fixtures := []invoiceFixture{
		{number: "OPEN", due: 5},
		{number: "DUE-TODAY", due: 0},
		{number: "DUE-YESTERDAY", due: -1},
		{number: "REMINDED-EARLY", due: 6, reminder: 2, reminded: true},
		{number: "REMINDED-TODAY", due: 6, reminder: 0, reminded: true},
		{number: "OVERDUE", due: -3},
		{number: "OVERDUE-REMINDED", due: -8, reminder: -1, reminded: true},
		{number: "OVERDUE-REMINDER-LATER", due: -2, reminder: 3, reminded: true},
		{number: "WITHDRAWN", due: -3, withdrawn: true},
		{number: "WITHDRAWN-OPEN", due: 5, reminder: 1, reminded: true, withdrawn: true},
	}
	byNumber := map[string]invoiceFixture{}
	for _, f := range fixtures {
		in := invoiceInput(f.number, apitest.Vars{"invoiceDate": invoiceDay(-30), "dueDate": invoiceDay(f.due)})
		if f.reminded {
			in["reminderDate"] = invoiceDay(f.reminder)
		}
		inv := invoiceMust(t, env.Admin(), clientID, in)
		if f.withdrawn {
			invoiceWithdraw(t, env.Admin(), clientID, inv.ID, "Återkallad").OK(t, nil)
		}
		byNumber[f.number] = f
	}

	for _, offset := range []int{-6, -1, 0, 1, 2, 3, 5, 6, 7, 40} {
		today := invoiceDay(offset)
		env.Clock.Set(invoiceBase.AddDate(0, 0, offset))
		t.Run("today "+today, func(t *testing.T) {
			all := invoiceList(t, env.Admin(), clientID, apitest.Vars{"rowsPerPage": 100})
			if all.TotalCount != len(fixtures) || len(all.Nodes) != len(fixtures) {
				t.Fatalf("%d invoices listed (total %d), want %d", len(all.Nodes), all.TotalCount, len(fixtures))
			}
			// Each invoice reads what §8 says at this date.
			for _, n := range all.Nodes {
				if want := invoiceExpected(byNumber[n.InvoiceNumber], today); n.invoiceStatuses != want {
					t.Errorf("%s reads %+v, want %+v", n.InvoiceNumber, n.invoiceStatuses, want)
				}
			}
			// Each filter returns exactly the invoices whose field reads the value.
			for _, fv := range invoiceFilterValues {
				for _, v := range fv.values {
					var want []string
					for _, n := range all.Nodes {
						if fv.field(n) == fmt.Sprint(v) {
							want = append(want, n.ID)
						}
					}
					invoiceCheckFilter(t, env, clientID, apitest.Vars{fv.filter: v}, want)
				}
			}
			// Filters combine with AND.
			var want []string
			for _, n := range all.Nodes {
				if n.Status == "OPEN" && n.ProcessStatus == "REMINDER_SENT" {
					want = append(want, n.ID)
				}
			}
			invoiceCheckFilter(t, env, clientID, apitest.Vars{"invoiceStatus": "OPEN", "invoiceProcessStatus": "REMINDER_SENT"}, want)
		})
	}

	env.Clock.Set(invoiceBase)
	all := invoiceList(t, env.Admin(), clientID, apitest.Vars{"rowsPerPage": 100})
	t.Run("every value reached at the base date", func(t *testing.T) {
		seen := map[string]bool{}
		for _, n := range all.Nodes {
			for _, fv := range invoiceFilterValues {
				seen[fv.filter+"="+fv.field(n)] = true
			}
		}
		for _, v := range []string{"invoiceStatus=OPEN", "invoiceStatus=OVERDUE", "invoiceStatus=WITHDRAWN",
			"invoiceProcessStatus=AWAITING_DUE", "invoiceProcessStatus=DUE_DATE_PASSED", "invoiceProcessStatus=REMINDER_SENT", "invoiceProcessStatus=CLOSED",
			"receivableMainStatus=INVOICING", "receivableMainStatus=CLOSED", "receivableSubStatus=NOT_DUE", "receivableSubStatus=OVERDUE",
			"receivableSubStatus=REMINDED", "receivableSubStatus=WITHDRAWN", "activeStatus=ACTIVE", "activeStatus=INACTIVE",
			"isCompleted=true", "isCompleted=false", "paymentStatus=UNPAID"} {
			if !seen[v] {
				t.Errorf("no fixture reads %s", v)
			}
		}
	})

	t.Run("invoiceCreatedDate", func(t *testing.T) {
		nodes := slices.Clone(all.Nodes)
		sort.Slice(nodes, func(i, j int) bool {
			return invoiceOrderKey(t, "CREATED_AT", nodes[i]) < invoiceOrderKey(t, "CREATED_AT", nodes[j])
		})
		for _, k := range []int{0, 4, len(nodes) - 1} {
			from, err := time.Parse(time.RFC3339Nano, nodes[k].CreatedAt)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, n := range nodes[k:] {
				want = append(want, n.ID)
			}
			invoiceCheckFilter(t, env, clientID, apitest.Vars{"invoiceCreatedDate": nodes[k].CreatedAt}, want)
			// The same instant in another offset.
			invoiceCheckFilter(t, env, clientID, apitest.Vars{"invoiceCreatedDate": from.In(time.FixedZone("", -5*3600)).Format(time.RFC3339Nano)}, want)
			// A microsecond later leaves the invoice out.
			invoiceCheckFilter(t, env, clientID, apitest.Vars{"invoiceCreatedDate": from.Add(time.Microsecond).Format(time.RFC3339Nano)}, want[1:])
		}
		invoiceCheckFilter(t, env, clientID, apitest.Vars{"invoiceCreatedDate": "2000-01-01T00:00:00+01:00"}, all.ids())
		invoiceCheckFilter(t, env, clientID, apitest.Vars{"invoiceCreatedDate": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}, nil)
		// Combined with a status filter.
		var want []string
		for _, n := range nodes[4:] {
			if n.IsCompleted {
				want = append(want, n.ID)
			}
		}
		invoiceCheckFilter(t, env, clientID, apitest.Vars{"invoiceCreatedDate": nodes[4].CreatedAt, "isCompleted": true}, want)
		env.Admin().Do(t, invoiceListQuery, apitest.Vars{"c": clientID, "filter": apitest.Vars{"invoiceCreatedDate": "2026-03-10"}}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	})

	t.Run("clientNumber", func(t *testing.T) {
		invoiceCheckFilter(t, env, clientID, apitest.Vars{"clientNumber": clientNumber}, all.ids())
		invoiceCheckFilter(t, env, clientID, apitest.Vars{"clientNumber": otherNumber}, nil)
		invoiceCheckFilter(t, env, clientID, apitest.Vars{"clientNumber": 999999}, nil)
		other := invoiceList(t, env.Admin(), otherID, apitest.Vars{"filter": apitest.Vars{"clientNumber": otherNumber}})
		if other.TotalCount != 1 || len(other.Nodes) != 1 || other.Nodes[0].InvoiceNumber != "OTHER-OPEN" {
			t.Errorf("the other client's list filtered by its number: %+v", other)
		}
	})

	t.Run("an empty filter keeps everything", func(t *testing.T) {
		invoiceCheckFilter(t, env, clientID, apitest.Vars{}, all.ids())
	})
}

func TestInvoiceSearch(t *testing.T) {
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Sök AB")
	otherID, _ := env.NewClient(t, "Annan AB")
	ids := map[string]string{}
	for _, s := range []struct {
		number   string
		articles []string
	}{
		{"INV-2026-01", []string{"Städning"}},
		{"INV-2026-02", []string{"Fönsterputs", "Resa"}},
		{"inv 2027 / 5", []string{"Öl och Åkerbär"}},
		{"X-1", []string{"Konsult", "Ränta 100%"}},
		{"K_7", []string{"Ångbåt"}},
	} {
		var articles []apitest.Vars
		for _, a := range s.articles {
			articles = append(articles, invoiceArticle(a))
		}
		ids[s.number] = invoiceMust(t, env.Admin(), clientID, invoiceInput(s.number, apitest.Vars{"articles": articles})).ID
	}
	invoiceMust(t, env.Admin(), otherID, invoiceInput("INV-2026-03", apitest.Vars{"articles": []apitest.Vars{invoiceArticle("Städning")}}))
	every := []string{"INV-2026-01", "INV-2026-02", "inv 2027 / 5", "X-1", "K_7"}

	for _, tc := range []struct {
		typ  any // nil: not given (ALL)
		term any
		want []string
	}{
		{"INVOICE_NUMBER", "inv 2026", []string{"INV-2026-01", "INV-2026-02"}},
		{"INVOICE_NUMBER", "INV-2026-01", []string{"INV-2026-01"}},
		{"INVOICE_NUMBER", "inv202601", []string{"INV-2026-01"}},
		{"INVOICE_NUMBER", " 2026 - 0 2 ", []string{"INV-2026-02"}},
		{"INVOICE_NUMBER", "INV", []string{"INV-2026-01", "INV-2026-02", "inv 2027 / 5"}},
		{"INVOICE_NUMBER", "2027/5", []string{"inv 2027 / 5"}},
		{"INVOICE_NUMBER", "x1", []string{"X-1"}},
		{"INVOICE_NUMBER", "städ", nil},
		{"INVOICE_NUMBER", "_", []string{"K_7"}},
		{"INVOICE_NUMBER", "%", nil},
		{"INVOICE_NUMBER", "  ", every},
		{"NAME", "städ", []string{"INV-2026-01"}},
		{"NAME", "STÄDNING", []string{"INV-2026-01"}},
		{"NAME", "ÅKERBÄR", []string{"inv 2027 / 5"}},
		{"NAME", "öl och", []string{"inv 2027 / 5"}},
		{"NAME", "resa", []string{"INV-2026-02"}},
		{"NAME", "å", []string{"inv 2027 / 5", "K_7"}},
		{"NAME", "100%", []string{"X-1"}},
		{"NAME", "%", []string{"X-1"}},
		{"NAME", "0%0", nil},
		{"NAME", "inv", nil},
		{"NAME", "", every},
		{"ALL", "inv", []string{"INV-2026-01", "INV-2026-02", "inv 2027 / 5"}},
		{"ALL", "konsult", []string{"X-1"}},
		{"ALL", "x-1", []string{"X-1"}},
		{"ALL", "ö", []string{"INV-2026-02", "inv 2027 / 5"}},
		{"ALL", "no such thing", nil},
		{"ALL", " ", every},
		{nil, "STÄD", []string{"INV-2026-01"}},
		{nil, "2026 02", []string{"INV-2026-02"}},
		{nil, nil, every},
		// Blank means no search, whatever the type.
		{"EMAIL", "  ", every},
	} {
		filter := apitest.Vars{}
		if tc.typ != nil {
			filter["searchType"] = tc.typ
		}
		if tc.term != nil {
			filter["searchTerm"] = tc.term
		}
		var want []string
		for _, n := range tc.want {
			want = append(want, ids[n])
		}
		t.Run(fmt.Sprintf("%v %q", tc.typ, tc.term), func(t *testing.T) {
			invoiceCheckFilter(t, env, clientID, filter, want)
		})
	}

	t.Run("search combines with other filters", func(t *testing.T) {
		invoiceWithdraw(t, env.Admin(), clientID, ids["INV-2026-02"], nil).OK(t, nil)
		invoiceCheckFilter(t, env, clientID, apitest.Vars{"searchType": "INVOICE_NUMBER", "searchTerm": "2026", "invoiceStatus": "WITHDRAWN"}, []string{ids["INV-2026-02"]})
	})

	t.Run("search types invoices do not have", func(t *testing.T) {
		for _, typ := range []string{"IDENTIFICATION_NUMBER", "EMAIL", "DEBT_ID"} {
			for _, term := range []string{"1", "inv", "a@b.se"} {
				invoiceRefused(t, env.Admin().Do(t, invoiceListQuery, apitest.Vars{"c": clientID, "filter": apitest.Vars{"searchType": typ, "searchTerm": term}}),
					http.StatusBadRequest, "BAD_USER_INPUT", "filter.searchType")
			}
		}
		env.Admin().Do(t, invoiceListQuery, apitest.Vars{"c": clientID, "filter": apitest.Vars{"searchType": "NUMBER", "searchTerm": "1"}}).
			Refused(t, http.StatusBadRequest, "BAD_USER_INPUT", "")
	})
}

func TestInvoiceTenancy(t *testing.T) {
	env := apitest.New(t)
	env.Clock.Set(invoiceAt("2026-03-15"))
	ownID, own := env.ClientCaller(t, "Egen AB")
	otherID, other := env.ClientCaller(t, "Annan AB")
	const unknown = "6f1c0a47-1f7e-4bd4-9a53-000000000000"

	mine := invoiceMust(t, own, ownID, invoiceInput("INV-1"))
	theirs := invoiceMust(t, other, otherID, invoiceInput("INV-1"))
	theirsBefore := invoiceRead(t, env.Admin(), otherID, theirs.ID)

	t.Run("another client, existing or not, is FORBIDDEN", func(t *testing.T) {
		for _, c := range []string{otherID, unknown} {
			invoiceRefused(t, invoiceCreate(t, own, c, invoiceInput("INV-X")), http.StatusForbidden, "FORBIDDEN", "")
			invoiceRefused(t, own.Do(t, invoiceReadQuery, apitest.Vars{"c": c, "id": theirs.ID}), http.StatusForbidden, "FORBIDDEN", "")
			invoiceRefused(t, own.Do(t, invoiceListQuery, apitest.Vars{"c": c}), http.StatusForbidden, "FORBIDDEN", "")
			invoiceRefused(t, invoiceWithdraw(t, own, c, theirs.ID, "Kapning"), http.StatusForbidden, "FORBIDDEN", "")
			invoiceRefused(t, own.Do(t, `query($c: UUID!) { client(id: $c) { invoices { totalCount } } }`, apitest.Vars{"c": c}),
				http.StatusForbidden, "FORBIDDEN", "")
		}
	})
	t.Run("another client's invoice under the own client does not exist", func(t *testing.T) {
		if got := invoiceRead(t, own, ownID, theirs.ID); got != nil {
			t.Errorf("invoice(own client, their id) = %s, want null", invoiceJSON(got))
		}
		if got := invoiceRead(t, env.Admin(), ownID, theirs.ID); got != nil {
			t.Errorf("ADMIN: invoice(own client, their id) = %s, want null", invoiceJSON(got))
		}
		invoiceRefused(t, invoiceWithdraw(t, own, ownID, theirs.ID, "Kapning"), http.StatusNotFound, "NOT_FOUND", "")
		invoiceRefused(t, invoiceWithdraw(t, env.Admin(), ownID, theirs.ID, nil), http.StatusNotFound, "NOT_FOUND", "")
		for _, vars := range []apitest.Vars{nil, {"filter": apitest.Vars{"searchTerm": "INV"}}, {"filter": apitest.Vars{"clientNumber": 1002}}} {
			p := invoiceList(t, own, ownID, vars)
			for _, n := range p.Nodes {
				if n.ID == theirs.ID {
					t.Errorf("the other client's invoice is listed with %v", vars)
				}
			}
		}
		if p := invoiceList(t, own, ownID, nil); p.TotalCount != 1 || len(p.Nodes) != 1 || p.Nodes[0].ID != mine.ID {
			t.Errorf("the own list is %+v, want only %s", p, mine.ID)
		}
	})
	t.Run("the other client's invoice is unchanged", func(t *testing.T) {
		after := invoiceRead(t, env.Admin(), otherID, theirs.ID)
		if after == nil || !reflect.DeepEqual(*after, *theirsBefore) || after.WithdrawnAt != nil {
			t.Errorf("the other client's invoice changed: %s", invoiceJSON(after))
		}
		if got := invoiceCount(t, env, otherID); got != 1 {
			t.Errorf("the other client has %d invoices, want 1", got)
		}
	})
	t.Run("ADMIN: an unknown client is NOT_FOUND", func(t *testing.T) {
		invoiceRefused(t, invoiceCreate(t, env.Admin(), unknown, invoiceInput("INV-Y")), http.StatusNotFound, "NOT_FOUND", "")
		invoiceRefused(t, env.Admin().Do(t, invoiceReadQuery, apitest.Vars{"c": unknown, "id": mine.ID}), http.StatusNotFound, "NOT_FOUND", "")
		invoiceRefused(t, env.Admin().Do(t, invoiceListQuery, apitest.Vars{"c": unknown}), http.StatusNotFound, "NOT_FOUND", "")
		invoiceRefused(t, invoiceWithdraw(t, env.Admin(), unknown, mine.ID, nil), http.StatusNotFound, "NOT_FOUND", "")
	})
	t.Run("an unknown invoice under the own client is null", func(t *testing.T) {
		if got := invoiceRead(t, own, ownID, unknown); got != nil {
			t.Errorf("got %s, want null", invoiceJSON(got))
		}
	})
	t.Run("the own invoice", func(t *testing.T) {
		if got := invoiceRead(t, own, ownID, mine.ID); got == nil || got.ID != mine.ID || got.Client.ID != ownID {
			t.Errorf("got %s", invoiceJSON(got))
		}
		var out invoiceOut
		invoiceWithdraw(t, own, ownID, mine.ID, nil).Field(t, "withdrawInvoice", &out)
		if out.invoiceStatuses != invoiceWithdrawnStatuses {
			t.Errorf("got %s", invoiceJSON(out))
		}
	})
	t.Run("no key", func(t *testing.T) {
		r := env.As("").Do(t, invoiceListQuery, apitest.Vars{"c": ownID})
		invoiceRefused(t, r, http.StatusUnauthorized, "UNAUTHENTICATED", "")
	})
}

// invoiceDebt writes a debt holding one item with the invoice number, as
// the facts a debt has after creation, payments and withdrawal (debts are
// written directly: this test is about the invoice's side of them).
func invoiceDebt(t *testing.T, env *apitest.Env, clientID, debtorID, number string, amount, paid collection.Money, created time.Time, withdrawn bool) {
	t.Helper()
	ctx := auth.System(context.Background())
	c := env.DB.Ent.Debt.Create().SetClientID(clientID).SetDebtorID(debtorID).
		SetOriginalAmount(amount).SetPaidAmount(paid).SetCreatedAt(created).
		SetChargedAmount(amount).SetDemandSentAt(created)
	if withdrawn {
		c.SetWithdrawnAt(created.Add(time.Hour))
	}
	d, err := c.Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Ent.DebtItem.Create().SetClientID(clientID).SetDebtID(d.ID).SetPosition(0).
		SetInvoiceNumber(number).SetInvoiceDate(created).SetDueDate(created).
		SetAmount(amount).SetPaidAmount(paid).SetCreatedAt(created).Save(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestInvoiceWithDebts: the invoice's side of debts (api.md §6, §8): paid
// amounts, statuses and which withdrawals are refused.
func TestInvoiceWithDebts(t *testing.T) {
	env := apitest.New(t)
	now := invoiceAt("2026-04-15") // after every due date
	env.Clock.Set(now)
	clientID, _ := env.NewClient(t, "Inkasso AB")
	otherID, _ := env.NewClient(t, "Annan AB")
	var debtor struct{ CreateDebtor struct{ ID string } }
	env.Admin().Do(t, `mutation($c: UUID!, $i: DebtorInput!) { createDebtor(clientId: $c, input: $i) { id } }`,
		apitest.Vars{"c": clientID, "i": apitest.Vars{"isCorporation": false, "identificationNumber": "NO-1",
			"name": "Ola Nordmann", "address": apitest.Vars{"address1": "Gate 1", "zipCode": "0150", "city": "Oslo", "countryCode": "NO"}}}).
		OK(t, &debtor)
	debtorID := debtor.CreateDebtor.ID
	create := func(n string) invoiceOut { return invoiceMust(t, env.Admin(), clientID, invoiceInput(n)) }

	held := create("HELD") // an open debt holds it, created 2 days ago
	invoiceDebt(t, env, clientID, debtorID, "HELD", 125000, 25000, now.AddDate(0, 0, -2), false)
	paid := create("PAID") // paid in full through a debt
	invoiceDebt(t, env, clientID, debtorID, "PAID", 125000, 125000, now.AddDate(0, 0, -20), false)
	overpaid := create("OVERPAID") // paid more than owed, in a withdrawn debt
	invoiceDebt(t, env, clientID, debtorID, "OVERPAID", 125000, 130000, now.AddDate(0, 0, -20), true)
	partial := create("PARTIAL") // partly paid in a withdrawn debt: back with the client
	invoiceDebt(t, env, clientID, debtorID, "PARTIAL", 125000, 50000, now.AddDate(0, 0, -20), true)
	elsewhere := create("ELSEWHERE") // the same number in another client's debt does not count
	invoiceDebt(t, env, otherID, debtorID, "ELSEWHERE", 125000, 125000, now.AddDate(0, 0, -20), false)

	for _, tc := range []struct {
		inv             invoiceOut
		paid, remaining string
		want            invoiceStatuses
	}{
		{held, "250.00", "1000.00", invoiceStatuses{"TRANSFERRED_TO_COLLECTION", "SENT_TO_COLLECTION", "PARTIALLY_PAID", "COLLECTION", "DEMAND_SENT", "ACTIVE", true}},
		{paid, "1250.00", "0.00", invoiceStatuses{"PAID", "CLOSED", "PAID", "CLOSED", "PAID_IN_FULL", "INACTIVE", true}},
		{overpaid, "1300.00", "0.00", invoiceStatuses{"PAID", "CLOSED", "OVERPAID", "CLOSED", "PAID_IN_FULL", "INACTIVE", true}},
		{partial, "500.00", "750.00", invoiceStatuses{"OVERDUE", "DUE_DATE_PASSED", "PARTIALLY_PAID", "INVOICING", "OVERDUE", "ACTIVE", false}},
		{elsewhere, "0.00", "1250.00", invoiceStatuses{"OVERDUE", "DUE_DATE_PASSED", "UNPAID", "INVOICING", "OVERDUE", "ACTIVE", false}},
	} {
		got := invoiceRead(t, env.Admin(), clientID, tc.inv.ID)
		if got == nil || got.PaidAmount != tc.paid || got.RemainingAmount != tc.remaining || got.invoiceStatuses != tc.want {
			t.Errorf("%s reads %s, want paid %s, remaining %s, %+v", tc.inv.InvoiceNumber, invoiceJSON(got), tc.paid, tc.remaining, tc.want)
		}
	}
	// The list gives the same amounts and statuses as the lookup.
	for _, n := range invoiceList(t, env.Admin(), clientID, nil).Nodes {
		if got := invoiceRead(t, env.Admin(), clientID, n.ID); got == nil || got.invoiceStatuses != n.invoiceStatuses {
			t.Errorf("%s: the list reads %+v, the lookup %s", n.InvoiceNumber, n.invoiceStatuses, invoiceJSON(got))
		}
	}

	// A paid invoice, or one an unwithdrawn debt holds, cannot be withdrawn.
	for _, inv := range []invoiceOut{held, paid, overpaid} {
		before := invoiceRead(t, env.Admin(), clientID, inv.ID)
		invoiceRefused(t, invoiceWithdraw(t, env.Admin(), clientID, inv.ID, "Nej"), http.StatusConflict, "CONFLICT")
		if after := invoiceRead(t, env.Admin(), clientID, inv.ID); after == nil || !reflect.DeepEqual(*after, *before) {
			t.Errorf("a refused withdrawal changed %s: %s", inv.InvoiceNumber, invoiceJSON(after))
		}
	}
	// A partly paid invoice back from a withdrawn debt can; the payment stays.
	var w invoiceOut
	invoiceWithdraw(t, env.Admin(), clientID, partial.ID, nil).Field(t, "withdrawInvoice", &w)
	if want := (invoiceStatuses{"WITHDRAWN", "CLOSED", "PARTIALLY_PAID", "CLOSED", "WITHDRAWN", "INACTIVE", true}); w.invoiceStatuses != want ||
		w.PaidAmount != "500.00" || w.RemainingAmount != "750.00" {
		t.Errorf("withdrawn partly paid invoice: %s", invoiceJSON(w))
	}
}
