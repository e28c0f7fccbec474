package collection

import (
	"strconv"
	"strings"

	"github.com/debtql/debtql/internal/apierr"
)

// fieldCheck collects the input errors of one record, each with its field
// path, so that a caller learns every broken rule at once.
type fieldCheck struct{ errs apierr.List }

// required trims *s in place and checks that it holds a non-blank character,
// is a single line of valid text (CheckText) and has at most max
// characters.
func (c *fieldCheck) required(field string, s *string, max int) bool {
	*s = strings.TrimSpace(*s)
	if Blank(*s) {
		c.errs.Add(field, "is required and must not be blank")
		return false
	}
	return c.text(field, *s, max, false)
}

// optional trims *s in place when it is set; a blank value becomes unset, so
// that "omitted" and "empty" are stored alike. A value must be a single line
// of valid text with at most max characters.
func (c *fieldCheck) optional(field string, s **string, max int) bool {
	return c.optionalText(field, s, max, false)
}

// freeText is optional for free text (descriptions): tabs and line breaks
// are allowed, up to MaxTextLength characters.
func (c *fieldCheck) freeText(field string, s **string) bool {
	return c.optionalText(field, s, MaxTextLength, true)
}

func (c *fieldCheck) optionalText(field string, s **string, max int, multiline bool) bool {
	if *s == nil {
		return true
	}
	v := strings.TrimSpace(**s)
	if v == "" {
		*s = nil
		return true
	}
	*s = &v
	return c.text(field, v, max, multiline)
}

// text applies the text rule and the length limit (CheckField).
func (c *fieldCheck) text(field, s string, max int, multiline bool) bool {
	if e := CheckField(field, s, max, multiline); e != nil {
		c.errs = append(c.errs, e)
		return false
	}
	return true
}

// country upper-cases *s when it is an ISO 3166-1 alpha-2 code.
func (c *fieldCheck) country(field string, s *string) {
	code, ok := ValidCountryCode(*s)
	if !ok {
		c.errs.Add(field, "must be an ISO 3166-1 alpha-2 country code, such as SE")
		return
	}
	*s = code
}

func (c *fieldCheck) email(field, s string) {
	if !ValidEmail(s) {
		c.errs.Add(field, "must be an e-mail address, such as name@example.se")
	}
}

// rule records err, the verdict of a validator, on field.
func (c *fieldCheck) rule(field string, err error) {
	if err != nil {
		c.errs.Add(field, "%s", err.Error())
	}
}

func (c *fieldCheck) err() error { return c.errs.Err() }

func (c *fieldCheck) nonNegative(field string, m Money) {
	if m < 0 {
		c.errs.Add(field, "must be 0 or more")
	}
	c.ceiling(field, m)
}

// amount checks an amount that must be above 0 and within the ceiling.
func (c *fieldCheck) amount(field string, m Money) {
	if m <= 0 {
		c.errs.Add(field, "must be more than 0")
	}
	c.ceiling(field, m)
}

// ceiling refuses an amount above MaxAmount. The API's Decimal never
// holds one (it has at most 15 integer digits); records made in Go may.
func (c *fieldCheck) ceiling(field string, m Money) {
	if m > MaxAmount {
		c.errs.Add(field, "must be at most %s", MaxAmount)
	}
}

func (c *fieldCheck) percent(field string, r Rate) {
	if r < zeroPercent || r > hundredPercent {
		c.errs.Add(field, "must be a percentage from 0 to 100")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
