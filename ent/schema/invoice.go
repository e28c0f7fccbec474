package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/debtql/debtql/internal/scalar"

	"github.com/debtql/debtql/internal/collection"
)

// Invoice is an invoice a client registers (the interface description's
// "Add an invoice"). It can later be withdrawn, or be collected by a debt
// that carries its invoice number.
type Invoice struct{ ent.Schema }

// Annotations of the Invoice.
func (Invoice) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}

// Mixin of the Invoice.
func (Invoice) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Invoice. Amounts are öre; rates are percent scaled by 10^4.
func (Invoice) Fields() []ent.Field {
	return []ent.Field{
		uuidID(),
		field.String("client_id").SchemaType(uuidType).Immutable(),
		field.String("invoice_number").MaxRuneLen(collection.MaxStringLength).Immutable().
			Annotations(entgql.OrderField("INVOICE_NUMBER")),
		field.String("invoice_number_key").Immutable().
			Comment("invoice number without spaces and hyphens, lower case, for search"),
		field.Other("invoice_date", scalar.Date{}).SchemaType(dateType).Immutable().Annotations(entgql.OrderField("INVOICE_DATE")),
		field.Int("days_until_expiration").Immutable(),
		field.Other("due_date", scalar.Date{}).SchemaType(dateType).Immutable().Annotations(entgql.OrderField("DUE_DATE")),
		field.Int64("interest_rate").GoType(collection.Rate(0)).Optional().Nillable().Immutable(),
		field.Int64("total_excluding_vat").GoType(collection.Money(0)).Immutable(),
		field.Int64("total_vat_amount").GoType(collection.Money(0)).Immutable(),
		field.Int64("total_amount_including_vat").GoType(collection.Money(0)).Immutable().
			Annotations(entgql.OrderField("TOTAL_AMOUNT")),
		field.Other("reminder_date", scalar.Date{}).SchemaType(dateType).Optional().Nillable().Immutable(),
		field.Int64("reminder_fee").GoType(collection.Money(0)).Optional().Nillable().Immutable(),
		field.Time("withdrawn_at").Optional().Nillable(),
		field.String("withdraw_comment").MaxRuneLen(collection.MaxTextLength).Optional().Nillable(),
	}
}

// Edges of the Invoice.
func (Invoice) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("client", Creditor.Type).Ref("invoices").Field("client_id").
			Unique().Required().Immutable(),
		edge.To("articles", InvoiceArticle.Type),
	}
}

// Indexes of the Invoice: the invoice number is unique within its client;
// the rest serve the list orders.
func (Invoice) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("client_id", "invoice_number").Unique(),
		index.Fields("client_id", "created_at", "id"),
		index.Fields("client_id", "invoice_date", "id"),
		index.Fields("client_id", "due_date", "id"),
		index.Fields("client_id", "total_amount_including_vat", "id"),
		index.Fields("client_id", "invoice_number_key"),
	}
}

// Hooks of the Invoice.
func (Invoice) Hooks() []ent.Hook {
	return []ent.Hook{keyHook("invoice_number", "invoice_number_key", collection.NumberKey)}
}
