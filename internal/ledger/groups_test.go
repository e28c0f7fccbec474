package ledger

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// recorder is a groupCommit run that records the size of each run.
type recorder struct {
	mu    sync.Mutex
	sizes []int
	// first, when set, is called in the first run, before it ends.
	first func()
}

func (r *recorder) run(_ context.Context, _ string, ms []int) []error {
	r.mu.Lock()
	r.sizes = append(r.sizes, len(ms))
	first := r.first
	r.first = nil
	r.mu.Unlock()
	if first != nil {
		first()
	}
	time.Sleep(2 * time.Millisecond)
	errs := make([]error, len(ms))
	for i, m := range ms {
		if m < 0 {
			errs[i] = errors.New("refused")
		}
	}
	return errs
}

// callers sends calls from n goroutines, each one after the other, and
// returns when all are answered.
func callers(t *testing.T, g *groupCommit[string, int], n int, calls func(i int) int) {
	t.Helper()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls(i) {
				if err := g.do(context.Background(), "k", i); err != nil {
					t.Errorf("caller %d: %v", i, err)
				}
			}
		}()
	}
	wg.Wait()
}

// TestGroupCommitGathers: with gather set, a run that ends waits for as
// many calls as it ran and found waiting, so that callers answered
// together run together again; a caller that stops is waited for no
// longer than gather; a lone caller one call after the other is never
// held.
func TestGroupCommitGathers(t *testing.T) {
	r := &recorder{}
	g := &groupCommit[string, int]{max: 16, gather: time.Second, run: r.run}
	// The first run ends once the other seven callers' first calls wait,
	// however late a loaded machine starts their goroutines.
	r.first = func() { queued(t, g, "k", 7) }
	callers(t, g, 8, func(int) int { return 20 })
	// The first run is one call; the others come while it runs, and from
	// then on the eight run together (the first caller's last call alone
	// is not there for the last run).
	sum := 0
	for _, n := range r.sizes {
		sum += n
	}
	if mid := r.sizes[1 : len(r.sizes)-1]; sum != 160 || r.sizes[0] != 1 || slices.ContainsFunc(mid, func(n int) bool { return n != 8 }) {
		t.Errorf("runs of %v calls; want one, then 8 each", r.sizes)
	}
	// The last run waits for callers that have stopped: gather long.
	idle(t, g)
	r.sizes = nil
	start := time.Now()
	callers(t, g, 1, func(int) int { return 20 })
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("20 calls of a lone caller took %v: held by the gathering", d)
	}
	if slices.ContainsFunc(r.sizes, func(n int) bool { return n != 1 }) {
		t.Errorf("a lone caller's runs: %v", r.sizes)
	}

	// Three callers of four stop after their first call: the run waits
	// for them gather long, then runs the one left.
	idle(t, g)
	r.sizes = nil
	g.gather = 50 * time.Millisecond
	callers(t, g, 4, func(i int) int {
		if i == 0 {
			return 5
		}
		return 1
	})
	if n := len(r.sizes); n < 5 || r.sizes[n-1] != 1 {
		t.Errorf("runs of %v calls; want the last ones of the caller left alone", r.sizes)
	}
}

// gatedRuns is a groupCommit run that reports each run's members as it
// starts and ends only when the test releases it.
type gatedRuns struct {
	started chan []int
	release chan struct{}
}

func (gr *gatedRuns) run(_ context.Context, _ string, ms []int) []error {
	gr.started <- slices.Clone(ms)
	<-gr.release
	return make([]error, len(ms))
}

// TestGroupCommitCrowdsTakeTurns: two crowds that gather at once are
// filled one after the other, each with as many calls as it ran, and run
// side by side; the crowd that began gathering second is not cut short,
// nor its calls held until the first crowd's run ends. So callers twice
// as many as a run takes keep two crowds taking turns, one in its
// transaction while the other's callers come back.
func TestGroupCommitCrowdsTakeTurns(t *testing.T) {
	gr := &gatedRuns{started: make(chan []int, 16), release: make(chan struct{})}
	g := &groupCommit[string, int]{max: 4, gather: 10 * time.Second, crowd: 2, parallel: 2, run: gr.run}
	answered := make(chan int, 32)
	call := func(m int) {
		go func() {
			if err := g.do(context.Background(), "k", m); err != nil {
				t.Errorf("call %d: %v", m, err)
			}
			answered <- m
		}()
	}
	start := func(want int) {
		t.Helper()
		select {
		case ms := <-gr.started:
			if len(ms) != want {
				t.Fatalf("a run of %v; want %d calls", ms, want)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("no run of %d calls started", want)
		}
	}
	// release ends n runs, then waits for calls answered.
	release := func(n, calls int) {
		for range n {
			gr.release <- struct{}{}
		}
		for range calls {
			<-answered
		}
	}
	// Two calls run alone (runs smaller than a crowd, two at a time);
	// eight more wait and become two crowds of four as those end.
	call(0)
	call(1)
	start(1)
	start(1)
	for m := 2; m < 10; m++ {
		call(m)
	}
	queued(t, g, "k", 8)
	release(2, 0)
	start(4)
	start(4)
	// Both crowds end; each gathers for its four callers' next calls.
	release(2, 10)
	for m := 10; m < 18; m++ {
		call(m)
	}
	// Both run at once, four calls each: neither waits for the other.
	start(4)
	start(4)
	release(2, 8)
}

// TestGroupCommitSmallRuns: runs smaller than a crowd run side by side
// (up to parallel) and are not held for their callers' next calls: two
// callers, one of which stops, are never held for the one that stopped.
func TestGroupCommitSmallRuns(t *testing.T) {
	r := &recorder{}
	g := &groupCommit[string, int]{max: 16, gather: time.Second, crowd: 4, parallel: 2, run: r.run}
	start := time.Now()
	callers(t, g, 2, func(i int) int {
		if i == 1 {
			return 1
		}
		return 5
	})
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("two callers took %v: held for the one that stopped (runs %v)", d, r.sizes)
	}
}

// queued waits until exactly n calls of key k wait for a run. It may run
// off the test's goroutine, so it reports with Errorf.
func queued(t *testing.T, g *groupCommit[string, int], k string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		g.mu.Lock()
		got := 0
		if st := g.keys[k]; st != nil {
			got = len(st.waiting)
		}
		g.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d calls wait for a run; want %d", got, n)
			return
		}
	}
}

// idle waits until g has no run going on.
func idle(t *testing.T, g *groupCommit[string, int]) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		g.mu.Lock()
		n := len(g.keys)
		g.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the runs did not end")
		}
	}
}

// TestGroupCommitWithoutGather: without gather a run that ends hands on
// at once what waits (the payments' groups), and every call is answered
// with its own outcome.
func TestGroupCommitWithoutGather(t *testing.T) {
	r := &recorder{}
	g := &groupCommit[string, int]{max: 4, run: r.run}
	var wg sync.WaitGroup
	results := make([]error, 12)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := i
			if i%3 == 0 {
				m = -i
			}
			results[i] = g.do(context.Background(), "k", m)
		}()
	}
	wg.Wait()
	for i, err := range results {
		if (i%3 == 0 && i != 0) != (err != nil) {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if slices.ContainsFunc(r.sizes, func(n int) bool { return n > 4 }) {
		t.Errorf("runs of %v calls; want at most 4 each", r.sizes)
	}
	// Every key is let go once its last run has handed on (which may be
	// a moment after its calls are answered).
	idle(t, g)
}

// TestGroupCommitWeights: a run takes waiting calls while their weights
// sum to at most maxWeight, and always the first, however heavy.
func TestGroupCommitWeights(t *testing.T) {
	g := &groupCommit[string, int]{max: 16, weight: func(m int) int { return m }, maxWeight: 10}
	waiting := func(ws ...int) []*grouped[int] {
		out := make([]*grouped[int], len(ws))
		for i, w := range ws {
			out[i] = g.request(context.Background(), w)
		}
		return out
	}
	for _, tc := range []struct {
		ws   []int
		want int
	}{
		{[]int{3, 3, 3}, 3},
		{[]int{3, 3, 3, 3}, 3},
		{[]int{4, 6, 1}, 2},
		{[]int{11, 1}, 1},
		{[]int{1, 11}, 1},
	} {
		if got := g.fit(waiting(tc.ws...)); got != tc.want {
			t.Errorf("fit(%v) = %d, want %d", tc.ws, got, tc.want)
		}
	}
}
