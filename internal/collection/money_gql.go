package collection

import (
	"io"

	"github.com/debtql/debtql/internal/scalar"
)

// MarshalGQL writes the amount as a GraphQL Decimal with exactly two
// fraction digits ("1250.00").
func (m Money) MarshalGQL(w io.Writer) {
	var a [32]byte
	_, _ = w.Write(m.AppendJSON(a[:0]))
}

// AppendJSON appends the amount as MarshalGQL writes it.
func (m Money) AppendJSON(dst []byte) []byte {
	dst = append(dst, '"')
	dst = appendFixed(dst, int64(m), MoneyDecimals, MoneyDecimals)
	return append(dst, '"')
}

// UnmarshalGQL reads a Decimal that must be money: at most 2 decimals and
// 15 integer digits, never rounded.
func (m *Money) UnmarshalGQL(v any) error {
	d, err := scalar.UnmarshalDecimal(v)
	if err != nil {
		return err
	}
	*m, err = MoneyFromDecimal(d)
	return err
}

// MarshalGQL writes the rate as a GraphQL Decimal with up to four fraction
// digits.
func (r Rate) MarshalGQL(w io.Writer) {
	var a [32]byte
	dst := append(a[:0], '"')
	dst = appendFixed(dst, int64(r), RateDecimals, 2)
	_, _ = w.Write(append(dst, '"'))
}

// UnmarshalGQL reads a Decimal that must be a rate: at most 4 decimals.
func (r *Rate) UnmarshalGQL(v any) error {
	d, err := scalar.UnmarshalDecimal(v)
	if err != nil {
		return err
	}
	*r, err = RateFromDecimal(d)
	return err
}
