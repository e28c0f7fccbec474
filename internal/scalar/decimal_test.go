package scalar_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/debtql/debtql/internal/scalar"
)

func TestUnmarshalDecimalAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string // exact value, as decimal.Decimal.String writes it
	}{
		// JSON numbers (variables decoded with UseNumber).
		{"json.Number 1250.50", json.Number("1250.50"), "1250.5"},
		{"json.Number 0.1", json.Number("0.1"), "0.1"},
		{"json.Number -3", json.Number("-3"), "-3"},
		{"json.Number 0", json.Number("0"), "0"},
		{"json.Number -0", json.Number("-0"), "0"},
		{"json.Number -0.01", json.Number("-0.01"), "-0.01"},
		{"json.Number 1e2", json.Number("1e2"), "100"},
		{"json.Number 1E-2", json.Number("1E-2"), "0.01"},
		{"json.Number 1e+2", json.Number("1e+2"), "100"},
		{"json.Number 1.5e2", json.Number("1.5e2"), "150"},
		{"json.Number -1.25E-1", json.Number("-1.25E-1"), "-0.125"},
		{"json.Number 1e30", json.Number("1e30"), "1000000000000000000000000000000"},
		{"json.Number 1e-30", json.Number("1e-30"), "0.000000000000000000000000000001"},
		{"json.Number many digits", json.Number("123456789012345678901234567890.123456789"), "123456789012345678901234567890.123456789"},
		{"json.Number 40 characters", json.Number(strings.Repeat("9", 40)), strings.Repeat("9", 40)},
		// Numeric strings.
		{"string 1250.50", "1250.50", "1250.5"},
		{"string 0.1", "0.1", "0.1"},
		{"string -3", "-3", "-3"},
		{"string 1e2", "1e2", "100"},
		{"string 40 characters", "-0." + strings.Repeat("1", 37), "-0." + strings.Repeat("1", 37)},
		// Int literals in a query document.
		{"int", 42, "42"},
		{"int negative", -7, "-7"},
		{"int zero", 0, "0"},
		{"int64", int64(1250), "1250"},
		{"int64 max", int64(math.MaxInt64), "9223372036854775807"},
		{"int64 min", int64(math.MinInt64), "-9223372036854775808"},
		// Float literals in a query document.
		{"float64 0.1", 0.1, "0.1"},
		{"float64 1250.5", 1250.5, "1250.5"},
		{"float64 1250.50", 1250.50, "1250.5"},
		{"float64 -3", -3.0, "-3"},
		{"float64 0.01", 0.01, "0.01"},
		{"float64 12.345", 12.345, "12.345"},
		{"float64 1e20", 1e20, "100000000000000000000"},
		{"float64 1e-7", 1e-7, "0.0000001"},
		{"float64 15 significant digits", 123456789012345.0, "123456789012345"},
		{"float64 15 significant digits with fraction", 1234567890.12345, "1234567890.12345"},
		{"float64 -0", math.Copysign(0, -1), "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scalar.UnmarshalDecimal(tt.in)
			if err != nil {
				t.Fatalf("UnmarshalDecimal(%#v) error: %v", tt.in, err)
			}
			if got.String() != tt.want {
				t.Errorf("UnmarshalDecimal(%#v) = %s, want %s", tt.in, got.String(), tt.want)
			}
			if want := decimal.RequireFromString(tt.want); !got.Equal(want) {
				t.Errorf("UnmarshalDecimal(%#v) = %s, not equal to %s", tt.in, got, want)
			}
		})
	}
}

// badDecimalTexts are refused both as a json.Number and as a string.
var badDecimalTexts = []struct {
	name string
	in   string
}{
	{"empty", ""},
	{"leading space", " 1"},
	{"trailing space", "1 "},
	{"inner space", "1 000"},
	{"tab", "\t1"},
	{"newline", "1\n"},
	{"letters", "abc"},
	{"trailing point", "1."},
	{"leading point", ".5"},
	{"negative leading point", "-.5"},
	{"point only", "."},
	{"leading plus", "+1"},
	{"plus with fraction", "+1.5"},
	{"minus only", "-"},
	{"double minus", "--1"},
	{"minus inside", "1-2"},
	{"two points", "1.2.3"},
	{"comma", "1,5"},
	{"thousands comma", "1,000.00"},
	{"underscore", "1_000"},
	{"hex", "0x10"},
	{"hex upper", "0X10"},
	{"binary", "0b10"},
	{"NaN", "NaN"},
	{"nan", "nan"},
	{"Inf", "Inf"},
	{"+Inf", "+Inf"},
	{"-Inf", "-Inf"},
	{"Infinity", "Infinity"},
	{"exponent only", "e5"},
	{"negative exponent only", "-e5"},
	{"empty exponent", "1e"},
	{"exponent sign only", "1e-"},
	{"fractional exponent", "1e2.5"},
	{"two exponents", "1e2e3"},
	{"point after exponent", "1e5."},
	{"exponent 31", "1e31"},
	{"exponent -31", "1e-31"},
	{"exponent +31", "1e+31"},
	{"huge exponent", "1e999999999"},
	{"huge negative exponent", "1e-999999999"},
	{"exponent overflowing int", "1e99999999999999999999"},
	{"41 characters", strings.Repeat("1", 41)},
	{"41 characters with point", "0." + strings.Repeat("1", 39)},
	{"very long", strings.Repeat("9", 10000)},
	{"currency", "1250.50 kr"},
	{"dollar", "$1"},
	{"percent", "12.5%"},
	{"arabic-indic digit", "١"},
	{"full-width digit", "１"},
}

func TestUnmarshalDecimalRefuses(t *testing.T) {
	for _, tt := range badDecimalTexts {
		t.Run("string "+tt.name, func(t *testing.T) {
			if got, err := scalar.UnmarshalDecimal(tt.in); err == nil {
				t.Errorf("UnmarshalDecimal(%q) = %s, want an error", tt.in, got)
			}
		})
		t.Run("json.Number "+tt.name, func(t *testing.T) {
			if got, err := scalar.UnmarshalDecimal(json.Number(tt.in)); err == nil {
				t.Errorf("UnmarshalDecimal(json.Number(%q)) = %s, want an error", tt.in, got)
			}
		})
		t.Run("ParseDecimal "+tt.name, func(t *testing.T) {
			if got, err := scalar.ParseDecimal(tt.in); err == nil {
				t.Errorf("ParseDecimal(%q) = %s, want an error", tt.in, got)
			}
		})
	}
}

func TestUnmarshalDecimalRefusesFloats(t *testing.T) {
	// Variables, so that 0.1+0.2 is float64 arithmetic and not an exact
	// constant expression.
	a, b := 0.1, 0.2
	if a+b == 0.3 {
		t.Fatal("0.1+0.2 was computed exactly; the case below tests nothing")
	}
	tests := []struct {
		name string
		in   float64
	}{
		{"0.1+0.2", a + b}, // 0.30000000000000004
		{"16 significant digits", 1234567890123456.0},
		{"17 significant digits", 0.12345678901234567},
		{"beyond 2^53", 9007199254740993.0},
		{"1/3", 1.0 / 3.0},
		{"NaN", math.NaN()},
		{"+Inf", math.Inf(1)},
		{"-Inf", math.Inf(-1)},
		{"too long", 1e50},
		{"too small", 1e-50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := scalar.UnmarshalDecimal(tt.in); err == nil {
				t.Errorf("UnmarshalDecimal(%v) = %s, want an error", tt.in, got)
			}
		})
	}
}

func TestUnmarshalDecimalRefusesOtherTypes(t *testing.T) {
	tests := []struct {
		name string
		in   any
	}{
		{"nil", nil},
		{"bool true", true},
		{"bool false", false},
		{"map", map[string]any{"value": "1"}},
		{"slice", []any{"1"}},
		{"bytes", []byte("1")},
		{"pointer to string", ptr("1")},
		{"struct", struct{}{}},
		{"decimal.Decimal", decimal.NewFromInt(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := scalar.UnmarshalDecimal(tt.in); err == nil {
				t.Errorf("UnmarshalDecimal(%#v) = %s, want an error", tt.in, got)
			}
		})
	}
}

func TestParseDecimalMatchesUnmarshal(t *testing.T) {
	for _, s := range []string{"1250.50", "0.1", "-3", "1e2", "1E-2", "0"} {
		a, err := scalar.ParseDecimal(s)
		if err != nil {
			t.Fatalf("ParseDecimal(%q): %v", s, err)
		}
		b, err := scalar.UnmarshalDecimal(s)
		if err != nil {
			t.Fatalf("UnmarshalDecimal(%q): %v", s, err)
		}
		if !a.Equal(b) || a.Exponent() != b.Exponent() {
			t.Errorf("ParseDecimal(%q) = %s, UnmarshalDecimal = %s", s, a, b)
		}
	}
}

func TestUnmarshalDecimalKeepsScale(t *testing.T) {
	// The exponent tells money callers how many decimals were written.
	tests := []struct {
		in  any
		exp int32
	}{
		{json.Number("1250.50"), -2},
		{json.Number("1250.5"), -1},
		{json.Number("1.000"), -3},
		{"1250", 0},
		{json.Number("1e2"), 2},
		{json.Number("1.5e-3"), -4},
	}
	for _, tt := range tests {
		got, err := scalar.UnmarshalDecimal(tt.in)
		if err != nil {
			t.Fatalf("UnmarshalDecimal(%#v): %v", tt.in, err)
		}
		if got.Exponent() != tt.exp {
			t.Errorf("UnmarshalDecimal(%#v) has exponent %d, want %d", tt.in, got.Exponent(), tt.exp)
		}
	}
}

func TestDecimalExactness(t *testing.T) {
	sum := func(t *testing.T, a, b any) decimal.Decimal {
		t.Helper()
		x, err := scalar.UnmarshalDecimal(a)
		if err != nil {
			t.Fatal(err)
		}
		y, err := scalar.UnmarshalDecimal(b)
		if err != nil {
			t.Fatal(err)
		}
		return x.Add(y)
	}
	tests := []struct {
		name string
		a, b any
		want string
	}{
		{"json.Number 0.1 + 0.2", json.Number("0.1"), json.Number("0.2"), "0.3"},
		{"string 0.1 + 0.2", "0.1", "0.2", "0.3"},
		{"float64 literals 0.1 + 0.2", 0.1, 0.2, "0.3"},
		{"money 1250.50 + 0.01", json.Number("1250.50"), json.Number("0.01"), "1250.51"},
		{"large and small", json.Number("999999999999999.99"), json.Number("0.01"), "1000000000000000"},
		{"cancel", json.Number("0.3"), json.Number("-0.3"), "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sum(t, tt.a, tt.b)
			if got.String() != tt.want {
				t.Errorf("%v + %v = %s, want exactly %s", tt.a, tt.b, got, tt.want)
			}
			if !got.Equal(decimal.RequireFromString(tt.want)) {
				t.Errorf("%v + %v = %s, not equal to %s", tt.a, tt.b, got, tt.want)
			}
		})
	}
	// Ten times 0.1 is exactly 1.
	tenth, err := scalar.UnmarshalDecimal(json.Number("0.1"))
	if err != nil {
		t.Fatal(err)
	}
	total := decimal.Zero
	for range 10 {
		total = total.Add(tenth)
	}
	if !total.Equal(decimal.NewFromInt(1)) {
		t.Errorf("ten times 0.1 = %s, want 1", total)
	}
}

func TestMarshalDecimal(t *testing.T) {
	tests := []struct {
		name string
		d    decimal.Decimal
		want string
	}{
		{"1250.50 (trailing zero is not kept)", decimal.RequireFromString("1250.50"), `"1250.5"`},
		{"0.1", decimal.RequireFromString("0.1"), `"0.1"`},
		{"-3", decimal.NewFromInt(-3), `"-3"`},
		{"zero", decimal.Zero, `"0"`},
		{"0.1 + 0.2", decimal.RequireFromString("0.1").Add(decimal.RequireFromString("0.2")), `"0.3"`},
		{"no exponent for large", decimal.New(1, 30), `"1000000000000000000000000000000"`},
		{"no exponent for small", decimal.New(1, -30), `"0.000000000000000000000000000001"`},
		{"negative small", decimal.New(-125, -4), `"-0.0125"`},
		{"many digits", decimal.RequireFromString("123456789012345678901234567890.123456789"), `"123456789012345678901234567890.123456789"`},
		{"beyond float64", decimal.RequireFromString("9007199254740993"), `"9007199254740993"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := marshal(t, scalar.MarshalDecimal(tt.d))
			if got != tt.want {
				t.Errorf("MarshalDecimal(%s) wrote %s, want %s", tt.d, got, tt.want)
			}
			// What is written is a JSON string that reads back to the same value.
			var s string
			if err := json.Unmarshal([]byte(got), &s); err != nil {
				t.Fatalf("MarshalDecimal wrote %s, not a JSON string: %v", got, err)
			}
			back, err := scalar.UnmarshalDecimal(s)
			if err != nil {
				t.Fatalf("UnmarshalDecimal(%q): %v", s, err)
			}
			if !back.Equal(tt.d) {
				t.Errorf("UnmarshalDecimal(%q) = %s, want %s", s, back, tt.d)
			}
		})
	}
}
