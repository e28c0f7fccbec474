// Package collection holds the domain rules of DebtQL as plain functions:
// exact money and rate values, Swedish identifiers (personnummer,
// samordningsnummer, organisationsnummer, Bankgiro, Plusgiro), ISO 3166-1
// country codes, e-mail addresses and string limits.
//
// The package has no knowledge of HTTP, GraphQL or the database layer, so
// every rule can be used, and tested, on its own.
//
// Errors returned by the parse and validate functions have an Error text
// fit to show to an API client (for example "must have at most 2
// decimals") and wrap a sentinel error (ErrTooManyDecimals,
// ErrInvalidCheckDigit, ...) that callers can test with errors.Is.
package collection

// ruleError is an error whose text is a client-facing message and which
// unwraps to a sentinel error naming the kind of rule broken.
type ruleError struct {
	kind error
	msg  string
}

func (e *ruleError) Error() string { return e.msg }

func (e *ruleError) Unwrap() error { return e.kind }

func newRuleError(kind error, msg string) error {
	return &ruleError{kind: kind, msg: msg}
}
