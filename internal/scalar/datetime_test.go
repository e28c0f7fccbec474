package scalar_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/scalar"
)

func TestFormatDateTime(t *testing.T) {
	plus2 := time.FixedZone("+02:00", 2*3600)
	minus5 := time.FixedZone("-05:00", -5*3600)
	tests := []struct {
		name string
		t    time.Time
		want string
	}{
		{"whole seconds", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "2026-01-02T03:04:05Z"},
		{"midnight", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), "2026-01-02T00:00:00Z"},
		{"half second", time.Date(2026, 1, 2, 3, 4, 5, 500_000_000, time.UTC), "2026-01-02T03:04:05.5Z"},
		{"centiseconds", time.Date(2026, 1, 2, 3, 4, 5, 120_000_000, time.UTC), "2026-01-02T03:04:05.12Z"},
		{"milliseconds", time.Date(2026, 1, 2, 3, 4, 5, 123_000_000, time.UTC), "2026-01-02T03:04:05.123Z"},
		{"microseconds", time.Date(2026, 1, 2, 3, 4, 5, 123_456_000, time.UTC), "2026-01-02T03:04:05.123456Z"},
		{"one microsecond", time.Date(2026, 1, 2, 3, 4, 5, 1_000, time.UTC), "2026-01-02T03:04:05.000001Z"},
		{"inner zeros kept", time.Date(2026, 1, 2, 3, 4, 5, 100_010_000, time.UTC), "2026-01-02T03:04:05.10001Z"},
		{"nanoseconds cut", time.Date(2026, 1, 2, 3, 4, 5, 123_456_789, time.UTC), "2026-01-02T03:04:05.123456Z"},
		{"nanoseconds cut, not rounded up", time.Date(2026, 1, 2, 3, 4, 5, 999_999_999, time.UTC), "2026-01-02T03:04:05.999999Z"},
		{"only nanoseconds: no fraction", time.Date(2026, 1, 2, 3, 4, 5, 999, time.UTC), "2026-01-02T03:04:05Z"},
		{"sub-microsecond after ms", time.Date(2026, 1, 2, 3, 4, 5, 500_000_500, time.UTC), "2026-01-02T03:04:05.5Z"},
		{"+02:00 to UTC", time.Date(2026, 1, 2, 12, 0, 0, 0, plus2), "2026-01-02T10:00:00Z"},
		{"+02:00 to UTC previous day", time.Date(2026, 1, 2, 1, 0, 0, 0, plus2), "2026-01-01T23:00:00Z"},
		{"-05:00 to UTC next day", time.Date(2026, 1, 1, 23, 30, 0, 250_000_000, minus5), "2026-01-02T04:30:00.25Z"},
		{"end of year", time.Date(2025, 12, 31, 23, 59, 59, 999_999_000, time.UTC), "2025-12-31T23:59:59.999999Z"},
		{"leap day", time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC), "2024-02-29T12:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := scalar.FormatDateTime(tt.t); got != tt.want {
				t.Errorf("FormatDateTime(%v) = %q, want %q", tt.t, got, tt.want)
			}
			if got, want := marshal(t, scalar.MarshalDateTime(tt.t)), `"`+tt.want+`"`; got != want {
				t.Errorf("MarshalDateTime(%v) wrote %s, want %s", tt.t, got, want)
			}
		})
	}
}

func TestFormatDateTimeInNamedZone(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	tests := []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 1, 15, 12, 0, 0, 0, loc), "2026-01-15T11:00:00Z"},
		{time.Date(2026, 7, 15, 12, 0, 0, 0, loc), "2026-07-15T10:00:00Z"},
	}
	for _, tt := range tests {
		if got := scalar.FormatDateTime(tt.t); got != tt.want {
			t.Errorf("FormatDateTime(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

func TestFormatDateTimeOutputReadsBack(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 123_456_000, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 123_456_789, time.FixedZone("", 3600)),
	} {
		s := scalar.FormatDateTime(tm)
		back, err := scalar.UnmarshalDateTime(s)
		if err != nil {
			t.Errorf("UnmarshalDateTime(FormatDateTime(%v) = %q): %v", tm, s, err)
			continue
		}
		if want := tm.Truncate(time.Microsecond); !back.Equal(want) {
			t.Errorf("UnmarshalDateTime(%q) = %v, want %v", s, back, want)
		}
		if _, off := back.Zone(); off != 0 {
			t.Errorf("UnmarshalDateTime(%q) has offset %d, want 0", s, off)
		}
	}
}

func TestUnmarshalDateTimeAccepts(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   time.Time // the instant
		offset int       // seconds east of UTC
		format string    // FormatDateTime of the result
	}{
		{"Z", "2026-01-01T10:00:00Z", time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), 0, "2026-01-01T10:00:00Z"},
		{"+02:00", "2026-01-01T10:00:00+02:00", time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC), 2 * 3600, "2026-01-01T08:00:00Z"},
		{"-05:00", "2026-01-01T23:30:00-05:00", time.Date(2026, 1, 2, 4, 30, 0, 0, time.UTC), -5 * 3600, "2026-01-02T04:30:00Z"},
		{"+05:30", "2026-01-01T10:00:00+05:30", time.Date(2026, 1, 1, 4, 30, 0, 0, time.UTC), 5*3600 + 30*60, "2026-01-01T04:30:00Z"},
		{"-09:30", "2026-01-01T10:00:00-09:30", time.Date(2026, 1, 1, 19, 30, 0, 0, time.UTC), -(9*3600 + 30*60), "2026-01-01T19:30:00Z"},
		{"+14:00", "2026-01-01T10:00:00+14:00", time.Date(2025, 12, 31, 20, 0, 0, 0, time.UTC), 14 * 3600, "2025-12-31T20:00:00Z"},
		{"+00:00", "2026-01-01T10:00:00+00:00", time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), 0, "2026-01-01T10:00:00Z"},
		{"-00:00", "2026-01-01T10:00:00-00:00", time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), 0, "2026-01-01T10:00:00Z"},
		{"fraction .5", "2026-01-01T10:00:00.5Z", time.Date(2026, 1, 1, 10, 0, 0, 500_000_000, time.UTC), 0, "2026-01-01T10:00:00.5Z"},
		{"milliseconds with offset", "2026-01-01T10:00:00.123+01:00", time.Date(2026, 1, 1, 9, 0, 0, 123_000_000, time.UTC), 3600, "2026-01-01T09:00:00.123Z"},
		{"microseconds", "2026-01-01T10:00:00.123456Z", time.Date(2026, 1, 1, 10, 0, 0, 123_456_000, time.UTC), 0, "2026-01-01T10:00:00.123456Z"},
		{"zero fraction", "2026-01-01T10:00:00.000Z", time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), 0, "2026-01-01T10:00:00Z"},
		{"7 digits, zero beyond micro", "2026-01-01T10:00:00.1234560Z", time.Date(2026, 1, 1, 10, 0, 0, 123_456_000, time.UTC), 0, "2026-01-01T10:00:00.123456Z"},
		{"9 digits, zeros beyond micro", "2026-01-01T10:00:00.123456000+02:00", time.Date(2026, 1, 1, 8, 0, 0, 123_456_000, time.UTC), 2 * 3600, "2026-01-01T08:00:00.123456Z"},
		{"leap day", "2024-02-29T12:00:00Z", time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC), 0, "2024-02-29T12:00:00Z"},
		{"end of day", "2026-01-01T23:59:59.999999Z", time.Date(2026, 1, 1, 23, 59, 59, 999_999_000, time.UTC), 0, "2026-01-01T23:59:59.999999Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scalar.UnmarshalDateTime(tt.in)
			if err != nil {
				t.Fatalf("UnmarshalDateTime(%q) error: %v", tt.in, err)
			}
			if !got.Equal(tt.want) {
				t.Errorf("UnmarshalDateTime(%q) = %v, want the instant %v", tt.in, got, tt.want)
			}
			if _, off := got.Zone(); off != tt.offset {
				t.Errorf("UnmarshalDateTime(%q) has offset %d s, want %d s (the offset given)", tt.in, off, tt.offset)
			}
			if s := scalar.FormatDateTime(got); s != tt.format {
				t.Errorf("FormatDateTime(UnmarshalDateTime(%q)) = %q, want %q", tt.in, s, tt.format)
			}
		})
	}
}

func TestUnmarshalDateTimeRefusesStrings(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"no offset", "2026-01-01T10:00:00"},
		{"no offset with fraction", "2026-01-01T10:00:00.5"},
		{"date only", "2026-01-01"},
		{"date only with Z", "2026-01-01Z"},
		{"time only", "10:00:00Z"},
		{"garbage", "garbage"},
		{"garbage of the right length", "xxxx-xx-xxTxx:xx:xxZ"},
		{"no seconds", "2026-01-01T10:00Z"},
		{"offset without colon", "2026-01-01T10:00:00+0200"},
		{"offset hours only", "2026-01-01T10:00:00+02"},
		{"offset out of range", "2026-01-01T10:00:00+99:00"},
		{"zone name", "2026-01-01T10:00:00 UTC"},
		{"zone abbreviation", "2026-01-01T10:00:00CET"},
		{"invalid day", "2026-02-30T10:00:00Z"},
		{"invalid month", "2026-13-01T10:00:00Z"},
		{"hour 24", "2026-01-01T24:00:00Z"},
		{"hour 25", "2026-01-01T25:00:00Z"},
		{"minute 60", "2026-01-01T10:60:00Z"},
		{"unpadded", "2026-1-1T10:00:00Z"},
		{"empty fraction", "2026-01-01T10:00:00.Z"},
		{"leading space", " 2026-01-01T10:00:00Z"},
		{"trailing space", "2026-01-01T10:00:00Z "},
		{"unix seconds", "1767261600"},
		{"RFC 1123", "Thu, 01 Jan 2026 10:00:00 GMT"},
		{"nanoseconds, 7 digits", "2026-01-01T10:00:00.1234567Z"},
		{"nanoseconds, 9 digits", "2026-01-01T10:00:00.123456789Z"},
		{"nanoseconds only", "2026-01-01T10:00:00.0000001Z"},
		{"nanoseconds with offset", "2026-01-01T10:00:00.123456789+02:00"},
		{"one nanosecond", "2026-01-01T10:00:00.000000001Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := scalar.UnmarshalDateTime(tt.in); err == nil {
				t.Errorf("UnmarshalDateTime(%q) = %v, want an error", tt.in, got)
			}
		})
	}
}

func TestUnmarshalDateTimeRefusesNonStrings(t *testing.T) {
	tests := []struct {
		name string
		in   any
	}{
		{"nil", nil},
		{"int", 1767261600},
		{"int64", int64(1767261600)},
		{"float64", 1767261600.0},
		{"json.Number", json.Number("1767261600")},
		{"bool", true},
		{"bytes", []byte("2026-01-01T10:00:00Z")},
		{"time.Time", time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)},
		{"pointer to string", ptr("2026-01-01T10:00:00Z")},
		{"map", map[string]any{"at": "2026-01-01T10:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := scalar.UnmarshalDateTime(tt.in); err == nil {
				t.Errorf("UnmarshalDateTime(%#v) = %v, want an error", tt.in, got)
			}
		})
	}
}

// TestUnmarshalDateTimeStricterThanTimeParse lists inputs that are not RFC
// 3339 with at most microsecond precision although time.Parse accepts them.
func TestUnmarshalDateTimeStricterThanTimeParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		why  string
	}{
		{
			"digit beyond the ninth",
			"2026-01-01T10:00:00.1234560001Z",
			"time.Parse drops fraction digits after the ninth, so precision beyond microseconds is silently cut",
		},
		{
			"only a tenth fraction digit",
			"2026-01-01T10:00:00.0000000009Z",
			"time.Parse drops fraction digits after the ninth, so precision beyond microseconds is silently cut",
		},
		{
			"comma decimal separator",
			"2026-01-01T10:00:00,5Z",
			"time.Parse accepts ',' before the fraction (ISO 8601); RFC 3339 allows only '.'",
		},
		{
			"offset +24:00",
			"2026-01-01T10:00:00+24:00",
			"RFC 3339 time-numoffset hours are 00-23",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scalar.UnmarshalDateTime(tt.in)
			if err == nil {
				t.Errorf("UnmarshalDateTime(%q) = %v is accepted: %s", tt.in, got, tt.why)
			}
		})
	}
}
