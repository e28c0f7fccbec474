package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// IdempotencyRecord remembers the response to a mutation sent with an
// Idempotency-Key, so that a retry within 24 hours gets the same answer
// without the work being done twice. It is written in the transaction of the
// mutation it records.
type IdempotencyRecord struct{ ent.Schema }

// Mixin of the IdempotencyRecord.
func (IdempotencyRecord) Mixin() []ent.Mixin { return []ent.Mixin{CreatedMixin{}} }

// Fields of the IdempotencyRecord.
func (IdempotencyRecord) Fields() []ent.Field {
	return []ent.Field{
		intID(),
		field.String("api_key_id").SchemaType(uuidType).Immutable(),
		field.String("key").MaxRuneLen(255).Immutable(),
		field.String("request_hash").Immutable().
			Comment("SHA-256 of the document, operation name and variables"),
		field.Int("status").Immutable().Comment("HTTP status of the first response"),
		field.Bytes("body").Immutable().Comment("body of the first response"),
		field.String("content_type").Immutable(),
	}
}

// Indexes of the IdempotencyRecord.
func (IdempotencyRecord) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("api_key_id", "key").Unique(),
		index.Fields("created_at"),
	}
}
