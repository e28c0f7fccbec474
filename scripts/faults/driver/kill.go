package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// killRun: kill -9 of the server in the middle of a stream of createDebt
// and addDebtPayment calls sent with Idempotency-Key headers; every call
// that got no answer is resent with its key until it gets one, and a share
// of the answered ones are resent too (they must be replayed).
type killRun struct {
	*common
	cycles   int
	workers  int
	payments int

	srv    *serverProc
	cl     *client
	tag    string
	client string

	sent, answeredFirst, resends, noAnswer, unavailable, stillRunning atomic.Int64
	// cut counts the calls cut off by a kill mid-request (not refused
	// while the server was down); committed counts those of them whose
	// work had committed all the same: their answers were lost, and their
	// resends had to be replays.
	cut, committed atomic.Int64
	db             *sql.DB
	unexpected     []string
	mu             sync.Mutex
	debts          []*debtRecord
}

// call is one keyed mutation, sent until it gets an answer.
type call struct {
	query string
	vars  map[string]any
	key   string
	// The answer's data, for comparison with a replay.
	data json.RawMessage
}

type debtRecord struct {
	n        int
	id       int
	items    []int
	create   *call
	payments []*call
}

func (k *killRun) run(ctx context.Context) error {
	k.srv = &serverProc{c: k.common}
	defer k.srv.stop()
	k.cl = newClient(k.addr)
	db, err := sql.Open("pgx", k.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	k.db = db
	k.tag = fmt.Sprintf("K%d", time.Now().Unix())
	if err := k.srv.start(ctx); err != nil {
		return err
	}
	id, err := k.cl.newTestClient(ctx, "Fault Kill "+k.tag)
	if err != nil {
		return err
	}
	k.client = id
	fmt.Printf("kill -9 run %s: %d workers, %d kills, %d payments per debt, client %s\n", k.tag, k.workers, k.cycles, k.payments, id)

	// The stream: workers take debt numbers until the kills are over.
	streamCtx, stopStream := context.WithCancel(ctx)
	numbers := make(chan int)
	go func() {
		defer close(numbers)
		for n := 0; n < 5000; n++ {
			select {
			case numbers <- n:
			case <-streamCtx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range k.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range numbers {
				k.debtFlow(ctx, n)
			}
		}()
	}

	// The kills, at random moments while calls are in flight.
	var killErr error
	var downtime time.Duration
	for i := range k.cycles {
		time.Sleep(time.Duration(400+rand.IntN(1200)) * time.Millisecond)
		inFlightBefore := k.sent.Load() + k.resends.Load()
		k.srv.kill9()
		t0 := time.Now()
		time.Sleep(300 * time.Millisecond) // calls meanwhile find nobody listening
		if err := k.srv.start(ctx); err != nil {
			killErr = fmt.Errorf("restart %d: %w", i+1, err)
			break
		}
		downtime += time.Since(t0)
		fmt.Printf("  kill %d: after %d calls sent, server back in %s\n", i+1, inFlightBefore, time.Since(t0).Round(time.Millisecond))
	}
	time.Sleep(500 * time.Millisecond)
	stopStream()
	wg.Wait()
	if killErr != nil {
		return killErr
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("time limit reached before every call was answered: %w", err)
	}

	// Resend a share of the answered calls: each must be replayed as it was.
	replays, mismatches := k.resendAnswered(ctx)
	res, err := k.verify(ctx)
	if err != nil {
		return err
	}
	calls := int64(0)
	for _, d := range k.debts {
		calls += int64(1 + len(d.payments))
	}
	fmt.Printf("\nsummary: kills %d (server down %s in all)\n", k.cycles, downtime.Round(time.Millisecond))
	fmt.Printf("  calls sent        %d (%d createDebt, %d addDebtPayment)\n", calls, len(k.debts), calls-int64(len(k.debts)))
	fmt.Printf("  answered at once  %d\n", k.answeredFirst.Load())
	fmt.Printf("  resent            %d (no answer %d, 503 %d, 409 still running %d)\n", k.resends.Load(), k.noAnswer.Load(), k.unavailable.Load(), k.stillRunning.Load())
	fmt.Printf("  cut off mid-call  %d, of which committed before the kill (answer lost, resend replayed) %d\n", k.cut.Load(), k.committed.Load())
	fmt.Printf("  answered resent   %d, replayed identically %d, mismatched %d\n", replays, replays-mismatches, mismatches)
	fmt.Printf("  debts %d, items %d, payments %d (in the database)\n", res.debts, res.items, res.payments)
	fmt.Printf("  duplicates found  %d\n", res.duplicates)
	fmt.Printf("  lost              %d\n", res.lost)
	fmt.Printf("  debts without items %d, paid sums differing from payments %d\n", res.itemless, res.sumMismatch)
	fmt.Printf("  unexpected answers %d\n", len(k.unexpected))
	for i, u := range k.unexpected {
		if i == 10 {
			break
		}
		fmt.Println("    ", u)
	}
	if res.duplicates != 0 || res.lost != 0 || res.itemless != 0 || res.sumMismatch != 0 || mismatches != 0 || len(k.unexpected) != 0 {
		return fmt.Errorf("guarantees broken (see the summary)")
	}
	if k.cut.Load() == 0 {
		return fmt.Errorf("no call was cut off by a kill: the run proved nothing")
	}
	fmt.Println("OK: every call answered once, nothing doubled, nothing lost")
	return nil
}

// debtFlow creates debt n and books its payments, each call sent until it
// is answered.
func (k *killRun) debtFlow(ctx context.Context, n int) {
	d := &debtRecord{n: n, create: &call{
		query: createDebtMutation,
		vars:  map[string]any{"c": k.client, "in": debtInput(k.tag, n)},
		key:   fmt.Sprintf("%s-debt-%d", k.tag, n),
	}}
	if !k.untilAnswered(ctx, d.create) {
		return
	}
	var out struct {
		CreateDebt struct {
			ID       int
			Invoices []struct{ ID int }
		} `json:"createDebt"`
	}
	if err := json.Unmarshal(d.create.data, &out); err != nil || len(out.CreateDebt.Invoices) != 2 {
		k.fail(fmt.Sprintf("debt %d: unreadable answer %s", n, d.create.data))
		return
	}
	d.id = out.CreateDebt.ID
	for _, it := range out.CreateDebt.Invoices {
		d.items = append(d.items, it.ID)
	}
	k.mu.Lock()
	k.debts = append(k.debts, d)
	k.mu.Unlock()
	for j := range k.payments {
		p := &call{
			query: addPaymentMutation,
			vars: map[string]any{"c": k.client, "in": map[string]any{
				"debtId": d.id, "invoiceId": d.items[j%2], "amount": money(paymentAmount(j)),
				"transactionDate": time.Now().Format(time.DateOnly),
			}},
			key: fmt.Sprintf("%s-pay-%d-%d", k.tag, n, j),
		}
		d.payments = append(d.payments, p)
		if !k.untilAnswered(ctx, p) {
			return
		}
	}
}

// untilAnswered sends c, and resends it with the same key while it gets no
// answer of its own, until ctx ends.
func (k *killRun) untilAnswered(ctx context.Context, c *call) bool {
	backoff := 50 * time.Millisecond
	wasCut := false
	for attempt := 0; ; attempt++ {
		if attempt == 0 {
			k.sent.Add(1)
		} else {
			k.resends.Add(1)
		}
		if wasCut {
			// Did the work commit before the kill? Then this resend must
			// be answered by a replay, which the verification checks.
			var n int
			if err := k.db.QueryRowContext(ctx, `SELECT count(*) FROM idempotency_records WHERE key = $1`, c.key).Scan(&n); err == nil && n > 0 {
				k.committed.Add(1)
			}
			wasCut = false
		}
		a := k.cl.graphql(ctx, c.query, c.vars, c.key)
		switch {
		case a.ok():
			if attempt == 0 {
				k.answeredFirst.Add(1)
			}
			c.data = a.data
			return true
		case ctx.Err() != nil:
			return false
		case a.retryable():
			switch {
			case a.err != nil:
				k.noAnswer.Add(1)
				if !errors.Is(a.err, syscall.ECONNREFUSED) {
					k.cut.Add(1)
					wasCut = true
				}
			case a.status == 503:
				k.unavailable.Add(1)
			default:
				k.stillRunning.Add(1)
			}
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return false
			}
			backoff = min(backoff*2, 500*time.Millisecond)
		default:
			k.fail(fmt.Sprintf("%s: %s %s", c.key, a, a.body))
			return false
		}
	}
}

func (k *killRun) fail(msg string) {
	k.mu.Lock()
	k.unexpected = append(k.unexpected, msg)
	k.mu.Unlock()
}

// resendAnswered resends every third answered call and compares the answer
// with the first: the same data, so the same ids.
func (k *killRun) resendAnswered(ctx context.Context) (replays, mismatches int) {
	i := 0
	for _, d := range k.debts {
		for _, c := range append([]*call{d.create}, d.payments...) {
			if i++; i%3 != 0 || c.data == nil {
				continue
			}
			a := k.cl.graphql(ctx, c.query, c.vars, c.key)
			replays++
			if !a.ok() || string(a.data) != string(c.data) {
				mismatches++
				k.fail(fmt.Sprintf("replay of %s: %s %s, first answer %s", c.key, a, a.data, c.data))
			}
		}
	}
	return replays, mismatches
}

type verdict struct {
	debts, items, payments                  int
	duplicates, lost, itemless, sumMismatch int
}

// verify checks the database and the API against the calls' answers.
func (k *killRun) verify(ctx context.Context) (verdict, error) {
	var v verdict
	db, err := sql.Open("pgx", k.dsn)
	if err != nil {
		return v, err
	}
	defer db.Close()
	q := func(dest any, query string, args ...any) error {
		return db.QueryRowContext(ctx, query, args...).Scan(dest)
	}
	if err := q(&v.debts, `SELECT count(*) FROM debts WHERE client_id = $1`, k.client); err != nil {
		return v, err
	}
	if err := q(&v.items, `SELECT count(*) FROM debt_invoices WHERE client_id = $1`, k.client); err != nil {
		return v, err
	}
	if err := q(&v.payments, `SELECT count(*) FROM payments WHERE client_id = $1`, k.client); err != nil {
		return v, err
	}
	if err := q(&v.itemless, `SELECT count(*) FROM debts d WHERE client_id = $1
		AND NOT EXISTS (SELECT 1 FROM debt_invoices i WHERE i.debt_id = d.id)`, k.client); err != nil {
		return v, err
	}
	// Stored paid amounts against the payments they sum.
	var badItems, badDebts int
	if err := q(&badItems, `SELECT count(*) FROM debt_invoices i WHERE client_id = $1
		AND paid_amount <> (SELECT coalesce(sum(amount), 0) FROM payments p WHERE p.debt_invoice_id = i.id)`, k.client); err != nil {
		return v, err
	}
	if err := q(&badDebts, `SELECT count(*) FROM debts d WHERE client_id = $1
		AND paid_amount <> (SELECT coalesce(sum(amount), 0) FROM payments p WHERE p.debt_id = d.id)`, k.client); err != nil {
		return v, err
	}
	v.sumMismatch = badItems + badDebts

	// Every debt answered exists once under its invoice numbers; no other.
	counts := map[string]int{}
	rows, err := db.QueryContext(ctx, `SELECT invoice_number, count(*) FROM debt_invoices WHERE client_id = $1 GROUP BY 1`, k.client)
	if err != nil {
		return v, err
	}
	for rows.Next() {
		var num string
		var n int
		if err := rows.Scan(&num, &n); err != nil {
			return v, err
		}
		counts[num] = n
	}
	rows.Close()
	expected := map[string]bool{}
	for _, d := range k.debts {
		for _, s := range []string{"A", "B"} {
			expected[fmt.Sprintf("%s-%d-%s", k.tag, d.n, s)] = true
		}
	}
	for num, n := range counts {
		if !expected[num] {
			v.duplicates += n // a debt no answer speaks of: written by a call counted as unanswered
		} else if n > 1 {
			v.duplicates += n - 1
		}
	}
	for num := range expected {
		if counts[num] == 0 {
			v.lost++
		}
	}

	// Through the API: each debt's payments are exactly those booked, and
	// its paid amount is their sum.
	sort.Slice(k.debts, func(i, j int) bool { return k.debts[i].n < k.debts[j].n })
	for _, d := range k.debts {
		a := k.cl.graphql(ctx, debtQuery, map[string]any{"c": k.client, "id": d.id}, "")
		if !a.ok() {
			return v, fmt.Errorf("reading debt %d: %s", d.id, a)
		}
		var out struct {
			Debt *struct {
				PaidAmount string
				Payments   []struct{ Amount, Source string }
			}
		}
		if err := json.Unmarshal(a.data, &out); err != nil || out.Debt == nil {
			v.lost++
			continue
		}
		want := map[int64]int{beforeHandover: 1}
		sum := int64(beforeHandover)
		for j := range d.payments {
			want[paymentAmount(j)]++
			sum += paymentAmount(j)
		}
		got := map[int64]int{}
		for _, p := range out.Debt.Payments {
			got[parseMoney(p.Amount)]++
		}
		for amt, n := range got {
			if n > want[amt] {
				v.duplicates += n - want[amt]
			}
		}
		for amt, n := range want {
			if got[amt] < n {
				v.lost += n - got[amt]
			}
		}
		if parseMoney(out.Debt.PaidAmount) != sum {
			v.sumMismatch++
		}
	}
	return v, nil
}
