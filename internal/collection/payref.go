package collection

import (
	"strconv"
	"strings"
)

// A debt's payment reference is an OCR number as Bankgirot checks it with
// variable length and a length digit: the debt id's digits, then the
// length digit (the number of digits of the whole reference, mod 10), then
// a Luhn check digit over everything before it. The length digit lets the
// bank refuse a reference that lost or gained a digit, which the Luhn
// digit alone misses for a 0 added or lost in front.

// PaymentReference returns the OCR payment reference of debt id (id > 0;
// "" otherwise): 1 gives "133", 12345 gives "1234574".
func PaymentReference(debtID int) string {
	if debtID <= 0 {
		return ""
	}
	payload := strconv.Itoa(debtID)
	payload += string(rune('0' + (len(payload)+2)%10))
	// Exactly one check digit makes the whole number pass the Luhn test.
	for c := byte('0'); c <= '9'; c++ {
		if ref := payload + string(c); luhnValid(ref) {
			return ref
		}
	}
	panic("unreachable: some Luhn check digit fits")
}

// ParsePaymentReference reads an OCR payment reference, ignoring spaces,
// and returns the debt id it names. It accepts only a reference that
// PaymentReference writes: digits, a valid length digit and check digit,
// and an id above 0 without leading zeros.
func ParsePaymentReference(s string) (int, bool) {
	s = strings.ReplaceAll(s, " ", "")
	n := len(s)
	if n < 3 || !luhnValid(s) || int(s[n-2]-'0') != n%10 || s[0] == '0' {
		return 0, false
	}
	id, err := strconv.Atoi(s[:n-2])
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}
