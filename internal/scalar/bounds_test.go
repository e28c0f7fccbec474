package scalar_test

import (
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/scalar"
)

// Tests of the input range of Date and DateTime (decisions.md, "Dates"):
// from 1900-01-01 to 9999-12-31; a DateTime both in the offset given and in
// UTC. Stored dates and cursors are read whatever their year.

func TestDateInputBounds(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"0001-01-01", false},
		{"0000-01-01", false},
		{"1000-06-15", false},
		{"1899-12-31", false},
		{"1900-01-01", true},
		{"1900-01-02", true},
		{"2026-11-24", true},
		{"9999-12-31", true},
	}
	for _, tt := range tests {
		var d scalar.Date
		err := d.UnmarshalGQL(tt.in)
		if tt.ok && (err != nil || d.String() != tt.in) {
			t.Errorf("UnmarshalGQL(%q) = %v, %v; want it accepted", tt.in, d, err)
		}
		if !tt.ok && (err == nil || err.Error() != "must be a date from 1900-01-01 to 9999-12-31") {
			t.Errorf("UnmarshalGQL(%q) = %v, %v; want the range refusal", tt.in, d, err)
		}
		// Stored dates and cursors are read as they are.
		if _, err := scalar.ParseDate(tt.in); err != nil {
			t.Errorf("ParseDate(%q): %v", tt.in, err)
		}
		var x scalar.Date
		if err := x.UnmarshalText([]byte(tt.in)); err != nil {
			t.Errorf("UnmarshalText(%q): %v", tt.in, err)
		}
		var sc scalar.Date
		if err := sc.Scan(tt.in); err != nil {
			t.Errorf("Scan(%q): %v", tt.in, err)
		}
	}
}

func TestDateTimeInputBounds(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"year 1", "0001-01-01T00:00:00Z", false},
		{"last instant of 1899", "1899-12-31T23:59:59.999999Z", false},
		{"first instant of 1900", "1900-01-01T00:00:00Z", true},
		{"1900 in the offset, 1899 in UTC", "1900-01-01T00:00:00+01:00", false},
		{"1900 in both", "1900-01-01T05:00:00+01:00", true},
		{"1899 in the offset, 1900 in UTC", "1899-12-31T23:30:00-01:00", false},
		{"1900 in the offset, later in UTC", "1900-01-01T00:00:00-05:00", true},
		{"today", "2026-11-24T10:00:00+01:00", true},
		{"last instant", "9999-12-31T23:59:59.999999Z", true},
		{"9999 in the offset, 10000 in UTC", "9999-12-31T23:00:00-05:00", false},
		{"9999 in both", "9999-12-31T23:00:00+05:00", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scalar.UnmarshalDateTime(tt.in)
			if tt.ok && err != nil {
				t.Fatalf("UnmarshalDateTime(%q): %v", tt.in, err)
			}
			if !tt.ok {
				if err == nil {
					t.Fatalf("UnmarshalDateTime(%q) = %v, want the range refusal", tt.in, got)
				}
				if !strings.Contains(err.Error(), "from 1900-01-01 to 9999-12-31") {
					t.Fatalf("UnmarshalDateTime(%q): %v, want the range named", tt.in, err)
				}
				return
			}
			// What is accepted is written in UTC and reads back.
			out := scalar.FormatDateTime(got)
			if back, err := scalar.UnmarshalDateTime(out); err != nil || !back.Equal(got) {
				t.Fatalf("%q is written %q, which reads back as %v, %v", tt.in, out, back, err)
			}
		})
	}
	if scalar.MinYear != 1900 || scalar.MaxYear != 9999 {
		t.Fatalf("the range is %d–%d", scalar.MinYear, scalar.MaxYear)
	}
}
