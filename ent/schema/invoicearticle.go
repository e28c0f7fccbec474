package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/debtql/debtql/internal/collection"
)

// InvoiceArticle is one line of an invoice. Articles are written with their
// invoice and never change.
type InvoiceArticle struct{ ent.Schema }

// Fields of the InvoiceArticle.
func (InvoiceArticle) Fields() []ent.Field {
	return []ent.Field{
		intID(),
		field.String("client_id").SchemaType(uuidType).Immutable().Comment("the invoice's client, so that every tenant table carries it"),
		field.String("invoice_id").SchemaType(uuidType).Immutable(),
		field.Int("position").Immutable().Comment("0-based order within the invoice"),
		field.String("name").MaxRuneLen(collection.MaxStringLength).Immutable(),
		field.String("name_key").Immutable().Comment("name in lower case, for search"),
		field.String("description").MaxRuneLen(collection.MaxTextLength).Optional().Nillable().Immutable(),
		field.Int64("price_excluding_vat").GoType(collection.Money(0)).Immutable(),
		field.Int64("total_vat_amount").GoType(collection.Money(0)).Immutable(),
		field.Int64("total_amount_including_vat").GoType(collection.Money(0)).Immutable(),
		field.Int64("total_amount_excluding_vat").GoType(collection.Money(0)).Immutable(),
		field.Int64("quantity").GoType(collection.Rate(0)).Immutable(),
		field.Int64("vat_percentage").GoType(collection.Rate(0)).Immutable(),
		field.Int64("discount").GoType(collection.Money(0)).Immutable(),
	}
}

// Edges of the InvoiceArticle.
func (InvoiceArticle) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("invoice", Invoice.Type).Ref("articles").Field("invoice_id").
			Unique().Required().Immutable(),
	}
}

// Hooks of the InvoiceArticle.
func (InvoiceArticle) Hooks() []ent.Hook {
	return []ent.Hook{keyHook("name", "name_key", collection.SearchKey)}
}

// Indexes of the InvoiceArticle.
func (InvoiceArticle) Indexes() []ent.Index {
	return []ent.Index{index.Fields("invoice_id", "position").Unique()}
}
