package collection_test

// Fuzz targets for the domain validators and the money types (issue
// "Hardening", deliverable 4). Besides "never panic" each asserts the
// validator's contract: determinism, invariance under the separators the
// contract allows, agreement between validators that overlap, and, for
// Money and Rate, that what is written reads back as the same value.
//
// `go test ./...` replays the seeds below and the corpus under
// testdata/fuzz/<FuzzName>/; `go test -fuzz` explores further. See
// docs/fuzzing.md.

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"net/mail"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/debtql/debtql/internal/collection"
)

// validatorSentinels are the kinds every validator error wraps.
var validatorSentinels = []error{
	collection.ErrInvalidFormat, collection.ErrInvalidDate, collection.ErrInvalidBirthNumber,
	collection.ErrInvalidCheckDigit, collection.ErrInvalidThirdDigit,
}

// checkValidator calls fn twice (it must answer the same) and checks that a
// refusal wraps one of the sentinels and has a message. It returns whether s
// is valid.
func checkValidator(t *testing.T, name string, fn func(string) error, s string) bool {
	t.Helper()
	err := fn(s)
	again := fn(s)
	if (err == nil) != (again == nil) || (err != nil && err.Error() != again.Error()) {
		t.Fatalf("%s(%q) is not deterministic: %v, then %v", name, s, err, again)
	}
	if err == nil {
		return true
	}
	if err.Error() == "" {
		t.Fatalf("%s(%q): empty error message", name, s)
	}
	for _, k := range validatorSentinels {
		if errors.Is(err, k) {
			return false
		}
	}
	t.Fatalf("%s(%q) = %v, which wraps none of the sentinel errors", name, s, err)
	return false
}

// mustValid fails when fn refuses s.
func mustValid(t *testing.T, name string, fn func(string) error, s, why string) {
	t.Helper()
	if err := fn(s); err != nil {
		t.Fatalf("%s(%q) = %v; want valid (%s)", name, s, err, why)
	}
}

// identitySeeds are personal, corporate and giro numbers, valid and not.
var identitySeeds = []string{
	"811228-9874", "8112289874", "811228+9874", "811228 9874", "19811228-9874", "198112289874", " 811228-9874\t",
	"670919-9530", "701063-2391", "197010632391", "7010632391", "000229-0005", "20000229-0005", "19000229-0005",
	"811228-9873", "811228-0004", "811328-9874", "811200-9874", "811228--9874", "8112-28-9874", "81122-89874",
	"17811228-9874", "811228-98745", "81122898", "811228_9874", "８１１２２８-９８７４",
	"556036-0793", "5560360793", "16556036-0793", "165560360793", "55 60 36-07 93", "212000-0142", "556036-0792", "116036-0793",
	"5050-1055", "50501055", "123-4566", "409953", "4099 53", "4 09 95-3", "40", "18", "123456789", "1", "",
}

// FuzzPersonnummer checks ValidatePersonnummer: determinism, the separator
// rules (optional, '-', '+' or a space before the last four digits,
// surrounding white space ignored), the 12-digit form's relation to the
// 10-digit form, and agreement with ValidatePersonalIdentity and
// ValidateCorporateIdentity.
func FuzzPersonnummer(f *testing.F) {
	for _, s := range identitySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := checkValidator(t, "ValidatePersonnummer", collection.ValidatePersonnummer, s)
		checkPersonalAgreement(t, s)
		if !p {
			return
		}
		if collection.ValidateSamordningsnummer(s) == nil {
			t.Fatalf("%q is both a valid personnummer and a valid samordningsnummer", s)
		}
		checkPersonalForms(t, "ValidatePersonnummer", collection.ValidatePersonnummer, s)
	})
}

// FuzzSamordningsnummer is FuzzPersonnummer for samordningsnummer.
func FuzzSamordningsnummer(f *testing.F) {
	for _, s := range identitySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok := checkValidator(t, "ValidateSamordningsnummer", collection.ValidateSamordningsnummer, s)
		checkPersonalAgreement(t, s)
		if !ok {
			return
		}
		if day := collection.Digits(s); len(day) >= 10 {
			ten := day[len(day)-10:]
			if d, _ := strconv.Atoi(ten[4:6]); d < 61 || d > 91 {
				t.Fatalf("ValidateSamordningsnummer accepted %q with day %d (must be 61–91)", s, d)
			}
		}
		checkPersonalForms(t, "ValidateSamordningsnummer", collection.ValidateSamordningsnummer, s)
	})
}

// checkPersonalAgreement: ValidatePersonalIdentity accepts exactly what one
// of ValidatePersonnummer and ValidateSamordningsnummer accepts, and
// ValidateCorporateIdentity accepts all of it (a sole trader) as well as
// every organisationsnummer, and nothing else.
func checkPersonalAgreement(t *testing.T, s string) {
	t.Helper()
	p := collection.ValidatePersonnummer(s) == nil
	c := collection.ValidateSamordningsnummer(s) == nil
	pi := checkValidator(t, "ValidatePersonalIdentity", collection.ValidatePersonalIdentity, s)
	if pi != (p || c) {
		t.Fatalf("%q: ValidatePersonalIdentity %v, but personnummer %v, samordningsnummer %v", s, pi, p, c)
	}
	org := collection.ValidateOrganisationsnummer(s) == nil
	corp := checkValidator(t, "ValidateCorporateIdentity", collection.ValidateCorporateIdentity, s)
	if corp != (pi || org) {
		t.Fatalf("%q: ValidateCorporateIdentity %v, but personal identity %v, organisationsnummer %v", s, corp, pi, org)
	}
}

// checkPersonalForms checks the other ways of writing a valid personal
// number s.
func checkPersonalForms(t *testing.T, name string, fn func(string) error, s string) {
	t.Helper()
	trimmed := strings.TrimSpace(s)
	digits := collection.Digits(trimmed)
	if n := len(digits); n != 10 && n != 12 {
		t.Fatalf("%s accepted %q with %d digits", name, s, n)
	}
	if !refLuhnOK(digits[len(digits)-10:]) {
		t.Fatalf("%s accepted %q, whose 10-digit form fails the reference Luhn check", name, s)
	}
	if collection.IdentificationKey(s) != digits {
		t.Fatalf("IdentificationKey(%q) = %q, want its digits %q", s, collection.IdentificationKey(s), digits)
	}
	mustValid(t, name, fn, digits, "the separator is optional")
	mustValid(t, name, fn, " \t"+s+"\n ", "surrounding white space is ignored")
	n := len(digits)
	for _, sep := range []string{"-", "+", " "} {
		mustValid(t, name, fn, digits[:n-4]+sep+digits[n-4:], "a separator is allowed before the last four digits")
		if fn(digits[:n-5]+sep+digits[n-5:]) == nil {
			t.Fatalf("%s accepted %q: a separator is allowed only before the last four digits", name, digits[:n-5]+sep+digits[n-5:])
		}
	}
	if n == 12 {
		// A valid 12-digit number is valid without its century (the
		// 10-digit form allows 29 February in every year divisible by 4).
		mustValid(t, name, fn, digits[2:], "the 10-digit form of a valid 12-digit number")
		return
	}
	// A valid 10-digit number is valid in at least one of the centuries.
	for _, century := range []string{"18", "19", "20"} {
		if fn(century+digits) == nil {
			return
		}
	}
	t.Fatalf("%s accepts %q but none of its 12-digit forms (18, 19, 20)", name, s)
}

// FuzzOrganisationsnummer checks ValidateOrganisationsnummer (hyphens and
// spaces anywhere, the "16" prefix of the 12-digit form, the third digit,
// the check digit) and ValidateCorporateIdentity's agreement with it.
func FuzzOrganisationsnummer(f *testing.F) {
	for i, s := range identitySeeds {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, s string, at uint8) {
		ok := checkValidator(t, "ValidateOrganisationsnummer", collection.ValidateOrganisationsnummer, s)
		checkPersonalAgreement(t, s)
		ref := refOrganisationsnummer(s)
		if ok != ref {
			t.Fatalf("ValidateOrganisationsnummer(%q) valid %v, the reference says %v", s, ok, ref)
		}
		if !ok {
			return
		}
		fn := collection.ValidateOrganisationsnummer
		digits := collection.Digits(s)
		mustValid(t, "ValidateOrganisationsnummer", fn, digits, "hyphens and spaces are optional")
		if len(digits) == 10 {
			mustValid(t, "ValidateOrganisationsnummer", fn, "16"+digits, "the 12-digit form is 16 and the 10 digits")
		} else {
			mustValid(t, "ValidateOrganisationsnummer", fn, digits[2:], "the 10-digit form of a valid 12-digit number")
		}
		trimmed := strings.TrimSpace(s)
		i := int(at) % (len(trimmed) + 1)
		for _, sep := range []string{"-", " ", "--", "- "} {
			mustValid(t, "ValidateOrganisationsnummer", fn, trimmed[:i]+sep+trimmed[i:], "hyphens and spaces may appear anywhere")
		}
		mustValid(t, "ValidateCorporateIdentity", collection.ValidateCorporateIdentity, s, "an organisationsnummer identifies a business")
		if collection.IdentificationKey(s) != digits {
			t.Fatalf("IdentificationKey(%q) = %q, want its digits %q", s, collection.IdentificationKey(s), digits)
		}
	})
}

// refOrganisationsnummer is the rule of api.md §5 and the doc comment,
// written independently: after trimming only digits, hyphens and spaces; 10
// digits, or 12 starting with 16; third digit at least 2; Luhn check digit.
func refOrganisationsnummer(s string) bool {
	d, ok := refGrouped(s)
	if !ok {
		return false
	}
	if len(d) == 12 && strings.HasPrefix(d, "16") {
		d = d[2:]
	}
	return len(d) == 10 && d[2] >= '2' && refLuhnOK(d)
}

// refGrouped returns the digits of s when s, trimmed, holds only ASCII
// digits, hyphens and spaces.
func refGrouped(s string) (string, bool) {
	s = strings.TrimFunc(s, unicode.IsSpace)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '-' || r == ' ':
		default:
			return "", false
		}
	}
	return b.String(), true
}

// checkGiro checks a giro validator against the reference rule: digits,
// hyphens and spaces; minDigits to 8 digits; Luhn over all of them.
func checkGiro(t *testing.T, name string, fn func(string) error, minDigits int, s string, at uint8) bool {
	t.Helper()
	ok := checkValidator(t, name, fn, s)
	d, grouped := refGrouped(s)
	ref := grouped && len(d) >= minDigits && len(d) <= 8 && refLuhnOK(d)
	if ok != ref {
		t.Fatalf("%s(%q) valid %v, the reference says %v", name, s, ok, ref)
	}
	if !ok {
		return false
	}
	mustValid(t, name, fn, d, "hyphens and spaces are optional")
	trimmed := strings.TrimSpace(s)
	i := int(at) % (len(trimmed) + 1)
	for _, sep := range []string{"-", " "} {
		mustValid(t, name, fn, trimmed[:i]+sep+trimmed[i:], "hyphens and spaces may appear anywhere")
	}
	return true
}

// FuzzBankgiro checks ValidateBankgiro against the reference rule, and that
// every valid Bankgiro number is also accepted by ValidatePlusgiro's wider
// rule and by ValidateBankNumber.
func FuzzBankgiro(f *testing.F) {
	for i, s := range identitySeeds {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, s string, at uint8) {
		bg := checkGiro(t, "ValidateBankgiro", collection.ValidateBankgiro, 7, s, at)
		bank := checkValidator(t, "ValidateBankNumber", collection.ValidateBankNumber, s)
		pg := collection.ValidatePlusgiro(s) == nil
		if bank != (bg || pg) {
			t.Fatalf("%q: ValidateBankNumber %v, Bankgiro %v, Plusgiro %v", s, bank, bg, pg)
		}
		if bg && !pg {
			t.Fatalf("%q: a valid Bankgiro number (7–8 digits) is refused by the Plusgiro rule (2–8 digits)", s)
		}
	})
}

// FuzzPlusgiro checks ValidatePlusgiro against the reference rule, and
// ValidateBankNumber's agreement with it.
func FuzzPlusgiro(f *testing.F) {
	for i, s := range identitySeeds {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, s string, at uint8) {
		pg := checkGiro(t, "ValidatePlusgiro", collection.ValidatePlusgiro, 2, s, at)
		bank := checkValidator(t, "ValidateBankNumber", collection.ValidateBankNumber, s)
		if bank != pg {
			t.Fatalf("%q: ValidateBankNumber %v, Plusgiro %v (every Bankgiro number is a valid Plusgiro shape)", s, bank, pg)
		}
	})
}

// countrySet is CountryCodes as a set.
var countrySet = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range collection.CountryCodes() {
		m[c] = true
	}
	return m
}()

// FuzzCountryCode checks that ValidCountryCode returns an upper-case
// 2-letter code of the official list when it accepts, in any case and with
// surrounding white space, and nothing when it refuses.
func FuzzCountryCode(f *testing.F) {
	for _, s := range []string{
		"SE", "se", "Se", " SE ", "\tse\n", "XK", "UK", "EU", "ZZ", "AA", "S", "SWE", "", "  ", "S E", "ſe", "ıt", "İT", "ＳＥ", "se\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code, ok := collection.ValidCountryCode(s)
		if c2, ok2 := collection.ValidCountryCode(s); c2 != code || ok2 != ok {
			t.Fatalf("ValidCountryCode(%q) not deterministic", s)
		}
		if !ok {
			if code != "" {
				t.Fatalf("ValidCountryCode(%q) refused but returned %q", s, code)
			}
			return
		}
		if len(code) != 2 || code[0] < 'A' || code[0] > 'Z' || code[1] < 'A' || code[1] > 'Z' {
			t.Fatalf("ValidCountryCode(%q) = %q, not 2 upper-case letters", s, code)
		}
		if !countrySet[code] {
			t.Fatalf("ValidCountryCode(%q) = %q, not in CountryCodes", s, code)
		}
		if !strings.EqualFold(strings.TrimSpace(s), code) {
			t.Fatalf("ValidCountryCode(%q) = %q, not the input", s, code)
		}
		for _, in := range []string{code, strings.ToLower(code), " " + code + "\t"} {
			if c, ok := collection.ValidCountryCode(in); !ok || c != code {
				t.Fatalf("ValidCountryCode(%q) = %q, %v; want %q", in, c, ok, code)
			}
		}
	})
}

// FuzzEmail checks ValidEmail's documented rules on the addresses it
// accepts.
func FuzzEmail(f *testing.F) {
	for _, s := range []string{
		"anna@example.se", " anna@example.se ", "a.b+c@sub.example.co.uk", "örjan@exempel.se", "\"quoted\"@example.se", "\"a b\"@example.se",
		"Anna <anna@example.se>", "anna@example", "anna@.example.se", "anna@example..se", "anna@[192.0.2.1]", "@example.se", "anna@",
		"anna@@example.se", "an na@example.se", "anna@example.se.", "anna(comment)@example.se", strings.Repeat("a", 250) + "@b.se", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok := collection.ValidEmail(s)
		if collection.ValidEmail(s) != ok {
			t.Fatalf("ValidEmail(%q) is not deterministic", s)
		}
		if !ok {
			return
		}
		e := strings.TrimSpace(s)
		if len(e) > collection.MaxEmailLength || strings.ContainsFunc(e, unicode.IsSpace) {
			t.Fatalf("ValidEmail accepted %q: longer than %d bytes or white space inside", s, collection.MaxEmailLength)
		}
		addr, err := mail.ParseAddress(e)
		if err != nil || addr.Name != "" || addr.Address != e {
			t.Fatalf("ValidEmail accepted %q, which net/mail reads as %v, %v", s, addr, err)
		}
		at := strings.LastIndexByte(e, '@')
		if at <= 0 {
			t.Fatalf("ValidEmail accepted %q without a local part", s)
		}
		domain := e[at+1:]
		if strings.HasPrefix(domain, "[") || !strings.Contains(domain, ".") || slicesContainsEmpty(strings.Split(domain, ".")) {
			t.Fatalf("ValidEmail accepted %q, whose domain %q is not dotted labels", s, domain)
		}
		if !collection.ValidEmail(e) || !collection.ValidEmail(" "+e+"\n") {
			t.Fatalf("ValidEmail(%q) accepted, but not trimmed or with white space around it", s)
		}
		if !utf8.ValidString(e) {
			t.Fatalf("ValidEmail accepted invalid UTF-8 %q", s)
		}
	})
}

func slicesContainsEmpty(parts []string) bool {
	for _, p := range parts {
		if p == "" {
			return true
		}
	}
	return false
}

// FuzzKeys checks the comparison keys: each is a normal form (applying it
// twice is applying it once), IdentificationKey of a number of digits and
// separators is its digits, and the separators the keys ignore may be
// inserted anywhere.
func FuzzKeys(f *testing.F) {
	for i, s := range append(identitySeeds,
		"INV-2026 01", "inv202601", "AB-123", "CD-123", "Örjan", "ÖRJAN", " Sven Svensson ", "ǅ", "ẞ", "İ", "K", "\xff\xfe", "a\u00a0b",
		"- \tabc", "-\t5", "5-\u0085", "+46 8 123 456", "F-2026-0042",
	) {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, s string, at uint8) {
		ik := collection.IdentificationKey(s)
		nk := collection.NumberKey(s)
		sk := collection.SearchKey(s)
		if collection.IdentificationKey(s) != ik || collection.NumberKey(s) != nk || collection.SearchKey(s) != sk {
			t.Fatalf("keys of %q are not deterministic", s)
		}
		if sk2 := collection.SearchKey(sk); sk2 != sk {
			t.Fatalf("SearchKey(SearchKey(%q)) = %q, SearchKey = %q", s, sk2, sk)
		}
		trimmed := strings.TrimSpace(s)
		numeric := trimmed != "" && strings.Trim(trimmed, "0123456789 -+") == ""
		if d := collection.Digits(s); numeric && d != "" {
			if ik != d {
				t.Fatalf("IdentificationKey(%q) = %q, want its digits %q", s, ik, d)
			}
		} else if ik != nk {
			t.Fatalf("IdentificationKey(%q) = %q, want NumberKey %q for a number with letters", s, ik, nk)
		}
		if strings.ContainsAny(nk, " -") {
			t.Fatalf("NumberKey(%q) = %q still holds a space or hyphen", s, nk)
		}

		// The keys are normal forms: applying one again changes nothing,
		// also for white space that a separator kept off the edge
		// ("-\tabc", once a finding of this target).
		if k2 := collection.IdentificationKey(ik); k2 != ik {
			t.Fatalf("IdentificationKey(IdentificationKey(%q)) = %q, IdentificationKey = %q", s, k2, ik)
		}
		if k2 := collection.NumberKey(nk); k2 != nk {
			t.Fatalf("NumberKey(NumberKey(%q)) = %q, NumberKey = %q", s, k2, nk)
		}
		// Insert a separator at a character boundary of the trimmed text.
		if !utf8.ValidString(s) {
			return // NumberKey lower-cases invalid bytes to U+FFFD; a boundary in them is not one
		}
		runes := []rune(trimmed)
		i := int(at) % (len(runes) + 1)
		for _, sep := range []string{"-", " "} {
			with := string(runes[:i]) + sep + string(runes[i:])
			if got := collection.NumberKey(with); got != nk {
				t.Fatalf("NumberKey(%q) = %q, but NumberKey(%q) = %q", with, got, s, nk)
			}
			if got := collection.IdentificationKey(with); got != ik {
				t.Fatalf("IdentificationKey(%q) = %q, but IdentificationKey(%q) = %q", with, got, s, ik)
			}
		}
	})
}

// moneySentinels are the kinds every ParseMoney/ParseRate error wraps.
var moneySentinels = []error{collection.ErrTooManyDecimals, collection.ErrTooLarge, collection.ErrNotANumber}

func checkMoneyError(t *testing.T, what string, err error) {
	t.Helper()
	for _, k := range moneySentinels {
		if errors.Is(err, k) {
			return
		}
	}
	t.Fatalf("%s: error %v wraps none of the sentinel errors", what, err)
}

var moneySeeds = []string{
	"0", "-0", "-0.00", "1250", "1250.5", "1250.50", "-3.10", "0.1", "0.01", "1.005", "1.000", "999999999999999.99", "1000000000000000",
	"000000000000000000001.00", "-999999999999999.99", ".5", "5.", "+1", "-", "", "1e3", "1E-2", "NaN", "Inf", " 1", "1 ", "1,50", "12.5", "8.125",
	"0.0001", "0.00001", "99999999999999.9999", "100000000000000", "-.5", "1..2", "０", "9223372036854775807", "-9223372036854775808",
}

// FuzzMoney checks ParseMoney and Money's GraphQL input (a JSON number or
// numeric string, a document's Int or Float literal): exactly 2 fraction
// digits and 15 integer digits at most, never rounded, and what is written
// reads back as the same amount.
func FuzzMoney(f *testing.F) {
	for i, s := range moneySeeds {
		f.Add(s, float64(i)/100+0.001*float64(i%2), int64(i)*1e13)
	}
	f.Add("1", 0.1+0.2, int64(math.MaxInt64))
	f.Add("1", 1e15, int64(math.MinInt64))
	f.Add("1", 999999999999999.9, int64(1e15-1))
	f.Add("1", math.NaN(), int64(-1e15))
	f.Fuzz(func(t *testing.T, s string, fl float64, n int64) {
		m, err := collection.ParseMoney(s)
		if err != nil {
			checkMoneyError(t, "ParseMoney("+strconv.Quote(s)+")", err)
		} else {
			checkMoneyValue(t, "ParseMoney("+strconv.Quote(s)+")", m)
			if exact, xerr := decimal.NewFromString(s); xerr != nil || !exact.Equal(m.Decimal()) {
				t.Fatalf("ParseMoney(%q) = %s, but the text is %s (%v)", s, m, exact, xerr)
			}
		}
		// The GraphQL input agrees with ParseMoney on every plain decimal
		// short enough to be a Decimal input (exponents are the Decimal
		// scalar's, which ParseMoney does not read).
		g, gerr := unmarshalMoney(s)
		gn, gnerr := unmarshalMoney(json.Number(s))
		if (gerr == nil) != (gnerr == nil) || g != gn {
			t.Fatalf("%q: UnmarshalGQL(string) %v, %v; UnmarshalGQL(json.Number) %v, %v", s, g, gerr, gn, gnerr)
		}
		if len(s) <= 40 && !strings.ContainsAny(s, "eE") && ((err == nil) != (gerr == nil) || m != g) {
			t.Fatalf("%q: ParseMoney %v, %v; UnmarshalGQL %v, %v", s, m, err, g, gerr)
		}
		if gerr == nil {
			checkMoneyValue(t, "UnmarshalGQL("+strconv.Quote(s)+")", g)
		}
		// A Float literal: accepted only exactly.
		if fm, ferr := unmarshalMoney(fl); ferr == nil {
			checkMoneyValue(t, "UnmarshalGQL(float64)", fm)
			if back, _ := fm.Decimal().Float64(); back != fl {
				t.Fatalf("UnmarshalGQL(float64 %v) = %s, which is the float %v", fl, fm, back)
			}
		}
		// An Int literal: accepted when it has at most 15 digits.
		for _, in := range []any{n, int(n)} {
			im, ierr := unmarshalMoney(in)
			fits := n > -1e15 && n < 1e15
			if (ierr == nil) != fits || (fits && int64(im) != n*100) {
				t.Fatalf("UnmarshalGQL(%T %d) = %v, %v", in, n, im, ierr)
			}
		}
	})
}

// checkMoneyValue checks an accepted amount's output forms.
func checkMoneyValue(t *testing.T, what string, m collection.Money) {
	t.Helper()
	if m <= -1e17 || m >= 1e17 {
		t.Fatalf("%s = %d öre: more than 15 integer digits", what, int64(m))
	}
	out := m.String()
	if i := strings.IndexByte(out, '.'); i < 1 || len(out)-i-1 != 2 {
		t.Fatalf("%s wrote %q, not exactly 2 fraction digits", what, out)
	}
	if back, err := collection.ParseMoney(out); err != nil || back != m {
		t.Fatalf("%s wrote %q, which ParseMoney reads as %v, %v", what, out, back, err)
	}
	if back, err := unmarshalMoney(out); err != nil || back != m {
		t.Fatalf("%s wrote %q, which UnmarshalGQL reads as %v, %v", what, out, back, err)
	}
	if back, err := collection.MoneyFromDecimal(m.Decimal()); err != nil || back != m {
		t.Fatalf("%s: MoneyFromDecimal(Decimal()) = %v, %v; want %v", what, back, err, m)
	}
	if got, want := marshal(t, m), strconv.Quote(out); got != want {
		t.Fatalf("%s: MarshalGQL wrote %s, want %s", what, got, want)
	}
	if m.Decimal().Coefficient().Cmp(big.NewInt(int64(m))) != 0 {
		t.Fatalf("%s: Decimal() = %s", what, m.Decimal())
	}
}

// FuzzRate is FuzzMoney for Rate: at most 4 fraction digits and 14 integer
// digits, written with 2 to 4 fraction digits.
func FuzzRate(f *testing.F) {
	for i, s := range moneySeeds {
		f.Add(s, float64(i)/1000+0.00001*float64(i%2), int64(i)*1e12)
	}
	f.Add("1", 0.1+0.2, int64(math.MaxInt64))
	f.Add("1", 1e14, int64(1e14-1))
	f.Add("1", 12.3456, int64(-1e14))
	f.Fuzz(func(t *testing.T, s string, fl float64, n int64) {
		r, err := collection.ParseRate(s)
		if err != nil {
			checkMoneyError(t, "ParseRate("+strconv.Quote(s)+")", err)
		} else {
			checkRateValue(t, "ParseRate("+strconv.Quote(s)+")", r)
			if exact, xerr := decimal.NewFromString(s); xerr != nil || !exact.Equal(r.Decimal()) {
				t.Fatalf("ParseRate(%q) = %s, but the text is %s (%v)", s, r, exact, xerr)
			}
		}
		g, gerr := unmarshalRate(s)
		gn, gnerr := unmarshalRate(json.Number(s))
		if (gerr == nil) != (gnerr == nil) || g != gn {
			t.Fatalf("%q: UnmarshalGQL(string) %v, %v; UnmarshalGQL(json.Number) %v, %v", s, g, gerr, gn, gnerr)
		}
		if len(s) <= 40 && !strings.ContainsAny(s, "eE") && ((err == nil) != (gerr == nil) || r != g) {
			t.Fatalf("%q: ParseRate %v, %v; UnmarshalGQL %v, %v", s, r, err, g, gerr)
		}
		if gerr == nil {
			checkRateValue(t, "UnmarshalGQL("+strconv.Quote(s)+")", g)
		}
		if fr, ferr := unmarshalRate(fl); ferr == nil {
			checkRateValue(t, "UnmarshalGQL(float64)", fr)
			if back, _ := fr.Decimal().Float64(); back != fl {
				t.Fatalf("UnmarshalGQL(float64 %v) = %s, which is the float %v", fl, fr, back)
			}
		}
		for _, in := range []any{n, int(n)} {
			ir, ierr := unmarshalRate(in)
			fits := n > -1e14 && n < 1e14
			if (ierr == nil) != fits || (fits && int64(ir) != n*10000) {
				t.Fatalf("UnmarshalGQL(%T %d) = %v, %v", in, n, ir, ierr)
			}
		}
	})
}

func checkRateValue(t *testing.T, what string, r collection.Rate) {
	t.Helper()
	if r <= -1e18 || r >= 1e18 {
		t.Fatalf("%s = %d: more than 14 integer digits", what, int64(r))
	}
	out := r.String()
	if i := strings.IndexByte(out, '.'); i < 1 || len(out)-i-1 < 2 || len(out)-i-1 > 4 || (len(out)-i-1 > 2 && strings.HasSuffix(out, "0")) {
		t.Fatalf("%s wrote %q, not 2–4 fraction digits without needless zeros", what, out)
	}
	if back, err := collection.ParseRate(out); err != nil || back != r {
		t.Fatalf("%s wrote %q, which ParseRate reads as %v, %v", what, out, back, err)
	}
	if back, err := unmarshalRate(out); err != nil || back != r {
		t.Fatalf("%s wrote %q, which UnmarshalGQL reads as %v, %v", what, out, back, err)
	}
	if back, err := collection.RateFromDecimal(r.Decimal()); err != nil || back != r {
		t.Fatalf("%s: RateFromDecimal(Decimal()) = %v, %v; want %v", what, back, err, r)
	}
	if got, want := marshal(t, r), strconv.Quote(out); got != want {
		t.Fatalf("%s: MarshalGQL wrote %s, want %s", what, got, want)
	}
}
