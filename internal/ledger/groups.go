package ledger

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// groupCommit runs together (group commit) the requests of one key that
// arrive while a run of that key is going on: when it ends, those that
// waited run as one, which takes the key's locks and commits once for all
// of them, where a run each would queue on those locks one commit at a
// time (docs/performance.md). A request that finds no run of its key going
// on runs at once, on its own: grouping adds no wait where there is no
// contention. Payments on one debt (paymentGroups) and hand-overs of one
// client by one API key (handoverGroups) are grouped so; the requests of
// one process are grouped, and across replicas each process's runs still
// queue on the database's locks.
//
// run does the members' work and answers each: errs[i] is ms[i]'s outcome,
// and a member's own result is written into it. It runs under the context
// of its first member's request without that request's cancellation (one
// request that goes away must not undo the others), up to the request's
// deadline or maxGroupRun when it has none.
type groupCommit[K comparable, M any] struct {
	max int // members per run
	run func(ctx context.Context, k K, ms []M) (errs []error)

	mu sync.Mutex
	// waiting holds, for each key with a run going on, the requests
	// waiting for it to end; a key without one has no entry.
	waiting map[K][]*grouped[M]
}

// grouped is a request waiting for, or in, a run.
type grouped[M any] struct {
	m   M
	ctx context.Context
	// taken is set (under groupCommit.mu) when a run takes it: from then
	// on it is answered by that run's outcome.
	taken bool
	done  chan error // the run's outcome, once
}

// maxGroupRun bounds a run whose first request has no deadline.
const maxGroupRun = 30 * time.Second

// do runs m under key k: at once when no run of k is going on, else with
// the requests that wait for the running one to end. When ctx ends before
// a run took m, nothing is done and ctx's error returned; once taken, m is
// answered by its run's outcome.
func (g *groupCommit[K, M]) do(ctx context.Context, k K, m M) error {
	q := &grouped[M]{m: m, ctx: ctx, done: make(chan error, 1)}
	g.mu.Lock()
	if w, running := g.waiting[k]; running {
		g.waiting[k] = append(w, q)
		g.mu.Unlock()
		select {
		case err := <-q.done:
			return err
		case <-ctx.Done():
			g.mu.Lock()
			if !q.taken {
				g.waiting[k] = slices.DeleteFunc(g.waiting[k], func(x *grouped[M]) bool { return x == q })
				g.mu.Unlock()
				return ctx.Err()
			}
			g.mu.Unlock()
			return <-q.done
		}
	}
	if g.waiting == nil {
		g.waiting = map[K][]*grouped[M]{}
	}
	g.waiting[k] = nil
	q.taken = true
	g.mu.Unlock()
	g.runFrom(k, []*grouped[M]{q})
	return <-q.done
}

// runFrom runs batch, then hands the requests that waited meanwhile to a
// new run, or ends the key's runs when none did.
func (g *groupCommit[K, M]) runFrom(k K, batch []*grouped[M]) {
	g.runOnce(k, batch)
	g.mu.Lock()
	var next []*grouped[M]
	for len(next) == 0 {
		w := g.waiting[k]
		if len(w) == 0 {
			delete(g.waiting, k)
			g.mu.Unlock()
			return
		}
		n := min(len(w), g.max)
		g.waiting[k] = slices.Clone(w[n:])
		for _, q := range w[:n] {
			q.taken = true
			if err := q.ctx.Err(); err != nil {
				q.done <- err // its request has ended: not run
				continue
			}
			next = append(next, q)
		}
	}
	g.mu.Unlock()
	go g.runFrom(k, next)
}

// runOnce runs batch and answers each of its requests.
func (g *groupCommit[K, M]) runOnce(k K, batch []*grouped[M]) {
	first := batch[0].ctx
	deadline, ok := first.Deadline()
	if !ok {
		deadline = time.Now().Add(maxGroupRun)
	}
	ctx, cancel := context.WithDeadline(context.WithoutCancel(first), deadline)
	defer cancel()
	ms := make([]M, len(batch))
	for i, q := range batch {
		ms[i] = q.m
	}
	errs := guardedRun(func() []error { return g.run(ctx, k, ms) }, len(ms))
	for i, q := range batch {
		q.done <- errs[i]
	}
}

// guardedRun calls run and turns a panic into every member's error: a
// panic in a run would otherwise end the process (it may run in a
// goroutine of its own) or leave its requests waiting.
func guardedRun(run func() []error, n int) (errs []error) {
	defer func() {
		if p := recover(); p != nil {
			err := fmt.Errorf("ledger: grouped run: panic: %v", p)
			errs = make([]error, n)
			for i := range errs {
				errs[i] = err
			}
		}
	}()
	return run()
}

// oneOutcome is err as the outcome of each of n members.
func oneOutcome(err error, n int) []error {
	errs := make([]error, n)
	for i := range errs {
		errs[i] = err
	}
	return errs
}

// guard calls f and turns a panic into its error, so that one call of a
// run that panics does not take the outcomes of the others with it.
func guard(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("ledger: grouped run: panic: %v", p)
		}
	}()
	return f()
}
