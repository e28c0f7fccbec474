package graph

import (
	"github.com/99designs/gqlgen/graphql"

	"github.com/debtql/debtql/internal/collection"
)

// The GraphQL String scalar is bound here (gqlgen.yml), so that every
// String argument and input field, in variables or written in the document,
// passes the text rule before a resolver sees it.

// MarshalString writes a String as gqlgen does.
func MarshalString(s string) graphql.Marshaler { return graphql.MarshalString(s) }

// UnmarshalString reads a String input as gqlgen does and refuses what no
// field may hold (collection.CheckText in its multi-line form: invalid UTF-8, control
// characters other than TAB, LF and CR, noncharacters). Whether a field
// may hold tabs and line breaks is its validator's decision.
func UnmarshalString(v any) (string, error) {
	s, err := graphql.UnmarshalString(v)
	if err != nil {
		return "", err
	}
	if err := collection.CheckText(s, true); err != nil {
		return "", err
	}
	return s, nil
}
