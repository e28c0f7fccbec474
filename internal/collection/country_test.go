package collection_test

import (
	"slices"
	"testing"

	"github.com/debtql/debtql/internal/collection"
)

func TestValidCountryCode(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{"se", "SE", true},
		{"SE", "SE", true},
		{"Se", "SE", true},
		{"sE", "SE", true},
		{" se ", "SE", true},
		{"\tno\n", "NO", true},
		{"us", "US", true},
		{"GB", "GB", true},
		{"AX", "AX", true},
		{"ZW", "ZW", true},
		{"AD", "AD", true},
		{"SS", "SS", true}, // South Sudan, 2011
		{"BQ", "BQ", true},
		{"CW", "CW", true},
		{"SX", "SX", true},

		{"UK", "", false}, // exceptionally reserved
		{"EU", "", false},
		{"EL", "", false},
		{"XK", "", false}, // user-assigned (Kosovo)
		{"AA", "", false},
		{"ZZ", "", false},
		{"QM", "", false},
		{"XX", "", false},
		{"AN", "", false}, // transitionally reserved (Netherlands Antilles)
		{"YU", "", false},
		{"CS", "", false},
		{"S", "", false},
		{"SWE", "", false},
		{"", "", false},
		{"  ", "", false},
		{"S E", "", false},
		{"s\u00e9", "", false},
		{"12", "", false},
	}
	for _, tt := range tests {
		got, ok := collection.ValidCountryCode(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ValidCountryCode(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestCountryCodes(t *testing.T) {
	codes := collection.CountryCodes()
	if len(codes) != 249 {
		t.Fatalf("len(CountryCodes()) = %d, want 249", len(codes))
	}
	if !slices.IsSorted(codes) {
		t.Error("CountryCodes() is not sorted")
	}
	if len(slices.Compact(slices.Clone(codes))) != len(codes) {
		t.Error("CountryCodes() has duplicates")
	}
	for _, c := range codes {
		if len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' {
			t.Errorf("bad code %q", c)
		}
		if got, ok := collection.ValidCountryCode(c); !ok || got != c {
			t.Errorf("ValidCountryCode(%q) = %q, %v", c, got, ok)
		}
	}
	// Every code the list does not hold is refused.
	n := 0
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			if _, ok := collection.ValidCountryCode(string([]rune{a, b})); ok {
				n++
			}
		}
	}
	if n != 249 {
		t.Errorf("%d of the 676 two-letter codes are accepted, want 249", n)
	}
}
