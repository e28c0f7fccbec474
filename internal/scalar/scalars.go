package scalar

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// MarshalUUID writes a UUID id, which DebtQL keeps as its canonical
// lower-case string.
func MarshalUUID(id string) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		var a [40]byte
		_, _ = w.Write(strconv.AppendQuote(a[:0], id))
	})
}

// UnmarshalUUID accepts a UUID in the 8-4-4-4-12 form in any case and
// returns it in canonical lower case.
func UnmarshalUUID(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", errors.New("must be a UUID string")
	}
	return ParseUUID(s)
}

// ParseUUID accepts only the hyphenated 36-character form, so that ids are
// written one way everywhere.
func ParseUUID(s string) (string, error) {
	if len(s) != 36 {
		return "", errors.New("must be a UUID written 8-4-4-4-12")
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return "", errors.New("must be a UUID written 8-4-4-4-12")
	}
	return id.String(), nil
}

// NewUUID returns a new id in canonical form: a version 7 UUID, whose first
// 48 bits are the Unix time in milliseconds, the next 12 a fraction of the
// millisecond (raised where needed so that each id sorts after the one
// before), then 62 random bits. Ids made one after the other sort
// together, so a new row's entry lands at the right edge of each index on
// the id instead of on a random page, which after a checkpoint costs the
// whole page in the WAL (docs/performance.md, Optimisations, "New ids sort
// by time").
func NewUUID() string { return uuid.Must(uuid.NewV7()).String() }

// dateTimeLayout writes UTC with fractional seconds only when they are not
// zero (Go trims trailing zeros of the 9s), at most microseconds.
const dateTimeLayout = "2006-01-02T15:04:05.999999Z07:00"

// FormatDateTime writes t as api.md §3 wants it: UTC, RFC 3339, fractional
// seconds only when not zero, at most microseconds.
func FormatDateTime(t time.Time) string {
	return t.UTC().Truncate(time.Microsecond).Format(dateTimeLayout)
}

// MarshalDateTime writes t with FormatDateTime.
func MarshalDateTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		var a [48]byte
		_, _ = w.Write(AppendDateTime(a[:0], t))
	})
}

// AppendDateTime appends t as MarshalDateTime writes it: FormatDateTime's
// text, quoted (it is ASCII digits and separators: nothing to escape).
func AppendDateTime(dst []byte, t time.Time) []byte {
	dst = append(dst, '"')
	dst = t.UTC().Truncate(time.Microsecond).AppendFormat(dst, dateTimeLayout)
	return append(dst, '"')
}

// UnmarshalDateTime reads an RFC 3339 timestamp with an offset. The offset
// is kept in the returned time, since the calendar date "in the offset
// given" is what statuses use (api.md §5). Precision beyond microseconds is
// refused rather than silently cut. The date must fall from 1900-01-01 to
// 9999-12-31 both in the offset given (the date that counts) and in UTC
// (what is stored and written back, so that an answer reads back as input).
func UnmarshalDateTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, errors.New("must be an RFC 3339 date-time string with an offset, e.g. 2026-01-31T12:00:00Z")
	}
	if !rfc3339Shape(s) {
		return time.Time{}, errors.New("must be an RFC 3339 date-time with an offset, e.g. 2026-01-31T12:00:00Z")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, errors.New("must be a valid RFC 3339 date-time with an offset, e.g. 2026-01-31T12:00:00Z")
	}
	// The offset may carry the instant out of the years RFC 3339 (and the
	// databases) can write: 9999-12-31T23:00:00-05:00 is year 10000 in UTC,
	// and 1900-01-01T00:00:00+01:00 is 1899 in UTC.
	if y, u := t.Year(), t.UTC().Year(); y < MinYear || u < MinYear || u > MaxYear {
		return time.Time{}, errors.New("must be from 1900-01-01 to 9999-12-31, both in the offset given and in UTC")
	}
	return t, nil
}

// rfc3339Shape checks what time.Parse is lenient about: a '.' (not ',')
// before fraction digits that go no further than microseconds, and an offset of Z or ±hh:mm with hours
// below 24.
func rfc3339Shape(s string) bool {
	if len(s) < 20 || s[10] != 'T' {
		return false
	}
	rest := s[19:]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 || strings.Trim(rest[min(n, 7):n], "0") != "" {
			return false // no digits, or precision beyond microseconds
		}
		rest = rest[n:]
	}
	switch {
	case rest == "Z":
		return true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		return rest[1] < '2' || (rest[1] == '2' && rest[2] < '4')
	}
	return false
}

// MarshalDecimal writes a decimal as a string, exactly.
func MarshalDecimal(d decimal.Decimal) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(d.String()))
	})
}

// maxDecimalLength bounds the text of a decimal input, so that no input can
// make the server build a huge number.
const maxDecimalLength = 40

// maxFloatDigits is the number of significant digits a float64 literal keeps
// exactly; a longer literal in a query document may already have been
// rounded by the parser and is refused.
const maxFloatDigits = 15

// UnmarshalDecimal reads a JSON number or a numeric string exactly. Whether
// the value is money (2 decimals) or a rate (4) is decided by the caller.
func UnmarshalDecimal(v any) (decimal.Decimal, error) {
	switch v := v.(type) {
	case json.Number:
		return ParseDecimal(string(v))
	case string:
		return ParseDecimal(v)
	case int:
		return decimal.NewFromInt(int64(v)), nil
	case int64:
		return decimal.NewFromInt(v), nil
	case float64:
		// A number literal written in the query document reaches us as a
		// float64; its shortest form is what the caller wrote, unless the
		// caller wrote more digits than a float64 holds.
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if significantDigits(s) > maxFloatDigits {
			return decimal.Decimal{}, errors.New("has more digits than a number literal keeps exactly: pass it as a string or in variables")
		}
		return ParseDecimal(s)
	default:
		return decimal.Decimal{}, errors.New("must be a number or a numeric string")
	}
}

// ParseDecimal reads a plain decimal such as "1250.50" or "-3" (an exponent,
// as JSON allows, is accepted within ±30).
func ParseDecimal(s string) (decimal.Decimal, error) {
	if s == "" || len(s) > maxDecimalLength {
		return decimal.Decimal{}, fmt.Errorf("must be a decimal number of at most %d characters", maxDecimalLength)
	}
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9', r == '.':
		case (r == '-' || r == '+') && (i == 0 || s[i-1] == 'e' || s[i-1] == 'E'):
		case r == 'e' || r == 'E':
		default:
			return decimal.Decimal{}, errors.New("must be a decimal number such as 1250.50")
		}
	}
	if s[0] == '+' || s[0] == '.' || strings.HasPrefix(s, "-.") {
		return decimal.Decimal{}, errors.New("must be a decimal number such as 1250.50")
	}
	if i := strings.IndexByte(s, '.'); i >= 0 && (i+1 == len(s) || s[i+1] < '0' || s[i+1] > '9') {
		return decimal.Decimal{}, errors.New("must be a decimal number such as 1250.50: a decimal point needs digits after it")
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(s[i+1:])
		if err != nil || exp < -30 || exp > 30 {
			return decimal.Decimal{}, errors.New("must be a decimal number with an exponent within ±30")
		}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, errors.New("must be a decimal number such as 1250.50")
	}
	return d, nil
}

func significantDigits(s string) int {
	s = strings.Replace(strings.TrimPrefix(s, "-"), ".", "", 1)
	return len(strings.Trim(s, "0"))
}
