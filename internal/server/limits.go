package server

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"golang.org/x/time/rate"

	"github.com/debtql/debtql/internal/apierr"
)

// Limits protect the service from queries that would make it do far more
// work than any screen needs (the OWASP GraphQL cheat sheet). Each is
// refused as a request error: HTTP 400, no data, and its own code.
type Limits struct {
	// MaxDepth is how deeply fields may nest (introspection's ofType
	// chains not counted).
	MaxDepth int
	// MaxComplexity bounds a query's cost, where every list field is
	// weighted by the rows it may return (see graph.Complexity).
	MaxComplexity int
	// MaxRootFields bounds the root fields (aliases included) of an operation.
	MaxRootFields int
	// MaxDocumentBytes bounds the size of the query document.
	MaxDocumentBytes int
	// MaxResponseFields and MaxResponseBytes bound what an operation's
	// answer may hold: the fields resolved (every object's and list
	// element's fields, introspection included) and the bytes of its data
	// (see budget.go).
	MaxResponseFields int
	MaxResponseBytes  int
	// RatePerSecond and RateBurst size the token bucket of each API key.
	RatePerSecond float64
	RateBurst     int
	// AuthFailuresPerSecond and AuthFailureBurst size the token bucket of
	// failed authentications per client address: each refused key takes a
	// token, and while none is left, requests from that address whose key
	// the key cache does not know are answered 429 without looking it up.
	AuthFailuresPerSecond float64
	AuthFailureBurst      int
	// RequestTimeout is each GraphQL request's deadline; its SQL is
	// cancelled when it passes.
	RequestTimeout time.Duration
}

// DefaultLimits: two nested pages of 100 (about 100 × 100 rows) stay well
// within MaxComplexity, three (a million rows) do not.
var DefaultLimits = Limits{
	MaxDepth:         12,
	MaxComplexity:    250_000,
	MaxRootFields:    20,
	MaxDocumentBytes: 32 << 10,
	// A page of 100 debts with 50 items each and ten fields apiece is
	// 50,000 fields; 100,000 keep one answer's memory below 300 MiB
	// (docs/reliability.md, the adversarial probes).
	MaxResponseFields: 100_000,
	MaxResponseBytes:  8 << 20,
	RatePerSecond:     50,
	RateBurst:         100,
	// A person mistyping a key, or a deployment with an old one, fails a
	// few times a second; guessing needs millions of tries.
	AuthFailuresPerSecond: 5,
	AuthFailureBurst:      30,
	RequestTimeout:        10 * time.Second,
}

// The codes of the limits.
const (
	codeTooDeep        apierr.Code = "QUERY_TOO_DEEP"
	codeTooComplex     apierr.Code = "QUERY_TOO_COMPLEX"
	codeTooWide        apierr.Code = "TOO_MANY_ROOT_FIELDS"
	codeTooLarge       apierr.Code = "DOCUMENT_TOO_LARGE"
	codeRateLimited    apierr.Code = "RATE_LIMITED"
	codeRequestTimeout apierr.Code = "REQUEST_TIMEOUT"
	statusRateLimited              = http.StatusTooManyRequests
)

// limitsExtension checks an operation's shape before it runs.
type limitsExtension struct {
	limits Limits
	schema graphql.ExecutableSchema
}

func (limitsExtension) ExtensionName() string { return "DebtQLLimits" }

func (l *limitsExtension) Validate(es graphql.ExecutableSchema) error {
	l.schema = es
	return nil
}

func (l *limitsExtension) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Operation
	if n := len(graphql.CollectFields(opCtx, op.SelectionSet, nil)); l.limits.MaxRootFields > 0 && n > l.limits.MaxRootFields {
		return limitError(codeTooWide, "the operation has %d root fields (aliases included); at most %d are allowed", n, l.limits.MaxRootFields)
	}
	if d := depth(opCtx.Doc, op.SelectionSet, map[string]bool{}); l.limits.MaxDepth > 0 && d > l.limits.MaxDepth {
		return limitError(codeTooDeep, "the query nests %d levels deep; at most %d are allowed", d, l.limits.MaxDepth)
	}
	if l.limits.MaxComplexity > 0 {
		c := complexity.Calculate(ctx, l.schema, op, opCtx.Variables)
		if c <= l.limits.MaxComplexity {
			c += introspectionCost(opCtx, l.schema.Schema(), l.limits.MaxComplexity-c)
		}
		if c > l.limits.MaxComplexity {
			return limitError(codeTooComplex, "the query could load about %d rows (its complexity, with each list weighted by its page size); at most %d are allowed: ask for smaller pages or fewer nested lists", c, l.limits.MaxComplexity)
		}
	}
	return nil
}

func limitError(code apierr.Code, format string, args ...any) *gqlerror.Error {
	e := gqlerror.Errorf(format, args...)
	e.Extensions = map[string]any{"code": string(code)}
	return e
}

// depth is how deeply a selection set nests, following fragments.
// Introspection fields count like any other, except the ofType chain of a
// type reference: its length is the type's wrappers (at most three in this
// schema: [T!]!), its cost is counted by introspectionCost, and the
// introspection query of GraphiQL and other tools nests it nine deep.
func depth(doc *ast.QueryDocument, set ast.SelectionSet, seen map[string]bool) int {
	deepest := 0
	for _, sel := range set {
		d := 0
		switch sel := sel.(type) {
		case *ast.Field:
			d = depth(doc, sel.SelectionSet, seen)
			if sel.Name != "ofType" || sel.ObjectDefinition == nil || sel.ObjectDefinition.Name != "__Type" {
				d++
			}
		case *ast.InlineFragment:
			d = depth(doc, sel.SelectionSet, seen)
		case *ast.FragmentSpread:
			if seen[sel.Name] {
				continue // validation refuses cycles; never loop on one
			}
			if f := doc.Fragments.ForName(sel.Name); f != nil {
				seen[sel.Name] = true
				d = depth(doc, f.SelectionSet, seen)
				delete(seen, sel.Name)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}

// rateLimiter keeps a token bucket per name (an API key, or an address).
type rateLimiter struct {
	perSecond rate.Limit
	burst     int
	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
}

func newRateLimiter(perSecond float64, burst int) *rateLimiter {
	if perSecond <= 0 {
		return nil
	}
	return &rateLimiter{perSecond: rate.Limit(perSecond), burst: max(burst, 1), buckets: map[string]*rate.Limiter{}}
}

// allow takes a token of key's bucket, or says how long to wait for one.
func (r *rateLimiter) allow(key string) (bool, time.Duration) {
	if r == nil {
		return true, 0
	}
	res := r.bucket(key).Reserve()
	if d := res.Delay(); d > 0 {
		res.Cancel()
		return false, d
	}
	return true, 0
}

// maxBuckets bounds the buckets a limiter keeps: beyond it, the full ones
// (which behave as new ones) are dropped, and then buckets at random down
// to half, so that many names (addresses) cannot grow the map without end.
const maxBuckets = 10_000

func (r *rateLimiter) bucket(key string) *rate.Limiter {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.buckets[key]
	if !ok {
		if len(r.buckets) >= maxBuckets {
			now := time.Now()
			for k, old := range r.buckets {
				if old.TokensAt(now) >= float64(r.burst) {
					delete(r.buckets, k)
				}
			}
			// Names sprayed faster than buckets refill (every bucket still
			// spent): drop half at random, so that the scan above runs
			// once per maxBuckets/2 new names, not once per name.
			for k := range r.buckets {
				if len(r.buckets) < maxBuckets/2 {
					break
				}
				delete(r.buckets, k)
			}
		}
		b = rate.NewLimiter(r.perSecond, r.burst)
		r.buckets[key] = b
	}
	return b
}

// exhausted reports whether key's bucket has no token left, without taking
// one, and how long until it has.
func (r *rateLimiter) exhausted(key string) (bool, time.Duration) {
	if r == nil {
		return false, 0
	}
	b := r.bucket(key)
	if tokens := b.Tokens(); tokens < 1 {
		return true, time.Duration((1 - tokens) / float64(r.perSecond) * float64(time.Second))
	}
	return false, 0
}

// take takes a token of key's bucket, if one is left.
func (r *rateLimiter) take(key string) {
	if r != nil {
		r.bucket(key).Allow()
	}
}

// retryAfter is a Retry-After value: whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(int(math.Max(1, math.Ceil(d.Seconds()))))
}
