package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// probeRun: adversarial requests against the server's limits, one request
// per fresh server process, each measured by the process's peak resident
// memory (VmHWM). The data they need is created once through the API
// before them.
type probeRun struct {
	*common
	introspection string  // file with the full introspection query
	maxPeakMiB    float64 // a peak above this fails the run
	debtsB        int     // debts of 1,000 items for the second client
	items         int     // items per debt
	workers       int     // concurrent createDebt calls while setting up
	repeat        int     // runs of each probe, each on a fresh process

	tag            string
	clientA        string // owns the debt of 1,000 items with one payment each
	clientB        string // owns debtsB debts of 1,000 items
	keyA, keyB     string // CLIENT keys of clientA and clientB
	debtA          int    // the 1,000-item debt of A
	introspectText string
}

// couldNotRun is an error that kept the run from measuring anything: the
// driver then exits 2, not 1.
type couldNotRun struct{ error }

// maxProbeBody is the largest request body a probe may send.
const maxProbeBody = 32 << 10

// probeTimeout is each request's client timeout.
const probeTimeout = 30 * time.Second

// probe is one adversarial request.
type probe struct {
	name string
	who  string // "CLIENT A", "CLIENT B" or "ADMIN"
	key  string
	body []byte
	// The answers the brief expects, as "<status> <code>" ("200" for no
	// error); none when it only asks what happens. Shown, and a mismatch
	// noted, never failed.
	expect []string
}

func (pr probe) expected() string {
	if len(pr.expect) == 0 {
		return "(report)"
	}
	return strings.Join(pr.expect, " or ")
}

// probeResult is what one probe got.
type probeResult struct {
	probe
	status           int
	code             string
	message          string // the first error's message
	bytes            int
	elapsed          time.Duration
	idleKiB, peakKiB int64
	err              error // no answer
	died             bool  // the server was gone after the request
}

// asExpected reports whether the answer is one the brief expects.
func (r probeResult) asExpected() bool {
	if len(r.expect) == 0 {
		return true
	}
	got := strings.TrimSpace(strconv.Itoa(r.status) + " " + r.code)
	for _, e := range r.expect {
		if e == got {
			return true
		}
	}
	return false
}

func (p *probeRun) run(ctx context.Context) error {
	b, err := os.ReadFile(p.introspection)
	if err != nil {
		return couldNotRun{fmt.Errorf("reading the introspection query: %w", err)}
	}
	p.introspectText = string(b)
	if p.repeat < 1 || p.items < 1 || p.debtsB < 1 || p.workers < 1 {
		return couldNotRun{errors.New("--repeat, --items, --debts and --workers must be at least 1")}
	}
	p.tag = fmt.Sprintf("P%d", time.Now().Unix())
	t0 := time.Now()
	if err := p.setup(ctx); err != nil {
		return couldNotRun{fmt.Errorf("setting up the data: %w", err)}
	}
	fmt.Printf("set-up done in %s: client A %s (debt %d: %d items, one payment each), client B %s (%d debts of %d items, debtors of their own)\n",
		time.Since(t0).Round(time.Millisecond), p.clientA, p.debtA, p.items, p.clientB, p.debtsB, p.items)

	probes, err := p.probes()
	if err != nil {
		return couldNotRun{err}
	}
	var results [][]probeResult
	for _, pr := range probes {
		var runs []probeResult
		for i := range p.repeat {
			if err := ctx.Err(); err != nil {
				return couldNotRun{fmt.Errorf("time limit reached before every probe ran: %w", err)}
			}
			r, err := p.measure(ctx, pr)
			if err != nil {
				return couldNotRun{fmt.Errorf("probe %q: %w", pr.name, err)}
			}
			fmt.Printf("  %-34s run %d: %s\n", pr.name, i+1, r.short())
			runs = append(runs, r)
		}
		results = append(results, runs)
	}
	return p.report(results)
}

// setup creates, as ADMIN, the two clients, a CLIENT key for each, client
// A's debt of 1,000 items with a payment before hand-over on each item,
// and client B's debts of 1,000 items, each with a debtor of its own.
func (p *probeRun) setup(ctx context.Context) error {
	srv := &serverProc{c: p.common}
	defer srv.stop()
	if err := srv.start(ctx); err != nil {
		return err
	}
	cl := newClient(p.addr)
	var err error
	if p.clientA, err = cl.newTestClient(ctx, "Probe A "+p.tag); err != nil {
		return err
	}
	if p.clientB, err = cl.newTestClient(ctx, "Probe B "+p.tag); err != nil {
		return err
	}
	if p.keyA, err = createClientKey(ctx, cl, p.clientA, "probe A "+p.tag); err != nil {
		return err
	}
	if p.keyB, err = createClientKey(ctx, cl, p.clientB, "probe B "+p.tag); err != nil {
		return err
	}
	if p.debtA, err = p.createBigDebt(ctx, cl, p.clientA, 0, true); err != nil {
		return err
	}
	// Client B's debts, in batches of ten, each batch by p.workers callers
	// at once and followed by ANALYZE: before autovacuum first analyzes
	// the growing tables, each createDebt takes longer (about 1.5 s, and
	// over 10 s with four callers, by the time the client has 80,000
	// items), which has nothing to do with the probes.
	db, err := sql.Open("pgx", p.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	analyze := func() error {
		_, err := db.ExecContext(ctx, "ANALYZE debtors, debts, debt_invoices, payments")
		return err
	}
	if err := analyze(); err != nil {
		return fmt.Errorf("ANALYZE: %w", err)
	}
	start := time.Now()
	for from := 0; from < p.debtsB; from += 10 {
		to := min(from+10, p.debtsB)
		next := make(chan int, to-from)
		for n := from; n < to; n++ {
			next <- n + 1
		}
		close(next)
		errs := make(chan error, p.workers)
		for range p.workers {
			go func() {
				var first error
				for n := range next {
					if first == nil {
						_, first = p.createBigDebt(ctx, cl, p.clientB, n, false)
					}
				}
				errs <- first
			}()
		}
		for range p.workers {
			if e := <-errs; e != nil && err == nil {
				err = e
			}
		}
		if err != nil {
			return err
		}
		if err := analyze(); err != nil {
			return fmt.Errorf("ANALYZE: %w", err)
		}
		if to%25 == 0 || to == p.debtsB {
			fmt.Printf("  client B: %d of %d debts created (%s)\n", to, p.debtsB, time.Since(start).Round(time.Millisecond))
		}
	}
	return nil
}

const createAPIKeyMutation = `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret } }`

func createClientKey(ctx context.Context, cl *client, clientID, name string) (string, error) {
	a := cl.graphql(ctx, createAPIKeyMutation, map[string]any{"in": map[string]any{"name": name, "role": "CLIENT", "clientId": clientID}}, "")
	if !a.ok() {
		return "", fmt.Errorf("createApiKey: %s", a)
	}
	var out struct {
		CreateAPIKey struct{ Secret string } `json:"createApiKey"`
	}
	if err := json.Unmarshal(a.data, &out); err != nil || out.CreateAPIKey.Secret == "" {
		return "", fmt.Errorf("createApiKey: unreadable answer %s", a.data)
	}
	return out.CreateAPIKey.Secret, nil
}

const createDebtIDMutation = `mutation($c: UUID!, $in: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $in) { id invoices { id } payments { id } } }`

// createBigDebt creates a debt of p.items items of 10.00 for debtor n
// (personnummer(n)), each item with one payment of 1.00 before hand-over
// when withPayments.
func (p *probeRun) createBigDebt(ctx context.Context, cl *client, clientID string, n int, withPayments bool) (int, error) {
	items := make([]any, p.items)
	for i := range items {
		it := map[string]any{
			"invoiceNumber": fmt.Sprintf("%s-%d-%04d", p.tag, n, i+1),
			"invoiceDate":   "2026-09-01T10:00:00+02:00", "dueDate": "2026-10-01T10:00:00+02:00",
			"amount": "10.00",
		}
		if withPayments {
			it["payments"] = []any{map[string]any{"amount": "1.00", "transactionDate": "2026-09-10T10:00:00+02:00"}}
		}
		items[i] = it
	}
	in := map[string]any{
		"isCorporation": false, "identificationNumber": personnummer(n), "name": fmt.Sprintf("Probe Debtor %d", n),
		"address": map[string]any{"address1": "Vägen 2", "zipCode": "123 45", "city": "Malmö", "countryCode": "SE"},
		"debts":   items,
	}
	// Sent with an Idempotency-Key, and resent with it while the answer
	// is not the call's own (no answer, 503): never twice in the database.
	vars := map[string]any{"c": clientID, "in": in}
	key := fmt.Sprintf("%s-%s-%d", p.tag, clientID, n)
	a := cl.graphql(ctx, createDebtIDMutation, vars, key)
	for try := 1; try < 5 && a.retryable() && ctx.Err() == nil; try++ {
		fmt.Printf("  createDebt for debtor %d: %s; resent\n", n, a)
		time.Sleep(time.Duration(try) * time.Second)
		a = cl.graphql(ctx, createDebtIDMutation, vars, key)
	}
	if !a.ok() {
		return 0, fmt.Errorf("createDebt for debtor %d: %s", n, a)
	}
	var out struct {
		CreateDebt struct {
			ID       int
			Invoices []struct{ ID int }
			Payments []struct{ ID int }
		} `json:"createDebt"`
	}
	if err := json.Unmarshal(a.data, &out); err != nil {
		return 0, fmt.Errorf("createDebt for debtor %d: unreadable answer: %w", n, err)
	}
	wantPayments := 0
	if withPayments {
		wantPayments = p.items
	}
	if len(out.CreateDebt.Invoices) != p.items || len(out.CreateDebt.Payments) != wantPayments {
		return 0, fmt.Errorf("createDebt for debtor %d: %d items and %d payments, want %d and %d",
			n, len(out.CreateDebt.Invoices), len(out.CreateDebt.Payments), p.items, wantPayments)
	}
	return out.CreateDebt.ID, nil
}

// probes builds the requests, each body at most maxProbeBody bytes.
func (p *probeRun) probes() ([]probe, error) {
	var list []probe
	add := func(name, who string, expect []string, query string, vars map[string]any) {
		key := map[string]string{"CLIENT A": p.keyA, "CLIENT B": p.keyB, "ADMIN": adminKey}[who]
		body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		list = append(list, probe{name: name, who: who, key: key, body: body, expect: expect})
	}
	a := map[string]any{"c": p.clientA, "id": p.debtA}
	bVars := map[string]any{"c": p.clientB}

	// 1. Unpaged lists nested through a back reference: 1,000 payments,
	// each back to the debt and its 1,000 payments.
	add("1 unpaged nesting", "CLIENT A", []string{"400 RESPONSE_TOO_LARGE"},
		`query($c: UUID!, $id: Int!) { debt(clientId: $c, id: $id) { payments { debt { payments { debt { id } } } } } }`, a)

	// 2. Introspection amplified by aliases: every type's fields ten times,
	// under ten aliases of __schema.
	var frag, root strings.Builder
	frag.WriteString("fragment F on __Type {\n  name\n")
	root.WriteString("query {\n")
	for i := range 10 {
		fmt.Fprintf(&frag, "  f%d: fields(includeDeprecated: true) { name args { name type { name } } type { name kind } }\n", i)
		fmt.Fprintf(&root, "  s%d: __schema { types { ...F } }\n", i)
	}
	frag.WriteString("}\n")
	root.WriteString("}\n")
	add("2 introspection amplification", "CLIENT A", []string{"400 QUERY_TOO_COMPLEX"}, root.String()+frag.String(), nil)

	// 3. The full introspection query of GraphiQL and other tools.
	add("3 full introspection", "ADMIN", []string{"200"}, p.introspectText, nil)

	// 4. The largest page: 100 debts of 1,000 items.
	add("4 largest page", "CLIENT B", []string{"400 RESPONSE_TOO_LARGE", "200"},
		`query($c: UUID!) { debts(clientId: $c, first: 100) { nodes { id originalAmount invoices { id invoiceNumber amount paidAmount dueDate } } } }`, bVars)

	// 5. The largest nested pages allowed: 100 debtors, each with a page of
	// 100 debts and their items.
	add("5 largest nested pages", "CLIENT B", nil,
		`query($c: UUID!) { debtors(clientId: $c, first: 100) { nodes { id name debts(first: 100) { nodes { id invoices { id amount } } } } } }`, bVars)

	// 6. Money that wraps an int64 when summed: 500 items of the largest
	// amount allowed. Items are literals with their dates and amount in
	// variables, to stay within 32 KB.
	var doc strings.Builder
	doc.WriteString(`mutation($c: UUID!, $d: DateTime!, $a: Decimal!) { createDebt(clientId: $c, input: {isCorporation: false, identificationNumber: "` +
		personnummer(900) + `", name: "Wrap", address: {address1: "Vägen 2", zipCode: "123 45", city: "Malmö", countryCode: "SE"}, debts: [`)
	for i := range 500 {
		fmt.Fprintf(&doc, `{invoiceNumber:"%d",invoiceDate:$d,dueDate:$d,amount:$a}`, i+1)
	}
	doc.WriteString(`]}) { id originalAmount } }`)
	add("6 money wrap", "CLIENT A", []string{"400 BAD_USER_INPUT"}, doc.String(),
		map[string]any{"c": p.clientA, "d": "2026-09-01T10:00:00+02:00", "a": "999999999999999.99"})

	// 7. A NUL in a search term: as a GraphQL escape in the document, and
	// as a JSON escape in a variable.
	add("7a NUL in a search term (literal)", "CLIENT A", []string{"400 BAD_USER_INPUT"},
		`query($c: UUID!) { debts(clientId: $c, filter: {searchTerm: "a\u0000b"}) { nodes { id } } }`, map[string]any{"c": p.clientA})
	add("7b NUL in a search term (variable)", "CLIENT A", []string{"400 BAD_USER_INPUT"},
		`query($c: UUID!, $t: String) { debts(clientId: $c, filter: {searchTerm: $t}) { nodes { id } } }`, map[string]any{"c": p.clientA, "t": "a\x00b"})

	// 8. As many aliased root fields as 32 KB hold, then the 20 allowed.
	wide := func(n int, sel string) string {
		var s strings.Builder
		s.WriteString("query($c:UUID!,$id:Int!){")
		for i := range n {
			fmt.Fprintf(&s, "a%d:debt(clientId:$c,id:$id){%s}", i, sel)
		}
		s.WriteString("}")
		return s.String()
	}
	n := 1
	for {
		body, _ := json.Marshal(map[string]any{"query": wide(n+1, "id invoices{id}"), "variables": a})
		if len(body) > maxProbeBody {
			break
		}
		n++
	}
	add(fmt.Sprintf("8a %d aliases in 32 KB", n), "CLIENT A", []string{"400 TOO_MANY_ROOT_FIELDS"}, wide(n, "id invoices{id}"), a)
	// 5,003 fields each: 19 fit the budget of 100,000, 20 do not.
	add("8b 19 aliases of the big debt", "CLIENT A", []string{"200"},
		wide(19, "invoices{id amount invoiceNumber} payments{id amount}"), a)
	add("8c 20 aliases of the big debt", "CLIENT A", []string{"400 RESPONSE_TOO_LARGE"},
		wide(20, "invoices{id amount invoiceNumber} payments{id amount}"), a)

	for _, pr := range list {
		if len(pr.body) > maxProbeBody {
			return nil, fmt.Errorf("probe %q: its body is %d bytes, more than %d", pr.name, len(pr.body), maxProbeBody)
		}
		if pr.key == "" {
			return nil, fmt.Errorf("probe %q: no key for %s", pr.name, pr.who)
		}
	}
	return list, nil
}

// measure starts a fresh server, reads its VmHWM once it is ready, sends
// the probe, reads VmHWM again after the answer, and stops the server. An
// error means the probe could not be made (the server did not start).
func (p *probeRun) measure(ctx context.Context, pr probe) (probeResult, error) {
	r := probeResult{probe: pr}
	srv := &serverProc{c: p.common}
	defer srv.stop()
	if err := srv.start(ctx); err != nil {
		return r, err
	}
	pid := srv.cmd.Process.Pid
	idle, err := vmHWM(pid)
	if err != nil {
		return r, err
	}
	r.idleKiB = idle

	hc := &http.Client{Timeout: probeTimeout}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.addr+"/graphql", bytes.NewReader(pr.body))
	if err != nil {
		return r, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+pr.key)
	start := time.Now()
	resp, err := hc.Do(req)
	var body []byte
	if err == nil {
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		r.status = resp.StatusCode
	}
	r.elapsed = time.Since(start)
	r.bytes = len(body)
	r.err = err

	// The peak, read before anything else can happen to the process.
	if peak, perr := vmHWM(pid); perr == nil && srv.alive() {
		r.peakKiB = peak
	} else {
		r.died = true
	}
	if r.err == nil {
		r.code, r.message = firstError(body)
	}
	return r, nil
}

// firstError is extensions.code and the message of the answer's first
// error; "" when it has none, NOT_JSON when it is not JSON.
func firstError(body []byte) (code, message string) {
	var parsed struct {
		Errors []struct {
			Message    string `json:"message"`
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(body, &parsed); err != nil {
		return "NOT_JSON", ""
	}
	if len(parsed.Errors) == 0 {
		return "", ""
	}
	e := parsed.Errors[0]
	if e.Extensions.Code == "" {
		return "(no code)", e.Message
	}
	return e.Extensions.Code, e.Message
}

// vmHWM is the peak resident set size of process pid, in KiB.
func vmHWM(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM in /proc/" + strconv.Itoa(pid) + "/status")
}

func mib(kib int64) float64 { return float64(kib) / 1024 }

func (r probeResult) short() string {
	switch {
	case r.err != nil:
		return "NO ANSWER: " + r.err.Error()
	case r.died:
		return fmt.Sprintf("%d %s, the server died", r.status, r.code)
	}
	msg := ""
	if r.message != "" {
		msg = r.message
		if rs := []rune(msg); len(rs) > 110 {
			msg = string(rs[:110]) + "..."
		}
		msg = " (" + msg + ")"
	}
	return fmt.Sprintf("%d %s, %d bytes, %.2f s, peak %.1f MiB%s", r.status, r.code, r.bytes, r.elapsed.Seconds(), mib(r.peakKiB), msg)
}

// report prints the table, one row per probe over its runs (the status,
// code and bytes of the first run; the longest time, the highest idle
// and peak RSS), and fails on a 5xx, no answer, a dead server or a peak
// above maxPeakMiB in any run.
func (p *probeRun) report(results [][]probeResult) error {
	fmt.Println()
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "probe\tkey\treq bytes\tstatus\tcode\tbytes\tseconds\tidle MiB\tpeak MiB\tpeak range\texpected\t")
	var failures, notes []string
	var idleMin, idleMax int64 = -1, 0
	for _, runs := range results {
		first := runs[0]
		status, code := strconv.Itoa(first.status), first.code
		if code == "" {
			code = "-"
		}
		if first.err != nil {
			status, code = "none", "NO ANSWER"
		}
		var slowest time.Duration
		var idle, peak, low int64 = 0, 0, -1
		died, noAnswer, fivexx, over, unexpected, differs := 0, 0, 0, 0, 0, false
		for _, r := range runs {
			slowest = max(slowest, r.elapsed)
			idle = max(idle, r.idleKiB)
			if idleMin < 0 || r.idleKiB < idleMin {
				idleMin = r.idleKiB
			}
			idleMax = max(idleMax, r.idleKiB)
			switch {
			case r.err != nil:
				noAnswer++
			case r.status >= 500:
				fivexx++
			}
			if r.err == nil && !r.asExpected() {
				unexpected++
			}
			if r.status != first.status || r.code != first.code || (r.err == nil) != (first.err == nil) {
				differs = true
			}
			if r.died {
				died++
				continue
			}
			peak = max(peak, r.peakKiB)
			if low < 0 || r.peakKiB < low {
				low = r.peakKiB
			}
			if mib(r.peakKiB) > p.maxPeakMiB {
				over++
			}
		}
		n := len(runs)
		if noAnswer > 0 {
			failures = append(failures, fmt.Sprintf("%s: no answer in %d of %d runs", first.name, noAnswer, n))
		}
		if fivexx > 0 {
			failures = append(failures, fmt.Sprintf("%s: a 5xx answer in %d of %d runs", first.name, fivexx, n))
		}
		if died > 0 {
			failures = append(failures, fmt.Sprintf("%s: the server was gone after the request in %d of %d runs", first.name, died, n))
		}
		if over > 0 {
			failures = append(failures, fmt.Sprintf("%s: peak RSS up to %.1f MiB, above %.0f MiB in %d of %d runs", first.name, mib(peak), p.maxPeakMiB, over, n))
		}
		if unexpected > 0 {
			notes = append(notes, fmt.Sprintf("%s answered %s %s; the brief expected %s", first.name, status, code, first.expected()))
		}
		if differs {
			notes = append(notes, first.name+": the runs did not all get the same answer (see above)")
		}
		peakText, rangeText := fmt.Sprintf("%.1f", mib(peak)), "-"
		if low >= 0 && n > 1 {
			rangeText = fmt.Sprintf("%.0f-%.0f", mib(low), mib(peak))
		}
		if low < 0 {
			peakText = "died"
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%d\t%.2f\t%.1f\t%s\t%s\t%s\t\n", first.name, first.who, len(first.body), status, code, first.bytes,
			slowest.Seconds(), mib(idle), peakText, rangeText, first.expected())
	}
	_ = w.Flush()
	fmt.Printf("\nidle RSS (VmHWM right after /readyz answered 200; a fresh process for each of the %d runs of each probe): %.1f-%.1f MiB\n",
		p.repeat, mib(idleMin), mib(idleMax))
	for _, n := range notes {
		fmt.Println("note (not a failure):", n)
	}
	if len(failures) > 0 {
		fmt.Println()
		for _, f := range failures {
			fmt.Println("FAIL:", f)
		}
		return fmt.Errorf("%d probe(s) failed", len(failures))
	}
	fmt.Printf("OK: no 5xx, no lost answer, every peak RSS at most %.0f MiB\n", p.maxPeakMiB)
	return nil
}
