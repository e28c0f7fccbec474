package collection

import (
	"errors"
	"math/big"
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

// Money is an exact amount in minor units (öre): 1250.50 kr is
// Money(125050). Arithmetic is plain int64 arithmetic.
type Money int64

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
