package scalar_test

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/scalar"
)

// Date is what ent scans into and stores from.
var (
	_ sql.Scanner   = (*scalar.Date)(nil)
	_ driver.Valuer = scalar.Date{}
)

func mustDate(t *testing.T, s string) scalar.Date {
	t.Helper()
	d, err := scalar.ParseDate(s)
	if err != nil {
		t.Fatalf("ParseDate(%q): %v", s, err)
	}
	return d
}

func TestParseDateAccepts(t *testing.T) {
	tests := []struct {
		in   string
		want scalar.Date
	}{
		{"2026-01-02", scalar.NewDate(2026, time.January, 2)},
		{"2026-12-31", scalar.NewDate(2026, time.December, 31)},
		{"2024-02-29", scalar.NewDate(2024, time.February, 29)},
		{"2000-02-29", scalar.NewDate(2000, time.February, 29)},
		{"1999-01-01", scalar.NewDate(1999, time.January, 1)},
		{"9999-12-31", scalar.NewDate(9999, time.December, 31)},
		{"0001-01-01", scalar.Date{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := scalar.ParseDate(tt.in)
			if err != nil {
				t.Fatalf("ParseDate(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseDate(%q) = %v, want %v", tt.in, got, tt.want)
			}
			if got.String() != tt.in {
				t.Errorf("ParseDate(%q).String() = %q", tt.in, got.String())
			}
		})
	}
}

// badDates are strings that are not a strict YYYY-MM-DD date.
var badDates = []struct {
	name string
	in   string
}{
	{"empty", ""},
	{"unpadded month and day", "2026-2-1"},
	{"unpadded day", "2026-02-1"},
	{"unpadded month", "2026-2-01"},
	{"february 30", "2026-02-30"},
	{"february 29 in a common year", "2023-02-29"},
	{"february 29 in 1900", "1900-02-29"},
	{"april 31", "2026-04-31"},
	{"month 13", "2026-13-01"},
	{"month 00", "2026-00-10"},
	{"day 00", "2026-01-00"},
	{"day 32", "2026-01-32"},
	{"with time part", "2026-01-02T00:00:00Z"},
	{"with space time part", "2026-01-02 00:00:00"},
	{"with T only", "2026-01-02T"},
	{"slashes", "2026/01/02"},
	{"dots", "2026.01.02"},
	{"no separators", "20260102"},
	{"two-digit year", "26-01-02"},
	{"day first", "02-01-2026"},
	{"leading space", " 2026-01-02"},
	{"trailing space", "2026-01-02 "},
	{"trailing newline", "2026-01-02\n"},
	{"space padded day, right length", "2026-01-1 "},
	{"three-digit day, right length", "2026-1-012"},
	{"signed year", "+026-01-02"},
	{"five-digit year", "20260-01-02"},
	{"letters", "yyyy-mm-dd"},
	{"month name", "2026-Jan-02"},
}

func TestParseDateRefuses(t *testing.T) {
	for _, tt := range badDates {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := scalar.ParseDate(tt.in); err == nil {
				t.Errorf("ParseDate(%q) = %v, want an error", tt.in, got)
			}
		})
	}
}

func TestDateUnmarshalGQL(t *testing.T) {
	var d scalar.Date
	if err := d.UnmarshalGQL("2026-01-02"); err != nil {
		t.Fatalf("UnmarshalGQL(%q): %v", "2026-01-02", err)
	}
	if want := scalar.NewDate(2026, time.January, 2); d != want {
		t.Errorf("UnmarshalGQL(%q) gave %v, want %v", "2026-01-02", d, want)
	}

	for _, tt := range badDates {
		t.Run(tt.name, func(t *testing.T) {
			var d scalar.Date
			if err := d.UnmarshalGQL(tt.in); err == nil {
				t.Errorf("UnmarshalGQL(%q) gave %v, want an error", tt.in, d)
			}
		})
	}

	nonStrings := []struct {
		name string
		in   any
	}{
		{"nil", nil},
		{"int", 20260102},
		{"int64", int64(20260102)},
		{"float64", 2026.0102},
		{"json.Number", json.Number("20260102")},
		{"bytes", []byte("2026-01-02")},
		{"time.Time", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"Date", scalar.NewDate(2026, time.January, 2)},
		{"pointer to string", ptr("2026-01-02")},
		{"bool", true},
		{"map", map[string]any{"date": "2026-01-02"}},
	}
	for _, tt := range nonStrings {
		t.Run("non-string "+tt.name, func(t *testing.T) {
			var d scalar.Date
			if err := d.UnmarshalGQL(tt.in); err == nil {
				t.Errorf("UnmarshalGQL(%#v) gave %v, want an error", tt.in, d)
			}
		})
	}
}

func TestDateMarshalGQL(t *testing.T) {
	tests := []struct {
		d    scalar.Date
		want string
	}{
		{scalar.NewDate(2026, time.January, 2), `"2026-01-02"`},
		{scalar.NewDate(2024, time.February, 29), `"2024-02-29"`},
		{scalar.NewDate(2026, time.December, 31), `"2026-12-31"`},
		{scalar.Date{}, `"0001-01-01"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := marshal(t, tt.d); got != tt.want {
				t.Errorf("MarshalGQL wrote %s, want %s", got, tt.want)
			}
			// What is written reads back, as input when it is within the
			// input range (from 1900), and as text (a cursor) always.
			var s string
			if err := json.Unmarshal([]byte(tt.want), &s); err != nil {
				t.Fatal(err)
			}
			var back scalar.Date
			err := back.UnmarshalGQL(s)
			if inRange := !tt.d.Before(scalar.NewDate(1900, time.January, 1)); inRange && (err != nil || back != tt.d) {
				t.Errorf("UnmarshalGQL(%q) = %v, %v; want %v", s, back, err, tt.d)
			} else if !inRange && err == nil {
				t.Errorf("UnmarshalGQL(%q) = %v, want an error: before 1900-01-01", s, back)
			}
			var text scalar.Date
			if err := text.UnmarshalText([]byte(s)); err != nil || text != tt.d {
				t.Errorf("UnmarshalText(%q) = %v, %v; want %v", s, text, err, tt.d)
			}
		})
	}
}

func TestDateScan(t *testing.T) {
	minus5 := time.FixedZone("-05:00", -5*3600)
	plus14 := time.FixedZone("+14:00", 14*3600)
	tests := []struct {
		name string
		src  any
		want string
	}{
		{"time.Time UTC midnight (PostgreSQL date)", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), "2026-01-02"},
		{"time.Time UTC late", time.Date(2026, 1, 2, 23, 59, 59, 999999999, time.UTC), "2026-01-02"},
		{"time.Time at -05:00, still Jan 1 there", time.Date(2026, 1, 1, 23, 30, 0, 0, minus5), "2026-01-01"},
		{"time.Time at +14:00, already Jan 2 there", time.Date(2026, 1, 2, 5, 0, 0, 0, plus14), "2026-01-02"},
		{"string", "2026-01-02", "2026-01-02"},
		{"bytes", []byte("2026-01-02"), "2026-01-02"},
		{"bytes with time and offset", []byte("2026-01-02 00:00:00+00:00"), "2026-01-02"},
		{"string with time and offset", "2026-01-02 00:00:00+00:00", "2026-01-02"},
		{"string RFC 3339", "2026-01-02T23:30:00-05:00", "2026-01-02"},
		{"leap day", "2024-02-29", "2024-02-29"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := scalar.NewDate(1999, time.December, 31) // overwritten
			if err := d.Scan(tt.src); err != nil {
				t.Fatalf("Scan(%#v): %v", tt.src, err)
			}
			if d.String() != tt.want {
				t.Errorf("Scan(%#v) gave %v, want %s", tt.src, d, tt.want)
			}
			if d != mustDate(t, tt.want) {
				t.Errorf("Scan(%#v) gave a Date that is not == ParseDate(%q)", tt.src, tt.want)
			}
		})
	}
}

func TestDateScanRefuses(t *testing.T) {
	tests := []struct {
		name string
		src  any
	}{
		{"nil", nil},
		{"int64", int64(20260102)},
		{"int", 20260102},
		{"float64", 2026.0},
		{"bool", true},
		{"empty string", ""},
		{"empty bytes", []byte{}},
		{"short string", "2026-1-2"},
		{"invalid day", "2026-02-30"},
		{"invalid day with time", "2026-02-30 00:00:00"},
		{"invalid bytes", []byte("2026-13-01")},
		{"garbage", "yesterday"},
		{"pointer to time", ptr(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d scalar.Date
			if err := d.Scan(tt.src); err == nil {
				t.Errorf("Scan(%#v) gave %v, want an error", tt.src, d)
			}
		})
	}
}

func TestDateValue(t *testing.T) {
	tests := []struct {
		d    scalar.Date
		want string
	}{
		{scalar.NewDate(2026, time.January, 2), "2026-01-02"},
		{scalar.NewDate(2024, time.February, 29), "2024-02-29"},
		{scalar.NewDate(987, time.March, 4), "0987-03-04"},
		{scalar.Date{}, "0001-01-01"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			v, err := tt.d.Value()
			if err != nil {
				t.Fatalf("Value(): %v", err)
			}
			s, ok := v.(string)
			if !ok {
				t.Fatalf("Value() = %#v (%T), want a string", v, v)
			}
			if s != tt.want {
				t.Errorf("Value() = %q, want %q", s, tt.want)
			}
			if !driver.IsValue(v) {
				t.Errorf("Value() = %#v is not a driver.Value", v)
			}
			var back scalar.Date
			if err := back.Scan(v); err != nil || back != tt.d {
				t.Errorf("Scan(Value()) = %v, %v; want %v", back, err, tt.d)
			}
		})
	}
}

func TestDateValueTextOrderIsDateOrder(t *testing.T) {
	// SQLite keeps dates as text; comparing the text must compare the dates.
	dates := []scalar.Date{
		scalar.NewDate(987, time.March, 4),
		scalar.NewDate(1999, time.December, 31),
		scalar.NewDate(2026, time.January, 2),
		scalar.NewDate(2026, time.January, 10),
		scalar.NewDate(2026, time.February, 1),
		scalar.NewDate(2026, time.October, 1),
	}
	for i := 1; i < len(dates); i++ {
		a, _ := dates[i-1].Value()
		b, _ := dates[i].Value()
		if !(a.(string) < b.(string)) || !dates[i-1].Before(dates[i]) {
			t.Errorf("%v < %v as text (%v) and as dates (%v) should both hold", a, b, a.(string) < b.(string), dates[i-1].Before(dates[i]))
		}
	}
}

func TestDateOf(t *testing.T) {
	minus5 := time.FixedZone("-05:00", -5*3600)
	plus2 := time.FixedZone("+02:00", 2*3600)
	plus14 := time.FixedZone("+14:00", 14*3600)
	minus12 := time.FixedZone("-12:00", -12*3600)
	tests := []struct {
		name string
		t    time.Time
		want string
	}{
		{"-05:00 before midnight", time.Date(2026, 1, 1, 23, 30, 0, 0, minus5), "2026-01-01"},
		{"same instant in UTC", time.Date(2026, 1, 1, 23, 30, 0, 0, minus5).UTC(), "2026-01-02"},
		{"+02:00 just after midnight", time.Date(2026, 1, 2, 0, 30, 0, 0, plus2), "2026-01-02"},
		{"same instant in UTC, day before", time.Date(2026, 1, 2, 0, 30, 0, 0, plus2).UTC(), "2026-01-01"},
		{"+14:00", time.Date(2026, 1, 1, 11, 0, 0, 0, time.UTC).In(plus14), "2026-01-02"},
		{"-12:00", time.Date(2026, 1, 1, 11, 0, 0, 0, time.UTC).In(minus12), "2025-12-31"},
		{"end of year in UTC", time.Date(2025, 12, 31, 23, 59, 59, 999999999, time.UTC), "2025-12-31"},
		{"leap day", time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC), "2024-02-29"},
		{"zero time", time.Time{}, "0001-01-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scalar.DateOf(tt.t)
			if got.String() != tt.want {
				t.Errorf("DateOf(%v) = %v, want %s", tt.t, got, tt.want)
			}
			if got != mustDate(t, tt.want) {
				t.Errorf("DateOf(%v) is not == ParseDate(%q)", tt.t, tt.want)
			}
		})
	}
}

func TestDateOfUnmarshalledDateTime(t *testing.T) {
	// api.md §5: a DateTime given with an offset becomes the date in that offset.
	tests := []struct {
		in   string
		want string
	}{
		{"2026-01-01T23:30:00-05:00", "2026-01-01"},
		{"2026-01-02T04:30:00Z", "2026-01-02"},
		{"2026-01-02T00:30:00+02:00", "2026-01-02"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			tm, err := scalar.UnmarshalDateTime(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := scalar.DateOf(tm).String(); got != tt.want {
				t.Errorf("DateOf(UnmarshalDateTime(%q)) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestNewDateRollsOver(t *testing.T) {
	tests := []struct {
		y    int
		m    time.Month
		d    int
		want string
	}{
		{2026, time.January, 2, "2026-01-02"},
		{2026, time.February, 30, "2026-03-02"},
		{2024, time.February, 30, "2024-03-01"},
		{2026, 13, 1, "2027-01-01"},
		{2026, time.January, 0, "2025-12-31"},
		{2026, time.March, 0, "2026-02-28"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := scalar.NewDate(tt.y, tt.m, tt.d)
			if got != mustDate(t, tt.want) {
				t.Errorf("NewDate(%d, %d, %d) = %v, want %s", tt.y, tt.m, tt.d, got, tt.want)
			}
		})
	}
}

func TestDateAddDays(t *testing.T) {
	tests := []struct {
		from string
		n    int
		want string
	}{
		{"2026-01-02", 0, "2026-01-02"},
		{"2026-01-02", 1, "2026-01-03"},
		{"2026-01-31", 1, "2026-02-01"},
		{"2026-02-28", 1, "2026-03-01"},
		{"2024-02-28", 1, "2024-02-29"},
		{"2024-02-29", 1, "2024-03-01"},
		{"2025-12-31", 1, "2026-01-01"},
		{"2026-01-01", -1, "2025-12-31"},
		{"2026-03-01", -1, "2026-02-28"},
		{"2026-01-01", 30, "2026-01-31"},
		{"2026-01-01", 365, "2027-01-01"},
		{"2024-01-01", 366, "2025-01-01"},
		{"2026-03-28", 2, "2026-03-30"}, // across the EU DST change: no zone involved
		{"2026-10-24", 2, "2026-10-26"},
	}
	for _, tt := range tests {
		t.Run(tt.from, func(t *testing.T) {
			from := mustDate(t, tt.from)
			got := from.AddDays(tt.n)
			if got != mustDate(t, tt.want) {
				t.Errorf("%s.AddDays(%d) = %v, want %s", tt.from, tt.n, got, tt.want)
			}
			if back := got.AddDays(-tt.n); back != from {
				t.Errorf("%s.AddDays(%d).AddDays(%d) = %v, want %s", tt.from, tt.n, -tt.n, back, tt.from)
			}
			if from != mustDate(t, tt.from) {
				t.Errorf("AddDays changed its receiver to %v", from)
			}
		})
	}
}

func TestDateBeforeAfter(t *testing.T) {
	tests := []struct {
		a, b          string
		before, after bool
	}{
		{"2026-01-01", "2026-01-02", true, false},
		{"2026-01-02", "2026-01-01", false, true},
		{"2026-01-02", "2026-01-02", false, false},
		{"2025-12-31", "2026-01-01", true, false},
		{"2026-02-01", "2026-01-31", false, true},
		{"0001-01-01", "0001-01-02", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.a+" vs "+tt.b, func(t *testing.T) {
			a, b := mustDate(t, tt.a), mustDate(t, tt.b)
			if got := a.Before(b); got != tt.before {
				t.Errorf("%s.Before(%s) = %v, want %v", tt.a, tt.b, got, tt.before)
			}
			if got := a.After(b); got != tt.after {
				t.Errorf("%s.After(%s) = %v, want %v", tt.a, tt.b, got, tt.after)
			}
		})
	}
	// A date scanned from another zone compares by its calendar date.
	minus5 := time.FixedZone("-05:00", -5*3600)
	a := scalar.DateOf(time.Date(2026, 1, 1, 23, 30, 0, 0, minus5)) // 2026-01-01
	b := mustDate(t, "2026-01-02")
	if !a.Before(b) || b.Before(a) || a.After(b) {
		t.Errorf("DateOf(23:30-05:00 on Jan 1) should be before 2026-01-02")
	}
}

func TestDateStart(t *testing.T) {
	plus2 := time.FixedZone("+02:00", 2*3600)
	minus5 := time.FixedZone("-05:00", -5*3600)
	tests := []struct {
		name string
		date string
		loc  *time.Location
		want time.Time
	}{
		{"UTC", "2026-01-02", time.UTC, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"+02:00", "2026-01-02", plus2, time.Date(2026, 1, 1, 22, 0, 0, 0, time.UTC)},
		{"-05:00", "2026-01-02", minus5, time.Date(2026, 1, 2, 5, 0, 0, 0, time.UTC)},
		{"leap day -05:00", "2024-02-29", minus5, time.Date(2024, 2, 29, 5, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDate(t, tt.date).Start(tt.loc)
			if !got.Equal(tt.want) {
				t.Errorf("Start(%v) = %v, want instant %v", tt.loc, got, tt.want)
			}
			if got.Location() != tt.loc {
				t.Errorf("Start(%v) is in %v, want %v", tt.loc, got.Location(), tt.loc)
			}
			if h, m, s := got.Clock(); h != 0 || m != 0 || s != 0 || got.Nanosecond() != 0 {
				t.Errorf("Start(%v) = %v, want midnight in that location", tt.loc, got)
			}
			if back := scalar.DateOf(got); back.String() != tt.date {
				t.Errorf("DateOf(Start(%v)) = %v, want %s", tt.loc, back, tt.date)
			}
		})
	}
}

func TestDateStartInNamedZone(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	tests := []struct {
		date string
		want time.Time
	}{
		{"2026-01-15", time.Date(2026, 1, 14, 23, 0, 0, 0, time.UTC)}, // CET
		{"2026-07-15", time.Date(2026, 7, 14, 22, 0, 0, 0, time.UTC)}, // CEST
		{"2026-03-29", time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC)}, // DST starts at 02:00
		{"2026-10-25", time.Date(2026, 10, 24, 22, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.date, func(t *testing.T) {
			got := mustDate(t, tt.date).Start(loc)
			if !got.Equal(tt.want) {
				t.Errorf("Start(Europe/Stockholm) = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDateIsZero(t *testing.T) {
	tests := []struct {
		name string
		d    scalar.Date
		want bool
	}{
		{"zero value", scalar.Date{}, true},
		{"0001-01-01 parsed", mustDate(t, "0001-01-01"), true},
		{"0001-01-02", mustDate(t, "0001-01-02"), false},
		{"2026-01-02", scalar.NewDate(2026, time.January, 2), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.IsZero(); got != tt.want {
				t.Errorf("IsZero() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDateIsComparable(t *testing.T) {
	// Dates from every constructor must be == for the same calendar date, so
	// that they can be compared and used as map keys.
	want := scalar.NewDate(2026, time.January, 2)
	plus5 := time.FixedZone("+05:00", 5*3600)
	var scanned, scannedTime, unmarshalled scalar.Date
	if err := scanned.Scan([]byte("2026-01-02 00:00:00+00:00")); err != nil {
		t.Fatal(err)
	}
	if err := scannedTime.Scan(time.Date(2026, 1, 2, 3, 0, 0, 0, plus5)); err != nil {
		t.Fatal(err)
	}
	if err := unmarshalled.UnmarshalGQL("2026-01-02"); err != nil {
		t.Fatal(err)
	}
	all := map[string]scalar.Date{
		"ParseDate":       mustDate(t, "2026-01-02"),
		"DateOf":          scalar.DateOf(time.Date(2026, 1, 2, 23, 0, 0, 0, plus5)),
		"AddDays":         scalar.NewDate(2026, time.January, 1).AddDays(1),
		"Scan bytes":      scanned,
		"Scan time.Time":  scannedTime,
		"UnmarshalGQL":    unmarshalled,
		"NewDate rolling": scalar.NewDate(2025, time.December, 33),
	}
	set := map[scalar.Date]bool{}
	for name, d := range all {
		if d != want {
			t.Errorf("%s gave %v, which is not == %v", name, d, want)
		}
		set[d] = true
	}
	if len(set) != 1 {
		t.Errorf("the same date made %d map keys", len(set))
	}
}

func TestDateDays(t *testing.T) {
	tests := []struct {
		date string
		want int64
	}{
		{"1970-01-01", 0},
		{"1970-01-02", 1},
		{"1969-12-31", -1},
		{"1900-01-01", -25567},
		{"2024-02-29", 19782},
		{"2024-03-01", 19783},
		{"9999-12-31", 2932896},
	}
	for _, tt := range tests {
		d, err := scalar.ParseDate(tt.date)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Days(); got != tt.want {
			t.Errorf("%s.Days() = %d, want %d", tt.date, got, tt.want)
		}
		// Every way of making a date gives the same day number.
		if got := scalar.DateOf(d.Start(time.FixedZone("", 14*3600))).Days(); got != tt.want {
			t.Errorf("DateOf(%s at +14:00).Days() = %d, want %d", tt.date, got, tt.want)
		}
		if got := d.AddDays(1).Days(); got != tt.want+1 {
			t.Errorf("%s.AddDays(1).Days() = %d, want %d", tt.date, got, tt.want+1)
		}
	}
}
