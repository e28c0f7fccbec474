package server

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/debtql/debtql/internal/apierr"
)

// The limits check an operation's shape before it runs; the budget bounds
// what it really builds. A list without paging (a debt's items and
// payments, an item's payments, an invoice's articles, introspection's
// types and fields) is costed by a typical length before the operation
// runs, but its real length is the data's: the budget counts every field
// of the answer as it is resolved, with a lower bound of the bytes it will
// take, and ends the operation with one RESPONSE_TOO_LARGE error when
// either passes its limit. The same count checks the request's deadline,
// so that an answer still being built stops when the deadline passes.

const codeTooLargeResponse apierr.Code = "RESPONSE_TOO_LARGE"

// fieldBytes is the least an answered field adds to the body: its key's
// quotes and colon, a separator and a short value.
const fieldBytes = 6

// deadlineEvery is how many fields are resolved between two looks at the
// deadline.
const deadlineEvery = 64

// budget is one operation's allowance of fields and bytes.
type budget struct {
	maxFields, maxBytes int64
	fields, bytes       atomic.Int64
	// resolved counts the fields resolved, charged or not, for the looks
	// at the deadline.
	resolved atomic.Int64
	exceeded atomic.Bool
	weights  sync.Map // *ast.Selection → int64
}

type budgetKey struct{}

func withBudget(ctx context.Context, l Limits) context.Context {
	if l.MaxResponseFields <= 0 && l.MaxResponseBytes <= 0 {
		return ctx
	}
	return context.WithValue(ctx, budgetKey{}, &budget{maxFields: int64(l.MaxResponseFields), maxBytes: int64(l.MaxResponseBytes)})
}

// withoutBudget lifts the budget of an operation whose answer must not be
// refused (a payment committed before its answer is built).
func withoutBudget(ctx context.Context) context.Context {
	return context.WithValue(ctx, budgetKey{}, (*budget)(nil))
}

func budgetFrom(ctx context.Context) *budget {
	b, _ := ctx.Value(budgetKey{}).(*budget)
	return b
}

// errOverBudget is what every field answers once the budget is spent. It
// is one shared error with its path and locations already set, so that
// gqlgen adds it to the response without copying or changing it (many
// fields may answer it before the operation ends), and the presenter passes
// it through; responseLimit then replaces the response with a fresh error.
var errOverBudget = &gqlerror.Error{
	Message:    "the answer is larger than the response limits",
	Path:       ast.Path{},
	Locations:  []gqlerror.Location{},
	Extensions: map[string]any{"code": string(codeTooLargeResponse)},
}

// overBudget spends the operation's budget (the planned path's answer grew
// beyond the byte limit) and answers errOverBudget: responseLimit then
// replaces the response.
func overBudget(ctx context.Context) error {
	if b := budgetFrom(ctx); b != nil {
		b.exceeded.Store(true)
	}
	return errOverBudget
}

// spend charges n fields of b bytes, and reports whether the budget still
// holds.
func (b *budget) spend(n, bytes int64) bool {
	f := b.fields.Add(n)
	total := b.bytes.Add(bytes)
	if (b.maxFields > 0 && f > b.maxFields) || (b.maxBytes > 0 && total > b.maxBytes) {
		b.exceeded.Store(true)
	}
	return !b.exceeded.Load()
}

// weight is what one element of a list with the selection costs: its
// fields at every depth (fragments followed, a nested list's elements
// counted once; that list is charged its real length when it arrives).
// Remembered per selection: every list of the operation asks again.
func (b *budget) weight(set ast.SelectionSet) int64 {
	if len(set) == 0 {
		return 1
	}
	key := &set[0]
	if w, ok := b.weights.Load(key); ok {
		return w.(int64)
	}
	w := max(selectionWeight(set, 0), 1)
	b.weights.Store(key, w)
	return w
}

// selectionWeight counts the fields of a selection at every depth, up to
// a depth no valid operation reaches (validation refuses fragment cycles).
func selectionWeight(set ast.SelectionSet, depth int) int64 {
	if depth > 64 {
		return 0
	}
	var w int64
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			w += 1 + selectionWeight(sel.SelectionSet, depth+1)
		case *ast.InlineFragment:
			w += selectionWeight(sel.SelectionSet, depth+1)
		case *ast.FragmentSpread:
			if sel.Definition != nil {
				w += selectionWeight(sel.Definition.SelectionSet, depth+1)
			}
		}
	}
	return w
}

// resolveField is the field middleware of every operation: it charges the
// budget, looks at the deadline, and spreads a list of input errors (one
// per field) into the response.
//
// A list is charged for its elements' fields as soon as its length is
// known, before any element is built, so that a list too long for what is
// left is refused whole; the fields of its elements are then not charged
// again.
func resolveField(ctx context.Context, next graphql.Resolver) (any, error) {
	b := budgetFrom(ctx)
	if b == nil {
		return listErrors(ctx, next)
	}
	if b.exceeded.Load() {
		return nil, errOverBudget
	}
	fc := graphql.GetFieldContext(ctx)
	var fields int64 = 1
	if fc != nil && fc.Parent != nil && fc.Parent.Index != nil {
		fields = 0 // charged with its list
	}
	if !b.spend(fields, fieldBytes) {
		return nil, errOverBudget
	}
	if b.resolved.Add(1)%deadlineEvery == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	res, err := listErrors(ctx, next)
	if err != nil || res == nil {
		return res, err
	}
	switch v := res.(type) {
	case string:
		b.spend(0, int64(len(v)))
	case *string:
		if v != nil {
			b.spend(0, int64(len(*v)))
		}
	case graphql.Marshaler:
		// An answer already written (the planned path's page), whose bytes
		// responseLimit counts with the rest.
	default:
		if fc == nil || len(fc.Field.Selections) == 0 {
			break
		}
		if rv := reflect.ValueOf(res); rv.Kind() == reflect.Slice {
			n := int64(rv.Len())
			w := b.weight(fc.Field.Selections)
			if !b.spend(n*w, n*w*fieldBytes) {
				return nil, errOverBudget
			}
		}
	}
	return res, nil
}

// responseLimit is the innermost response interceptor: an operation that
// spent its budget, or whose answer came out larger than MaxResponseBytes,
// answers one RESPONSE_TOO_LARGE error and no data. Being inside the
// transaction's interceptor, a mutation answered so is rolled back.
type responseLimit struct{ limits Limits }

func (responseLimit) ExtensionName() string                     { return "DebtQLResponseLimit" }
func (responseLimit) Validate(_ graphql.ExecutableSchema) error { return nil }

func (r responseLimit) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil {
		return nil
	}
	b := budgetFrom(ctx)
	if b == nil {
		return resp
	}
	over := b.exceeded.Load()
	if max := r.limits.MaxResponseBytes; max > 0 && len(resp.Data) > max {
		over = true
	}
	if !over {
		return resp
	}
	return &graphql.Response{Errors: gqlerror.List{tooLargeError(r.limits)}}
}

// tooLargeError answers an operation whose answer passed the limits.
func tooLargeError(l Limits) *gqlerror.Error {
	return limitError(codeTooLargeResponse,
		"the answer is larger than the response limits (%d fields, %d bytes): ask for smaller pages, fewer fields or fewer nested lists",
		l.MaxResponseFields, l.MaxResponseBytes)
}
