package graph_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/debtql/debtql/graph"
)

func TestUnmarshalString(t *testing.T) {
	for _, in := range []any{"Anna", "a\nb\tc\r", "", json.Number("12")} {
		s, err := graph.UnmarshalString(in)
		if err != nil {
			t.Errorf("UnmarshalString(%#v) = %v", in, err)
		}
		if want, _ := in.(string); want != "" && s != want {
			t.Errorf("UnmarshalString(%#v) = %q", in, s)
		}
	}
	for _, in := range []any{"a\x00b", "\u0085", "\uffff", "\ufdd0", "\xff", []string{"a"}} {
		if s, err := graph.UnmarshalString(in); err == nil {
			t.Errorf("UnmarshalString(%#v) = %q, want an error", in, s)
		}
	}
	var b strings.Builder
	graph.MarshalString("a\"\n\x00").MarshalGQL(&b)
	if got := b.String(); got != `"a\"\n\u0000"` {
		t.Errorf("MarshalString wrote %s", got)
	}
}
