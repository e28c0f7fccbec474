package scalar_test

import (
	"bytes"
	"io"
	"testing"
)

// marshaler is what gqlgen's graphql.Marshaler and the MarshalGQL methods of
// the scalar types have in common.
type marshaler interface {
	MarshalGQL(w io.Writer)
}

// marshal returns what m writes on the wire.
func marshal(t *testing.T, m marshaler) string {
	t.Helper()
	var buf bytes.Buffer
	m.MarshalGQL(&buf)
	return buf.String()
}
