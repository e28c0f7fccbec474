package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// ReferenceRate is one entry of the Riksbank's reference rate
// (räntelagen 9 §): the rate in force from valid_from until the next
// entry's valid_from (collection.ReferenceRate). The table is global, not a
// client's: every key reads it, only ADMIN keys change it
// (setReferenceRate), and the tenant filter (internal/auth) lets it
// through unfiltered. The values shipped with DebtQL
// (store.ShippedReferenceRates, docs/reference-rates.md) are inserted by the
// migration reference_rates_data on PostgreSQL and by store.Migrate on
// SQLite.
type ReferenceRate struct{ ent.Schema }

// Annotations of the ReferenceRate.
func (ReferenceRate) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("reference_rates")}
}

// Fields of the ReferenceRate. valid_from is a calendar date (1 January or
// 1 July), one entry per date; rate is percent scaled by 10^4 (at most 2
// decimals are allowed, so it is a multiple of 100).
func (ReferenceRate) Fields() []ent.Field {
	return []ent.Field{
		intID(),
		field.Other("valid_from", scalar.Date{}).SchemaType(dateType).Unique().Immutable(),
		field.Int64("rate").GoType(collection.Rate(0)),
	}
}
