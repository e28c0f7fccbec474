package scalar

import (
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"github.com/debtql/debtql/internal/collection"
)

// MarshalMoney writes an amount of öre as a Decimal with exactly two
// fraction digits ("1250.00").
func MarshalMoney(m collection.Money) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(m.String()))
	})
}

// UnmarshalMoney reads a Decimal that must be money (at most 2 decimals).
func UnmarshalMoney(v any) (collection.Money, error) {
	d, err := UnmarshalDecimal(v)
	if err != nil {
		return 0, err
	}
	return collection.MoneyFromDecimal(d)
}

// MarshalRate writes a rate or quantity with up to four fraction digits.
func MarshalRate(r collection.Rate) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(r.String()))
	})
}

// UnmarshalRate reads a Decimal that must be a rate (at most 4 decimals).
func UnmarshalRate(v any) (collection.Rate, error) {
	d, err := UnmarshalDecimal(v)
	if err != nil {
		return 0, err
	}
	return collection.RateFromDecimal(d)
}
