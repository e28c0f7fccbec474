package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
)

// DebtCount is a client's number of debts, of open debts (neither
// withdrawn nor paid in full: collection.OpenCondition) and of open debts
// in stage LEGAL (collection.LegalConditionOf), so that a list's
// totalCount over all of a client's debts, its open ones or its closed ones
// is read from one row instead of counted (docs/decisions.md, "Debt counts").
//
// The database keeps it, not our code: triggers on debts (the migration
// debt_counts on PostgreSQL, store.sqliteDebtCounts on SQLite) change it in
// the transaction of every insert, update and delete of a debt, whoever
// writes, so that it cannot drift from the rows. It is never written through
// ent and is not part of the GraphQL schema.
type DebtCount struct{ ent.Schema }

// Annotations of the DebtCount.
func (DebtCount) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("debt_counts"), entgql.Skip(entgql.SkipAll)}
}

// Fields of the DebtCount: one row per client that has or had debts.
func (DebtCount) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").SchemaType(uuidType).StorageKey("client_id").Immutable(),
		field.Int64("debts").Comment("the client's debts"),
		field.Int64("open_debts").Comment("the client's debts neither withdrawn nor paid in full"),
		field.Int64("legal_debts").Default(0).Comment("the client's open debts in stage LEGAL (a payment order applied for)"),
	}
}
