package collection

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/debtql/debtql/internal/apierr"
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

// CheckText is the text rule of every string DebtQL accepts (decisions.md,
// "Text"): s must be valid UTF-8 and hold no control character (C0 but for
// TAB, LF and CR; DEL; C1, U+0080–U+009F) and no Unicode noncharacter
// (U+FDD0–U+FDEF, and U+xxFFFE and U+xxFFFF in every plane). TAB, LF and CR
// are allowed only when multiline is true: in free text (descriptions and
// comments); every other field is a single line. The error names the first
// offending character as U+XXXX and its position, counted in characters
// from 1, and reads after a field name ("name: must not contain ...").
func CheckText(s string, multiline bool) error {
	pos := 0
	for i := 0; i < len(s); {
		pos++
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == '\t' || c == '\n' || c == '\r':
				if !multiline {
					return textError(rune(c), pos, multiline)
				}
			case c < 0x20 || c == 0x7f:
				return textError(rune(c), pos, multiline)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Errorf("must be valid UTF-8: the byte 0x%02X at character %d is not", c, pos)
		}
		i += size
		if r <= 0x9f || isNoncharacter(r) {
			return textError(r, pos, multiline)
		}
	}
	return nil
}

// isNoncharacter reports whether r is one of Unicode's 66 noncharacters.
func isNoncharacter(r rune) bool {
	return (r >= 0xFDD0 && r <= 0xFDEF) || r&0xFFFE == 0xFFFE
}

func textError(r rune, pos int, multiline bool) error {
	var what string
	switch {
	case r == '\t':
		what = "a tab"
	case r == '\n' || r == '\r':
		what = "a line break"
	case isNoncharacter(r):
		what = "a Unicode noncharacter"
	default:
		what = "a control character"
	}
	msg := fmt.Sprintf("must not contain U+%04X (%s) at character %d", r, what, pos)
	if (r == '\t' || r == '\n' || r == '\r') && !multiline {
		msg += ": only descriptions and comments may hold tabs and line breaks"
	}
	return fmt.Errorf("%s", msg)
}

// CheckField applies the text rule (CheckText) and the length limit max to
// the value s of field, and returns the first rule it breaks as a
// BAD_USER_INPUT error on field, or nil. multiline is true only for free
// text (descriptions and comments).
func CheckField(field, s string, max int, multiline bool) *apierr.Error {
	if err := CheckText(s, multiline); err != nil {
		return apierr.Invalid(field, "%s", err.Error())
	}
	if !CheckLength(s, max) {
		return apierr.Invalid(field, "must be at most %d characters", max)
	}
	return nil
}

// Comment is a withdrawal's comment as it is kept: trimmed; blank is none;
// free text (tabs and line breaks allowed) of at most MaxTextLength
// characters, else BAD_USER_INPUT on field.
func Comment(comment *string, field string) (*string, error) {
	if comment == nil {
		return nil, nil
	}
	c := strings.TrimSpace(*comment)
	if c == "" {
		return nil, nil
	}
	if e := CheckField(field, c, MaxTextLength, true); e != nil {
		return nil, e
	}
	return &c, nil
}
