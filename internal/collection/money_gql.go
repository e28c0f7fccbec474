package collection

import (
	"io"
	"strconv"

	"github.com/debtql/debtql/internal/scalar"
)

// MarshalGQL writes the amount as a GraphQL Decimal with exactly two
// fraction digits ("1250.00").
func (m Money) MarshalGQL(w io.Writer) {
	_, _ = io.WriteString(w, strconv.Quote(m.String()))
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
	_, _ = io.WriteString(w, strconv.Quote(r.String()))
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
