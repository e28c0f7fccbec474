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

// Debt is a collection case ("errand"): receivables of one client against one
// debtor, handed over together. Its items are DebtItems, fixed at
// creation; payments accumulate on it.
type Debt struct{ ent.Schema }

// Annotations of the Debt.
func (Debt) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}

// Mixin of the Debt.
func (Debt) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Debt. original_amount and paid_amount are sums of the items
// and of the payments, kept on the row (in the same transaction as the rows
// they sum, under the debt's row lock) so that lists filter and sort on them
// without aggregating. charged_amount is the summary of the claim the
// statuses compare paid_amount with (api.md §10): what the claim charged
// (principal, fees, interest) as of the debt's last payment or charge,
// recomputed by the collection engine in the transaction of each; under
// default terms it is original_amount.
func (Debt) Fields() []ent.Field {
	return []ent.Field{
		field.Int("id").GoType(scalar.IntID(0)).Immutable().Annotations(entgql.OrderField("ID")),
		field.String("client_id").SchemaType(uuidType).Immutable(),
		field.String("debtor_id").SchemaType(uuidType).Immutable(),
		field.Int64("original_amount").GoType(collection.Money(0)).Immutable().
			Annotations(entgql.OrderField("ORIGINAL_AMOUNT")),
		field.Int64("paid_amount").GoType(collection.Money(0)).Default(0),
		field.Int64("charged_amount").GoType(collection.Money(0)),
		// The transaction date of the debt's latest-dated payment (none:
		// NULL), kept with paid_amount: a claim read on or after it counts
		// every payment, so paid_amount is what they sum to.
		field.Other("last_payment_on", scalar.Date{}).SchemaType(dateType).Optional().Nillable(),
		// Whether interest can accrue on the debt: its terms' rule is
		// STATUTORY or an item has an agreed rate above 0. Fixed at
		// hand-over; a payment on such a debt recomputes charged_amount.
		field.Bool("interest_bearing").Default(false).Immutable(),
		// The start of the day the collection demand was sent (api.md
		// §10, demandSentOn), or the creation instant when none was
		// given: DEMAND_SENT lasts the 8 days after its day.
		field.Time("demand_sent_at").Immutable(),
		// The process (api.md §11).
		field.Time("disputed_at").Optional().Nillable(),
		field.String("dispute_comment").MaxRuneLen(collection.MaxTextLength).Optional().Nillable(),
		field.Time("payment_order_applied_at").Optional().Nillable(),
		field.Time("withdrawn_at").Optional().Nillable(),
		field.String("withdraw_comment").MaxRuneLen(collection.MaxTextLength).Optional().Nillable(),
		// The terms copied from the client, or given, at hand-over
		// (api.md §10); later changes of the client's never reach them.
		field.Enum("interest_rule").Values("NONE", "STATUTORY").Default("NONE").Immutable(),
		field.Int64("collection_fee").GoType(collection.Money(0)).Default(0).Immutable(),
		field.Bool("late_compensation").Default(false).Immutable(),
	}
}

// Edges of the Debt.
func (Debt) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("client", Creditor.Type).Ref("debts").Field("client_id").
			Unique().Required().Immutable(),
		edge.From("debtor", Debtor.Type).Ref("debts").Field("debtor_id").
			Unique().Required().Immutable(),
		edge.To("invoices", DebtItem.Type),
		edge.To("payments", Payment.Type),
		edge.To("fees", Fee.Type).Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("steps", DebtStep.Type).Annotations(entgql.Skip(entgql.SkipAll)),
		// The debt's audit trail (Debt.events). A debt with events cannot
		// be deleted: the trail is kept.
		edge.To("events", AuditEvent.Type).
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes of the Debt: the list orders, and the debtor's debts.
func (Debt) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("client_id", "created_at", "id"),
		index.Fields("client_id", "original_amount", "id"),
		// orderBy ID: without it a deep page by number walked the primary
		// key backwards through every client's debts (docs/performance.md).
		index.Fields("client_id", "id"),
		// Open debts (collection.OpenCondition): the lists a collection
		// agency works from, filtered and counted without reading the
		// closed ones.
		index.Fields("client_id", "id").StorageKey("debt_open_by_id").
			Annotations(entsql.IndexWhere(collection.OpenCondition)),
		index.Fields("client_id", "created_at", "id").StorageKey("debt_open_by_created_at").
			Annotations(entsql.IndexWhere(collection.OpenCondition)),
		index.Fields("debtor_id", "created_at"),
	}
}
