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

// Debtor is a person or organisation that owes one client money. A client
// has one debtor per identification number (compared by its digits), which
// createDebt reuses.
type Debtor struct{ ent.Schema }

// Annotations of the Debtor.
func (Debtor) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}

// Mixin of the Debtor.
func (Debtor) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Debtor: the debtor payload with its address and contact
// information flattened.
func (Debtor) Fields() []ent.Field {
	return []ent.Field{
		uuidID(),
		field.String("client_id").SchemaType(uuidType).Immutable(),
		field.Bool("is_corporation"),
		field.String("identification_number").MaxRuneLen(collection.MaxStringLength),
		field.String("identification_key").
			Comment("identification number as compared: its digits, or (with letters) lower case without spaces and hyphens"),
		field.String("name").MaxRuneLen(collection.MaxStringLength).
			Annotations(entgql.OrderField("NAME")),
		field.String("name_key").Comment("name in lower case, for search"),
		field.String("address1").MaxRuneLen(collection.MaxStringLength),
		field.String("address2").MaxRuneLen(collection.MaxStringLength).Optional().Nillable(),
		field.String("care_of").MaxRuneLen(collection.MaxStringLength).Optional().Nillable(),
		field.String("zip_code").MaxRuneLen(collection.MaxStringLength),
		field.String("city").MaxRuneLen(collection.MaxStringLength),
		field.String("country_code").MaxRuneLen(2),
		field.String("email").MaxRuneLen(collection.MaxStringLength).Optional().Nillable(),
		field.String("email_key").Optional().Nillable().Comment("e-mail in lower case, for search"),
		field.String("phone").MaxRuneLen(collection.MaxStringLength).Optional().Nillable(),
		// Set when anonymizeDebtor replaced the personal fields above
		// (api.md §14); the debtor's debts and payments stay.
		field.Time("anonymized_at").Optional().Nillable(),
	}
}

// Edges of the Debtor.
func (Debtor) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("client", Creditor.Type).Ref("debtors").Field("client_id").
			Unique().Required().Immutable(),
		// Resolved with filters and paging by graph, not eager-loaded whole.
		edge.To("debts", Debt.Type).Annotations(entgql.Skip(entgql.SkipAll)),
	}
}

// Indexes of the Debtor: one debtor per number and client; list orders.
func (Debtor) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("client_id", "identification_key").Unique(),
		index.Fields("client_id", "created_at", "id"),
		// The name order, carrying the identification number and its
		// search key (PostgreSQL's INCLUDE; SQLite ignores it): a number
		// search ordered by name that selects the name and the number
		// walks this index alone, without a table read per debtor it
		// skips (docs/performance.md, change 23).
		index.Fields("client_id", "name", "id").
			Annotations(entsql.IncludeColumns("identification_key", "identification_number")),
		// Substring search (searchTerm) within a client.
		trigramIndex("debtor_name_trgm", "name_key"),
		trigramIndex("debtor_identification_trgm", "identification_key"),
		trigramIndex("debtor_email_trgm", "email_key"),
	}
}

// Hooks of the Debtor.
func (Debtor) Hooks() []ent.Hook {
	return []ent.Hook{
		keyHook("identification_number", "identification_key", collection.IdentificationKey),
		keyHook("name", "name_key", collection.SearchKey),
		keyHook("email", "email_key", collection.SearchKey),
	}
}
