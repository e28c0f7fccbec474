package collection

import "strings"

// NumberKey is the form in which invoice numbers are searched: without
// spaces and hyphens, in lower case, so that "INV-2026 01" is found by
// "inv202601". Invoice numbers themselves are compared exactly as given.
func NumberKey(s string) string {
	return strings.ToLower(strings.NewReplacer(" ", "", "-", "").Replace(strings.TrimSpace(s)))
}

// SearchKey is the form in which names and e-mail addresses are searched:
// trimmed and in lower case (Unicode-aware, so that "Örjan" is found by
// "örjan" on every database).
func SearchKey(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}
