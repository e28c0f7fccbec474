package collection_test

import (
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/collection"
)

func TestBlank(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", true},
		{" ", true},
		{"\t\n\r\v\f ", true},
		{"\u00a0", true},       // no-break space
		{"\u2003\u3000", true}, // em space, ideographic space
		{"\u0085", true},       // next line
		{"a", false},
		{" a ", false},
		{".", false},
		{"\u200b", false}, // zero width space is not unicode.IsSpace
		{"\x00", false},
	}
	for _, tt := range tests {
		if got := collection.Blank(tt.in); got != tt.want {
			t.Errorf("Blank(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestCheckLength(t *testing.T) {
	if collection.MaxStringLength != 255 || collection.MaxTextLength != 2000 {
		t.Fatalf("limits = %d, %d", collection.MaxStringLength, collection.MaxTextLength)
	}
	tests := []struct {
		name string
		in   string
		max  int
		want bool
	}{
		{"empty", "", collection.MaxStringLength, true},
		{"255 ascii", strings.Repeat("a", 255), collection.MaxStringLength, true},
		{"256 ascii", strings.Repeat("a", 256), collection.MaxStringLength, false},
		{"255 å (510 bytes)", strings.Repeat("å", 255), collection.MaxStringLength, true},
		{"256 å", strings.Repeat("å", 256), collection.MaxStringLength, false},
		{"255 emoji", strings.Repeat("😀", 255), collection.MaxStringLength, true},
		{"2000 ö", strings.Repeat("ö", 2000), collection.MaxTextLength, true},
		{"2001 ö", strings.Repeat("ö", 2001), collection.MaxTextLength, false},
		{"invalid utf-8 bytes count one each", strings.Repeat("\xff", 3), 3, true},
		{"invalid utf-8 over", strings.Repeat("\xff", 4), 3, false},
		{"zero max", "a", 0, false},
	}
	for _, tt := range tests {
		if got := collection.CheckLength(tt.in, tt.max); got != tt.want {
			t.Errorf("%s: CheckLength = %v, want %v", tt.name, got, tt.want)
		}
	}
}
