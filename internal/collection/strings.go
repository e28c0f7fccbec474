package collection

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// String length limits of the API, in characters (runes).
const (
	// MaxStringLength is the limit of every string input field.
	MaxStringLength = 255
	// MaxTextLength is the limit of description and comment fields.
	MaxTextLength = 2000
)

// Blank reports whether s is empty or holds only white space
// (unicode.IsSpace).
func Blank(s string) bool {
	return strings.TrimFunc(s, unicode.IsSpace) == ""
}

// CheckLength reports whether s has at most max characters, counting
// runes (an invalid UTF-8 byte counts as one).
func CheckLength(s string, max int) bool {
	return utf8.RuneCountInString(s) <= max
}
