package server

import (
	"context"
	"strconv"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// An answer still being built when the deadline passes stops within
// deadlineEvery fields, whether or not the fields are charged (those of a
// list's elements are charged with the list).
func TestBudgetStopsAtTheDeadline(t *testing.T) {
	for _, element := range []bool{false, true} {
		ctx, cancel := context.WithCancel(withBudget(context.Background(), DefaultLimits))
		if element {
			i := 0
			ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Index: &i})
		}
		ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Object: "Debt"})
		// A list charged before: the count of charged fields is no
		// multiple of anything useful.
		budgetFrom(ctx).spend(1001, 0)
		cancel()
		calls := 0
		next := func(context.Context) (any, error) { calls++; return "x", nil }
		var err error
		for range deadlineEvery {
			if _, err = resolveField(ctx, next); err != nil {
				break
			}
		}
		if err == nil {
			t.Errorf("element %v: %d fields resolved after the deadline, none refused", element, calls)
		}
	}
}

// A limiter keeps at most maxBuckets buckets however many names spend
// theirs (an address spray), so its memory and its pruning stay bounded.
func TestRateLimiterBucketsStayBounded(t *testing.T) {
	r := newRateLimiter(0.001, 1)
	for i := range 3 * maxBuckets {
		r.take(strconv.Itoa(i))
		if n := len(r.buckets); n > maxBuckets {
			t.Fatalf("%d buckets after %d names, want at most %d", n, i+1, maxBuckets)
		}
	}
}
