package scalar

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Date is a calendar date without a time of day or zone (GraphQL `Date`,
// `YYYY-MM-DD`). It is stored as a PostgreSQL `date` and as ISO text on
// SQLite, where text order is date order.
type Date struct {
	t time.Time // midnight UTC of the date; the zero Date is 0001-01-01
}

const dateLayout = "2006-01-02"

// The years an input may name (decisions.md, "Dates"): a Date input, and a
// DateTime input both in the offset given and in UTC, must fall from
// 1900-01-01 to 9999-12-31. Stored dates and cursors are read whatever
// their year.
const (
	MinYear = 1900
	MaxYear = 9999
)

// dateRange is the refusal of a Date input outside MinYear–MaxYear.
const dateRange = "must be a date from 1900-01-01 to 9999-12-31"

// NewDate returns the date y-m-d; out-of-range days roll over as in time.Date.
func NewDate(y int, m time.Month, d int) Date {
	return Date{t: time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// DateOf returns the calendar date of t in t's own location, which is how
// a DateTime given with an offset becomes a date (api.md §5).
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return NewDate(y, m, d)
}

// ParseDate reads a strict YYYY-MM-DD date.
func ParseDate(s string) (Date, error) {
	if len(s) != len(dateLayout) {
		return Date{}, fmt.Errorf("must be a date written YYYY-MM-DD")
	}
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return Date{}, fmt.Errorf("must be a valid date written YYYY-MM-DD")
	}
	return Date{t: t}, nil
}

// String writes the date as YYYY-MM-DD.
func (d Date) String() string { return d.t.Format(dateLayout) }

// AddDays returns the date n days later (earlier when n < 0).
func (d Date) AddDays(n int) Date { return Date{t: d.t.AddDate(0, 0, n)} }

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.t.Before(e.t) }

// After reports whether d is after e.
func (d Date) After(e Date) bool { return d.t.After(e.t) }

// Days numbers d's day from 1970-01-01 (negative before it), so that days
// subtract: d holds midnight UTC, a whole number of days from the epoch.
func (d Date) Days() int64 { return d.t.Unix() / 86400 }

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d.t.IsZero() }

// Start returns the first instant of the date in loc. Where a zone change
// skips midnight, the day starts when the change does.
func (d Date) Start(loc *time.Location) time.Time {
	y, m, day := d.t.Date()
	t := time.Date(y, m, day, 0, 0, 0, 0, loc)
	if t.Day() != day {
		_, t = t.ZoneBounds()
	}
	return t
}

// MarshalGQL writes the date as a JSON string.
func (d Date) MarshalGQL(w io.Writer) {
	_, _ = io.WriteString(w, strconv.Quote(d.String()))
}

// UnmarshalGQL reads a YYYY-MM-DD string of a date from 1900-01-01 to
// 9999-12-31.
func (d *Date) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("must be a date string written YYYY-MM-DD")
	}
	parsed, err := ParseDate(s)
	if err != nil {
		return err
	}
	if y := parsed.t.Year(); y < MinYear || y > MaxYear {
		return errors.New(dateRange)
	}
	*d = parsed
	return nil
}

// MarshalText writes YYYY-MM-DD, so that a date in a cursor or in JSON is
// its text.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads YYYY-MM-DD.
func (d *Date) UnmarshalText(b []byte) error {
	parsed, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// Value stores the date as YYYY-MM-DD text, which PostgreSQL reads into a
// date column and SQLite keeps as sortable text.
func (d Date) Value() (driver.Value, error) { return d.String(), nil }

// Scan reads a date from either database's representation.
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		*d = DateOf(v)
		return nil
	case string:
		return d.scanText(v)
	case []byte:
		return d.scanText(string(v))
	default:
		return fmt.Errorf("scalar: cannot scan %T into Date", src)
	}
}

func (d *Date) scanText(s string) error {
	if len(s) > len(dateLayout) && (s[len(dateLayout)] == ' ' || s[len(dateLayout)] == 'T') {
		s = s[:len(dateLayout)] // a date stored with a time of day
	}
	parsed, err := ParseDate(s)
	if err != nil {
		return fmt.Errorf("scalar: stored date %q: %w", s, err)
	}
	*d = parsed
	return nil
}
