package store

import (
	"context"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
)

// DebtorChanges counts, per client, the changes to what a search on
// debtors reads (client, name_key, identification_key, email_key), kept by
// triggers on debtors (the hand-written migration …_debtor_changes) in
// shards as debt_counts is. A client's DebtorVersion is read from its rows.
const DebtorChanges = "debtor_changes"

// DebtorVersion is a client's version of its debtors: the sum of its rows'
// changes and the greatest transaction id among them. Every committed
// change raises the sum, and the transaction id keeps a version from
// coming back after the rows are removed (the migration says how), so two
// reads of one version saw the same debtors.
type DebtorVersion struct {
	Changes, LastXact int64
}

// DebtorVersionCheck reads a client's version with the total of a search
// on its debtors, in one statement (one snapshot), as three columns: the
// version's two parts and the total. The total is counted only when the
// client has a version (its rows; without, the caller counts in its own
// statement) and it is not the remembered one; else it is NULL. total is
// a scalar subquery, which PostgreSQL runs only when the CASE reaches it.
func DebtorVersionCheck(clientID string, remembered *DebtorVersion, total *sql.Selector) *sql.Selector {
	t := debtorChangesTable()
	changes, lastXact := versionParts(t)
	n := sql.ExprFunc(func(b *sql.Builder) {
		b.WriteString("CASE WHEN " + changes + " IS NULL THEN NULL")
		if remembered != nil {
			b.WriteString(" WHEN ").Join(versionIs(t, *remembered)).WriteString(" THEN NULL")
		}
		b.WriteString(" ELSE ").Wrap(func(b *sql.Builder) { b.Join(total) }).WriteString(" END")
	})
	return sql.Dialect(dialect.Postgres).Select().
		AppendSelectExprAs(sql.Expr(changes), "changes").
		AppendSelectExprAs(sql.Expr(lastXact), "last_xact").
		AppendSelectExprAs(n, "n").
		From(t).Where(sql.EQ(t.C("client_id"), clientID))
}

// CheckDebtorVersion runs DebtorVersionCheck on drv: the client's version
// (ok false when it has none) and the total when it was counted (nil when
// it was not).
func CheckDebtorVersion(ctx context.Context, drv dialect.Driver, clientID string, remembered *DebtorVersion, total *sql.Selector) (
	v DebtorVersion, ok bool, counted *int64, err error) {
	query, args := DebtorVersionCheck(clientID, remembered, total).Query()
	rows := &sql.Rows{}
	if err := drv.Query(ctx, query, args, rows); err != nil {
		return v, false, nil, err
	}
	defer rows.Close()
	var changes, lastXact, n sql.NullInt64
	if rows.Next() {
		if err := rows.Scan(&changes, &lastXact, &n); err != nil {
			return v, false, nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return v, false, nil, err
	}
	if n.Valid {
		counted = &n.Int64
	}
	return DebtorVersion{Changes: changes.Int64, LastXact: lastXact.Int64}, changes.Valid && lastXact.Valid, counted, nil
}

// RememberedTotal is a scalar subquery of a search's total: n, counted at
// version v, when the client's version is still v, else total (a scalar
// subquery, run only then). Reading the version in the page's own
// statement keeps the total and the page's rows of one snapshot.
func RememberedTotal(clientID string, v DebtorVersion, n int64, total *sql.Selector) *sql.Selector {
	t := debtorChangesTable()
	return sql.Dialect(dialect.Postgres).Select().
		AppendSelectExprAs(sql.ExprFunc(func(b *sql.Builder) {
			b.WriteString("COALESCE(CASE WHEN ").Join(versionIs(t, v)).WriteString(" THEN CAST(").Arg(n).
				WriteString(" AS bigint) END, ").Wrap(func(b *sql.Builder) { b.Join(total) }).WriteByte(')')
		}), "n").
		From(t).Where(sql.EQ(t.C("client_id"), clientID))
}

func debtorChangesTable() *sql.SelectTable { return sql.Dialect(dialect.Postgres).Table(DebtorChanges) }

// versionParts are the aggregates over a client's rows of t that make its
// DebtorVersion (NULL without rows).
func versionParts(t *sql.SelectTable) (changes, lastXact string) {
	return "CAST(sum(" + t.C("changes") + ") AS bigint)", "max(" + t.C("last_xact") + ")"
}

// versionIs is true when the rows of t read version v.
func versionIs(t *sql.SelectTable, v DebtorVersion) sql.Querier {
	changes, lastXact := versionParts(t)
	return sql.ExprFunc(func(b *sql.Builder) {
		b.WriteString(changes + " = ").Arg(v.Changes).WriteString(" AND " + lastXact + " = ").Arg(v.LastXact)
	})
}
