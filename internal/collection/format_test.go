package collection

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// formatFixedReference is formatFixed as it was first written (strings and
// padding), kept to check the append version against it.
func formatFixedReference(v int64, scale, minFrac int) string {
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	pow := uint64(1)
	for range scale {
		pow *= 10
	}
	frac := strconv.FormatUint(u%pow, 10)
	frac = strings.Repeat("0", scale-len(frac)) + frac
	for len(frac) > minFrac && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	var b strings.Builder
	if v < 0 {
		b.WriteByte('-')
	}
	b.WriteString(strconv.FormatUint(u/pow, 10))
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

func TestAppendFixedMatchesReference(t *testing.T) {
	values := []int64{0, 1, -1, 5, 9, 10, 99, 100, 101, 1050, -1050, 123456, 100000, -100000,
		math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		v := r.Int64()
		if r.IntN(2) == 0 {
			v = r.Int64N(1_000_000) - 500_000
		}
		values = append(values, v)
	}
	for _, v := range values {
		for _, sc := range [][2]int{{MoneyDecimals, MoneyDecimals}, {RateDecimals, 2}, {4, 0}} {
			if got, want := formatFixed(v, sc[0], sc[1]), formatFixedReference(v, sc[0], sc[1]); got != want {
				t.Fatalf("formatFixed(%d, %d, %d) = %q, want %q", v, sc[0], sc[1], got, want)
			}
		}
		if got, want := string(Money(v).AppendJSON(nil)), strconv.Quote(Money(v).String()); got != want {
			t.Fatalf("Money(%d).AppendJSON = %s, want %s", v, got, want)
		}
		var b strings.Builder
		Rate(v).MarshalGQL(&b)
		if want := strconv.Quote(Rate(v).String()); b.String() != want {
			t.Fatalf("Rate(%d).MarshalGQL = %s, want %s", v, b.String(), want)
		}
	}
}
