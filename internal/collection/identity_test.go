package collection_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/collection"
)

// refCheckDigit computes the Luhn check digit of payload as Skatteverket
// describes it: weights 2,1,2,1,... from the rightmost payload digit, sum
// the digits of the products, check = (10 - sum mod 10) mod 10. It is a
// reference written independently of the package's luhnValid.
func refCheckDigit(payload string) byte {
	sum := 0
	for i := 0; i < len(payload); i++ {
		d := int(payload[len(payload)-1-i] - '0')
		if i%2 == 0 {
			d *= 2
		}
		sum += d/10 + d%10
	}
	return byte('0' + (10-sum%10)%10)
}

// withCheck appends the Luhn check digit to payload.
func withCheck(payload string) string {
	return payload + string(refCheckDigit(payload))
}

// refLuhnOK reports whether the last digit of the digits of s is the Luhn
// check digit of the others.
func refLuhnOK(s string) bool {
	d := collection.Digits(s)
	return len(d) >= 2 && refCheckDigit(d[:len(d)-1]) == d[len(d)-1]
}

// TestReferenceExamples verifies by the reference Luhn every example the
// tests below call valid, so none rests on memory.
func TestReferenceExamples(t *testing.T) {
	for _, s := range []string{
		"811228-9874", "670919-9530", "701063-2391", // personnummer, samordningsnummer
		"556036-0793", "212000-0142", // organisationsnummer
		"5050-1055", "123-4566", "409953", // Bankgiro, Plusgiro
	} {
		if !refLuhnOK(s) {
			t.Errorf("%s fails the reference Luhn check", s)
		}
	}
	for _, s := range []string{"811228-9873", "123-4560", "4099530"} {
		if refLuhnOK(s) {
			t.Errorf("%s passes the reference Luhn check", s)
		}
	}
	if got := withCheck("811228987"); got != "8112289874" {
		t.Errorf("withCheck(811228987) = %s", got)
	}
}

func TestLuhnValid(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"8112289874", true},
		{"8112289873", false},
		{"5560360793", true},
		{"50501055", true},
		{"0", true},
		{"00", true},
		{"18", true},
		{"19", false},
		{"79927398713", true}, // the classic Luhn example
		{"79927398710", false},
		{"", false},
		{"12a4", false},
		{"811228-9874", false}, // digits only
	}
	for _, tt := range tests {
		if got := collection.LuhnValid(tt.in); got != tt.want {
			t.Errorf("luhnValid(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestLuhnAgainstReference compares luhnValid with the reference for every
// payload of up to 5 digits and every final digit.
func TestLuhnAgainstReference(t *testing.T) {
	for n := 1; n < 100000; n += 7 {
		for _, width := range []int{1, 3, 5} {
			payload := fmt.Sprintf("%0*d", width, n%pow10(width))
			check := refCheckDigit(payload)
			for c := byte('0'); c <= '9'; c++ {
				if got, want := collection.LuhnValid(payload+string(c)), c == check; got != want {
					t.Fatalf("luhnValid(%s%c) = %v, want %v", payload, c, got, want)
				}
			}
		}
	}
}

func pow10(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}

func TestDigitsAndNormalizeNumber(t *testing.T) {
	for in, want := range map[string]string{
		"19800101-1234":   "198001011234",
		"19800101 1234":   "198001011234",
		"198001011234":    "198001011234",
		" 5050-1055 ":     "50501055",
		"SE556036079301":  "556036079301",
		"":                "",
		"abc":             "",
		"١٢٣-4":           "4", // ASCII digits only
		"4 09 95-3":       "409953",
		"+46 (0)8-123 45": "46081234" + "5",
	} {
		if got := collection.Digits(in); got != want {
			t.Errorf("Digits(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		" 19800101-1234\t": "19800101-1234",
		"5050-1055":        "5050-1055",
		"  ":               "",
		"a b":              "a b",
	} {
		if got := collection.NormalizeNumber(in); got != want {
			t.Errorf("NormalizeNumber(%q) = %q, want %q", in, got, want)
		}
	}
}

type idCase struct {
	in      string
	wantErr error // nil: valid
}

func runIDCases(t *testing.T, name string, fn func(string) error, cases []idCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(name+"/"+tt.in, func(t *testing.T) {
			err := fn(tt.in)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Errorf("%s(%q) = %v, want nil", name, tt.in, err)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("%s(%q) = %v, want %v", name, tt.in, err, tt.wantErr)
			case err != nil && err.Error() == "":
				t.Errorf("%s(%q): empty error text", name, tt.in)
			}
		})
	}
}

var (
	// Luhn-valid numbers that break one other rule, computed so that rule
	// is what fails.
	badMonth13  = withCheck("811328987") // 811328-9873: month 13
	badMonth00  = withCheck("810028987") // month 00
	badDay32    = withCheck("811232987") // 32 December
	badDay00    = withCheck("811200987") // day 00
	badFeb30    = withCheck("810230123") // 30 February
	badApr31    = withCheck("810431123") // 31 April
	feb29Leap   = withCheck("800229123") // 1980 (or 1880, 2080): leap
	feb29Zero   = withCheck("000229123") // YY 00: leap in 2000
	feb29Odd    = withCheck("810229123") // 81 is never a leap year
	birth000    = withCheck("811228000") // 811228-0006
	coordDay92  = withCheck("701092239") // day 92 = 32 + 60
	coordDay60  = withCheck("701060239") // day 60 = 0 + 60
	coordFeb29  = withCheck("000289123") // 29 + 60 in February of YY 00
	coordFeb29x = withCheck("010289123") // 29 + 60 in February of YY 01
	coord000    = withCheck("701063000") // birth number 000
	pnr1900Feb  = withCheck("000229123") // as 19000229: not a leap year
	orgLowThird = withCheck("551036079") // third digit 1, Luhn-valid
	orgThird0   = withCheck("550036079") // third digit 0, Luhn-valid
)

func sep(ten string, c string) string { return ten[:6] + c + ten[6:] }

func TestValidatePersonnummer(t *testing.T) {
	runIDCases(t, "ValidatePersonnummer", collection.ValidatePersonnummer, []idCase{
		{"811228-9874", nil},
		{"19811228-9874", nil},
		{"198112289874", nil},
		{"8112289874", nil},
		{"811228+9874", nil},
		{"811228 9874", nil},
		{"19811228 9874", nil},
		{"19811228+9874", nil},
		{" 811228-9874 ", nil}, // surrounding space is trimmed
		{"670919-9530", nil},
		{"19670919-9530", nil},
		{sep(feb29Leap, "-"), nil},
		{"19" + feb29Leap, nil},
		{sep(feb29Zero, "-"), nil},
		{"20" + feb29Zero, nil},
		{withCheck("181228987"), nil},
		{"18" + withCheck("961228987"), nil},

		{"811228-9873", collection.ErrInvalidCheckDigit},
		{"8112289870", collection.ErrInvalidCheckDigit},
		{"19811228-9873", collection.ErrInvalidCheckDigit},
		{sep(badMonth13, "-"), collection.ErrInvalidDate},
		{"19" + badMonth13, collection.ErrInvalidDate},
		{sep(badMonth00, "-"), collection.ErrInvalidDate},
		{sep(badDay32, "-"), collection.ErrInvalidDate},
		{sep(badDay00, "-"), collection.ErrInvalidDate},
		{sep(badFeb30, "-"), collection.ErrInvalidDate},
		{sep(badApr31, "-"), collection.ErrInvalidDate},
		{sep(feb29Odd, "-"), collection.ErrInvalidDate},
		{"19" + pnr1900Feb, collection.ErrInvalidDate}, // 1900 was no leap year
		{"18" + pnr1900Feb, collection.ErrInvalidDate}, // nor 1800
		{"17" + withCheck("811228987"), collection.ErrInvalidDate},
		{"21" + withCheck("811228987"), collection.ErrInvalidDate},
		{"701063-2391", collection.ErrInvalidDate}, // a samordningsnummer
		{sep(birth000, "-"), collection.ErrInvalidBirthNumber},
		{"19" + birth000, collection.ErrInvalidBirthNumber},

		{"", collection.ErrInvalidFormat},
		{"   ", collection.ErrInvalidFormat},
		{"81122898741", collection.ErrInvalidFormat},   // 11 digits
		{"811228987", collection.ErrInvalidFormat},     // 9 digits
		{"1981122898741", collection.ErrInvalidFormat}, // 13 digits
		{"811228-987X", collection.ErrInvalidFormat},
		{"abcdef-ghij", collection.ErrInvalidFormat},
		{"8112-289874", collection.ErrInvalidFormat},
		{"811228987-4", collection.ErrInvalidFormat},
		{"-8112289874", collection.ErrInvalidFormat},
		{"1981-1228-9874", collection.ErrInvalidFormat},
		{"811228--9874", collection.ErrInvalidFormat},
		{"811228 - 9874", collection.ErrInvalidFormat},
		{"811228_9874", collection.ErrInvalidFormat},
		{"811228/9874", collection.ErrInvalidFormat},
		{"８１１２２８-９８７４", collection.ErrInvalidFormat}, // full-width digits
	})
}

func TestValidateSamordningsnummer(t *testing.T) {
	runIDCases(t, "ValidateSamordningsnummer", collection.ValidateSamordningsnummer, []idCase{
		{"701063-2391", nil},
		{"7010632391", nil},
		{"19701063-2391", nil},
		{"701063+2391", nil},
		{sep(coordFeb29, "-"), nil},
		{sep(withCheck("701091239"), "-"), nil}, // 31 + 60
		{sep(withCheck("700161123"), "-"), nil}, // 1 + 60

		{"701063-2392", collection.ErrInvalidCheckDigit},
		{"811228-9874", collection.ErrInvalidDate}, // a personnummer
		{sep(coordDay92, "-"), collection.ErrInvalidDate},
		{sep(coordDay60, "-"), collection.ErrInvalidDate},
		{sep(coordFeb29x, "-"), collection.ErrInvalidDate},
		{sep(withCheck("700431123"), "-"), collection.ErrInvalidDate}, // day 31 is not a samordningsnummer
		{sep(withCheck("700491123"), "-"), collection.ErrInvalidDate}, // 31 April + 60
		{sep(coord000, "-"), collection.ErrInvalidBirthNumber},
		{"7010-632391", collection.ErrInvalidFormat},
		{"70106323911", collection.ErrInvalidFormat},
	})
}

func TestValidatePersonalIdentity(t *testing.T) {
	runIDCases(t, "ValidatePersonalIdentity", collection.ValidatePersonalIdentity, []idCase{
		{"811228-9874", nil},
		{"19811228-9874", nil},
		{"670919-9530", nil},
		{"701063-2391", nil},
		{"19701063-2391", nil},
		{"811228-9873", collection.ErrInvalidCheckDigit},
		{"701063-2392", collection.ErrInvalidCheckDigit},
		{sep(badDay32, "-"), collection.ErrInvalidDate},
		{sep(coordDay92, "-"), collection.ErrInvalidDate},
		{sep(coordDay60, "-"), collection.ErrInvalidDate}, // day 60 is neither
		{sep(birth000, "-"), collection.ErrInvalidBirthNumber},
		{"556036-0793", collection.ErrInvalidDate}, // an organisationsnummer
		{"8112-289874", collection.ErrInvalidFormat},
	})
}

// TestPersonnummerDates checks the date rule against the time package for
// every month 00–13 and day 00–32 of every two-digit year, in the 10-digit
// form, and for some centuries in the 12-digit form.
func TestPersonnummerDates(t *testing.T) {
	realDate := func(year, month, day int) bool {
		if month < 1 || month > 12 || day < 1 {
			return false
		}
		d := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
		return d.Month() == time.Month(month) && d.Day() == day
	}
	for yy := 0; yy < 100; yy++ {
		for month := 0; month <= 13; month++ {
			for day := 0; day <= 32; day++ {
				ten := withCheck(fmt.Sprintf("%02d%02d%02d123", yy, month, day))
				// Any century: 2000+yy is a leap year exactly when yy%4 == 0.
				want := realDate(2000+yy, month, day)
				if got := collection.ValidatePersonnummer(ten) == nil; got != want {
					t.Fatalf("ValidatePersonnummer(%s) valid = %v, want %v", ten, got, want)
				}
				coord := withCheck(fmt.Sprintf("%02d%02d%02d123", yy, month, day+60))
				if got := collection.ValidateSamordningsnummer(coord) == nil; got != want {
					t.Fatalf("ValidateSamordningsnummer(%s) valid = %v, want %v", coord, got, want)
				}
				if got := collection.ValidatePersonalIdentity(coord) == nil; got != want {
					t.Fatalf("ValidatePersonalIdentity(%s) valid = %v, want %v", coord, got, want)
				}
				for _, century := range []int{18, 19, 20} {
					year := century*100 + yy
					want := realDate(year, month, day)
					twelve := fmt.Sprintf("%d%s", century, ten)
					if got := collection.ValidatePersonnummer(twelve) == nil; got != want {
						t.Fatalf("ValidatePersonnummer(%s) valid = %v, want %v", twelve, got, want)
					}
				}
			}
		}
	}
}

// TestPersonnummerCheckDigit changes the check digit of valid numbers: only
// the right one is accepted, and the error names the check digit.
func TestPersonnummerCheckDigit(t *testing.T) {
	for _, valid := range []string{"811228-9874", "670919-9530", "19811228-9874"} {
		for c := byte('0'); c <= '9'; c++ {
			s := valid[:len(valid)-1] + string(c)
			err := collection.ValidatePersonnummer(s)
			if s == valid {
				if err != nil {
					t.Errorf("ValidatePersonnummer(%s) = %v", s, err)
				}
			} else if !errors.Is(err, collection.ErrInvalidCheckDigit) {
				t.Errorf("ValidatePersonnummer(%s) = %v, want check digit error", s, err)
			}
		}
	}
}

func TestValidateOrganisationsnummer(t *testing.T) {
	runIDCases(t, "ValidateOrganisationsnummer", collection.ValidateOrganisationsnummer, []idCase{
		{"556036-0793", nil},
		{"5560360793", nil},
		{"165560360793", nil},
		{"16556036-0793", nil},
		{"16 556036-0793", nil},
		{"556036 0793", nil},
		{"556 036 0793", nil},
		{" 556036-0793 ", nil},
		{"212000-0142", nil},
		{"2120000142", nil},
		{withCheck("802000123"), nil},
		{withCheck("992000123"), nil},

		{"556036-0794", collection.ErrInvalidCheckDigit},
		{"165560360794", collection.ErrInvalidCheckDigit},
		{"212000-0143", collection.ErrInvalidCheckDigit},
		{orgLowThird, collection.ErrInvalidThirdDigit},
		{orgThird0, collection.ErrInvalidThirdDigit},
		{"811228-9874", collection.ErrInvalidThirdDigit}, // a personnummer
		{"16" + orgLowThird, collection.ErrInvalidThirdDigit},

		{"", collection.ErrInvalidFormat},
		{"556036079", collection.ErrInvalidFormat},     // 9 digits
		{"55603607931", collection.ErrInvalidFormat},   // 11 digits
		{"195560360793", collection.ErrInvalidFormat},  // 12 digits without 16
		{"1655603607930", collection.ErrInvalidFormat}, // 13 digits
		{"556036+0793", collection.ErrInvalidFormat},
		{"SE556036079301", collection.ErrInvalidFormat}, // VAT number
		{"556036-079O", collection.ErrInvalidFormat},
	})
}

func TestValidateCorporateIdentity(t *testing.T) {
	runIDCases(t, "ValidateCorporateIdentity", collection.ValidateCorporateIdentity, []idCase{
		{"556036-0793", nil},
		{"165560360793", nil},
		{"212000-0142", nil},
		{"811228-9874", nil},   // sole trader
		{"19811228-9874", nil}, // sole trader, 12 digits
		{"811228+9874", nil},
		{"701063-2391", nil}, // samordningsnummer

		{"556036-0794", collection.ErrInvalidCheckDigit},
		{"811228-9873", collection.ErrInvalidCheckDigit},
		{sep(badMonth13, "-"), collection.ErrInvalidDate},
		{sep(birth000, "-"), collection.ErrInvalidBirthNumber},
		{"556036+0793", collection.ErrInvalidFormat},
		{"8112-289874", collection.ErrInvalidFormat},
		{"556036079", collection.ErrInvalidFormat},
		{"abc", collection.ErrInvalidFormat},
		{"", collection.ErrInvalidFormat},
	})
}

func TestValidateBankgiro(t *testing.T) {
	runIDCases(t, "ValidateBankgiro", collection.ValidateBankgiro, []idCase{
		{"5050-1055", nil},
		{"50501055", nil},
		{"5050 1055", nil},
		{" 5050-1055 ", nil},
		{"123-4566", nil},
		{"1234566", nil},
		{withCheck("1234567"), nil},

		{"5050-1056", collection.ErrInvalidCheckDigit},
		{"123-4560", collection.ErrInvalidCheckDigit},
		{"409953", collection.ErrInvalidFormat}, // 6 digits: a Plusgiro only
		{withCheck("12345678"), collection.ErrInvalidFormat},
		{"", collection.ErrInvalidFormat},
		{"---", collection.ErrInvalidFormat},
		{"5050.1055", collection.ErrInvalidFormat},
		{"BG 5050-1055", collection.ErrInvalidFormat},
	})
}

func TestValidatePlusgiro(t *testing.T) {
	runIDCases(t, "ValidatePlusgiro", collection.ValidatePlusgiro, []idCase{
		{"4 09 95-3", nil},
		{"40995-3", nil},
		{"409953", nil},
		{withCheck("4"), nil}, // 2 digits
		{withCheck("1234567"), nil},
		{"5050-1055", nil}, // 8 digits

		{"4 09 95-0", collection.ErrInvalidCheckDigit},
		{"4099530", collection.ErrInvalidCheckDigit},
		{"4", collection.ErrInvalidFormat},
		{withCheck("12345678"), collection.ErrInvalidFormat},
		{"", collection.ErrInvalidFormat},
		{"PG 40995-3", collection.ErrInvalidFormat},
	})
}

func TestValidateBankNumber(t *testing.T) {
	runIDCases(t, "ValidateBankNumber", collection.ValidateBankNumber, []idCase{
		{"5050-1055", nil}, // Bankgiro
		{"123-4566", nil},  // Bankgiro
		{"4 09 95-3", nil}, // Plusgiro
		{withCheck("4"), nil},

		{"5050-1056", collection.ErrInvalidCheckDigit},
		{"40995-0", collection.ErrInvalidCheckDigit},
		{"4", collection.ErrInvalidFormat},
		{withCheck("12345678"), collection.ErrInvalidFormat},
		{"", collection.ErrInvalidFormat},
		{"50501055x", collection.ErrInvalidFormat},
	})
}

// TestErrorTexts checks that errors describe the rule broken.
func TestErrorTexts(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{collection.ValidatePersonnummer("8112-289874"), "separator"},
		{collection.ValidatePersonnummer("81122898741"), "10 or 12 digits"},
		{collection.ValidatePersonnummer("811228-9873"), "check digit"},
		{collection.ValidatePersonnummer(sep(birth000, "-")), "birth number"},
		{collection.ValidatePersonnummer(sep(badMonth13, "-")), "date"},
		{collection.ValidatePersonnummer("701063-2391"), "samordningsnummer"},
		{collection.ValidateOrganisationsnummer(orgLowThird), "third digit"},
		{collection.ValidateBankgiro("409953"), "7 or 8"},
		{collection.ValidatePlusgiro("4"), "2 to 8"},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("error %v does not mention %q", tt.err, tt.want)
		}
	}
}
