package collection

import "entgo.io/ent/dialect/sql"

// SplitSignSQL exposes the exact sums of SQLite (splitSum, splitSign) to
// the external tests: the SQL of the sign of the sum of column a minus the
// sum of column b over an aggregate's rows (of a alone when b is "").
func SplitSignSQL(a, b string) string {
	hi, lo := splitSum(a)
	if b != "" {
		bHi, bLo := splitSum(b)
		hi, lo = expr(hi, " - ", bHi), expr(lo, " - ", bLo)
	}
	var builder sql.Builder
	splitSign(hi, lo)(&builder)
	return builder.String()
}
