package scalar_test

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/debtql/debtql/internal/scalar"
)

func TestIntIDMarshalGQL(t *testing.T) {
	tests := []struct {
		id   scalar.IntID
		want string
	}{
		{42, "42"},
		{0, "0"},
		{1, "1"},
		{-1, "-1"},
		{math.MaxInt32, "2147483647"},
		{math.MinInt32, "-2147483648"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := marshal(t, tt.id); got != tt.want {
				t.Errorf("IntID(%d).MarshalGQL wrote %s, want %s (a bare number)", tt.id, got, tt.want)
			}
		})
	}
}

func TestIntIDUnmarshalGQLAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want scalar.IntID
	}{
		{"int", 42, 42},
		{"int zero", 0, 0},
		{"int negative", -5, -5},
		{"int32", int32(42), 42},
		{"int64", int64(42), 42},
		{"json.Number", json.Number("42"), 42},
		{"string", "42", 42},
		{"float64 42.0", 42.0, 42},
		{"float64 -0", math.Copysign(0, -1), 0},
		{"int max int32", math.MaxInt32, math.MaxInt32},
		{"int min int32", math.MinInt32, math.MinInt32},
		{"int64 max int32", int64(math.MaxInt32), math.MaxInt32},
		{"int64 min int32", int64(math.MinInt32), math.MinInt32},
		{"json.Number max int32", json.Number("2147483647"), math.MaxInt32},
		{"string max int32", "2147483647", math.MaxInt32},
		{"string min int32", "-2147483648", math.MinInt32},
		{"float64 max int32", float64(math.MaxInt32), math.MaxInt32},
		{"float64 min int32", float64(math.MinInt32), math.MinInt32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var id scalar.IntID
			if err := id.UnmarshalGQL(tt.in); err != nil {
				t.Fatalf("UnmarshalGQL(%#v) error: %v", tt.in, err)
			}
			if id != tt.want {
				t.Errorf("UnmarshalGQL(%#v) gave %d, want %d", tt.in, id, tt.want)
			}
		})
	}
}

func TestIntIDUnmarshalGQLRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   any
	}{
		{"float64 42.5", 42.5},
		{"float64 0.1", 0.1},
		{"float64 -0.5", -0.5},
		{"float64 NaN", math.NaN()},
		{"float64 +Inf", math.Inf(1)},
		{"float64 -Inf", math.Inf(-1)},
		{"float64 beyond int32", float64(math.MaxInt32) + 1},
		{"float64 below int32", float64(math.MinInt32) - 1},
		{"float64 beyond int64", 1e300},
		{"float64 below int64", -1e300},
		{"string x", "x"},
		{"empty string", ""},
		{"string with fraction", "42.0"},
		{"string with space", " 42"},
		{"string with trailing space", "42 "},
		{"hex string", "0x2a"},
		{"uuid string", "123e4567-e89b-42d3-a456-426614174000"},
		{"string beyond int32", "2147483648"},
		{"string below int32", "-2147483649"},
		{"string beyond int64", "9223372036854775808"},
		{"json.Number with fraction", json.Number("42.5")},
		{"json.Number beyond int32", json.Number("2147483648")},
		{"json.Number below int32", json.Number("-2147483649")},
		{"json.Number garbage", json.Number("x")},
		{"int64 beyond int32", int64(math.MaxInt32) + 1},
		{"int64 below int32", int64(math.MinInt32) - 1},
		{"int64 max", int64(math.MaxInt64)},
		{"int64 min", int64(math.MinInt64)},
		{"int beyond int32", math.MaxInt32 + 1},
		{"nil", nil},
		{"bool", true},
		{"bytes", []byte("42")},
		{"map", map[string]any{"id": 42}},
		{"pointer to int", ptr(42)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := scalar.IntID(7)
			if err := id.UnmarshalGQL(tt.in); err == nil {
				t.Errorf("UnmarshalGQL(%#v) gave %d, want an error", tt.in, id)
			}
		})
	}
}

func TestIntIDRoundTrip(t *testing.T) {
	// entgql cursors carry ids as strings; the bare number written must read
	// back both as a number and as a string.
	for _, want := range []scalar.IntID{0, 1, 42, math.MaxInt32, math.MinInt32} {
		s := marshal(t, want)
		var fromString, fromNumber scalar.IntID
		if err := fromString.UnmarshalGQL(s); err != nil || fromString != want {
			t.Errorf("UnmarshalGQL(%q) = %d, %v; want %d", s, fromString, err, want)
		}
		if err := fromNumber.UnmarshalGQL(json.Number(s)); err != nil || fromNumber != want {
			t.Errorf("UnmarshalGQL(json.Number(%q)) = %d, %v; want %d", s, fromNumber, err, want)
		}
		if s != strconv.Itoa(int(want)) {
			t.Errorf("MarshalGQL(%d) wrote %q", want, s)
		}
	}
}
