package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// WebhookEndpoint is a URL that receives a client's audit events (every
// client's, when client_id is null: an ADMIN's), signed by the Standard
// Webhooks scheme with its secret. The secret is kept as it was shown
// (whsec_ and base64 of the key), since signing needs the key itself; the
// API never shows it again.
type WebhookEndpoint struct{ ent.Schema }

// Annotations of the WebhookEndpoint.
func (WebhookEndpoint) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("webhook_endpoints")}
}

// Mixin of the WebhookEndpoint.
func (WebhookEndpoint) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the WebhookEndpoint. operations are mutation field names; null
// or empty is every operation.
func (WebhookEndpoint) Fields() []ent.Field {
	return []ent.Field{
		uuidID(),
		field.String("client_id").SchemaType(uuidType).Optional().Nillable().Immutable(),
		field.String("url").MaxLen(2048),
		field.String("description").MaxLen(2000).Optional().Nillable(),
		field.Strings("operations").Optional(),
		field.String("secret").Sensitive().Immutable(),
	}
}

// Edges of the WebhookEndpoint.
func (WebhookEndpoint) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("deliveries", WebhookDelivery.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the WebhookEndpoint: a client's endpoints, as the trigger that
// queues deliveries finds them.
func (WebhookEndpoint) Indexes() []ent.Index {
	return []ent.Index{index.Fields("client_id", "created_at")}
}

// WebhookDelivery is one audit event queued for one endpoint: written in
// the transaction of the change (by a trigger on audit_events), sent by any
// replica, retried for 24 hours, with every attempt recorded.
// next_attempt_at is when it may be sent next (null once delivered or
// failed); a sender that claims it moves it a lease ahead, so no other
// sends it meanwhile.
type WebhookDelivery struct{ ent.Schema }

// Annotations of the WebhookDelivery.
func (WebhookDelivery) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("webhook_deliveries"), entgql.RelayConnection()}
}

// Mixin of the WebhookDelivery.
func (WebhookDelivery) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the WebhookDelivery. client_id is the endpoint's (null for an
// ADMIN's endpoint of every client), for the tenant filter. attempts are
// JSON, oldest first.
func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		uuidID(),
		field.String("endpoint_id").SchemaType(uuidType).Immutable(),
		field.String("client_id").SchemaType(uuidType).Optional().Nillable().Immutable(),
		field.Int("event_id").Immutable(),
		field.Enum("status").Values("PENDING", "DELIVERED", "FAILED").Default("PENDING"),
		field.JSON("attempts", []WebhookAttempt{}).Optional(),
		field.Time("next_attempt_at").Optional().Nillable(),
	}
}

// WebhookAttempt is one attempt of a delivery: when, the receiver's HTTP
// status (0 when none came), the error, and the start of its answer.
type WebhookAttempt struct {
	At           time.Time `json:"at"`
	HTTPStatus   *int      `json:"httpStatus,omitempty"`
	Error        *string   `json:"error,omitempty"`
	ResponseBody *string   `json:"responseBody,omitempty"`
}

// Edges of the WebhookDelivery.
func (WebhookDelivery) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("endpoint", WebhookEndpoint.Type).Ref("deliveries").Field("endpoint_id").
			Unique().Required().Immutable(),
	}
}

// Indexes of the WebhookDelivery: the senders' queue (due ones), an
// endpoint's log newest first.
func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("next_attempt_at").Annotations(entsql.IndexWhere("status = 'PENDING'")),
		index.Fields("endpoint_id", "created_at", "id"),
	}
}
