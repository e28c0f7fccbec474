package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/store"
)

// statusOf is the one place where an error code becomes an HTTP status
// (api.md §9).
func statusOf(code apierr.Code) int {
	switch code {
	case apierr.BadUserInput:
		return http.StatusBadRequest
	case apierr.Unauthenticated:
		return http.StatusUnauthorized
	case apierr.Forbidden:
		return http.StatusForbidden
	case apierr.NotFound:
		return http.StatusNotFound
	case apierr.Conflict:
		return http.StatusConflict
	case codeServiceUnavailable:
		return http.StatusServiceUnavailable
	case codeRateLimited:
		return statusRateLimited
	case codeRequestTimeout:
		return http.StatusRequestTimeout
	case codeTooDeep, codeTooComplex, codeTooWide, codeTooLarge, codeTooLargeResponse:
		return http.StatusBadRequest
	default:
		return http.StatusInternalServerError
	}
}

// codeServiceUnavailable answers a request that could not get a database
// connection, whose database went away, or whose deadline passed: try
// again later.
const codeServiceUnavailable apierr.Code = "SERVICE_UNAVAILABLE"

// gqlError builds the GraphQL form of a refusal.
func gqlError(e *apierr.Error, path ast.Path) *gqlerror.Error {
	ext := map[string]any{"code": string(e.Code)}
	if e.Field != "" {
		ext["field"] = e.Field
	}
	return &gqlerror.Error{Message: e.Message, Path: path, Extensions: ext, Err: e}
}

// codeOfGQL reads the code the presenter put on a GraphQL error.
func codeOfGQL(e *gqlerror.Error) apierr.Code {
	if c, ok := e.Extensions["code"].(string); ok {
		return apierr.Code(c)
	}
	return apierr.Internal
}

// presenter turns every error a resolver or the executor reports into the
// contract's shape: a code, a message for a person and, for input, the
// argument path in extensions.field. Unexpected errors are logged with the
// request id and answered INTERNAL, with nothing of their text.
func (s *Server) presenter(ctx context.Context, err error) *gqlerror.Error {
	if err == error(errOverBudget) {
		return errOverBudget // shared: see budget.go
	}
	var (
		gErr      *gqlerror.Error
		path      ast.Path
		fieldPath ast.Path
	)
	if errors.As(err, &gErr) {
		path = gErr.Path
	}
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		fieldPath = fc.Path()
	}
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return gqlError(ae, fieldPathOr(path, fieldPath))
	}
	// An argument that does not coerce (a bad UUID, Decimal, enum value...)
	// reports a path that runs from the field into its arguments.
	if len(path) > len(fieldPath) && hasPrefix(path, fieldPath) {
		msg := err.Error()
		if gErr != nil {
			msg = gErr.Message
			if gErr.Err != nil {
				msg = gErr.Err.Error()
			}
		}
		field := pathString(path[len(fieldPath):])
		return gqlError(apierr.Invalid(field, "%s", inputMessage(msg)), fieldPath)
	}
	switch {
	case introspectionOff(ctx, err):
		// gqlgen's own refusal of __schema and __type, as the schema
		// download and _service refuse it.
		return gqlError(apierr.SchemaNotServed(), fieldPath)
	case ent.IsNotFound(err):
		return gqlError(apierr.New(apierr.NotFound, "not found"), fieldPath)
	case ent.IsConstraintError(err):
		// A uniqueness rule the resolver did not name: still a conflict
		// with an existing record, never an internal error.
		s.log.WarnContext(ctx, "unmapped constraint error", "error", err.Error())
		return gqlError(apierr.New(apierr.Conflict, "the change conflicts with an existing record"), fieldPath)
	case errors.Is(err, context.DeadlineExceeded), ctx.Err() != nil:
		// The deadline passed, or the caller went away.
		return gqlError(&apierr.Error{Code: codeServiceUnavailable, Message: "the service is busy; try again shortly"}, fieldPath)
	case store.Unavailable(err):
		s.log.WarnContext(ctx, "database unavailable", "error", err.Error())
		return gqlError(&apierr.Error{Code: codeServiceUnavailable, Message: "the database cannot be reached; try again shortly"}, fieldPath)
	}
	s.log.ErrorContext(ctx, "internal error", "error", err.Error(), "path", pathString(fieldPath))
	return gqlError(apierr.New(apierr.Internal, "internal error; the request id in the X-Request-Id header identifies it in the server log"), fieldPath)
}

// introspectionOff reports whether err is gqlgen's answer to __schema or
// __type when introspection is turned off (an error of its own text only).
func introspectionOff(ctx context.Context, err error) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || (fc.Field.Name != "__schema" && fc.Field.Name != "__type") {
		return false
	}
	// gqlgen wraps it with the field's location.
	for errors.Unwrap(err) != nil {
		err = errors.Unwrap(err)
	}
	return err.Error() == "introspection disabled"
}

func fieldPathOr(path, fieldPath ast.Path) ast.Path {
	if fieldPath != nil {
		return fieldPath
	}
	return path
}

// inputMessage cleans gqlgen's wording of a coercion error.
func inputMessage(msg string) string {
	msg = strings.TrimPrefix(msg, "input: ")
	return msg
}

func hasPrefix(path, prefix ast.Path) bool {
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}

// pathString writes a path as api.md writes fields: input.debts.2.amount.
func pathString(p ast.Path) string {
	parts := make([]string, len(p))
	for i, e := range p {
		switch e := e.(type) {
		case ast.PathName:
			parts[i] = string(e)
		case ast.PathIndex:
			parts[i] = strconv.Itoa(int(e))
		default:
			parts[i] = fmt.Sprint(e)
		}
	}
	return strings.Join(parts, ".")
}

// recoverFunc turns a panic in a resolver into an INTERNAL error, logged
// with its stack.
func (s *Server) recoverFunc(ctx context.Context, p any) error {
	s.log.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	return apierr.New(apierr.Internal, "internal error; the request id in the X-Request-Id header identifies it in the server log")
}

// listErrors is a field middleware that reports every entry of an
// apierr.List (all invalid fields of an input) as an error of its own.
func listErrors(ctx context.Context, next graphql.Resolver) (any, error) {
	res, err := next(ctx)
	var list apierr.List
	if err != nil && errors.As(err, &list) {
		out := make(gqlerror.List, len(list))
		for i, e := range list {
			out[i] = &gqlerror.Error{Message: e.Message, Err: e}
		}
		return res, out
	}
	return res, err
}

// errorCodes lists the codes of a response's errors, for the request log.
func errorCodes(errs gqlerror.List) []string {
	codes := make([]string, 0, len(errs))
	for _, e := range errs {
		codes = append(codes, string(codeOfGQL(e)))
	}
	return codes
}
