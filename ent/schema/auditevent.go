package schema

import (
	"context"
	"errors"
	"fmt"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/debtql/debtql/internal/audit"
	"github.com/debtql/debtql/internal/scalar"
)

// ErrAppendOnly refuses a change or deletion of the audit trail.
var ErrAppendOnly = errors.New("the audit trail is append-only: events cannot be changed or deleted")

// appendOnly lets only creations through: no code path, ours included, can
// update or delete an audit event or its records through ent.
func appendOnly(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		if !m.Op().Is(ent.OpCreate) {
			return nil, fmt.Errorf("%s %s: %w", m.Op(), m.Type(), ErrAppendOnly)
		}
		return next.Mutate(ctx, m)
	})
}

// AuditEvent is one mutation, as the audit trail records it: when (the
// server's clock), by which API key (its id and name at the time, never its
// secret) and role, which operation (the mutation field), for which client,
// in which request, and the records it touched (AuditEventRecord). It is
// written in the transaction of the change it describes, so a change without
// its event, or an event without its change, never commits.
//
// There are no foreign keys to the client or the API key: an event is a
// fact that outlives what it names. debt_id (the debt whose timeline the
// event belongs to) is the exception, as the edge behind Debt.events; debts
// are never deleted.
type AuditEvent struct{ ent.Schema }

// Annotations of the AuditEvent.
func (AuditEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}

// Mixin of the AuditEvent.
func (AuditEvent) Mixin() []ent.Mixin { return []ent.Mixin{CreatedMixin{}} }

// Fields of the AuditEvent.
func (AuditEvent) Fields() []ent.Field {
	return []ent.Field{
		intID(),
		field.String("client_id").SchemaType(uuidType).Optional().Nillable().Immutable(),
		field.String("api_key_id").SchemaType(uuidType).Immutable(),
		field.String("api_key_name").Immutable(),
		field.Enum("role").Values("ADMIN", "CLIENT").Immutable(),
		field.String("operation").MaxLen(64).Immutable(),
		field.String("request_id").MaxLen(64).Default("").Immutable(),
		field.Int("debt_id").GoType(scalar.IntID(0)).Optional().Nillable().Immutable(),
		// The PostgreSQL transaction that wrote the event (its 64-bit
		// pg_current_xact_id), filled in by the database: the event feed
		// delivers an event once no transaction that began before it is
		// still running, in (xact, id) order, so that an event whose id was
		// drawn early but committed late is not skipped (docs/decisions.md,
		// Events). Null on SQLite, whose writers commit in id order.
		field.Int64("xact").Optional().Nillable().Immutable().
			Annotations(entsql.DefaultExprs(map[string]string{dialect.Postgres: "(pg_current_xact_id())::text::bigint"}), entgql.Skip()),
	}
}

// Edges of the AuditEvent.
func (AuditEvent) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("debt", Debt.Type).Ref("events").Field("debt_id").Unique().Immutable(),
		edge.To("records", AuditEventRecord.Type),
	}
}

// Indexes of the AuditEvent: the list newest first, by client, and a
// debt's timeline.
func (AuditEvent) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("created_at", "id"),
		index.Fields("client_id", "created_at", "id"),
		index.Fields("debt_id", "id"),
		index.Fields("xact", "id"),
		index.Fields("client_id", "xact", "id"),
	}
}

// Hooks of the AuditEvent.
func (AuditEvent) Hooks() []ent.Hook { return []ent.Hook{appendOnly} }

// AuditEventRecord is a record an audit event touched: its type and id,
// and for records with statuses (debts, invoices, API keys) the statuses
// before and after the change (before is null on creation). client_id is
// the event's, for the tenant filter.
type AuditEventRecord struct{ ent.Schema }

// Annotations of the AuditEventRecord.
func (AuditEventRecord) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "audit_event_records"}}
}

// Fields of the AuditEventRecord. Record ids are kept as text, a UUID in its
// canonical form or an integer in decimal, so that one index serves every
// record type.
func (AuditEventRecord) Fields() []ent.Field {
	return []ent.Field{
		intID(),
		field.Int("event_id").GoType(scalar.IntID(0)).Immutable(),
		field.String("client_id").SchemaType(uuidType).Optional().Nillable().Immutable(),
		field.Enum("record_type").
			Values("CLIENT", "DEBTOR", "INVOICE", "DEBT", "DEBT_INVOICE", "PAYMENT", "API_KEY", "FEE").
			Immutable(),
		field.String("record_id").MaxLen(64).Immutable(),
		field.JSON("before", &audit.Statuses{}).Optional().Immutable(),
		field.JSON("after", &audit.Statuses{}).Optional().Immutable(),
	}
}

// Edges of the AuditEventRecord.
func (AuditEventRecord) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("event", AuditEvent.Type).Ref("records").Field("event_id").
			Unique().Required().Immutable(),
	}
}

// Indexes of the AuditEventRecord: "the events of a record" is one index
// range.
func (AuditEventRecord) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("record_type", "record_id", "event_id"),
		index.Fields("event_id"),
	}
}

// Hooks of the AuditEventRecord.
func (AuditEventRecord) Hooks() []ent.Hook { return []ent.Hook{appendOnly} }
