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
	// weight, when set, is a member's weight: a run takes members while
	// their weights sum to at most maxWeight (and always the first).
	weight    func(M) int
	maxWeight int
	// gather, when set, is how long a run that ends waits for as many
	// requests as it ran and found waiting, when they are at least
	// crowd, before it hands them to the next run: requests answered
	// together come back together, a little apart, and without it the
	// first of them would run alone and the others after it. A lone
	// caller's next request completes the count at once. Crowds that
	// gather at once are filled in the order they began (groupKey.fill),
	// so that one crowd's gathering does not cut another's short: with
	// more callers than max, crowds take turns, one in its transaction
	// while the other's callers come back (docs/performance.md).
	gather time.Duration
	// crowd is the size of a run that gathers, and while one goes on a
	// request waits rather than start a run of its own; smaller runs of
	// a key (a few callers, who have little to share) start side by
	// side, as they would ungrouped. 0: every run is a crowd. Each run
	// that ends hands on to one next run, so at most parallel runs of a
	// key go at once, crowds or not.
	crowd    int
	parallel int
	run      func(ctx context.Context, k K, ms []M) (errs []error)

	mu sync.Mutex
	// keys holds the keys with a run going on; a key without one has no
	// entry.
	keys map[K]*groupKey[M]
}

// groupKey is a key's runs going on and the requests waiting for one.
type groupKey[M any] struct {
	running int // runs going on
	crowds  int // of which crowds
	waiting []*grouped[M]
	// gathers are the crowds that gather, in the order they began.
	gathers []*gathering
}

// gathering is a crowd waiting for want requests (groupCommit.gather).
type gathering struct {
	want int
	full chan struct{} // closed once full; nil then
}

// reserved is the number of waiting requests that the gathering crowds
// wait for.
func (st *groupKey[M]) reserved() int {
	n := 0
	for _, ga := range st.gathers {
		n += ga.want
	}
	return n
}

// fill, with groupCommit.mu held, marks full the gathering crowds that the
// waiting requests fill, first first: the first is full when its want
// requests wait, the second when as many more do.
func (st *groupKey[M]) fill() {
	n := len(st.waiting)
	for _, ga := range st.gathers {
		if n < ga.want {
			return
		}
		n -= ga.want
		if ga.full != nil {
			close(ga.full)
			ga.full = nil
		}
	}
}

// grouped is a request waiting for, or in, a run.
type grouped[M any] struct {
	m      M
	weight int // g.weight(m), when g has one
	ctx    context.Context
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
	q := g.request(ctx, m)
	g.mu.Lock()
	st := g.keys[k]
	if st != nil && (st.crowds > 0 || st.running >= max(g.parallel, 1)) {
		st.waiting = append(st.waiting, q)
		st.fill()
		g.mu.Unlock()
		select {
		case err := <-q.done:
			return err
		case <-ctx.Done():
			g.mu.Lock()
			if !q.taken {
				st.waiting = slices.DeleteFunc(st.waiting, func(x *grouped[M]) bool { return x == q })
				g.mu.Unlock()
				return ctx.Err()
			}
			g.mu.Unlock()
			return <-q.done
		}
	}
	if st == nil {
		if g.keys == nil {
			g.keys = map[K]*groupKey[M]{}
		}
		st = &groupKey[M]{}
		g.keys[k] = st
	}
	st.running++
	q.taken = true
	g.mu.Unlock()
	g.runFrom(k, st, []*grouped[M]{q})
	return <-q.done
}

// request is m on its way into a run, with its weight worked out here,
// not under g.mu, where fit reads it.
func (g *groupCommit[K, M]) request(ctx context.Context, m M) *grouped[M] {
	q := &grouped[M]{m: m, ctx: ctx, done: make(chan error, 1)}
	if g.weight != nil {
		q.weight = g.weight(m)
	}
	return q
}

// runFrom runs batch, then hands the requests that waited meanwhile to a
// new run (handOn), after gathering when set: in a goroutine of its own,
// so that the request that ran first is answered at once.
func (g *groupCommit[K, M]) runFrom(k K, st *groupKey[M], batch []*grouped[M]) {
	crowd := len(batch) >= g.crowd
	if crowd {
		g.mu.Lock()
		st.crowds++
		g.mu.Unlock()
	}
	g.runOnce(k, batch)
	g.mu.Lock()
	// A crowd stays one while it gathers, so that the calls it waits for
	// join it rather than run beside it. It gathers behind the crowds
	// gathering already, for the requests they do not wait for.
	reserved := st.reserved()
	free := max(len(st.waiting)-reserved, 0)
	if want := min(len(batch)+free, g.max); crowd && g.gather > 0 && (reserved > 0 || free < want) {
		ga := &gathering{want: want, full: make(chan struct{})}
		full := ga.full
		st.gathers = append(st.gathers, ga)
		st.fill()
		g.mu.Unlock()
		go func() {
			t := time.NewTimer(g.gather)
			select {
			case <-full:
			case <-t.C:
			}
			t.Stop()
			g.mu.Lock()
			st.gathers = slices.DeleteFunc(st.gathers, func(x *gathering) bool { return x == ga })
			st.crowds--
			// Its want at most: the requests after them are the next
			// crowd's.
			g.handOn(k, st, want)
		}()
		return
	}
	if crowd {
		st.crowds--
	}
	g.handOn(k, st, g.max)
}

// handOn, with g.mu held, hands up to limit of the requests waiting for a
// run of k to a new run, or ends this run of k when none waits. It unlocks
// g.mu.
func (g *groupCommit[K, M]) handOn(k K, st *groupKey[M], limit int) {
	var next []*grouped[M]
	for len(next) == 0 {
		if len(st.waiting) == 0 {
			if st.running--; st.running == 0 {
				delete(g.keys, k)
			}
			g.mu.Unlock()
			return
		}
		n := min(g.fit(st.waiting), limit)
		w := st.waiting[:n]
		st.waiting = slices.Clone(st.waiting[n:])
		for _, q := range w {
			q.taken = true
			if err := q.ctx.Err(); err != nil {
				q.done <- err // its request has ended: not run
				continue
			}
			next = append(next, q)
		}
	}
	g.mu.Unlock()
	go g.runFrom(k, st, next)
}

// fit is how many of the requests waiting, from the first, one run takes.
func (g *groupCommit[K, M]) fit(waiting []*grouped[M]) int {
	n := min(len(waiting), g.max)
	if g.weight == nil {
		return n
	}
	sum := 0
	for i, q := range waiting[:n] {
		if sum += q.weight; i > 0 && sum > g.maxWeight {
			return i
		}
	}
	return n
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
			errs = oneOutcome(fmt.Errorf("ledger: grouped run: panic: %v", p), n)
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
