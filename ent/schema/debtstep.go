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

// DebtStep is a step of a debt's collection process (api.md §11): a
// dispute, its resolution, an application for a payment order. Steps are
// facts: when, by which API key, with what comment. The debt's row keeps
// the state they lead to (disputed_at, payment_order_applied_at) for the
// status filters; the audit trail names each step's event.
type DebtStep struct{ ent.Schema }

// Annotations of the DebtStep.
func (DebtStep) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Mixin of the DebtStep: created_at is when the step was taken.
func (DebtStep) Mixin() []ent.Mixin { return []ent.Mixin{CreatedMixin{}} }

// Fields of the DebtStep.
func (DebtStep) Fields() []ent.Field {
	return []ent.Field{
		intID(),
		field.String("client_id").SchemaType(uuidType).Immutable(),
		field.Int("debt_id").GoType(scalar.IntID(0)).Immutable(),
		field.Enum("kind").Values("DISPUTE", "RESOLVE_DISPUTE", "PAYMENT_ORDER").Immutable(),
		field.String("api_key_id").SchemaType(uuidType).Optional().Nillable().Immutable(),
		field.String("comment").MaxRuneLen(collection.MaxTextLength).Optional().Nillable().Immutable(),
	}
}

// Edges of the DebtStep.
func (DebtStep) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("debt", Debt.Type).Ref("steps").Field("debt_id").Unique().Required().Immutable(),
	}
}

// Indexes of the DebtStep: a debt's steps.
func (DebtStep) Indexes() []ent.Index {
	return []ent.Index{index.Fields("debt_id")}
}
