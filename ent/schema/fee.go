package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// Fee is a charge on a debt beyond its items (api.md §10): a reminder fee,
// the collection fee or the late-payment compensation charged at hand-over,
// or the payment-order fees of the process. Fees are facts with a day; what
// each payment paid of them is computed (collection.ClaimFacts), not kept.
type Fee struct{ ent.Schema }

// Annotations of the Fee.
func (Fee) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Mixin of the Fee.
func (Fee) Mixin() []ent.Mixin { return []ent.Mixin{CreatedMixin{}} }

// Fields of the Fee.
func (Fee) Fields() []ent.Field {
	return []ent.Field{
		intID(),
		field.String("client_id").SchemaType(uuidType).Immutable(),
		field.Int("debt_id").GoType(scalar.IntID(0)).Immutable(),
		field.Enum("kind").Values("REMINDER_FEE", "COLLECTION_FEE", "LATE_COMPENSATION",
			"PAYMENT_ORDER_FEE", "PAYMENT_ORDER_APPLICATION_FEE").Immutable(),
		field.Int64("amount").GoType(collection.Money(0)).Immutable(),
		field.Other("charged_on", scalar.Date{}).SchemaType(dateType).Immutable(),
	}
}

// Edges of the Fee.
func (Fee) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("debt", Debt.Type).Ref("fees").Field("debt_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Fee: a debt's fees.
func (Fee) Indexes() []ent.Index {
	return []ent.Index{index.Fields("debt_id")}
}
