package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// pgRun: PostgreSQL stopped and started under load. Workers send keyed
// createDebt calls and queries without pause; a prober asks /readyz every
// 100 ms. For each stop mode the cluster is stopped, left down, and
// started again; the run measures what callers saw meanwhile and how long
// after the database's return the first request succeeded. Afterwards it
// resends the writes that failed, with their keys, and checks that every
// acknowledged write is there, once.
type pgRun struct {
	*common
	pgCtl       string
	workers     int
	modes       string
	down        time.Duration
	maxRecovery time.Duration

	srv    *serverProc
	cl     *client
	tag    string
	client string
	next   atomic.Int64

	mu      sync.Mutex
	events  []event
	probes  []event
	acked   []*write
	pending []*write
}

// event is one request's fate.
type event struct {
	sent, done time.Time
	write      bool
	a          answer
}

type write struct {
	n    int
	c    *call
	done bool
}

const loadQuery = `query($c: UUID!) { debts(clientId: $c, rowsPerPage: 5) { totalCount nodes { id paidAmount } } }`

func (p *pgRun) run(ctx context.Context) error {
	p.srv = &serverProc{c: p.common}
	defer p.srv.stop()
	p.cl = newClient(p.addr)
	p.tag = fmt.Sprintf("P%d", time.Now().Unix())
	if err := p.srv.start(ctx); err != nil {
		return err
	}
	id, err := p.cl.newTestClient(ctx, "Fault PG "+p.tag)
	if err != nil {
		return err
	}
	p.client = id
	modes := strings.Split(p.modes, ",")
	fmt.Printf("PostgreSQL restart run %s: %d workers, outages %v, each %s down\n", p.tag, p.workers, modes, p.down)

	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for w := range p.workers {
		wg.Add(1)
		go func() { defer wg.Done(); p.worker(loadCtx, w) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); p.prober(loadCtx) }()

	var problems []string
	type outage struct {
		mode                          string
		stopTook, startTook, recovery time.Duration
		during, failed, ok500, noAns  int
		maxFailed                     time.Duration
		readyz503, readyzOther        int
		failedAfterUp                 int
	}
	var outages []outage
	for _, mode := range modes {
		time.Sleep(1500 * time.Millisecond) // healthy load first
		t0 := time.Now()
		if err := p.pgctl(ctx, "stop", "-m", mode, "-w", "-t", "30"); err != nil {
			stopLoad()
			wg.Wait()
			return err
		}
		tDown := time.Now()
		time.Sleep(p.down)
		tStart := time.Now()
		if err := p.pgctl(ctx, "start", "-w", "-t", "30"); err != nil {
			stopLoad()
			wg.Wait()
			return err
		}
		tUp := time.Now()
		o := outage{mode: mode, stopTook: tDown.Sub(t0), startTook: tUp.Sub(tStart)}
		// The first request sent after the database is back that succeeds.
		var firstOK time.Time
		for end := tUp.Add(20 * time.Second); firstOK.IsZero() && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			p.mu.Lock()
			for _, e := range p.events {
				if !e.sent.Before(tUp) && e.a.ok() && (firstOK.IsZero() || e.done.Before(firstOK)) {
					firstOK = e.done
				}
			}
			p.mu.Unlock()
		}
		if firstOK.IsZero() {
			problems = append(problems, fmt.Sprintf("%s: no request succeeded within 20 s of the database's return", mode))
			o.recovery = -1
		} else {
			o.recovery = firstOK.Sub(tUp)
			if o.recovery > p.maxRecovery {
				problems = append(problems, fmt.Sprintf("%s: recovery took %s, more than %s", mode, o.recovery, p.maxRecovery))
			}
		}
		time.Sleep(500 * time.Millisecond) // let requests sent meanwhile finish
		p.mu.Lock()
		for _, e := range p.events {
			if e.done.Before(t0) {
				continue // answered before the stop; those in flight at the stop count
			}
			if !e.sent.Before(tDown) && e.sent.Before(tStart) {
				o.during++
			}
			if e.a.ok() {
				continue
			}
			if e.sent.Before(firstOK) || firstOK.IsZero() {
				o.failed++
				o.maxFailed = max(o.maxFailed, e.a.latency)
				switch {
				case e.a.err != nil:
					o.noAns++
				case e.a.status != 503:
					o.ok500++
				}
				if !e.sent.Before(tUp) {
					o.failedAfterUp++
				}
			}
		}
		for _, e := range p.probes {
			if !e.sent.Before(tDown) && e.done.Before(tStart) {
				if e.a.status == 503 {
					o.readyz503++
				} else {
					o.readyzOther++
				}
			}
		}
		p.mu.Unlock()
		if o.ok500 > 0 || o.noAns > 0 {
			problems = append(problems, fmt.Sprintf("%s: %d answers other than 503 and %d requests without an answer", mode, o.ok500, o.noAns))
		}
		if o.readyzOther > 0 || o.readyz503 == 0 {
			problems = append(problems, fmt.Sprintf("%s: /readyz answered 503 %d times and otherwise %d times while the database was down", mode, o.readyz503, o.readyzOther))
		}
		if o.maxFailed > 2*time.Second {
			problems = append(problems, fmt.Sprintf("%s: a failed request took %s: not failing fast", mode, o.maxFailed))
		}
		if !p.srv.alive() {
			problems = append(problems, fmt.Sprintf("%s: the server process died", mode))
		}
		outages = append(outages, o)
		fmt.Printf("  outage %d (stop -m %s): stopped in %s, down %s, started in %s; %d requests sent while down; %d failed, all 503: %v; slowest failure %s; /readyz 503 x%d (other %d); first success %s after the database was back (%d failures after its return)\n",
			len(outages), mode, o.stopTook.Round(time.Millisecond), p.down, o.startTook.Round(time.Millisecond), o.during, o.failed, o.ok500 == 0 && o.noAns == 0,
			o.maxFailed.Round(time.Millisecond), o.readyz503, o.readyzOther, o.recovery.Round(time.Millisecond), o.failedAfterUp)
	}
	time.Sleep(time.Second)
	stopLoad()
	wg.Wait()

	// Resend the writes that got no success, with their keys.
	resent := 0
	for _, w := range p.pending {
		if w.done {
			continue
		}
		resent++
		var a answer
		for range 20 {
			if a = p.cl.graphql(ctx, w.c.query, w.c.vars, w.c.key); a.ok() || !a.retryable() {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if !a.ok() {
			problems = append(problems, fmt.Sprintf("resend of %s: %s", w.c.key, a))
			continue
		}
		w.c.data, w.done = a.data, true
	}
	lost, dups, total, err := p.verify(ctx)
	if err != nil {
		return err
	}
	if !p.srv.alive() {
		problems = append(problems, "the server process is gone")
	}
	var reqs, oks int
	for _, e := range p.events {
		reqs++
		if e.a.ok() {
			oks++
		}
	}
	var worst time.Duration
	var worstFail time.Duration
	for _, o := range outages {
		worst = max(worst, o.recovery)
		worstFail = max(worstFail, o.maxFailed)
	}
	fmt.Printf("\nsummary: %d outages; %d requests (%d succeeded), %d /readyz probes\n", len(outages), reqs, oks, len(p.probes))
	fmt.Printf("  slowest failed request %s; slowest recovery %s (limit %s)\n", worstFail.Round(time.Millisecond), worst.Round(time.Millisecond), p.maxRecovery)
	fmt.Printf("  writes acknowledged %d; failed and resent with their key %d; debts in the database %d\n", len(p.acked), resent, total)
	fmt.Printf("  acknowledged writes lost %d, duplicates %d, server alive %v\n", lost, dups, p.srv.alive())
	if lost != 0 || dups != 0 {
		problems = append(problems, fmt.Sprintf("%d acknowledged writes lost, %d duplicates", lost, dups))
	}
	if len(problems) > 0 {
		for _, pr := range problems {
			fmt.Println("  PROBLEM:", pr)
		}
		return fmt.Errorf("%d problems", len(problems))
	}
	fmt.Println("OK: 503 while down, recovered within the limit, every acknowledged write present once")
	return nil
}

// pgctl runs the pg_ctl command with args.
func (p *pgRun) pgctl(ctx context.Context, args ...string) error {
	f := strings.Fields(p.pgCtl)
	if len(f) == 0 {
		return fmt.Errorf("--pg-ctl is required")
	}
	cmd := exec.CommandContext(ctx, f[0], append(f[1:], args...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pg_ctl %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// worker alternates keyed createDebt calls and queries until ctx ends.
func (p *pgRun) worker(ctx context.Context, w int) {
	for i := 0; ctx.Err() == nil; i++ {
		e := event{sent: time.Now()}
		if i%2 == 0 {
			n := int(p.next.Add(1))
			wr := &write{n: n, c: &call{
				query: createDebtMutation,
				vars:  map[string]any{"c": p.client, "in": debtInput(p.tag, n)},
				key:   fmt.Sprintf("%s-debt-%d", p.tag, n),
			}}
			e.write = true
			e.a = p.cl.graphql(ctx, wr.c.query, wr.c.vars, wr.c.key)
			if ctx.Err() != nil && !e.a.ok() {
				// Cut off by the end of the run, not by the fault: resent
				// with the others, not counted as a failure.
				p.mu.Lock()
				p.pending = append(p.pending, wr)
				p.mu.Unlock()
				return
			}
			p.mu.Lock()
			if e.a.ok() {
				wr.c.data, wr.done = e.a.data, true
				p.acked = append(p.acked, wr)
			} else {
				p.pending = append(p.pending, wr)
			}
			p.mu.Unlock()
		} else {
			e.a = p.cl.graphql(ctx, loadQuery, map[string]any{"c": p.client}, "")
			if ctx.Err() != nil && !e.a.ok() {
				return
			}
		}
		e.done = time.Now()
		p.mu.Lock()
		p.events = append(p.events, e)
		p.mu.Unlock()
		pause := 10 * time.Millisecond
		if !e.a.ok() {
			pause = 50 * time.Millisecond // as a client backing off would
		}
		time.Sleep(pause)
	}
}

// prober asks /readyz every 100 ms.
func (p *pgRun) prober(ctx context.Context) {
	for ctx.Err() == nil {
		e := event{sent: time.Now()}
		e.a = p.cl.get(ctx, "/readyz", 3*time.Second)
		e.done = time.Now()
		if ctx.Err() != nil {
			return
		}
		p.mu.Lock()
		p.probes = append(p.probes, e)
		p.mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
}

// verify checks that every acknowledged write (and every resent one) is in
// the database once, by its invoice numbers, and that its answer's debt id
// is the one stored.
func (p *pgRun) verify(ctx context.Context) (lost, dups, total int, err error) {
	db, err := sql.Open("pgx", p.dsn)
	if err != nil {
		return 0, 0, 0, err
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM debts WHERE client_id = $1`, p.client).Scan(&total); err != nil {
		return 0, 0, 0, err
	}
	rows, err := db.QueryContext(ctx, `SELECT invoice_number, debt_id FROM debt_invoices WHERE client_id = $1`, p.client)
	if err != nil {
		return 0, 0, 0, err
	}
	stored := map[string][]int{}
	for rows.Next() {
		var num string
		var id int
		if err := rows.Scan(&num, &id); err != nil {
			return 0, 0, 0, err
		}
		stored[num] = append(stored[num], id)
	}
	rows.Close()
	all := append(append([]*write{}, p.acked...), p.pending...)
	for _, w := range all {
		if !w.done {
			continue
		}
		var out struct {
			CreateDebt struct{ ID int } `json:"createDebt"`
		}
		_ = json.Unmarshal(w.c.data, &out)
		for _, s := range []string{"A", "B"} {
			ids := stored[fmt.Sprintf("%s-%d-%s", p.tag, w.n, s)]
			switch {
			case len(ids) == 0:
				lost++
			case len(ids) > 1:
				dups += len(ids) - 1
			case ids[0] != out.CreateDebt.ID:
				lost++ // the acknowledged debt is not the stored one
			}
		}
	}
	if n := len(stored); n > 2*len(all) {
		dups += n - 2*len(all)
	}
	return lost, dups, total, nil
}
