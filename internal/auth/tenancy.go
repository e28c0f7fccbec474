package auth

import (
	"context"
	"errors"
	"fmt"

	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/idempotencyrecord"
	"github.com/debtql/debtql/ent/intercept"
)

// clientColumn is the column naming the client on every tenant table.
const clientColumn = "client_id"

// errNoViewer guards against a code path that reaches the database with
// neither a viewer nor the system mark: it fails closed.
var errNoViewer = errors.New("auth: database access without a viewer")

// RegisterTenancy installs the tenant filter on client: every query of a
// CLIENT viewer is restricted to its client's rows (eager loads and nested
// connections included, since they are queries too), and every change it
// makes must stay within its client.
func RegisterTenancy(db *ent.Client) {
	db.Intercept(intercept.TraverseFunc(filterQuery))
	db.Use(guardMutation)
}

func filterQuery(ctx context.Context, q intercept.Query) error {
	if isSystem(ctx) {
		return nil
	}
	v := ViewerFrom(ctx)
	if v == nil {
		return errNoViewer
	}
	if v.IsAdmin() {
		if q.Type() == ent.TypeIdempotencyRecord {
			q.WhereP(sql.FieldEQ(idempotencyrecord.FieldAPIKeyID, v.Key.ID))
		}
		return nil
	}
	switch q.Type() {
	case ent.TypeReferenceRate:
		// Global data, not a client's: every key reads the whole table.
	case ent.TypeCreditor:
		q.WhereP(sql.FieldEQ(creditor.FieldID, v.ClientID()))
	case ent.TypeIdempotencyRecord:
		q.WhereP(sql.FieldEQ(idempotencyrecord.FieldAPIKeyID, v.Key.ID))
	default:
		q.WhereP(sql.FieldEQ(clientColumn, v.ClientID()))
	}
	return nil
}

// guardMutation keeps a CLIENT viewer's writes within its client: creations
// must name its client, updates and deletions only reach its client's rows.
// Creating clients, and any change of API keys or of the reference rates
// (global data), is for ADMIN keys only.
func guardMutation(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		if isSystem(ctx) {
			return next.Mutate(ctx, m)
		}
		v := ViewerFrom(ctx)
		if v == nil {
			return nil, errNoViewer
		}
		if v.IsAdmin() {
			return next.Mutate(ctx, m)
		}
		if m.Type() == ent.TypeAPIKey || m.Type() == ent.TypeReferenceRate || (m.Type() == ent.TypeCreditor && m.Op().Is(ent.OpCreate)) {
			return nil, fmt.Errorf("auth: a CLIENT key may not %s %s", m.Op(), m.Type())
		}
		column := clientColumn
		if m.Type() == ent.TypeCreditor {
			column = creditor.FieldID
		}
		if m.Op().Is(ent.OpCreate) {
			if got, ok := m.Field(column); !ok || got != v.ClientID() {
				return nil, fmt.Errorf("auth: a CLIENT key may only create rows of its own client")
			}
			return next.Mutate(ctx, m)
		}
		w, ok := m.(interface{ WhereP(...func(*sql.Selector)) })
		if !ok {
			return nil, fmt.Errorf("auth: cannot restrict %T to a client", m)
		}
		w.WhereP(sql.FieldEQ(column, v.ClientID()))
		return next.Mutate(ctx, m)
	})
}
