package collection

import (
	"strconv"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
)

// The SQL side of the projections in status.go: for each derived value the
// expression that computes it in the database, so that a filter on a status
// selects exactly the records whose field reads that status (api.md §7).
// Each expression mirrors the Go function above it in status.go, case for
// case; the API tests hold the two together. The SQL is portable between
// PostgreSQL and SQLite, except for sums over a number of rows without
// bound (an invoice's paid amount, a debtor's totals): PostgreSQL's SUM of
// bigint is numeric, exact at any size, but SQLite's SUM of integers fails
// ("integer overflow") past int64, so on SQLite those sums are split
// (splitSign).

// Tables of ent/schema that the expressions read.
const (
	tableDebtItems = "debt_invoices"
	tableDebts     = "debts"
)

// Expr writes an SQL expression into a builder.
type Expr func(b *sql.Builder)

// param is an argument of an expression, written as a placeholder.
type param struct{ v any }

// expr concatenates raw SQL (strings), integer literals (int), arguments
// (param) and expressions.
func expr(parts ...any) Expr {
	return func(b *sql.Builder) {
		for _, p := range parts {
			switch p := p.(type) {
			case string:
				b.WriteString(p)
			case int:
				// Status codes are constants of this package: written as
				// literals, they give the CASE its integer type.
				b.WriteString(strconv.Itoa(p))
			case param:
				b.Arg(p.v)
			case Expr:
				p(b)
			default:
				panic("collection: bad SQL expression part")
			}
		}
	}
}

// Is is the predicate "e = v".
func Is(e Expr, v int) *sql.Predicate {
	return sql.P(func(b *sql.Builder) { expr(e, " = ", v)(b) })
}

// IsTrue is the predicate "e" for a 0/1 expression e, or its negation.
func IsTrue(e Expr, want bool) *sql.Predicate {
	v := 0
	if want {
		v = 1
	}
	return Is(e, v)
}

// moneyCmp compares an amount a with an amount b in SQL: the conditions
// a <= 0, a < b, a = b and a >= b.
type moneyCmp struct{ nonPositive, less, equal, atLeast Expr }

// plainCmp compares a and b as they are: columns, or sums on PostgreSQL
// (numeric, exact at any size).
func plainCmp(a, b Expr) moneyCmp {
	return moneyCmp{expr(a, " <= 0"), expr(a, " < ", b), expr(a, " = ", b), expr(a, " >= ", b)}
}

// signCmp compares by the signs (-1, 0 or 1) of a and of a - b.
func signCmp(signA, signDiff Expr) moneyCmp {
	return moneyCmp{expr(signA, " <= 0"), expr(signDiff, " < 0"), expr(signDiff, " = 0"), expr(signDiff, " >= 0")}
}

// splitBase splits an amount x into x / splitBase and x % splitBase
// (SQLite truncates toward zero, so x is exactly the first times
// splitBase plus the second, whatever x's sign). The sums of the parts
// of n amounts stay within int64 for n up to 10^9 rows, where the sum of
// the amounts themselves may pass int64 from the 93rd amount at the
// ceiling on.
const splitBase = 1_000_000_000

// splitSum is the two sums of the parts of col (an integer column) over
// an aggregate's rows, 0 without rows (SQLite).
func splitSum(col string) (hi, lo Expr) {
	return expr("COALESCE(SUM(", col, " / ", splitBase, "), 0)"), expr("COALESCE(SUM(", col, " % ", splitBase, "), 0)")
}

// splitSign is the sign (-1, 0 or 1) of hi * splitBase + lo, for integer
// expressions hi and lo such as the sums of splitSum, computed without
// leaving int64: hi + lo / splitBase, unless 0, has the value's sign (the
// rest, lo % splitBase, is smaller than splitBase in size); when it is 0,
// the rest has.
func splitSign(hi, lo Expr) Expr {
	h := expr("(", hi, " + (", lo, ") / ", splitBase, ")")
	r := expr("((", lo, ") % ", splitBase, ")")
	return expr("CASE WHEN ", h, " > 0 THEN 1 WHEN ", h, " < 0 THEN -1 WHEN ", r, " > 0 THEN 1 WHEN ", r, " < 0 THEN -1 ELSE 0 END")
}

// paymentExpr mirrors PaymentOf (PaymentOfTotals), with c comparing what
// is paid with what is owed.
func paymentExpr(c moneyCmp) Expr {
	return expr("CASE WHEN ", c.nonPositive, " THEN ", int(Unpaid),
		" WHEN ", c.less, " THEN ", int(PartiallyPaid),
		" WHEN ", c.equal, " THEN ", int(Paid),
		" ELSE ", int(Overpaid), " END")
}

// debtColumns names a debt's columns in some query.
type debtColumns struct{ id, charged, paid, withdrawnAt, demandSentAt, paymentOrderAt string }

func debtCols(alias string) debtColumns {
	return debtColumns{alias + ".id", alias + ".charged_amount", alias + ".paid_amount", alias + ".withdrawn_at",
		alias + ".demand_sent_at", alias + ".payment_order_applied_at"}
}

func (c debtColumns) closed() Expr {
	return expr("(", c.withdrawnAt, " IS NOT NULL OR ", c.paid, " >= ", c.charged, ")")
}

// mainExpr mirrors ProjectDebt's Main.
func (c debtColumns) mainExpr() Expr {
	return expr("CASE WHEN ", c.closed(), " THEN ", int(StageClosed),
		" WHEN ", c.paymentOrderAt, " IS NOT NULL THEN ", int(StageLegal),
		" ELSE ", int(StageCollection), " END")
}

// underExpr mirrors ProjectDebt's Under.
func (c debtColumns) underExpr(now Now) Expr {
	return expr("CASE WHEN ", c.withdrawnAt, " IS NOT NULL THEN ", int(SubWithdrawn),
		" WHEN ", c.paid, " >= ", c.charged, " THEN ", int(SubPaidInFull),
		" WHEN ", c.paymentOrderAt, " IS NOT NULL THEN ", int(SubPaymentOrderApplied),
		" WHEN ", c.demandSentAt, " < ", param{DemandExpiryBoundary(now)}, " THEN ", int(SubDemandExpired),
		" ELSE ", int(SubDemandSent), " END")
}

// DebtSQL selects debts by their derived values, for filters on debts.
type DebtSQL struct {
	c          debtColumns
	disputedAt string
	now        Now
}

// NewDebtSQL reads the debt in s's table at now.
func NewDebtSQL(s *sql.Selector, now Now) DebtSQL {
	return DebtSQL{c: debtColumns{s.C("id"), s.C("charged_amount"), s.C("paid_amount"), s.C("withdrawn_at"),
		s.C("demand_sent_at"), s.C("payment_order_applied_at")}, now: now, disputedAt: s.C("disputed_at")}
}

// OpenCondition is the SQL of an open debt (neither withdrawn nor paid in
// full: nothing it was charged is outstanding), as the partial indexes of
// ent/schema/debt.go are written, so that filters on open debts can use
// them.
const OpenCondition = "withdrawn_at IS NULL AND paid_amount < charged_amount"

// OpenConditionOf is OpenCondition on the columns of row (a table alias, or
// a trigger's NEW or OLD), in parentheses.
func OpenConditionOf(row string) string {
	return "(" + row + ".withdrawn_at IS NULL AND " + row + ".paid_amount < " + row + ".charged_amount)"
}

// LegalConditionOf is the SQL of an open debt of stage LEGAL on the columns
// of row: a payment order was applied for. The kept counts count these
// apart, so that COLLECTION (open, not LEGAL) is counted without a scan.
func LegalConditionOf(row string) string {
	return "(" + OpenConditionOf(row) + " AND " + row + ".payment_order_applied_at IS NOT NULL)"
}

// Selection is a set of debts the kept counts know the size of.
type Selection int

// Selections: every debt, the open ones, the open ones in stage LEGAL,
// the open ones not in LEGAL (COLLECTION), the closed ones, or none.
const (
	SelectAll Selection = iota
	SelectOpen
	SelectLegal
	SelectCollection
	SelectClosed
	SelectNone
)

// Selects tells which debts a mainStatus filter of v selects.
func (v CollectionStage) Selects() Selection {
	switch v {
	case StageCollection:
		return SelectCollection
	case StageLegal:
		return SelectLegal
	case StageClosed:
		return SelectClosed
	}
	return SelectNone
}

// Selects tells which debts an activeStatus filter of v selects.
func (v ActiveStatus) Selects() Selection {
	switch v {
	case Active:
		return SelectOpen
	case Inactive:
		return SelectClosed
	}
	return SelectNone
}

// And is the selection of the debts both s and o select (SelectNone when
// they exclude each other).
func (s Selection) And(o Selection) Selection {
	if s == o || o == SelectAll {
		return s
	}
	if s == SelectAll {
		return o
	}
	inOpen := func(x Selection) bool { return x == SelectOpen || x == SelectLegal || x == SelectCollection }
	switch {
	case s == SelectNone || o == SelectNone:
		return SelectNone
	case s == SelectOpen && inOpen(o):
		return o
	case o == SelectOpen && inOpen(s):
		return s
	}
	return SelectNone // closed and open, or LEGAL and COLLECTION
}

// The predicates below select the debts whose status reads one value. They
// mirror ProjectDebt branch by branch, like the CASE expressions above, but
// as plain conditions on the debt's own columns, which the planner can match
// with the partial indexes on open debts; for the hot list filters they
// replace "CASE ... END = code".

func (q DebtSQL) open() Expr {
	return expr("(", q.c.withdrawnAt, " IS NULL AND ", q.c.paid, " < ", q.c.charged, ")")
}

func (q DebtSQL) closedP() Expr { return q.c.closed() }

// pred turns an Expr into a predicate.
func pred(e Expr) *sql.Predicate { return sql.P(func(b *sql.Builder) { e(b) }) }

// never is the predicate of a value the field cannot read.
func never() *sql.Predicate { return pred(expr("1 = 0")) }

// selection is the predicate of a Selection.
func (q DebtSQL) selection(sel Selection) *sql.Predicate {
	switch sel {
	case SelectAll:
		return pred(expr("1 = 1"))
	case SelectOpen:
		return pred(q.open())
	case SelectLegal:
		return pred(expr(q.open(), " AND ", q.c.paymentOrderAt, " IS NOT NULL"))
	case SelectCollection:
		return pred(expr(q.open(), " AND ", q.c.paymentOrderAt, " IS NULL"))
	case SelectClosed:
		return pred(q.closedP())
	}
	return never()
}

// MainIs selects the debts whose mainStatus reads v.
func (q DebtSQL) MainIs(v CollectionStage) *sql.Predicate { return q.selection(v.Selects()) }

// ActiveIs selects the debts whose activeStatus reads v.
func (q DebtSQL) ActiveIs(v ActiveStatus) *sql.Predicate { return q.selection(v.Selects()) }

// DisputedIs selects the debts whose isDisputed reads v.
func (q DebtSQL) DisputedIs(v bool) *sql.Predicate {
	if v {
		return pred(expr(q.disputedAt, " IS NOT NULL"))
	}
	return pred(expr(q.disputedAt, " IS NULL"))
}

// UnderIs selects the debts whose underStatus reads v at now.
func (q DebtSQL) UnderIs(v CollectionSubStatus) *sql.Predicate {
	b := param{DemandExpiryBoundary(q.now)}
	switch v {
	case SubWithdrawn:
		return pred(expr(q.c.withdrawnAt, " IS NOT NULL"))
	case SubPaidInFull:
		return pred(expr(q.c.withdrawnAt, " IS NULL AND ", q.c.paid, " >= ", q.c.charged))
	case SubPaymentOrderApplied:
		return q.selection(SelectLegal)
	case SubDemandExpired:
		return pred(expr(q.open(), " AND ", q.c.paymentOrderAt, " IS NULL AND ", q.c.demandSentAt, " < ", b))
	case SubDemandSent:
		return pred(expr(q.open(), " AND ", q.c.paymentOrderAt, " IS NULL AND ", q.c.demandSentAt, " >= ", b))
	}
	return never()
}

// PaymentIs selects the debts whose paymentStatus reads v.
func (q DebtSQL) PaymentIs(v PaymentStatus) *sql.Predicate {
	paid, owed := q.c.paid, q.c.charged
	switch v {
	case Unpaid:
		return pred(expr(paid, " <= 0"))
	case PartiallyPaid:
		return pred(expr(paid, " > 0 AND ", paid, " < ", owed))
	case Paid:
		return pred(expr(paid, " > 0 AND ", paid, " = ", owed))
	case Overpaid:
		return pred(expr(paid, " > 0 AND ", paid, " > ", owed))
	}
	return never()
}

// InvoiceSQL computes an invoice's derived values in SQL, for filters on
// invoices.
type InvoiceSQL struct {
	clientID, number, total, dueDate, reminderDate, withdrawnAt string
	now                                                         Now
	sqlite                                                      bool
}

// NewInvoiceSQL reads the invoice in s's table at now.
func NewInvoiceSQL(s *sql.Selector, now Now) InvoiceSQL {
	return InvoiceSQL{
		clientID: s.C("client_id"), number: s.C("invoice_number"), total: s.C("total_amount_including_vat"),
		dueDate: s.C("due_date"), reminderDate: s.C("reminder_date"), withdrawnAt: s.C("withdrawn_at"), now: now,
		sqlite: s.Dialect() == dialect.SQLite,
	}
}

// items restricts debt items (alias a) to those carrying the invoice's
// number in its client's debts.
func (q InvoiceSQL) items(a string) string {
	return a + ".client_id = " + q.clientID + " AND " + a + ".invoice_number = " + q.number
}

// paid mirrors InvoiceFacts.Paid: the sum of the paid amounts of the
// items of the invoice's number, which any number of the client's
// (withdrawn) debts may hold, so it may pass int64.
func (q InvoiceSQL) paid() Expr {
	return expr("COALESCE((SELECT SUM(ip.paid_amount) FROM ", tableDebtItems, " ip WHERE ", q.items("ip"), "), 0)")
}

// paidVsTotal compares paid() with the total, exactly at any size.
func (q InvoiceSQL) paidVsTotal() moneyCmp {
	if !q.sqlite {
		return plainCmp(q.paid(), expr(q.total))
	}
	over := func(value Expr) Expr {
		return expr("(SELECT ", value, " FROM ", tableDebtItems, " ip WHERE ", q.items("ip"), ")")
	}
	hi, lo := splitSum("ip.paid_amount")
	return signCmp(over(splitSign(hi, lo)),
		over(splitSign(expr(hi, " - ", q.total, " / ", splitBase), expr(lo, " - ", q.total, " % ", splitBase))))
}

// held mirrors InvoiceFacts.Holding != nil.
func (q InvoiceSQL) held() Expr {
	return expr("EXISTS (SELECT 1 FROM ", tableDebtItems, " ih JOIN ", tableDebts, " dh ON dh.id = ih.debt_id WHERE ",
		q.items("ih"), " AND dh.withdrawn_at IS NULL)")
}

// holding is a value of the holding debt.
func (q InvoiceSQL) holding(value Expr) Expr {
	return expr("(SELECT ", value, " FROM ", tableDebtItems, " ih JOIN ", tableDebts, " dh ON dh.id = ih.debt_id WHERE ",
		q.items("ih"), " AND dh.withdrawn_at IS NULL LIMIT 1)")
}

func (q InvoiceSQL) closed() Expr {
	return expr("(", q.withdrawnAt, " IS NOT NULL OR ", q.paidVsTotal().atLeast, ")")
}

func (q InvoiceSQL) overdue() Expr {
	return expr(q.dueDate, " < ", param{q.now.Today})
}

func (q InvoiceSQL) reminded() Expr {
	return expr("(", q.reminderDate, " IS NOT NULL AND ", q.reminderDate, " <= ", param{q.now.Today}, ")")
}

// Status mirrors ProjectInvoice's Status.
func (q InvoiceSQL) Status() Expr {
	return expr("CASE WHEN ", q.withdrawnAt, " IS NOT NULL THEN ", int(InvoiceWithdrawn),
		" WHEN ", q.paidVsTotal().atLeast, " THEN ", int(InvoicePaid),
		" WHEN ", q.held(), " THEN ", int(InvoiceTransferred),
		" WHEN ", q.overdue(), " THEN ", int(InvoiceOverdue),
		" ELSE ", int(InvoiceOpen), " END")
}

// Process mirrors ProjectInvoice's Process.
func (q InvoiceSQL) Process() Expr {
	return expr("CASE WHEN ", q.closed(), " THEN ", int(ProcessClosed),
		" WHEN ", q.held(), " THEN ", int(ProcessSentToCollection),
		" WHEN ", q.reminded(), " THEN ", int(ProcessReminderSent),
		" WHEN ", q.overdue(), " THEN ", int(ProcessDueDatePassed),
		" ELSE ", int(ProcessAwaitingDue), " END")
}

// Payment mirrors ProjectInvoice's Payment.
func (q InvoiceSQL) Payment() Expr { return paymentExpr(q.paidVsTotal()) }

// ReceivableMain mirrors ProjectInvoice's ReceivableMain.
func (q InvoiceSQL) ReceivableMain() Expr {
	return expr("CASE WHEN ", q.closed(), " THEN ", int(StageClosed),
		" WHEN ", q.held(), " THEN ", q.holding(debtCols("dh").mainExpr()),
		" ELSE ", int(StageInvoicing), " END")
}

// ReceivableSub mirrors ProjectInvoice's ReceivableSub.
func (q InvoiceSQL) ReceivableSub() Expr {
	return expr("CASE WHEN ", q.withdrawnAt, " IS NOT NULL THEN ", int(SubWithdrawn),
		" WHEN ", q.paidVsTotal().atLeast, " THEN ", int(SubPaidInFull),
		" WHEN ", q.held(), " THEN ", q.holding(debtCols("dh").underExpr(q.now)),
		" WHEN ", q.reminded(), " THEN ", int(SubReminded),
		" WHEN ", q.overdue(), " THEN ", int(SubOverdue),
		" ELSE ", int(SubNotDue), " END")
}

// Active mirrors ProjectInvoice's Active.
func (q InvoiceSQL) Active() Expr {
	return expr("CASE WHEN ", q.closed(), " THEN ", int(Inactive), " ELSE ", int(Active), " END")
}

// IsCompleted mirrors ProjectInvoice's IsCompleted, as 1 or 0.
func (q InvoiceSQL) IsCompleted() Expr {
	return expr("CASE WHEN ", q.closed(), " OR ", q.held(), " THEN 1 ELSE 0 END")
}

// DebtorSQL computes a debtor's derived values (over its debts) in SQL.
type DebtorSQL struct {
	id     string
	now    Now
	sqlite bool
}

// NewDebtorSQL reads the debtor in s's table at now.
func NewDebtorSQL(s *sql.Selector, now Now) DebtorSQL {
	return DebtorSQL{id: s.C("id"), now: now, sqlite: s.Dialect() == dialect.SQLite}
}

// errand is a value of the debtor's errand debt: its most recently created
// open debt, else its latest debt (mirrors DebtorFacts.Errand).
func (q DebtorSQL) errand(value Expr) Expr {
	e := debtCols("de")
	return expr("(SELECT ", value, " FROM ", tableDebts, " de WHERE de.debtor_id = ", q.id,
		" ORDER BY CASE WHEN ", e.closed(), " THEN 1 ELSE 0 END, de.created_at DESC, de.id DESC LIMIT 1)")
}

// ErrandStatus mirrors ProjectDebtor's ErrandStatus (NULL without debts).
func (q DebtorSQL) ErrandStatus() Expr { return q.errand(debtCols("de").mainExpr()) }

// ErrandProcessStatus mirrors ProjectDebtor's ErrandProcessStatus.
func (q DebtorSQL) ErrandProcessStatus() Expr { return q.errand(debtCols("de").underExpr(q.now)) }

// Payment mirrors ProjectDebtor's Payment (NULL without unwithdrawn debts):
// sums over any number of debts, exact at any size.
func (q DebtorSQL) Payment() Expr {
	c := plainCmp(expr("SUM(du.paid_amount)"), expr("SUM(du.charged_amount)"))
	if q.sqlite {
		paidHi, paidLo := splitSum("du.paid_amount")
		owedHi, owedLo := splitSum("du.charged_amount")
		c = signCmp(splitSign(paidHi, paidLo), splitSign(expr(paidHi, " - ", owedHi), expr(paidLo, " - ", owedLo)))
	}
	return expr("(SELECT CASE WHEN COUNT(*) = 0 THEN NULL ELSE ", paymentExpr(c), " END FROM ", tableDebts,
		" du WHERE du.debtor_id = ", q.id, " AND du.withdrawn_at IS NULL)")
}

// IsCompleted mirrors ProjectDebtor's IsCompleted, as 1 or 0.
func (q DebtorSQL) IsCompleted() Expr {
	o := debtCols("dc")
	return expr("CASE WHEN EXISTS (SELECT 1 FROM ", tableDebts, " dc WHERE dc.debtor_id = ", q.id,
		") AND NOT EXISTS (SELECT 1 FROM ", tableDebts, " dc WHERE dc.debtor_id = ", q.id, " AND NOT ", o.closed(),
		") THEN 1 ELSE 0 END")
}

// DebtStatusExprs are the SQL expressions of ProjectDebt's Payment, Main,
// Under (at now) and Active for the debt whose charged amount and paid
// amount are the SQL expressions given and whose other columns are those of
// the table alias row (column references, not arguments). The audit
// trail's statuses of a payment's debt are written with them in the
// statement that books the payment (ledger's bookPayments on PostgreSQL).
func DebtStatusExprs(charged, paid, row string, now Now) (payment, main, under, active Expr) {
	c := debtCols(row)
	c.charged, c.paid = charged, paid
	return paymentExpr(plainCmp(expr(paid), expr(charged))), c.mainExpr(), c.underExpr(now),
		expr("CASE WHEN ", c.closed(), " THEN ", int(Inactive), " ELSE ", int(Active), " END")
}
