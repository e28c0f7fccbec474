// Package apierr classifies the ways a request can be refused (api.md §9).
// The domain rules, the authorization checks and the resolvers return these
// errors; the server turns a code into an HTTP status in one place. Nothing
// here knows HTTP or GraphQL.
package apierr

import (
	"errors"
	"fmt"
	"strings"
)

// Code is the stable error code a caller reads from extensions.code.
type Code string

// The codes of api.md §9.
const (
	BadUserInput    Code = "BAD_USER_INPUT"
	Unauthenticated Code = "UNAUTHENTICATED"
	Forbidden       Code = "FORBIDDEN"
	NotFound        Code = "NOT_FOUND"
	Conflict        Code = "CONFLICT"
	Internal        Code = "INTERNAL"
)

// Error is a refusal with a code, a message for a person and, for input
// errors, the path of the offending argument (e.g. "input.address.zipCode").
type Error struct {
	Code    Code
	Message string
	Field   string
}

func (e *Error) Error() string {
	if e.Field != "" {
		return e.Field + ": " + e.Message
	}
	return e.Message
}

// Invalid is a BAD_USER_INPUT error on field.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Code: BadUserInput, Field: field, Message: fmt.Sprintf(format, args...)}
}

// New returns an error with code and a message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// SchemaNotServed refuses the schema (introspection, the schema download,
// federation's _service) on a server whose introspection is turned off.
func SchemaNotServed() *Error {
	return New(NotFound, "the schema is not served: introspection is turned off on this server")
}

// List holds several refusals of one request, such as every invalid field of
// an input; callers get them all at once.
type List []*Error

func (l List) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Add appends a BAD_USER_INPUT error on field.
func (l *List) Add(field, format string, args ...any) {
	*l = append(*l, Invalid(field, format, args...))
}

// Err returns the list as an error, or nil when it is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Prefix returns the errors with prefix prepended to their field paths, so
// that rules can name fields relative to the input they check.
func Prefix(err error, prefix string) error {
	var list List
	var one *Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = List{one}
	default:
		return err
	}
	out := make(List, len(list))
	for i, e := range list {
		c := *e
		if c.Field != "" {
			c.Field = prefix + "." + c.Field
		} else if c.Code == BadUserInput {
			c.Field = prefix
		}
		out[i] = &c
	}
	return out
}

// CodeOf returns the code of err, Internal for an unclassified error.
func CodeOf(err error) Code {
	var list List
	if errors.As(err, &list) && len(list) > 0 {
		return list[0].Code
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}
