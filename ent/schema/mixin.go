// Package schema describes DebtQL's tables as ent schemas: one file per
// entity, plus the mixins and hooks they share.
package schema

import (
	"context"
	"fmt"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"

	"github.com/debtql/debtql/internal/scalar"
)

// now is the clock of stored timestamps: UTC, cut to microseconds, because
// PostgreSQL keeps microseconds and a cursor must compare equal to the row it
// came from on both databases.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// TimeMixin adds created_at and updated_at.
type TimeMixin struct{ mixin.Schema }

// Fields of the TimeMixin.
func (TimeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Default(now).Immutable().
			Annotations(entgql.OrderField("CREATED_AT")),
		field.Time("updated_at").Default(now).UpdateDefault(now),
	}
}

// CreatedMixin adds created_at to records that never change.
type CreatedMixin struct{ mixin.Schema }

// Fields of the CreatedMixin.
func (CreatedMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Default(now).Immutable().
			Annotations(entgql.OrderField("CREATED_AT")),
	}
}

// uuidID is the id of clients, debtors, invoices and API keys: a UUID kept as
// its canonical string (entgql pages over string and integer ids together
// only this way), stored as a native uuid on PostgreSQL.
func uuidID() ent.Field {
	return field.String("id").
		DefaultFunc(scalar.NewUUID).
		Immutable().
		SchemaType(uuidType)
}

// intID is the id of debts, debt invoices, payments and other integer-keyed
// records.
func intID() ent.Field {
	return field.Int("id").GoType(scalar.IntID(0)).Immutable()
}

// Column types of the fields that are not plain: a UUID is a native uuid
// on PostgreSQL; a calendar date is a date there and ISO text on SQLite,
// where text order is date order. Money (collection.Money, öre) and rates
// (collection.Rate, scaled by 10^4) are exact integers on both.
var (
	uuidType = map[string]string{dialect.Postgres: "uuid", dialect.SQLite: "text"}
	dateType = map[string]string{dialect.Postgres: "date", dialect.SQLite: "text"}
)

// keyHook keeps a search key column in step with the column it is derived
// from (e.g. the digits of an identification number), so that no write path
// can forget it.
func keyHook(from, to string, key func(string) string) ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if v, ok := m.Field(from); ok {
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("schema: %s is %T, not a string", from, v)
				}
				if err := m.SetField(to, key(s)); err != nil {
					return nil, err
				}
			} else if m.FieldCleared(from) {
				if err := m.ClearField(to); err != nil {
					return nil, err
				}
			}
			return next.Mutate(ctx, m)
		})
	}
}
