package store

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
)

// patternDriver is the PostgreSQL driver with one change: a query that
// matches a LIKE pattern is planned for its arguments every time.
//
// pgx prepares and caches every statement, and after five executions
// PostgreSQL may switch a prepared statement to a generic plan, made
// without the arguments. For `name_key LIKE $2` a generic plan guesses 50
// matching rows whatever the pattern, so a search page (ORDER BY name LIMIT
// 51) was planned as "every match through the trigram index, then sort":
// 36 ms for "ander" on the benchmark's big client, against 1.5 ms for the
// plan made with the pattern (walk the name index, stop after 51 matches).
// pgx's cache-describe mode keeps the statement's description cached but
// executes it unnamed, which PostgreSQL plans with the arguments.
type patternDriver struct{ *tracedDriver }

// Query runs a query, planned with its arguments when it matches a pattern.
func (d patternDriver) Query(ctx context.Context, query string, args, v any) error {
	if a, ok := args.([]any); ok && strings.Contains(query, " LIKE ") {
		args = append([]any{pgx.QueryExecModeCacheDescribe}, a...)
	}
	return d.tracedDriver.Query(ctx, query, args, v)
}
