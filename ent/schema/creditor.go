package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/debtql/debtql/internal/collection"
)

// Creditor is a client of the collection agency: the organisation whose
// receivables are collected. ent reserves the name Client for its own
// client, so the entity is Creditor here and Client in GraphQL and SQL.
type Creditor struct{ ent.Schema }

// Annotations of the Creditor.
func (Creditor) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Annotation{Table: "clients"},
		// GraphQL names the type Client: fragments on Client must still
		// drive eager loading.
		entgql.Implements("Client"),
		entgql.RelayConnection(),
	}
}

// Mixin of the Creditor.
func (Creditor) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Creditor: the twelve fields of the interface description's
// client payload, spelled as there (adress1), plus the client number.
func (Creditor) Fields() []ent.Field {
	return []ent.Field{
		uuidID(),
		field.Int("client_number").Unique().Immutable().
			Comment("sequential, human-friendly number; the lists' clientNumber filter"),
		field.String("name").MaxRuneLen(collection.MaxStringLength),
		field.String("name_key").Comment("name in lower case, for search"),
		field.String("organization_number").MaxRuneLen(collection.MaxStringLength),
		field.String("organization_number_digits").
			Comment("digits of organization_number, for search"),
		field.String("adress1").MaxRuneLen(collection.MaxStringLength),
		field.String("address2").MaxRuneLen(collection.MaxStringLength),
		field.String("zip_code").MaxRuneLen(collection.MaxStringLength),
		field.String("city").MaxRuneLen(collection.MaxStringLength),
		field.String("country_code").MaxRuneLen(2),
		field.String("bank_number").MaxRuneLen(collection.MaxStringLength),
		field.String("email").MaxRuneLen(collection.MaxStringLength),
		field.String("contact_name").MaxRuneLen(collection.MaxStringLength),
		field.String("contact_email").MaxRuneLen(collection.MaxStringLength),
		field.String("contact_phone").MaxRuneLen(collection.MaxStringLength),
		// The client's collection terms (api.md §10), which each new debt
		// copies.
		field.Enum("interest_rule").Values("NONE", "STATUTORY").Default("NONE"),
		field.Int64("collection_fee").GoType(collection.Money(0)).Default(0),
		field.Bool("late_compensation").Default(false),
	}
}

// Edges of the Creditor.
func (Creditor) Edges() []ent.Edge {
	return []ent.Edge{
		// The client's lists are resolved with their filters and paging by
		// graph, not eager-loaded whole by field collection.
		edge.To("debtors", Debtor.Type).Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("invoices", Invoice.Type).Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("debts", Debt.Type).Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("api_keys", APIKey.Type).Annotations(entgql.Skip(entgql.SkipAll)),
	}
}

// Indexes of the Creditor: the default list order.
func (Creditor) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("created_at", "id"),
	}
}

// Hooks of the Creditor.
func (Creditor) Hooks() []ent.Hook {
	return []ent.Hook{
		keyHook("name", "name_key", collection.SearchKey),
		keyHook("organization_number", "organization_number_digits", collection.Digits),
	}
}
