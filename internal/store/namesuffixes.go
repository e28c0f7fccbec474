package store

import (
	"unicode"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
)

// DebtorNameSuffixes holds every suffix of every debtor's name_key with its
// client and debtor, kept by triggers on debtors (the hand-written
// migration …_debtor_name_suffixes; not in ent/schema, whose diff inspects
// and changes only ent's tables): what a NAME search counts on PostgreSQL.
const DebtorNameSuffixes = "debtor_name_suffixes"

// NameSuffixTotal is the number of a client's debtors whose name_key
// contains key (not empty), as a PostgreSQL scalar subquery over
// DebtorNameSuffixes: the distinct debtors of the suffixes that start with
// key, one range of the table's key (client, suffix, debtor) read from the
// index alone. A string contains key exactly when one of its suffixes
// starts with it, so this is the count of name_key LIKE '%key%', which a
// trigram index answers only after rechecking every candidate's row.
func NameSuffixTotal(clientID, key string) *sql.Selector {
	t := sql.Table(DebtorNameSuffixes).As("s")
	suffix := t.C("suffix")
	in := []*sql.Predicate{
		sql.EQ(t.C("client_id"), clientID),
		sql.GTE(suffix, key),
		sql.P(func(b *sql.Builder) { b.WriteString("starts_with(").Ident(suffix).Comma().Arg(key).WriteByte(')') }),
	}
	if end, ok := prefixEnd(key); ok {
		in = append(in, sql.LT(suffix, end))
	}
	return sql.Dialect(dialect.Postgres).Select(sql.As(sql.Count(sql.Distinct(t.C("debtor_id"))), "n")).
		From(t).Where(sql.And(in...))
}

// prefixEnd is the least string above every string that starts with k in
// byte order (PostgreSQL's "C" collation): k with its last character
// replaced by the next one, so that s >= k AND s < end is the range of
// the strings that start with k, which a btree reads without knowing k
// in advance (a prepared statement's LIKE 'k%' cannot). ok is false when
// no such string exists (k is empty or all U+10FFFF).
func prefixEnd(k string) (end string, ok bool) {
	r := []rune(k)
	for i := len(r) - 1; i >= 0; i-- {
		switch next := r[i] + 1; {
		case next > unicode.MaxRune:
			continue // U+10FFFF has no successor: carry to the rune before
		case next == 0xD800: // UTF-16 surrogates are no characters
			next = 0xE000
			fallthrough
		default:
			r[i] = next
			return string(r[:i+1]), true
		}
	}
	return "", false
}
