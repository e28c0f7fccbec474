package collection_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/collection"
)

// TestPaymentReferenceExamples pins references computed by hand: the id,
// the length digit (id digits + 2, mod 10), then the Luhn check digit
// (weights 2, 1, 2, ... from the rightmost digit before it; a product
// above 9 counts its digit sum; check = (10 − sum mod 10) mod 10).
func TestPaymentReferenceExamples(t *testing.T) {
	tests := []struct {
		id   int
		want string
	}{
		// "1"+"3": 3×2 + 1 = 7, check 3.
		{1, "133"},
		// "9"+"3": 3×2 + 9 = 15, check 5.
		{9, "935"},
		// "100"+"5": 5×2→1, 0, 0, 1 = 2, check 8.
		{100, "10058"},
		// "12345"+"7": 7×2→5, 5, 4×2=8, 3, 2×2=4, 1 = 26, check 4.
		{12345, "1234574"},
		// Ten digits in all, length digit 0: "12345678"+"0": 0, 8, 7×2→5,
		// 6, 5×2→1, 4, 3×2=6, 2, 1×2=2 = 34, check 6.
		{12345678, "1234567806"},
		// The largest id: 19 + 2 = 21 digits, length digit 1.
		{math.MaxInt64, "922337203685477580710"},
	}
	for _, tt := range tests {
		if got := collection.PaymentReference(tt.id); got != tt.want {
			t.Errorf("PaymentReference(%d) = %q, want %q", tt.id, got, tt.want)
		}
		// The independent Luhn of the tests agrees.
		if got := withCheck(tt.want[:len(tt.want)-1]); got != tt.want {
			t.Errorf("reference Luhn of %q gives %q", tt.want, got)
		}
		if id, ok := collection.ParsePaymentReference(tt.want); !ok || id != tt.id {
			t.Errorf("ParsePaymentReference(%q) = %d, %v; want %d", tt.want, id, ok, tt.id)
		}
	}
	for _, id := range []int{0, -1, math.MinInt64} {
		if got := collection.PaymentReference(id); got != "" {
			t.Errorf("PaymentReference(%d) = %q, want \"\"", id, got)
		}
	}
}

// TestPaymentReferenceRoundTrip: every reference written reads back as its
// id, with or without spaces, and matches the test's own construction.
func TestPaymentReferenceRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ids := make([]int, 0, 22000)
	for id := 1; id <= 20000; id++ {
		ids = append(ids, id)
	}
	for range 2000 {
		ids = append(ids, 1+r.IntN(math.MaxInt64))
	}
	for _, id := range ids {
		ref := collection.PaymentReference(id)
		digits := strconv.Itoa(id)
		if want := withCheck(digits + strconv.Itoa((len(digits)+2)%10)); ref != want {
			t.Fatalf("PaymentReference(%d) = %q, want %q", id, ref, want)
		}
		spaced := ""
		for i := 0; i < len(ref); i++ {
			if i > 0 && i%3 == 0 {
				spaced += " "
			}
			spaced += ref[i : i+1]
		}
		for _, s := range []string{ref, spaced, " " + ref + " "} {
			if got, ok := collection.ParsePaymentReference(s); !ok || got != id {
				t.Fatalf("ParsePaymentReference(%q) = %d, %v; want %d", s, got, ok, id)
			}
		}
	}
}

// TestParsePaymentReferenceRefuses: a wrong check digit, a wrong length
// digit (even with a valid Luhn digit), a digit lost or added, and
// anything not a reference are refused.
func TestParsePaymentReferenceRefuses(t *testing.T) {
	refuse := func(s, why string) {
		t.Helper()
		if id, ok := collection.ParsePaymentReference(s); ok {
			t.Errorf("ParsePaymentReference(%q) = %d, true; want a refusal (%s)", s, id, why)
		}
	}
	// Each wrong check digit of 1234574.
	for c := '0'; c <= '9'; c++ {
		if c != '4' {
			refuse("123457"+string(c), "wrong check digit")
		}
	}
	// Each wrong length digit of id 12345, with its Luhn digit fixed up
	// so that only the length digit is wrong.
	for l := 0; l <= 9; l++ {
		if l != 7 {
			s := withCheck("12345" + strconv.Itoa(l))
			if !refLuhnOK(s) {
				t.Fatalf("%q fails the reference Luhn", s)
			}
			refuse(s, "wrong length digit")
		}
	}
	// A 0 added in front passes Luhn; the length digit refuses it.
	refuse("01234574", "a leading 0 added")
	// Luhn and length digit fine, but a leading 0: "01"+"4", 4×2 + 1 + 0
	// = 9, check 1. Id 1 has one reference, 133.
	refuse("0141", "leading zero")
	for _, s := range []string{
		"", "1", "13", "134", "1234 57", "123457", "12345740", // too short, lost or added digits
		"00", "000", "033", // id 0: "0"+"3", 3×2 = 6, check 4 would be "034"
		"034",
		"12345a4", "1234574\n", "1234574\t", "-133", "+133", "１33", "1_33",
		// Beyond int: 20 id digits, length digit 2.
		withCheck("99999999999999999999" + "2"),
	} {
		refuse(s, "not a reference")
	}
	if s := withCheck("99999999999999999999" + "2"); !refLuhnOK(s) || len(s) != 22 {
		t.Fatalf("%q is not a well-formed 22-digit reference", s)
	}
	if strings.Contains(collection.PaymentReference(1), " ") {
		t.Error("a reference holds a space")
	}
}
