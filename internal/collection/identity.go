package collection

import (
	"errors"
	"strings"
)

// Sentinel errors of the identifier validators. The errors returned wrap
// one of them; their own text describes the rule broken.
var (
	// ErrInvalidFormat: wrong characters, wrong number of digits or a
	// misplaced separator.
	ErrInvalidFormat = errors.New("invalid format")
	// ErrInvalidDate: the date part of a personnummer or samordningsnummer
	// is not a calendar date, or the century is not 18, 19 or 20.
	ErrInvalidDate = errors.New("invalid date")
	// ErrInvalidBirthNumber: the birth number (digits 7–9 of the 10-digit
	// form) is 000.
	ErrInvalidBirthNumber = errors.New("invalid birth number")
	// ErrInvalidCheckDigit: the Luhn check digit does not match.
	ErrInvalidCheckDigit = errors.New("invalid check digit")
	// ErrInvalidThirdDigit: the third digit of an organisationsnummer is
	// below 2.
	ErrInvalidThirdDigit = errors.New("invalid third digit")
)

// Digits returns the ASCII digits of s and nothing else, the form in which
// numbers are compared and searched: "19800101-1234" gives "198001011234".
func Digits(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// NormalizeNumber returns s as it is stored: as given, trimmed of leading
// and trailing white space.
func NormalizeNumber(s string) string {
	return strings.TrimSpace(s)
}

// luhnValid reports whether digits (ASCII digits only, at least one) end in
// a valid Luhn (modulus 10, weights 1,2,1,2,... from the right) check digit.
func luhnValid(digits string) bool {
	if digits == "" {
		return false
	}
	sum := 0
	for i := 0; i < len(digits); i++ {
		c := digits[len(digits)-1-i]
		if !isDigit(c) {
			return false
		}
		d := int(c - '0')
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// personalKind selects which personal identity numbers are accepted.
type personalKind int

const (
	kindPersonnummer personalKind = iota
	kindSamordningsnummer
	kindEither
)

func (k personalKind) name() string {
	switch k {
	case kindPersonnummer:
		return "personnummer"
	case kindSamordningsnummer:
		return "samordningsnummer"
	}
	return "personnummer or samordningsnummer"
}

// ValidatePersonnummer checks a Swedish personnummer and returns nil when
// it is valid, or an error describing the rule broken:
//   - 10 digits YYMMDDNNNC or 12 digits YYYYMMDDNNNC, surrounding white
//     space ignored; one separator ('-', '+' or a space) is allowed, only
//     before the last four digits;
//   - in the 12-digit form the century is 18, 19 or 20 and the date is a
//     real calendar date; in the 10-digit form the century is unknown, so
//     the month is 01–12 and the day exists in that month in some year
//     (29 February when YY is divisible by 4, 00 included);
//   - the birth number NNN is 001–999;
//   - the Luhn check digit C over the 10-digit form matches.
func ValidatePersonnummer(s string) error {
	return validatePersonal(s, kindPersonnummer)
}

// ValidateSamordningsnummer checks a samordningsnummer (coordination
// number): the rules of ValidatePersonnummer with the day plus 60 (61–91).
func ValidateSamordningsnummer(s string) error {
	return validatePersonal(s, kindSamordningsnummer)
}

// ValidatePersonalIdentity accepts a valid personnummer or a valid
// samordningsnummer; a day of 61–91 selects the samordningsnummer rules.
func ValidatePersonalIdentity(s string) error {
	return validatePersonal(s, kindEither)
}

func validatePersonal(s string, kind personalKind) error {
	name := kind.name()
	formatErr := func(msg string) error {
		return newRuleError(ErrInvalidFormat, "not a valid "+name+": "+msg)
	}
	s = strings.TrimSpace(s)
	sep := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
		case (c == '-' || c == '+' || c == ' ') && sep < 0:
			sep = i
		default:
			return formatErr("only digits and one separator (-, + or space) before the last four digits are allowed")
		}
	}
	digits := Digits(s)
	if len(digits) != 10 && len(digits) != 12 {
		return formatErr("must have 10 or 12 digits")
	}
	if sep >= 0 && sep != len(s)-5 {
		return formatErr("the separator is only allowed before the last four digits")
	}
	ten := digits[len(digits)-10:]
	year := -1 // unknown century
	if len(digits) == 12 {
		century := digits[:2]
		if century != "18" && century != "19" && century != "20" {
			return newRuleError(ErrInvalidDate, "not a valid "+name+": the century must be 18, 19 or 20")
		}
		year = atoi(digits[:4])
	}
	yy, month, day := atoi(ten[:2]), atoi(ten[2:4]), atoi(ten[4:6])
	coordination := false
	switch kind {
	case kindSamordningsnummer:
		coordination = true
	case kindEither:
		coordination = day > 60
	}
	if coordination {
		if day < 61 || day > 91 {
			return newRuleError(ErrInvalidDate, "not a valid "+name+": the day of a samordningsnummer must be 61–91 (birth day + 60)")
		}
		day -= 60
	}
	if !validDate(year, yy, month, day) {
		msg := "not a valid " + name + ": the date part is not a valid date"
		if kind == kindPersonnummer && day >= 61 && day <= 91 {
			msg += " (a day of 61–91 marks a samordningsnummer)"
		}
		return newRuleError(ErrInvalidDate, msg)
	}
	if ten[6:9] == "000" {
		return newRuleError(ErrInvalidBirthNumber, "not a valid "+name+": the birth number must be 001–999")
	}
	if !luhnValid(ten) {
		return newRuleError(ErrInvalidCheckDigit, "not a valid "+name+": the check digit is wrong")
	}
	return nil
}

// validDate reports whether month and day form a date. year is the full
// year, or -1 when only the two-digit yy is known: then 29 February is
// valid when yy is divisible by 4.
func validDate(year, yy, month, day int) bool {
	if month < 1 || month > 12 || day < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
	if month == 2 {
		leap := yy%4 == 0
		if year >= 0 {
			leap = year%4 == 0 && (year%100 != 0 || year%400 == 0)
		}
		if leap {
			days = 29
		}
	}
	return day <= days
}

// atoi reads a short string of ASCII digits.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// groupedDigits returns the digits of s when s holds only digits, hyphens
// and spaces (after trimming), and ok=false otherwise.
func groupedDigits(s string) (digits string, ok bool) {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isDigit(c) && c != '-' && c != ' ' {
			return "", false
		}
	}
	return Digits(s), true
}

// ValidateOrganisationsnummer checks a Swedish organisationsnummer and
// returns nil when it is valid, or an error describing the rule broken:
// 10 digits NNNNNN-NNNC, or 12 digits with the prefix "16"; hyphens and
// spaces may appear anywhere (they are ignored); the third digit of the
// 10-digit number is 2 or greater; the Luhn check digit matches.
func ValidateOrganisationsnummer(s string) error {
	const name = "organisationsnummer"
	digits, ok := groupedDigits(s)
	if !ok {
		return newRuleError(ErrInvalidFormat, "not a valid "+name+": only digits, hyphens and spaces are allowed")
	}
	switch {
	case len(digits) == 10:
	case len(digits) == 12 && strings.HasPrefix(digits, "16"):
		digits = digits[2:]
	case len(digits) == 12:
		return newRuleError(ErrInvalidFormat, "not a valid "+name+": the 12-digit form must start with 16")
	default:
		return newRuleError(ErrInvalidFormat, "not a valid "+name+": must have 10 digits (or 12 starting with 16)")
	}
	if digits[2] < '2' {
		return newRuleError(ErrInvalidThirdDigit, "not a valid "+name+": the third digit must be 2 or greater")
	}
	if !luhnValid(digits) {
		return newRuleError(ErrInvalidCheckDigit, "not a valid "+name+": the check digit is wrong")
	}
	return nil
}

// ValidateCorporateIdentity accepts what identifies a business: a valid
// organisationsnummer, or a sole trader's (enskild firma) personnummer or
// samordningsnummer. A number whose 10-digit form has a third digit of 2
// or more, or a 12-digit number starting with 16, is checked as an
// organisationsnummer, any other as a personal identity number, and the
// error returned is that check's.
func ValidateCorporateIdentity(s string) error {
	t := strings.TrimSpace(s)
	for i := 0; i < len(t); i++ {
		if c := t[i]; !isDigit(c) && c != '-' && c != '+' && c != ' ' {
			return newRuleError(ErrInvalidFormat, "not a valid organisationsnummer or personnummer: only digits, hyphens, spaces and + are allowed")
		}
	}
	d := Digits(t)
	switch {
	case len(d) == 10 && d[2] >= '2', len(d) == 12 && strings.HasPrefix(d, "16"):
		return ValidateOrganisationsnummer(t)
	case len(d) == 10 || len(d) == 12:
		return ValidatePersonalIdentity(t)
	}
	return newRuleError(ErrInvalidFormat, "not a valid organisationsnummer or personnummer: must have 10 or 12 digits")
}

// validateGiro checks a number of minDigits to 8 digits (hyphens and
// spaces ignored) ending in a Luhn check digit over all its digits.
func validateGiro(s, name, lengths string, minDigits int) error {
	digits, ok := groupedDigits(s)
	if !ok {
		return newRuleError(ErrInvalidFormat, "not a valid "+name+" number: only digits, hyphens and spaces are allowed")
	}
	if len(digits) < minDigits || len(digits) > 8 {
		return newRuleError(ErrInvalidFormat, "not a valid "+name+" number: must have "+lengths+" digits")
	}
	if !luhnValid(digits) {
		return newRuleError(ErrInvalidCheckDigit, "not a valid "+name+" number: the check digit is wrong")
	}
	return nil
}

// ValidateBankgiro checks a Bankgiro number: 7 or 8 digits once hyphens
// and spaces are removed ("5050-1055"), the last a Luhn check digit over
// all of them.
func ValidateBankgiro(s string) error {
	return validateGiro(s, "Bankgiro", "7 or 8", 7)
}

// ValidatePlusgiro checks a Plusgiro number: 2 to 8 digits once hyphens
// and spaces are removed ("4 09 95-3" style groupings included), the last
// a Luhn check digit over all of them.
func ValidatePlusgiro(s string) error {
	return validateGiro(s, "Plusgiro", "2 to 8", 2)
}

// ValidateBankNumber accepts a valid Bankgiro or a valid Plusgiro number.
// (Since both use the same check digit, this is 2 to 8 digits with a valid
// Luhn check digit.)
func ValidateBankNumber(s string) error {
	if ValidateBankgiro(s) == nil || ValidatePlusgiro(s) == nil {
		return nil
	}
	return validateGiro(s, "Bankgiro (7 or 8 digits) or Plusgiro (2 to 8 digits)", "2 to 8", 2)
}
