package collection

import (
	"cmp"
	"errors"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Sentinel errors of ParseMoney, ParseRate, MoneyFromDecimal and
// RateFromDecimal. The errors returned wrap one of them; their own text is
// a message fit for an API client.
var (
	// ErrTooManyDecimals: more fraction digits are written than the value
	// allows (2 for money, 4 for rates). Values are refused, never rounded.
	ErrTooManyDecimals = errors.New("too many decimals")
	// ErrTooLarge: more integer digits than allowed (15 for money, 14 for
	// rates).
	ErrTooLarge = errors.New("number too large")
	// ErrNotANumber: the text is not a plain decimal number (empty,
	// whitespace, junk, NaN, a leading '+', exponent notation, ...).
	ErrNotANumber = errors.New("not a number")
)

// Limits of Money and Rate.
const (
	// MoneyDecimals is the number of fraction digits of Money (öre).
	MoneyDecimals = 2
	// MoneyMaxIntegerDigits is the largest number of integer digits of a
	// Money value: |m| < 10^15 kronor.
	MoneyMaxIntegerDigits = 15
	// RateDecimals is the number of fraction digits of Rate.
	RateDecimals = 4
	// RateMaxIntegerDigits is the largest number of integer digits of a
	// Rate: the most that fits an int64 at scale 10^4.
	RateMaxIntegerDigits = 14
)

// MaxAmount is the money ceiling, 999 999 999 999 999.99 kr: the largest
// amount the API takes (MoneyMaxIntegerDigits integer digits, 2 decimals)
// and the largest amount any record holds: a debt item, a debt's original
// amount (the sum of its items) and its paid amount (the sum of its
// payments, which may exceed the original amount when overpaid), a
// payment, an invoice's totals and an article's amounts. Input that would
// make a stored amount exceed it is refused (docs/decisions.md, "Money
// ceiling"). Ninety-two amounts at the ceiling still add up within int64,
// so a sum of a few of them never wraps.
const MaxAmount Money = 99_999_999_999_999_999

// Money is an exact amount in minor units (öre): 1250.50 kr is
// Money(125050). It is an int64: add amounts with AddChecked, SumMoney or
// Total, which notice a sum that int64 cannot hold instead of wrapping
// around.
type Money int64

// AddChecked returns m + n and whether that sum is exact: false when it
// does not fit int64 (the Money returned is then meaningless).
func (m Money) AddChecked(n Money) (Money, bool) {
	s := m + n
	// Two's complement: the sum wrapped exactly when n's sign and the
	// direction the sum moved from m disagree.
	if (n > 0 && s < m) || (n < 0 && s > m) {
		return s, false
	}
	return s, true
}

// SumMoney returns the sum of ms and whether it is exact (see AddChecked).
func SumMoney(ms ...Money) (Money, bool) {
	var sum Money
	for _, m := range ms {
		var ok bool
		if sum, ok = sum.AddChecked(m); !ok {
			return 0, false
		}
	}
	return sum, true
}

// Total is an exact sum of any number of amounts, for sums whose number of
// terms has no bound (a debtor's debts, the debt items of an invoice's
// number): a 128-bit two's-complement integer, which 2^64 amounts of any
// size cannot overflow. The zero Total is 0.
type Total struct {
	hi int64
	lo uint64
}

// TotalOf returns the sum of ms.
func TotalOf(ms ...Money) Total {
	var t Total
	for _, m := range ms {
		t = t.Plus(m)
	}
	return t
}

// Plus returns t + m.
func (t Total) Plus(m Money) Total {
	lo, carry := bits.Add64(t.lo, uint64(m), 0)
	hi := t.hi + int64(carry)
	if m < 0 {
		hi-- // m's high word, sign-extended, is -1
	}
	return Total{hi: hi, lo: lo}
}

// Cmp compares t and u: -1, 0 or +1.
func (t Total) Cmp(u Total) int {
	if c := cmp.Compare(t.hi, u.hi); c != 0 {
		return c
	}
	return cmp.Compare(t.lo, u.lo)
}

// Sign is -1, 0 or +1.
func (t Total) Sign() int { return t.Cmp(Total{}) }

// Money returns t as Money, and whether it fits one.
func (t Total) Money() (Money, bool) {
	m := Money(int64(t.lo))
	return m, (t.hi == 0 && m >= 0) || (t.hi == -1 && m < 0)
}

// Clamped returns t, or the nearest int64 (math.MaxInt64 or
// math.MinInt64 öre) when it does not fit one. Beyond the ceiling a
// clamped total still compares with any amount within the ceiling as the
// exact total does.
func (t Total) Clamped() Money {
	if m, ok := t.Money(); ok {
		return m
	}
	if t.hi < 0 {
		return math.MinInt64
	}
	return math.MaxInt64
}

// Rate is a percentage scaled by 10^4: 12.5 % is Rate(125000).
type Rate int64

// ParseMoney reads a money amount written as a plain decimal number, the
// form of a JSON number without exponent or of a numeric string:
// "1250", "1250.5", "1250.50", "-3.10", "0.1".
//
// Rules:
//   - an optional leading '-'; a leading '+' is refused (JSON has none);
//   - at least one digit before the point, and at least one after it when
//     there is a point (".5" and "5." are refused); leading zeros are
//     allowed and do not count as integer digits;
//   - at most 2 fraction digits are written: "1.005" and also "1.000"
//     are refused (ErrTooManyDecimals), never rounded;
//   - at most 15 integer digits (ErrTooLarge);
//   - no whitespace, no exponent ("1e3", "1E-2": "exponent notation is not
//     allowed"), no "NaN" or "Inf" (ErrNotANumber).
//
// "-0" and "-0.00" give 0.
func ParseMoney(s string) (Money, error) {
	v, err := parseFixed(s, MoneyDecimals, MoneyMaxIntegerDigits)
	return Money(v), err
}

// ParseRate reads a percentage rate with the rules of ParseMoney, but with
// at most 4 fraction digits and 14 integer digits: "12.5" gives
// Rate(125000). Range checks (such as 0–100) are the caller's.
func ParseRate(s string) (Rate, error) {
	v, err := parseFixed(s, RateDecimals, RateMaxIntegerDigits)
	return Rate(v), err
}

// MoneyFromDecimal converts d with the rules of ParseMoney: an exponent
// below -2 is refused even when the extra digits are zeros (as "1.000"
// is), and |d| must be below 10^15. A positive exponent is fine here: only
// the textual exponent notation is refused, by ParseMoney.
func MoneyFromDecimal(d decimal.Decimal) (Money, error) {
	v, err := fromDecimal(d, MoneyDecimals, MoneyMaxIntegerDigits)
	return Money(v), err
}

// RateFromDecimal converts d with the rules of ParseRate (at most 4
// fraction digits, |d| below 10^14).
func RateFromDecimal(d decimal.Decimal) (Rate, error) {
	v, err := fromDecimal(d, RateDecimals, RateMaxIntegerDigits)
	return Rate(v), err
}

// String writes m in kronor with exactly 2 fraction digits: "1250.50",
// "-0.50", "0.00".
func (m Money) String() string {
	return formatFixed(int64(m), MoneyDecimals, MoneyDecimals)
}

// Decimal returns m in kronor as an exact decimal (exponent -2).
func (m Money) Decimal() decimal.Decimal {
	return decimal.New(int64(m), -MoneyDecimals)
}

// String writes r in percent with trailing zeros trimmed but at least 2
// fraction digits: "12.50", "8.125", "0.0001", "0.00".
func (r Rate) String() string {
	return formatFixed(int64(r), RateDecimals, 2)
}

// Decimal returns r in percent as an exact decimal (exponent -4).
func (r Rate) Decimal() decimal.Decimal {
	return decimal.New(int64(r), -RateDecimals)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func decimalsError(scale int) error {
	return newRuleError(ErrTooManyDecimals, "must have at most "+strconv.Itoa(scale)+" decimals")
}

func tooLargeError(maxInt int) error {
	return newRuleError(ErrTooLarge, "must have at most "+strconv.Itoa(maxInt)+" integer digits")
}

// parseFixed parses s as described at ParseMoney into an integer scaled by
// 10^scale. scale+maxInt must be at most 18 so the result fits an int64.
func parseFixed(s string, scale, maxInt int) (int64, error) {
	notNumber := func(msg string) (int64, error) {
		return 0, newRuleError(ErrNotANumber, msg)
	}
	if s == "" {
		return notNumber("must be a decimal number, not empty")
	}
	i := 0
	neg := false
	switch s[0] {
	case '-':
		neg = true
		i++
	case '+':
		return notNumber("must be a decimal number without a leading +")
	}
	intStart := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intDigits := s[intStart:i]
	if intDigits == "" {
		if i < len(s) && s[i] == '.' {
			return notNumber("must be a decimal number with a digit before the decimal point")
		}
		return notNumber("must be a decimal number")
	}
	fracDigits := ""
	if i < len(s) && s[i] == '.' {
		i++
		fracStart := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		fracDigits = s[fracStart:i]
		if fracDigits == "" {
			return notNumber("must be a decimal number with a digit after the decimal point")
		}
	}
	if i < len(s) {
		if s[i] == 'e' || s[i] == 'E' {
			return notNumber("exponent notation is not allowed")
		}
		return notNumber("must be a decimal number")
	}
	if len(fracDigits) > scale {
		return 0, decimalsError(scale)
	}
	intDigits = strings.TrimLeft(intDigits, "0")
	if len(intDigits) > maxInt {
		return 0, tooLargeError(maxInt)
	}
	var v int64
	for j := 0; j < len(intDigits); j++ {
		v = v*10 + int64(intDigits[j]-'0')
	}
	for j := 0; j < scale; j++ {
		v *= 10
		if j < len(fracDigits) {
			v += int64(fracDigits[j] - '0')
		}
	}
	if neg {
		v = -v
	}
	return v, nil
}

// fromDecimal converts d to an integer scaled by 10^scale with the limits
// of parseFixed.
func fromDecimal(d decimal.Decimal, scale, maxInt int) (int64, error) {
	exp := int64(d.Exponent())
	if exp < int64(-scale) {
		return 0, decimalsError(scale)
	}
	coef := d.Coefficient()
	if coef.Sign() == 0 {
		return 0, nil
	}
	// A non-zero coefficient times 10^exp is at least 10^exp in size.
	if exp > int64(maxInt) {
		return 0, tooLargeError(maxInt)
	}
	ten := big.NewInt(10)
	v := new(big.Int).Mul(coef, new(big.Int).Exp(ten, big.NewInt(exp+int64(scale)), nil))
	limit := new(big.Int).Exp(ten, big.NewInt(int64(maxInt+scale)), nil)
	if new(big.Int).Abs(v).Cmp(limit) >= 0 {
		return 0, tooLargeError(maxInt)
	}
	return v.Int64(), nil
}

// formatFixed writes v/10^scale with at least minFrac and at most scale
// fraction digits, trimming trailing zeros in between.
func formatFixed(v int64, scale, minFrac int) string {
	return string(appendFixed(nil, v, scale, minFrac))
}

// appendFixed appends formatFixed's text to dst.
func appendFixed(dst []byte, v int64, scale, minFrac int) []byte {
	u := uint64(v)
	if v < 0 {
		u = -u // two's complement: also right for math.MinInt64
		dst = append(dst, '-')
	}
	pow := uint64(1)
	for range scale {
		pow *= 10
	}
	dst = strconv.AppendUint(dst, u/pow, 10)
	// The fraction's scale digits, most significant first; trailing zeros
	// trimmed down to minFrac digits.
	var digits [20]byte
	f := u % pow
	for i := scale - 1; i >= 0; i-- {
		digits[i] = byte('0' + f%10)
		f /= 10
	}
	n := scale
	for n > minFrac && digits[n-1] == '0' {
		n--
	}
	if n > 0 {
		dst = append(dst, '.')
		dst = append(dst, digits[:n]...)
	}
	return dst
}
