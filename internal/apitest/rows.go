package apitest

import (
	"context"
	"database/sql"
	"testing"
)

// Querier runs a query: a *sql.DB, or a transaction (*sql.Tx, *ent.Tx).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Strings runs query, which selects one column, and returns its rows'
// values as text; the test fails on any error.
func Strings(t testing.TB, q Querier, query string, args ...any) []string {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
