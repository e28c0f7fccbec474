package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// Payment is money received on a debt, designated by the payer to one of
// its items. Payments are facts: never changed, never deleted.
type Payment struct{ ent.Schema }

// Mixin of the Payment.
func (Payment) Mixin() []ent.Mixin { return []ent.Mixin{CreatedMixin{}} }

// Fields of the Payment.
func (Payment) Fields() []ent.Field {
	return []ent.Field{
		intID(),
		field.String("client_id").SchemaType(uuidType).Immutable(),
		field.Int("debt_id").GoType(scalar.IntID(0)).Immutable(),
		field.Int("debt_item_id").StorageKey("debt_invoice_id").GoType(scalar.IntID(0)).Immutable(),
		field.Int64("amount").GoType(collection.Money(0)).Immutable(),
		field.Other("transaction_date", scalar.Date{}).SchemaType(dateType).Immutable(),
		field.Other("booked_date", scalar.Date{}).SchemaType(dateType).Optional().Nillable().Immutable(),
		field.Enum("source").Values("BEFORE_HANDOVER", "REPORTED").Immutable(),
	}
}

// Edges of the Payment.
func (Payment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("debt", Debt.Type).Ref("payments").Field("debt_id").
			Unique().Required().Immutable(),
		edge.From("invoice", DebtItem.Type).Ref("payments").Field("debt_item_id").
			Unique().Required().Immutable(),
	}
}

// Indexes of the Payment.
func (Payment) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("debt_id", "created_at"),
		index.Fields("debt_item_id").StorageKey("payment_debt_invoice_id"),
	}
}
