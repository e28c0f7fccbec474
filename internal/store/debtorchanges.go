package store

import (
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
	t := sql.Dialect(dialect.Postgres).Table(DebtorChanges)
	n := sql.ExprFunc(func(b *sql.Builder) {
		b.WriteString("CASE WHEN sum(" + t.C("changes") + ") IS NULL THEN NULL")
		if remembered != nil {
			b.WriteString(" WHEN ").Join(versionIs(t, *remembered)).WriteString(" THEN NULL")
		}
		b.WriteString(" ELSE ").Wrap(func(b *sql.Builder) { b.Join(total) }).WriteString(" END")
	})
	return sql.Dialect(dialect.Postgres).Select().
		AppendSelectExprAs(sql.Expr("CAST(sum("+t.C("changes")+") AS bigint)"), "changes").
		AppendSelectExprAs(sql.Expr("max("+t.C("last_xact")+")"), "last_xact").
		AppendSelectExprAs(n, "n").
		From(t).Where(sql.EQ(t.C("client_id"), clientID))
}

// RememberedTotal is a scalar subquery of a search's total: n, counted at
// version v, when the client's version is still v, else total (a scalar
// subquery, run only then). Reading the version in the page's own
// statement keeps the total and the page's rows of one snapshot.
func RememberedTotal(clientID string, v DebtorVersion, n int64, total *sql.Selector) *sql.Selector {
	t := sql.Dialect(dialect.Postgres).Table(DebtorChanges)
	return sql.Dialect(dialect.Postgres).Select().
		AppendSelectExprAs(sql.ExprFunc(func(b *sql.Builder) {
			b.WriteString("COALESCE(CASE WHEN ").Join(versionIs(t, v)).WriteString(" THEN CAST(").Arg(n).
				WriteString(" AS bigint) END, ").Wrap(func(b *sql.Builder) { b.Join(total) }).WriteByte(')')
		}), "n").
		From(t).Where(sql.EQ(t.C("client_id"), clientID))
}

// versionIs is true when the rows of t read version v.
func versionIs(t *sql.SelectTable, v DebtorVersion) sql.Querier {
	return sql.ExprFunc(func(b *sql.Builder) {
		b.WriteString("CAST(sum(" + t.C("changes") + ") AS bigint) = ").Arg(v.Changes).
			WriteString(" AND max(" + t.C("last_xact") + ") = ").Arg(v.LastXact)
	})
}
