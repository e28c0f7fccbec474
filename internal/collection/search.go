package collection

import "strings"

// NumberKey is the form in which invoice numbers are searched: without
// spaces and hyphens, in lower case, so that "INV-2026 01" is found by
// "inv202601". Invoice numbers themselves are compared exactly as given.
func NumberKey(s string) string {
	// Trimmed after the removal too, so that the key is a normal form:
	// white space that a removed space or hyphen uncovers goes as well.
	return strings.ToLower(strings.TrimSpace(WithoutSeparators(strings.TrimSpace(s))))
}

// separators are what WithoutSeparators removes; built once (a Replacer
// builds its tables on first use, which cost a hand-over of 500 debts 8 %
// of its CPU when built per call).
var separators = strings.NewReplacer(" ", "", "-", "")

// WithoutSeparators is s without spaces and hyphens, the separators of
// numbers as people write them.
func WithoutSeparators(s string) string { return separators.Replace(s) }

// SearchKey is the form in which names and e-mail addresses are searched:
// trimmed and in lower case (Unicode-aware, so that "Örjan" is found by
// "örjan" on every database).
func SearchKey(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}

// IdentificationKey is how identification numbers are compared (debtor
// reuse, uniqueness, search): by their digits (api.md §5), so that
// "811228-9874", "811228 9874" and "8112289874" are one number. A number
// that also holds letters (a foreign one, say) is compared by NumberKey
// instead, so that "AB-123" and "CD-123" stay two numbers.
func IdentificationKey(s string) string {
	digitsOnly := true
	for _, c := range strings.TrimSpace(s) {
		if !(c >= '0' && c <= '9' || c == ' ' || c == '-' || c == '+') {
			digitsOnly = false
			break
		}
	}
	if d := Digits(s); digitsOnly && d != "" {
		return d
	}
	return NumberKey(s)
}
