package store

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPrefixEnd: [k, prefixEnd(k)) in byte order holds exactly the strings
// that start with k.
func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct {
		k, end string
		ok     bool
	}{
		{"ander", "andes", true},
		{"a", "b", true},
		{"ö", "÷", true},
		{"sven ek", "sven el", true},
		{"a\U0010FFFF", "b", true},           // the last rune has no successor: carry
		{"a\U0010FFFF\U0010FFFF", "b", true}, // twice
		{"\U0010FFFF", "", false},            // nothing above every string with this prefix
		{"", "", false},                      // every string starts with ""
		{"x\uD7FF", "x\uE000", true},         // past the surrogates
		{"%_", "%`", true},                   // pattern characters are plain bytes here
	} {
		end, ok := prefixEnd(tc.k)
		if end != tc.end || ok != tc.ok {
			t.Errorf("prefixEnd(%q) = %q, %v; want %q, %v", tc.k, end, ok, tc.end, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if !utf8.ValidString(end) {
			t.Errorf("prefixEnd(%q) = %q is not UTF-8", tc.k, end)
		}
		// Strings with the prefix are inside the range, their neighbours
		// without it outside.
		for _, s := range []string{tc.k, tc.k + "a", tc.k + "\U0010FFFF", tc.k + "öööö", tc.k + "\x00"} {
			if !(s >= tc.k && s < end) {
				t.Errorf("prefixEnd(%q): %q starts with it but is outside [%q, %q)", tc.k, s, tc.k, end)
			}
		}
		if end >= tc.k && strings.HasPrefix(end, tc.k) {
			t.Errorf("prefixEnd(%q) = %q starts with it", tc.k, end)
		}
	}
}
