package collection_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/debtql/debtql/internal/collection"
)

func TestMarshalMoney(t *testing.T) {
	tests := []struct {
		m    collection.Money
		want string
	}{
		{125000, `"1250.00"`},
		{125050, `"1250.50"`},
		{125051, `"1250.51"`},
		{-50, `"-0.50"`},
		{-5, `"-0.05"`},
		{0, `"0.00"`},
		{1, `"0.01"`},
		{10, `"0.10"`},
		{100, `"1.00"`},
		{-125000, `"-1250.00"`},
		{99999999999999999, `"999999999999999.99"`},
		{-99999999999999999, `"-999999999999999.99"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := marshal(t, tt.m)
			if got != tt.want {
				t.Errorf("MarshalMoney(%d) wrote %s, want %s", tt.m, got, tt.want)
			}
			// What is written reads back as the same amount.
			var s string
			if err := json.Unmarshal([]byte(got), &s); err != nil {
				t.Fatalf("MarshalMoney(%d) wrote %s, not a JSON string: %v", tt.m, got, err)
			}
			back, err := unmarshalMoney(s)
			if err != nil || back != tt.m {
				t.Errorf("UnmarshalMoney(%q) = %d, %v; want %d", s, back, err, tt.m)
			}
		})
	}
}

func TestUnmarshalMoneyAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want collection.Money
	}{
		{"string 1250.5", "1250.5", 125050},
		{"string 1250.50", "1250.50", 125050},
		{"string 1250", "1250", 125000},
		{"string 0.01", "0.01", 1},
		{"string -3", "-3", -300},
		{"string -0.50", "-0.50", -50},
		{"string -0.00", "-0.00", 0},
		{"string 0", "0", 0},
		{"string max", "999999999999999.99", 99999999999999999},
		{"string min", "-999999999999999.99", -99999999999999999},
		{"string 15 integer digits", "100000000000000", 10000000000000000},
		{"json.Number 1250.50", json.Number("1250.50"), 125050},
		{"json.Number 0.1", json.Number("0.1"), 10},
		{"json.Number 1e2", json.Number("1e2"), 10000},
		{"json.Number 1E-2", json.Number("1E-2"), 1},
		{"json.Number 1.5e1", json.Number("1.5e1"), 1500},
		{"int", 1250, 125000},
		{"int negative", -3, -300},
		{"int64", int64(1250), 125000},
		{"float64 1250.5", 1250.5, 125050},
		{"float64 0.1", 0.1, 10},
		{"float64 0.01", 0.01, 1},
		{"float64 -3", -3.0, -300},
		{"float64 19.99", 19.99, 1999},
		{"float64 15 digits", 1234567890123.45, 123456789012345},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := unmarshalMoney(tt.in)
			if err != nil {
				t.Fatalf("UnmarshalMoney(%#v) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("UnmarshalMoney(%#v) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnmarshalMoneyRefuses(t *testing.T) {
	a, b := 0.1, 0.2
	tests := []struct {
		name string
		in   any
		is   error // a collection sentinel the error wraps, if any
	}{
		{"3 decimals", "1.005", collection.ErrTooManyDecimals},
		{"3 decimals, zero", "1.000", collection.ErrTooManyDecimals},
		{"3 decimals, json.Number", json.Number("1250.505"), collection.ErrTooManyDecimals},
		{"3 decimals via exponent", json.Number("1e-3"), collection.ErrTooManyDecimals},
		{"3 decimals, float64", 0.005, collection.ErrTooManyDecimals},
		{"3 decimals, negative", "-0.001", collection.ErrTooManyDecimals},
		{"16 integer digits", "1000000000000000", collection.ErrTooLarge},
		{"16 integer digits, negative", "-1000000000000000", collection.ErrTooLarge},
		{"16 integer digits with fraction", "1000000000000000.00", collection.ErrTooLarge},
		{"16 integer digits, json.Number", json.Number("9999999999999999"), collection.ErrTooLarge},
		{"16 integer digits via exponent", json.Number("1e15"), collection.ErrTooLarge},
		{"16 integer digits, int64", int64(1_000_000_000_000_000), collection.ErrTooLarge},
		{"int64 max", int64(math.MaxInt64), collection.ErrTooLarge},
		{"float64 0.1+0.2", a + b, nil},
		{"empty", "", nil},
		{"letters", "abc", nil},
		{"leading plus", "+1", nil},
		{"trailing point", "1.", nil},
		{"leading point", ".5", nil},
		{"space", " 1", nil},
		{"NaN", "NaN", nil},
		{"nil", nil, nil},
		{"bool", true, nil},
		{"map", map[string]any{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := unmarshalMoney(tt.in)
			if err == nil {
				t.Fatalf("UnmarshalMoney(%#v) = %d, want an error", tt.in, got)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("UnmarshalMoney(%#v) error %q does not wrap %q", tt.in, err, tt.is)
			}
		})
	}
}

func TestMarshalRate(t *testing.T) {
	tests := []struct {
		r    collection.Rate
		want string
	}{
		{125000, `"12.50"`},
		{81250, `"8.125"`},
		{81255, `"8.1255"`},
		{1, `"0.0001"`},
		{0, `"0.00"`},
		{1000000, `"100.00"`},
		{10000, `"1.00"`},
		{-125000, `"-12.50"`},
		{-1, `"-0.0001"`},
		{999999999999999999, `"99999999999999.9999"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := marshal(t, tt.r)
			if got != tt.want {
				t.Errorf("MarshalRate(%d) wrote %s, want %s", tt.r, got, tt.want)
			}
			var s string
			if err := json.Unmarshal([]byte(got), &s); err != nil {
				t.Fatalf("MarshalRate(%d) wrote %s, not a JSON string: %v", tt.r, got, err)
			}
			back, err := unmarshalRate(s)
			if err != nil || back != tt.r {
				t.Errorf("UnmarshalRate(%q) = %d, %v; want %d", s, back, err, tt.r)
			}
		})
	}
}

func TestUnmarshalRateAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want collection.Rate
	}{
		{"string 12.5", "12.5", 125000},
		{"string 12.50", "12.50", 125000},
		{"string 8.125", "8.125", 81250},
		{"string 0.0001", "0.0001", 1},
		{"string 4 decimals", "12.3456", 123456},
		{"string 100", "100", 1000000},
		{"string 0", "0", 0},
		{"string negative", "-1.5", -15000},
		{"string 14 integer digits", "99999999999999.9999", 999999999999999999},
		{"json.Number 12.5", json.Number("12.5"), 125000},
		{"json.Number 1e-4", json.Number("1e-4"), 1},
		{"json.Number 1e2", json.Number("1e2"), 1000000},
		{"int", 100, 1000000},
		{"int64", int64(7), 70000},
		{"float64 12.5", 12.5, 125000},
		{"float64 8.125", 8.125, 81250},
		{"float64 0.0001", 0.0001, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := unmarshalRate(tt.in)
			if err != nil {
				t.Fatalf("UnmarshalRate(%#v) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("UnmarshalRate(%#v) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnmarshalRateRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   any
		is   error
	}{
		{"5 decimals", "0.00001", collection.ErrTooManyDecimals},
		{"5 decimals, zero", "12.50000", collection.ErrTooManyDecimals},
		{"5 decimals via exponent", json.Number("1e-5"), collection.ErrTooManyDecimals},
		{"5 decimals, float64", 12.34567, collection.ErrTooManyDecimals},
		{"15 integer digits", "100000000000000", collection.ErrTooLarge},
		{"15 integer digits via exponent", json.Number("1e14"), collection.ErrTooLarge},
		{"15 integer digits, int64", int64(100_000_000_000_000), collection.ErrTooLarge},
		{"empty", "", nil},
		{"percent sign", "12.5%", nil},
		{"leading plus", "+12.5", nil},
		{"nil", nil, nil},
		{"bool", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := unmarshalRate(tt.in)
			if err == nil {
				t.Fatalf("UnmarshalRate(%#v) = %d, want an error", tt.in, got)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("UnmarshalRate(%#v) error %q does not wrap %q", tt.in, err, tt.is)
			}
		})
	}
}

func TestRateRoundTrip(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"12.5", `"12.50"`},
		{json.Number("12.5"), `"12.50"`},
		{12.5, `"12.50"`},
		{"8.1250", `"8.125"`},
		{"0.0001", `"0.0001"`},
		{"3", `"3.00"`},
	}
	for _, tt := range tests {
		r, err := unmarshalRate(tt.in)
		if err != nil {
			t.Fatalf("UnmarshalRate(%#v): %v", tt.in, err)
		}
		if got := marshal(t, r); got != tt.want {
			t.Errorf("MarshalRate(UnmarshalRate(%#v)) wrote %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestMoneyRoundTripGQL(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"1250.5", `"1250.50"`},
		{json.Number("1250"), `"1250.00"`},
		{1250.5, `"1250.50"`},
		{json.Number("-0.5"), `"-0.50"`},
		{"0", `"0.00"`},
	}
	for _, tt := range tests {
		m, err := unmarshalMoney(tt.in)
		if err != nil {
			t.Fatalf("UnmarshalMoney(%#v): %v", tt.in, err)
		}
		if got := marshal(t, m); got != tt.want {
			t.Errorf("MarshalMoney(UnmarshalMoney(%#v)) wrote %s, want %s", tt.in, got, tt.want)
		}
	}
}

// marshal returns what m writes on the wire.
func marshal(t *testing.T, m interface{ MarshalGQL(w io.Writer) }) string {
	t.Helper()
	var buf bytes.Buffer
	m.MarshalGQL(&buf)
	return buf.String()
}

func unmarshalMoney(v any) (collection.Money, error) {
	var m collection.Money
	err := m.UnmarshalGQL(v)
	return m, err
}

func unmarshalRate(v any) (collection.Rate, error) {
	var r collection.Rate
	err := r.UnmarshalGQL(v)
	return r, err
}
