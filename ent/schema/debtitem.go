package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/debtql/debtql/internal/scalar"

	"github.com/debtql/debtql/internal/collection"
)

// DebtItem is one item of a debt: a receivable handed over for collection,
// named by its invoice number. The API calls its type DebtItem (the
// contract's name); the code calls it an item everywhere. The table and
// index names are the ones it was created with.
type DebtItem struct{ ent.Schema }

// Annotations of the DebtItem.
func (DebtItem) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Annotation{Table: "debt_invoices"},
		// GraphQL names the type DebtInvoice: fragments on DebtInvoice must
		// still drive eager loading.
		entgql.Implements("DebtInvoice"),
	}
}

// Mixin of the DebtItem.
func (DebtItem) Mixin() []ent.Mixin { return []ent.Mixin{CreatedMixin{}} }

// Fields of the DebtItem. Its dates are instants (the description's
// date-times), kept in UTC; paid_amount sums its payments, kept in step as on
// the debt.
func (DebtItem) Fields() []ent.Field {
	return []ent.Field{
		intID(),
		field.String("client_id").SchemaType(uuidType).Immutable(),
		field.Int("debt_id").GoType(scalar.IntID(0)).Immutable(),
		field.Int("position").Immutable().Comment("0-based order within the debt"),
		field.String("invoice_number").MaxRuneLen(collection.MaxStringLength).Immutable(),
		field.String("invoice_number_key").Immutable().
			Comment("invoice number without spaces and hyphens, lower case, for search"),
		field.String("description").MaxRuneLen(collection.MaxTextLength).Optional().Nillable().Immutable(),
		field.Time("invoice_date").Immutable(),
		field.Time("due_date").Immutable(),
		field.Time("reminder_date").Optional().Nillable().Immutable(),
		field.Int64("amount").GoType(collection.Money(0)).Immutable(),
		field.Int64("paid_amount").GoType(collection.Money(0)).Default(0),
		// An agreed interest rate (percent a year, scaled by 10^4), which
		// replaces the terms' rule for the item, and the reminder fee the
		// creditor charged before hand-over (api.md §10).
		// The calendar date of due_date in the offset it was given in,
		// from which interest runs; null for items handed over before it
		// was kept, whose due day is read in the service's time zone.
		field.Other("due_on", scalar.Date{}).SchemaType(dateType).Optional().Nillable().Immutable(),
		field.Int64("interest_rate").GoType(collection.Rate(0)).Optional().Nillable().Immutable(),
		field.Int64("reminder_fee").GoType(collection.Money(0)).Optional().Nillable().Immutable(),
	}
}

// Edges of the DebtItem.
func (DebtItem) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("debt", Debt.Type).Ref("invoices").Field("debt_id").
			Unique().Required().Immutable(),
		edge.To("payments", Payment.Type),
	}
}

// Indexes of the DebtItem: invoice numbers are unique within a debt, and
// found by number within a client (an invoice's collection case).
func (DebtItem) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("debt_id", "invoice_number").Unique().StorageKey("debtinvoice_debt_id_invoice_number"),
		index.Fields("client_id", "invoice_number").StorageKey("debtinvoice_client_id_invoice_number"),
		index.Fields("client_id", "invoice_number_key").StorageKey("debtinvoice_client_id_invoice_number_key"),
	}
}

// Hooks of the DebtItem.
func (DebtItem) Hooks() []ent.Hook {
	return []ent.Hook{keyHook("invoice_number", "invoice_number_key", collection.NumberKey)}
}
