package graph

import (
	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/internal/collection"
)

// statusIs is the filter "the record's status reads code": the SQL form
// (newSQL, value) of the same projection its field resolver shows, so that
// a filter and its field cannot disagree (api.md §7).
func statusIs[S any, P ~func(*sql.Selector)](now collection.Now, newSQL func(*sql.Selector, collection.Now) S, value func(S) collection.Expr, code int) P {
	return func(s *sql.Selector) { s.Where(collection.Is(value(newSQL(s, now)), code)) }
}

// flagIs is statusIs for a true/false field.
func flagIs[S any, P ~func(*sql.Selector)](now collection.Now, newSQL func(*sql.Selector, collection.Now) S, value func(S) collection.Expr, want bool) P {
	return func(s *sql.Selector) { s.Where(collection.IsTrue(value(newSQL(s, now)), want)) }
}
