package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// APIKey is a credential. Only the SHA-256 of the secret is stored: the
// secret is 32 random bytes, so a slow password hash would add latency to
// every request without adding strength.
type APIKey struct{ ent.Schema }

// Annotations of the APIKey.
func (APIKey) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Annotation{Table: "api_keys"},
		entgql.RelayConnection(),
	}
}

// Mixin of the APIKey.
func (APIKey) Mixin() []ent.Mixin { return []ent.Mixin{CreatedMixin{}} }

// Fields of the APIKey.
func (APIKey) Fields() []ent.Field {
	return []ent.Field{
		uuidID(),
		field.String("name").MaxRuneLen(255),
		field.Enum("role").Values("ADMIN", "CLIENT").Immutable(),
		field.String("client_id").SchemaType(uuidType).Optional().Nillable().Immutable(),
		field.String("secret_hash").Unique().Immutable().Sensitive(),
		field.Time("last_used_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Edges of the APIKey.
func (APIKey) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("client", Creditor.Type).Ref("api_keys").Field("client_id").
			Unique().Immutable(),
	}
}

// Indexes of the APIKey.
func (APIKey) Indexes() []ent.Index {
	return []ent.Index{index.Fields("created_at", "id")}
}
