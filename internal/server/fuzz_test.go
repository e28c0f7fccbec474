package server_test

// Fuzz targets for the GraphQL endpoint (issue "Hardening", deliverable 4):
// random request bodies, and random (document, variables) pairs, sent to one
// real server over HTTP. Whatever arrives, the answer is never a 500 (nor an
// INTERNAL error inside a 200), always JSON with data or errors, every error
// has a code, and no answer shows internals (a stack, a Go file).
//
// Each fuzz function starts one server on the suite's database
// (PostgreSQL when it answers, as in CI; one per fuzzing worker process) with a client, a debtor, an invoice and a debt in it; the tokens
// @CLIENT@, @DEBTOR@, @INVOICE@, @DEBT@ and @ITEM@ in an input are replaced
// by their ids, so that seeds reach the resolvers and not only the argument
// checks. See docs/fuzzing.md.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/server"
)

// maxFuzzInput bounds what one input sends, so that every execution is fast
// (the server's own limits are 1 MiB per body and 32 KiB per document).
const maxFuzzInput = 64 << 10

// fuzzServer is the server of one fuzz function.
type fuzzServer struct {
	url    string
	client *http.Client
	ids    *strings.Replacer
	log    *serverLog
}

// serverLog is the testing.TB the server is started with: apitest sends the
// server's warnings and errors to its Log, which on a *testing.F may not be
// called while the fuzz target runs. It keeps the latest lines instead, to
// show with a failure.
type serverLog struct {
	testing.TB
	mu    sync.Mutex
	lines []string
	total int // lines logged since the start
}

func (l *serverLog) Log(args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprint(args...))
	l.total++
	if len(l.lines) > 20 {
		l.lines = l.lines[len(l.lines)-20:]
	}
}

// mark returns the number of lines logged so far, for since.
func (l *serverLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// since returns the (latest 20) lines logged after mark.
func (l *serverLog) since(mark int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := min(l.total-mark, len(l.lines))
	return strings.Join(l.lines[len(l.lines)-n:], "\n")
}

// startFuzzServer starts the server and the records the placeholders name.
func startFuzzServer(f *testing.F) *fuzzServer {
	f.Helper()
	log := &serverLog{TB: f}
	env := apitest.New(log)
	admin := env.Admin()
	clientID, _ := env.NewClient(f, "Fuzz AB")

	var debtor struct{ CreateDebtor struct{ ID string } }
	admin.Do(f, `mutation($c: UUID!, $in: DebtorInput!) { createDebtor(clientId: $c, input: $in) { id } }`, apitest.Vars{
		"c": clientID, "in": apitest.Vars{"isCorporation": false, "identificationNumber": apitest.Personnr, "name": "Sven Svensson",
			"address": apitest.Vars{"address1": "Vägen 2", "zipCode": "123 45", "city": "Malmö", "countryCode": "SE"}},
	}).OK(f, &debtor)

	var invoice struct{ CreateInvoice struct{ ID string } }
	admin.Do(f, `mutation($c: UUID!, $in: InvoiceInput!) { createInvoice(clientId: $c, input: $in) { id } }`, apitest.Vars{
		"c": clientID, "in": json.RawMessage(invoiceInputJSON("F-SETUP-1")),
	}).OK(f, &invoice)

	var debt struct {
		CreateDebt struct {
			ID       int
			Invoices []struct{ ID int }
		}
	}
	admin.Do(f, `mutation($c: UUID!, $in: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $in) { id invoices { id } } }`, apitest.Vars{
		"c": clientID, "in": json.RawMessage(debtInputJSON("D-SETUP-1")),
	}).OK(f, &debt)

	return &fuzzServer{
		url:    env.URL + "/graphql",
		client: &http.Client{Timeout: 30 * time.Second},
		ids: strings.NewReplacer(
			"@CLIENT@", clientID,
			"@DEBTOR@", debtor.CreateDebtor.ID,
			"@INVOICE@", invoice.CreateInvoice.ID,
			"@DEBT@", strconv.Itoa(debt.CreateDebt.ID),
			"@ITEM@", strconv.Itoa(debt.CreateDebt.Invoices[0].ID),
		),
		log: log,
	}
}

// send sends one request with the ADMIN key and checks the answer.
func (s *fuzzServer) send(t *testing.T, method string, body []byte, rawQuery string, echo []byte) {
	t.Helper()
	u := s.url
	if rawQuery != "" {
		u += "?" + rawQuery
	}
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+apitest.AdminKey)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	mark := s.log.mark()
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the response: %v", method, err)
	}
	s.checkAnswer(t, method, echo, resp.StatusCode, out, s.log.since(mark))
}

// checkAnswer asserts what every answer of /graphql must be.
func (s *fuzzServer) checkAnswer(t *testing.T, method string, req []byte, status int, body []byte, log string) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s %q\n→ %d %s\n%s\nserver log:\n%s", method, truncate(req), status, truncate(body), fmt.Sprintf(format, args...), log)
	}
	if status == http.StatusInternalServerError || status < 200 || status >= 600 {
		fail("HTTP status %d", status)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		fail("the body is not a JSON object: %v", err)
	}
	_, hasData := top["data"]
	var errs []struct {
		Message    *string        `json:"message"`
		Extensions map[string]any `json:"extensions"`
	}
	if raw, ok := top["errors"]; ok {
		if err := json.Unmarshal(raw, &errs); err != nil {
			fail("errors is not a list of errors: %v", err)
		}
		if len(errs) == 0 {
			fail("errors is empty")
		}
	}
	if !hasData && len(errs) == 0 {
		fail("neither data nor errors")
	}
	for _, e := range errs {
		code, _ := e.Extensions["code"].(string)
		if code == "" {
			fail("an error without extensions.code")
		}
		if code == "INTERNAL" {
			fail("an INTERNAL error")
		}
		if e.Message == nil || *e.Message == "" {
			fail("an error without a message")
		}
	}
	if max := server.DefaultLimits.MaxResponseBytes; len(body) > max+64<<10 {
		fail("an answer of %d bytes, beyond the response limit of %d", len(body), max)
	}
	if status != http.StatusOK && hasData {
		fail("a refusal (HTTP %d) with a data entry", status)
	}
	if leak := leaksInternals(body, req); leak != "" {
		fail("the answer shows internals: %q", leak)
	}
}

// stackShape is what a Go stack trace or a source position looks like.
var stackShape = regexp.MustCompile(`goroutine \d+ \[|[A-Za-z0-9_]\.go:\d+`)

// leaksInternals returns the internal detail the answer shows: "goroutine"
// or ".go:" that the request did not itself send (an error message may echo
// the caller's input). Where the request has escapes that could spell the
// words, only a real stack or source position counts.
func leaksInternals(answer, request []byte) string {
	lower := bytes.ToLower(request)
	for _, word := range []string{"goroutine", ".go:"} {
		if !bytes.Contains(answer, []byte(word)) || bytes.Contains(lower, []byte(word)) {
			continue
		}
		if bytes.ContainsRune(request, '\\') {
			if m := stackShape.Find(answer); m != nil {
				return string(m)
			}
			continue
		}
		return word
	}
	return ""
}

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// FuzzGraphQLBody posts arbitrary bytes as the body of a GraphQL request.
func FuzzGraphQLBody(f *testing.F) {
	for _, seed := range graphqlBodySeeds() {
		f.Add([]byte(seed))
	}
	s := startFuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > maxFuzzInput {
			t.Skip("larger than the fuzz input limit")
		}
		body = []byte(s.ids.Replace(string(body)))
		s.send(t, http.MethodPost, body, "", body)
	})
}

// FuzzGraphQLRequest sends an arbitrary document with arbitrary variables:
// as a POST (variables as given when they are JSON, else as a JSON string)
// and as a GET query string.
func FuzzGraphQLRequest(f *testing.F) {
	for _, seed := range graphqlRequestSeeds() {
		f.Add(seed[0], seed[1])
	}
	s := startFuzzServer(f)
	f.Fuzz(func(t *testing.T, query, variables string) {
		if len(query)+len(variables) > maxFuzzInput {
			t.Skip("larger than the fuzz input limit")
		}
		query, variables = s.ids.Replace(query), s.ids.Replace(variables)
		q, _ := json.Marshal(query)
		vars := []byte(variables)
		if !json.Valid(vars) {
			vars, _ = json.Marshal(variables)
		}
		body := []byte(`{"query":` + string(q) + `,"variables":` + string(vars) + `}`)
		echo := []byte(query + "\x00" + variables)
		s.send(t, http.MethodPost, body, "", echo)
		form := url.Values{"query": {query}}
		if variables != "" {
			form.Set("variables", variables)
		}
		s.send(t, http.MethodGet, nil, form.Encode(), echo)
	})
}

// clientInputJSON is a valid ClientInput.
const clientInputJSON = `{"name":"Acme AB","organizationNumber":"556036-0793","adress1":"Storgatan 1","address2":"Box 12",` +
	`"zipCode":"111 22","city":"Stockholm","countryCode":"SE","bankNumber":"5050-1055","email":"faktura@acme.se",` +
	`"contactName":"Anna Andersson","contactEmail":"anna@acme.se","contactPhone":"+46 8 123 456"}`

// debtorInputJSON is a valid DebtorInput.
const debtorInputJSON = `{"isCorporation":false,"identificationNumber":"811228-9874","name":"Sven Svensson",` +
	`"address":{"address1":"Vägen 2","zipCode":"123 45","city":"Malmö","countryCode":"SE"},"contactInformation":{"email":"sven@example.se"}}`

// invoiceInputJSON is a valid InvoiceInput with the invoice number.
func invoiceInputJSON(number string) string {
	return `{"invoiceNumber":"` + number + `","invoiceDate":"2026-09-01","daysUntilExpiration":30,"dueDate":"2026-10-01",` +
		`"totalExcludingVAT":"1000.00","totalVATAmount":"250.00","totalAmountIncludingVAT":"1250.00","interestRate":"8.5",` +
		`"articles":[{"name":"Konsulttimmar","priceExcludingVAT":500,"totalVATAmount":250,"totalAmountIncludingVAT":1250,` +
		`"totalAmountExcludingVAT":1000,"quantity":2,"vatPercentage":25,"discount":0}]}`
}

// debtInputJSON is a valid DebtorWithDebtsInput with one item of the
// invoice number.
func debtInputJSON(number string) string {
	return `{"isCorporation":false,"identificationNumber":"8112289874","name":"Sven Svensson",` +
		`"address":{"address1":"Vägen 2","zipCode":"123 45","city":"Malmö","countryCode":"SE"},"email":"sven@example.se",` +
		`"debts":[{"invoiceNumber":"` + number + `","invoiceDate":"2026-09-01T00:00:00+02:00","dueDate":"2026-10-01T00:00:00+02:00",` +
		`"amount":"1250.00","payments":[{"amount":"250.00","transactionDate":"2026-09-20T10:00:00+02:00"}]}]}`
}

// The documents of the seeds.
const (
	createClientDoc   = `mutation CreateClient($input: ClientInput!) { createClient(input: $input) { id clientNumber name countryCode createdAt } }`
	createDebtorDoc   = `mutation($clientId: UUID!, $input: DebtorInput!) { createDebtor(clientId: $clientId, input: $input) { id name identificationNumber address { city countryCode } isCompleted } }`
	createInvoiceDoc  = `mutation($clientId: UUID!, $input: InvoiceInput!) { createInvoice(clientId: $clientId, input: $input) { id invoiceNumber totalAmountIncludingVAT status processStatus paymentStatus articles { name quantity } } }`
	createDebtDoc     = `mutation($clientId: UUID!, $input: DebtorWithDebtsInput!) { createDebt(clientId: $clientId, input: $input) { id originalAmount paidAmount remainingAmount paymentStatus mainStatus underStatus debtor { id name } invoices { id invoiceNumber amount paidAmount invoice { id status } } } }`
	addDebtPaymentDoc = `mutation($clientId: UUID!, $input: DebtPaymentInput!) { addDebtPayment(clientId: $clientId, input: $input) { id amount transactionDate source debt { paidAmount remainingAmount paymentStatus } } }`
	listsDoc          = `query($clientId: UUID!, $after: String, $term: String) {
  debts(clientId: $clientId, filter: {activeStatus: ACTIVE, searchTerm: $term}, first: 10, after: $after) { totalCount nodes { id originalAmount debtor { name } invoices { invoiceNumber } } pageInfo { hasNextPage endCursor } }
  invoices(clientId: $clientId, orderBy: {field: TOTAL_AMOUNT, direction: DESC}, page: 1, rowsPerPage: 5) { totalCount nodes { id invoiceNumber remainingAmount debt { id } } }
  debtors(clientId: $clientId, filter: {searchType: IDENTIFICATION_NUMBER, searchTerm: "811228 9874"}) { nodes { name errandStatus paymentStatus debts { totalCount } } }
}`
)

// graphqlRequestSeeds are (document, variables) pairs, valid and not.
func graphqlRequestSeeds() [][2]string {
	vars := func(pairs ...string) string {
		parts := make([]string, 0, len(pairs)/2)
		for i := 0; i+1 < len(pairs); i += 2 {
			parts = append(parts, strconv.Quote(pairs[i])+":"+pairs[i+1])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	deep := strings.Repeat("{ debtor { debts { nodes ", 8) + "{ id }" + strings.Repeat(" } } }", 8)
	return [][2]string{
		{`{ viewer { role apiKey { id name role createdAt } } }`, ``},
		{`query($s: String) { clients(search: $s, first: 3) { totalCount nodes { id clientNumber name } pageInfo { endCursor } } }`, `{"s":"acme"}`},
		{createClientDoc, vars("input", clientInputJSON)},
		{createClientDoc, vars("input", strings.Replace(clientInputJSON, `"SE"`, `123`, 1))},
		{createClientDoc, vars("input", strings.Replace(clientInputJSON, `"556036-0793"`, `"556036-0792"`, 1))},
		{createClientDoc, vars("input", `null`)},
		{createDebtorDoc, vars("clientId", `"@CLIENT@"`, "input", debtorInputJSON)},
		{createDebtorDoc, vars("clientId", `"00000000-0000-0000-0000-000000000000"`, "input", debtorInputJSON)},
		{createInvoiceDoc, vars("clientId", `"@CLIENT@"`, "input", invoiceInputJSON("F-2026-0042"))},
		{createInvoiceDoc, vars("clientId", `"@CLIENT@"`, "input", strings.Replace(invoiceInputJSON("F-X"), `"1250.00"`, `1e400`, 1))},
		{createDebtDoc, vars("clientId", `"@CLIENT@"`, "input", debtInputJSON("F-2026-0042"))},
		{createDebtDoc, vars("clientId", `"@CLIENT@"`, "input", strings.Replace(debtInputJSON("F-EDGE"), `"2026-09-01T00:00:00+02:00"`, `"9999-12-31T23:00:00-05:00"`, 1))},
		{createDebtDoc, vars("clientId", `"@CLIENT@"`, "input", strings.Replace(debtInputJSON("F-EDGE2"), `"2026-09-01T00:00:00+02:00"`, `"0000-01-01T00:30:00+01:00"`, 1))},
		{createDebtDoc, vars("clientId", `"@CLIENT@"`, "input", strings.ReplaceAll(strings.Replace(debtInputJSON("F-EDGE3"), `"2026-09-01T00:00:00+02:00"`, `"9999-12-31T23:00:00-05:00"`, 1), `"2026-10-01T00:00:00+02:00"`, `"9999-12-31T23:30:00-05:00"`))},
		{addDebtPaymentDoc, vars("clientId", `"@CLIENT@"`, "input", `{"debtId":@DEBT@,"invoiceId":@ITEM@,"amount":300,"transactionDate":"2026-11-02"}`)},
		{addDebtPaymentDoc, vars("clientId", `"@CLIENT@"`, "input", `{"debtId":99999999999999999999,"invoiceId":-1,"amount":1e30,"transactionDate":"9999-12-31"}`)},
		{addDebtPaymentDoc, vars("clientId", `"@CLIENT@"`, "input", `{"debtId":"@DEBT@","invoiceId":1.5,"amount":"0.001","transactionDate":"2026-02-30"}`)},
		{listsDoc, vars("clientId", `"@CLIENT@"`, "after", `"not-a-cursor"`, "term", `"%_\\"`)},
		{listsDoc, vars("clientId", `"@CLIENT@"`, "after", `"gqFp0wAAAAAAAAAB"`, "term", `"' OR 1=1 --"`)},
		{`query { debt(clientId: "@CLIENT@", id: @DEBT@) ` + deep + ` }`, ``},
		{`query { debt(clientId: "@CLIENT@", id: 99999999999) { id } invoice(clientId: "@CLIENT@", id: "@INVOICE@") { id status } debtor(clientId: "@CLIENT@", id: "@DEBTOR@") { id } }`, ``},
		{`mutation { withdrawDebt(clientId: "@CLIENT@", input: {id: @DEBT@, clientId: "@CLIENT@", comment: "🦀 \u202e"}) { id mainStatus } }`, ``},
		{`mutation { withdrawInvoice(clientId: "@CLIENT@", id: "@INVOICE@", comment: "x") { id status } }`, ``},
		{`fragment A on Query { ...B } fragment B on Query { ...A } { ...A }`, `{}`},
		{`{ __schema { types { name fields { name type { name ofType { name } } } } } }`, `[]`},
		{`query A { viewer { role } } query B { clients { totalCount } }`, `"not an object"`},
		{`{ a1: clients { totalCount } a2: clients { totalCount } a3: clients { totalCount } a4: viewer { role } a5: viewer { role } a6: viewer { role } a7: viewer { role } a8: viewer { role } a9: viewer { role } a10: viewer { role } a11: viewer { role } a12: viewer { role } a13: viewer { role } a14: viewer { role } a15: viewer { role } a16: viewer { role } a17: viewer { role } a18: viewer { role } a19: viewer { role } a20: viewer { role } a21: viewer { role } }`, ``},
		// The review of round two: a NUL, control characters and
		// noncharacters in every kind of string; money at and beyond its
		// ceiling; dates before 1900; unpaged lists nested a million deep;
		// the schema repeated through aliases and fragments.
		{listsDoc, vars("clientId", `"@CLIENT@"`, "after", `null`, "term", `"a\u0000b"`)},
		{listsDoc, vars("clientId", `"@CLIENT@"`, "after", `null`, "term", `"\uffff\u0085\t"`)},
		{createDebtorDoc, vars("clientId", `"@CLIENT@"`, "input", strings.Replace(debtorInputJSON, `Sven Svensson`, `Sven\u0000Svensson`, 1))},
		{createDebtDoc, vars("clientId", `"@CLIENT@"`, "input", strings.Replace(debtInputJSON("F-\u0000"), `"amount":"1250.00"`, `"amount":"1250.00","description":"a\u0001\ufdd0\n"`, 1))},
		{createDebtDoc, vars("clientId", `"@CLIENT@"`, "input", maxAmountDebtJSON(500))},
		{createDebtDoc, vars("clientId", `"@CLIENT@"`, "input", strings.Replace(debtInputJSON("F-OLD"), `"2026-09-20T10:00:00+02:00"`, `"0001-01-01T00:00:00Z"`, 1))},
		{addDebtPaymentDoc, vars("clientId", `"@CLIENT@"`, "input", `{"debtId":@DEBT@,"invoiceId":@ITEM@,"amount":"999999999999999.99","transactionDate":"2026-11-02"}`)},
		{addDebtPaymentDoc, vars("clientId", `"@CLIENT@"`, "input", `{"debtId":@DEBT@,"invoiceId":@ITEM@,"amount":1,"transactionDate":"0001-01-01"}`)},
		{`{ debt(clientId: "@CLIENT@", id: @DEBT@) { payments { debt { payments { debt { payments { debt { id } } } } } } } }`, ``},
		{introspectionAmplification(), ``},
		{`{ viewer { role }`, `{"x":`},
		{``, `{}`},
		{"\x00\xff\xfe{", "\xff"},
	}
}

// maxAmountDebtJSON is a DebtorWithDebtsInput of n items of the largest
// amount an item may hold.
func maxAmountDebtJSON(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"invoiceNumber":"M%d","invoiceDate":"2026-09-01T00:00:00Z","dueDate":"2026-10-01T00:00:00Z","amount":"999999999999999.99"}`, i)
	}
	return `{"isCorporation":false,"identificationNumber":"8112289874","name":"Sven Svensson",` +
		`"address":{"address1":"Vägen 2","zipCode":"123 45","city":"Malmö","countryCode":"SE"},"debts":[` + strings.Join(items, ",") + `]}`
}

// introspectionAmplification asks for the schema ten times over through
// aliases, each time with ten aliased copies of every type's fields.
func introspectionAmplification() string {
	var b strings.Builder
	b.WriteString("fragment F on __Type { name ")
	for i := range 10 {
		fmt.Fprintf(&b, "f%d: fields { name args { name type { name } } type { name kind } } ", i)
	}
	b.WriteString("}\n{ ")
	for i := range 10 {
		fmt.Fprintf(&b, "s%d: __schema { types { ...F } } ", i)
	}
	b.WriteString("}")
	return b.String()
}

// graphqlBodySeeds are whole request bodies, valid and not.
func graphqlBodySeeds() []string {
	body := func(doc, variables string) string {
		q, _ := json.Marshal(doc)
		if variables == "" {
			return `{"query":` + string(q) + `}`
		}
		return `{"query":` + string(q) + `,"variables":` + variables + `}`
	}
	var seeds []string
	for _, p := range graphqlRequestSeeds() {
		if json.Valid([]byte(p[1])) || p[1] == "" {
			seeds = append(seeds, body(p[0], p[1]))
		}
	}
	return append(seeds,
		`[{"query":"{ viewer { role } }"},{"query":"{ clients { totalCount } }"}]`,
		` [ ]`,
		`{"query": `,
		`{"query":"{ viewer { role } }"} {"query":"{ viewer { role } }"}`,
		`{"query":"{ viewer { role } }"}garbage`,
		`null`, `"{ viewer { role } }"`, `12345678901234567890`, `{}`, `{"query":null}`, `{"query":5}`, `{"query":["{ viewer { role } }"]}`,
		`{"query":"{ viewer { role } }","variables":[]}`,
		`{"query":"{ viewer { role } }","variables":"x"}`,
		`{"query":"{ viewer { role } }","operationName":"Nope"}`,
		`{"query":"{ viewer { role } }","operationName":5}`,
		`{"query":"{ viewer { role } }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"abc"}}}`,
		`{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"0000000000000000000000000000000000000000000000000000000000000000"}}}`,
		`{"extensions":{"persistedQuery":null}}`,
		`{"query":"query($n: Int!) { debt(clientId: \"@CLIENT@\", id: $n) { id } }","variables":{"n":1e400}}`,
		`{"query":"query($n: Int!) { debt(clientId: \"@CLIENT@\", id: $n) { id } }","variables":{"n":-0.0}}`,
		`{"query":"{ viewer { role } }","variables":`+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+`}`,
		`{"query":"`+strings.Repeat("{ ", 3000)+`"}`,
		`{"query":"\ud800 { viewer { role } }"}`,
		`{"query":"{ clients(search: \"\u0000\") { totalCount } }"}`,
		`{"query":"{ viewer { role } }","query":"mutation { createClient(input: {}) { id } }"}`,
		"\xef\xbb\xbf{\"query\":\"{ viewer { role } }\"}",
	)
}
