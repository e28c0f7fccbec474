package collection_test

import (
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/collection"
)

func TestValidEmail(t *testing.T) {
	long := func(total int) string { // a valid-looking address of total bytes
		domain := "@example.se"
		return strings.Repeat("a", 60) + "." + strings.Repeat("b", total-61-len(domain)) + domain
	}
	tests := []struct {
		in   string
		want bool
	}{
		{"anna@example.se", true},
		{"Anna.Svensson@Example.SE", true},
		{"anna+invoices@example.co.uk", true},
		{"a@b.se", true},
		{"first.last@sub.domain.example", true},
		{"o'brien@example.com", true},
		{"anna_svensson-1@example-domain.se", true},
		{"user@xn--rksmrgs-5wao1o.se", true},
		{" anna@example.se ", true}, // trimmed
		{long(254), true},

		{long(255), false},
		{"", false},
		{"   ", false},
		{"anna", false},
		{"anna@", false},
		{"@example.se", false},
		{"anna@localhost", false}, // no dot in the domain
		{"anna@example", false},
		{"anna@@example.se", false},
		{"anna@exa mple.se", false},
		{"an na@example.se", false},
		{"anna@example..se", false},
		{"anna@.example.se", false},
		{"anna@example.se.", false},
		{".anna@example.se", false},
		{"anna.@example.se", false},
		{"an..na@example.se", false},
		{"Anna <anna@example.se>", false},
		{"<anna@example.se>", false},
		{`"Anna" <anna@example.se>`, false},
		{"anna@example.se (Anna)", false},
		{"(Anna)anna@example.se", false},
		{`"anna svensson"@example.se`, false},
		{"anna@[192.0.2.1]", false},
		{"anna@example.se, bo@example.se", false},
		{"anna@example.se\nbo@example.se", false},
		{"anna@exam\x00ple.se", false},
	}
	for _, tt := range tests {
		if got := collection.ValidEmail(tt.in); got != tt.want {
			t.Errorf("ValidEmail(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
