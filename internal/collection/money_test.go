package collection_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/collection"
	"github.com/shopspring/decimal"
)

func TestParseMoney(t *testing.T) {
	tests := []struct {
		in      string
		want    collection.Money
		wantErr error
		msg     string // expected Error() text, when set
	}{
		{in: "1250", want: 125000},
		{in: "1250.5", want: 125050},
		{in: "1250.50", want: 125050},
		{in: "-3.10", want: -310},
		{in: "-3.1", want: -310},
		{in: "0.1", want: 10},
		{in: "0.01", want: 1},
		{in: "-0.01", want: -1},
		{in: "0", want: 0},
		{in: "0.00", want: 0},
		{in: "-0", want: 0},
		{in: "-0.00", want: 0},
		{in: "007", want: 700},
		{in: "1.00", want: 100},
		{in: "999999999999999.99", want: 99999999999999999},
		{in: "-999999999999999.99", want: -99999999999999999},
		{in: "000999999999999999", want: 99999999999999900}, // leading zeros do not count
		{in: "100000000000000", want: 10000000000000000},    // 15 integer digits

		{in: "1.005", wantErr: collection.ErrTooManyDecimals, msg: "must have at most 2 decimals"},
		{in: "1.000", wantErr: collection.ErrTooManyDecimals, msg: "must have at most 2 decimals"},
		{in: "0.001", wantErr: collection.ErrTooManyDecimals},
		{in: "-3.105", wantErr: collection.ErrTooManyDecimals},
		{in: "1000000000000000", wantErr: collection.ErrTooLarge, msg: "must have at most 15 integer digits"},
		{in: "-1000000000000000.00", wantErr: collection.ErrTooLarge},
		{in: "99999999999999999999999999", wantErr: collection.ErrTooLarge},

		{in: "", wantErr: collection.ErrNotANumber},
		{in: "-", wantErr: collection.ErrNotANumber},
		{in: "+5", wantErr: collection.ErrNotANumber},
		{in: "+0.50", wantErr: collection.ErrNotANumber},
		{in: "--5", wantErr: collection.ErrNotANumber},
		{in: "abc", wantErr: collection.ErrNotANumber},
		{in: "12abc", wantErr: collection.ErrNotANumber},
		{in: "1.2.3", wantErr: collection.ErrNotANumber},
		{in: "1,50", wantErr: collection.ErrNotANumber},
		{in: "1 000", wantErr: collection.ErrNotANumber},
		{in: " 1", wantErr: collection.ErrNotANumber},
		{in: "1 ", wantErr: collection.ErrNotANumber},
		{in: "\t1.00\n", wantErr: collection.ErrNotANumber},
		{in: ".5", wantErr: collection.ErrNotANumber},
		{in: "5.", wantErr: collection.ErrNotANumber},
		{in: "-.5", wantErr: collection.ErrNotANumber},
		{in: "NaN", wantErr: collection.ErrNotANumber},
		{in: "Inf", wantErr: collection.ErrNotANumber},
		{in: "-Infinity", wantErr: collection.ErrNotANumber},
		{in: "0x10", wantErr: collection.ErrNotANumber},
		{in: "1_000", wantErr: collection.ErrNotANumber},
		{in: "١٢", wantErr: collection.ErrNotANumber}, // non-ASCII digits
		{in: "1e3", wantErr: collection.ErrNotANumber, msg: "exponent notation is not allowed"},
		{in: "1e2", wantErr: collection.ErrNotANumber, msg: "exponent notation is not allowed"},
		{in: "1E2", wantErr: collection.ErrNotANumber, msg: "exponent notation is not allowed"},
		{in: "1.5e-2", wantErr: collection.ErrNotANumber, msg: "exponent notation is not allowed"},
		{in: "-1.5E+2", wantErr: collection.ErrNotANumber, msg: "exponent notation is not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := collection.ParseMoney(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ParseMoney(%q) error = %v, want %v", tt.in, err, tt.wantErr)
				}
				if tt.msg != "" && err.Error() != tt.msg {
					t.Errorf("ParseMoney(%q) error text = %q, want %q", tt.in, err.Error(), tt.msg)
				}
				if got != 0 {
					t.Errorf("ParseMoney(%q) = %d with an error, want 0", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseMoney(%q) error = %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseMoney(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseMoneyErrorsAreDistinct(t *testing.T) {
	sentinels := []error{collection.ErrTooManyDecimals, collection.ErrTooLarge, collection.ErrNotANumber}
	for in, want := range map[string]error{
		"1.005":                       collection.ErrTooManyDecimals,
		"1e15":                        collection.ErrNotANumber,
		"1" + strings.Repeat("0", 15): collection.ErrTooLarge,
	} {
		_, err := collection.ParseMoney(in)
		for _, s := range sentinels {
			if errors.Is(err, s) != (s == want) {
				t.Errorf("ParseMoney(%q): errors.Is(%v, %v) = %v", in, err, s, errors.Is(err, s))
			}
		}
	}
}

func TestMoneyString(t *testing.T) {
	tests := []struct {
		in   collection.Money
		want string
	}{
		{0, "0.00"},
		{1, "0.01"},
		{10, "0.10"},
		{-1, "-0.01"},
		{-50, "-0.50"},
		{100, "1.00"},
		{125000, "1250.00"},
		{125050, "1250.50"},
		{-310, "-3.10"},
		{99999999999999999, "999999999999999.99"},
		{math.MaxInt64, "92233720368547758.07"},
		{math.MinInt64, "-92233720368547758.08"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Money(%d).String() = %q, want %q", int64(tt.in), got, tt.want)
		}
	}
}

func TestMoneyRoundTrip(t *testing.T) {
	for _, m := range []collection.Money{0, 1, -1, 5, 99, 100, 101, 123456, -123456, 99999999999999999, -99999999999999999} {
		got, err := collection.ParseMoney(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d", m.String(), got, err, m)
		}
		d := m.Decimal()
		if d.String() != decimal.RequireFromString(m.String()).String() {
			t.Errorf("Money(%d).Decimal() = %s, want %s", m, d, m)
		}
		got, err = collection.MoneyFromDecimal(d)
		if err != nil || got != m {
			t.Errorf("MoneyFromDecimal(%s) = %d, %v; want %d", d, got, err, m)
		}
	}
}

func TestMoneyDecimal(t *testing.T) {
	d := collection.Money(125050).Decimal()
	if !d.Equal(decimal.RequireFromString("1250.50")) || d.Exponent() != -2 {
		t.Errorf("Money(125050).Decimal() = %s (exp %d), want 1250.50 (exp -2)", d, d.Exponent())
	}
	if got := collection.Money(125050).Decimal().StringFixed(2); got != "1250.50" {
		t.Errorf("StringFixed(2) = %q", got)
	}
}

func TestMoneyFromDecimal(t *testing.T) {
	tests := []struct {
		name    string
		in      decimal.Decimal
		want    collection.Money
		wantErr error
	}{
		{name: "integer", in: decimal.RequireFromString("1250"), want: 125000},
		{name: "one decimal", in: decimal.RequireFromString("1250.5"), want: 125050},
		{name: "two decimals", in: decimal.RequireFromString("1250.50"), want: 125050},
		{name: "negative", in: decimal.RequireFromString("-3.10"), want: -310},
		{name: "zero", in: decimal.Zero, want: 0},
		{name: "zero with exponent", in: decimal.New(0, 1000), want: 0},
		{name: "positive exponent", in: decimal.New(12, 2), want: 120000},
		{name: "new -2", in: decimal.New(-50, -2), want: -50},
		{name: "largest", in: decimal.RequireFromString("999999999999999.99"), want: 99999999999999999},
		{name: "smallest", in: decimal.RequireFromString("-999999999999999.99"), want: -99999999999999999},
		{name: "three decimals", in: decimal.RequireFromString("1.005"), wantErr: collection.ErrTooManyDecimals},
		{name: "trailing zero decimals", in: decimal.RequireFromString("1.000"), wantErr: collection.ErrTooManyDecimals},
		{name: "exp -3", in: decimal.New(1000, -3), wantErr: collection.ErrTooManyDecimals},
		{name: "10^15", in: decimal.New(1, 15), wantErr: collection.ErrTooLarge},
		{name: "-10^15", in: decimal.RequireFromString("-1000000000000000"), wantErr: collection.ErrTooLarge},
		{name: "huge exponent", in: decimal.New(1, math.MaxInt32), wantErr: collection.ErrTooLarge},
		{name: "huge coefficient", in: decimal.RequireFromString("123456789012345678901234567890"), wantErr: collection.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := collection.MoneyFromDecimal(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("MoneyFromDecimal(%s) error = %v, want %v", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("MoneyFromDecimal(%s) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestMoneyFromDecimalAgreesWithParseMoney checks that both entry points
// accept and refuse the same exponent-free texts.
func TestMoneyFromDecimalAgreesWithParseMoney(t *testing.T) {
	for _, s := range []string{"0", "1", "1.5", "1.50", "1.500", "1.005", "-0.01", "999999999999999.99", "1000000000000000", "0001.10"} {
		m1, err1 := collection.ParseMoney(s)
		m2, err2 := collection.MoneyFromDecimal(decimal.RequireFromString(s))
		if m1 != m2 || (err1 == nil) != (err2 == nil) || !errors.Is(err2, errors.Unwrap(err1)) {
			t.Errorf("%q: ParseMoney = %d, %v; MoneyFromDecimal = %d, %v", s, m1, err1, m2, err2)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in      string
		want    collection.Rate
		wantErr error
		msg     string
	}{
		{in: "12.5", want: 125000},
		{in: "12.50", want: 125000},
		{in: "8.125", want: 81250},
		{in: "0.0001", want: 1},
		{in: "100", want: 1000000},
		{in: "0", want: 0},
		{in: "-1.5", want: -15000},
		{in: "99999999999999.9999", want: 999999999999999999},
		{in: "0.00001", wantErr: collection.ErrTooManyDecimals, msg: "must have at most 4 decimals"},
		{in: "8.12500", wantErr: collection.ErrTooManyDecimals},
		{in: "100000000000000", wantErr: collection.ErrTooLarge, msg: "must have at most 14 integer digits"},
		{in: "1e1", wantErr: collection.ErrNotANumber, msg: "exponent notation is not allowed"},
		{in: "+8", wantErr: collection.ErrNotANumber},
		{in: "", wantErr: collection.ErrNotANumber},
		{in: " 8", wantErr: collection.ErrNotANumber},
		{in: "8%", wantErr: collection.ErrNotANumber},
		{in: "NaN", wantErr: collection.ErrNotANumber},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := collection.ParseRate(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ParseRate(%q) error = %v, want %v", tt.in, err, tt.wantErr)
				}
				if tt.msg != "" && err.Error() != tt.msg {
					t.Errorf("ParseRate(%q) error text = %q, want %q", tt.in, err.Error(), tt.msg)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseRate(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestRateString(t *testing.T) {
	tests := []struct {
		in   collection.Rate
		want string
	}{
		{0, "0.00"},
		{125000, "12.50"},
		{81250, "8.125"},
		{81255, "8.1255"},
		{1, "0.0001"},
		{10, "0.001"},
		{100, "0.01"},
		{1000, "0.10"},
		{1000000, "100.00"},
		{-5000, "-0.50"},
		{-1, "-0.0001"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Rate(%d).String() = %q, want %q", int64(tt.in), got, tt.want)
		}
		back, err := collection.ParseRate(tt.want)
		if err != nil || back != tt.in {
			t.Errorf("ParseRate(%q) = %d, %v; want %d", tt.want, back, err, tt.in)
		}
	}
}

func TestRateDecimal(t *testing.T) {
	r := collection.Rate(81250)
	if d := r.Decimal(); !d.Equal(decimal.RequireFromString("8.125")) {
		t.Errorf("Rate(81250).Decimal() = %s", d)
	}
	for in, want := range map[string]collection.Rate{"12.5": 125000, "8.1250": 81250, "0": 0} {
		got, err := collection.RateFromDecimal(decimal.RequireFromString(in))
		if err != nil || got != want {
			t.Errorf("RateFromDecimal(%s) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := collection.RateFromDecimal(decimal.RequireFromString("1.00001")); !errors.Is(err, collection.ErrTooManyDecimals) {
		t.Errorf("RateFromDecimal(1.00001) error = %v", err)
	}
	if _, err := collection.RateFromDecimal(decimal.New(1, 14)); !errors.Is(err, collection.ErrTooLarge) {
		t.Errorf("RateFromDecimal(1e14) error = %v", err)
	}
}
