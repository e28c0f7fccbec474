package collection

import (
	"strconv"
	"strings"

	"github.com/debtql/debtql/internal/apierr"
)

// fieldCheck collects the input errors of one record, each with its field
// path, so that a caller learns every broken rule at once.
type fieldCheck struct{ errs apierr.List }

// required trims *s in place and checks that it holds a non-blank character
// and at most max characters.
func (c *fieldCheck) required(field string, s *string, max int) bool {
	*s = strings.TrimSpace(*s)
	if Blank(*s) {
		c.errs.Add(field, "is required and must not be blank")
		return false
	}
	return c.length(field, *s, max)
}

// optional trims *s in place when it is set; a blank value becomes unset, so
// that "omitted" and "empty" are stored alike.
func (c *fieldCheck) optional(field string, s **string, max int) bool {
	if *s == nil {
		return true
	}
	v := strings.TrimSpace(**s)
	if v == "" {
		*s = nil
		return true
	}
	*s = &v
	return c.length(field, v, max)
}

func (c *fieldCheck) length(field, s string, max int) bool {
	if !CheckLength(s, max) {
		c.errs.Add(field, "must be at most %d characters", max)
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
}

func (c *fieldCheck) percent(field string, r Rate) {
	if r < zeroPercent || r > hundredPercent {
		c.errs.Add(field, "must be a percentage from 0 to 100")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
