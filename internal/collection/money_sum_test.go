package collection_test

import (
	"context"
	"database/sql"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// Tests of the money ceiling and of checked sums (docs/decisions.md,
// "Money ceiling").

// TestMaxAmount: the ceiling is the largest amount the API's Decimal
// takes, and 92 of it fit int64 where 93 do not.
func TestMaxAmount(t *testing.T) {
	m, err := collection.ParseMoney("999999999999999.99")
	if err != nil || m != collection.MaxAmount {
		t.Fatalf("ParseMoney of the ceiling = %d, %v; want MaxAmount %d", m, err, collection.MaxAmount)
	}
	if _, err := collection.ParseMoney("1000000000000000.00"); err == nil {
		t.Fatal("one öre above the ceiling parses")
	}
	if collection.MaxAmount.String() != "999999999999999.99" {
		t.Errorf("MaxAmount reads %s", collection.MaxAmount)
	}
	many := func(n int) []collection.Money {
		out := make([]collection.Money, n)
		for i := range out {
			out[i] = collection.MaxAmount
		}
		return out
	}
	if s, ok := collection.SumMoney(many(92)...); !ok || s != 92*collection.MaxAmount {
		t.Errorf("92 amounts at the ceiling: %d, %v", s, ok)
	}
	if _, ok := collection.SumMoney(many(93)...); ok {
		t.Error("93 amounts at the ceiling fit int64")
	}
}

func TestMoneyAdd(t *testing.T) {
	const maxM, minM = collection.Money(math.MaxInt64), collection.Money(math.MinInt64)
	for _, tc := range []struct {
		a, b, want collection.Money
		ok         bool
	}{
		{1, 2, 3, true},
		{-1, -2, -3, true},
		{collection.MaxAmount, collection.MaxAmount, 2 * collection.MaxAmount, true},
		{maxM, 0, maxM, true},
		{maxM, 1, 0, false},
		{maxM, -1, maxM - 1, true},
		{minM, -1, 0, false},
		{minM, 1, minM + 1, true},
		{maxM, minM, -1, true},
		{maxM, maxM, 0, false},
		{minM, minM, 0, false},
		{0, minM, minM, true},
	} {
		got, ok := tc.a.AddChecked(tc.b)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%d.AddChecked(%d) = %d, %v; want %d, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
		if got2, ok2 := tc.b.AddChecked(tc.a); ok2 != ok || (ok && got2 != got) {
			t.Errorf("AddChecked is not symmetric for %d and %d", tc.a, tc.b)
		}
	}
	if s, ok := collection.SumMoney(); !ok || s != 0 {
		t.Errorf("SumMoney() = %d, %v", s, ok)
	}
	if _, ok := collection.SumMoney(maxM, 1, -1); ok {
		t.Error("SumMoney passed through an overflow")
	}
}

// randomMoney draws amounts of every size, often near the ceiling and
// int64's ends.
func randomMoney(r *rand.Rand) collection.Money {
	switch r.IntN(6) {
	case 0:
		return collection.Money(r.Int64N(1000)) - 500
	case 1:
		return collection.MaxAmount - collection.Money(r.Int64N(3))
	case 2:
		return collection.Money(math.MaxInt64 - r.Int64N(3))
	case 3:
		return collection.Money(math.MinInt64 + r.Int64N(3))
	case 4:
		return collection.Money(r.Int64N(int64(collection.MaxAmount) + 1))
	}
	return collection.Money(r.Uint64())
}

func bigOf(m collection.Money) *big.Int { return big.NewInt(int64(m)) }

// TestMoneyAddProperty: AddChecked is exact exactly when the true sum fits int64.
func TestMoneyAddProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		a, b := randomMoney(r), randomMoney(r)
		want := new(big.Int).Add(bigOf(a), bigOf(b))
		got, ok := a.AddChecked(b)
		if fits := want.IsInt64(); ok != fits || (ok && want.Int64() != int64(got)) {
			t.Fatalf("%d.AddChecked(%d) = %d, %v; the sum is %s", a, b, got, ok, want)
		}
	}
}

// TestTotalProperty: a Total is the exact sum of any amounts: it compares,
// converts and clamps as the true sum (math/big) does.
func TestTotalProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	maxI, minI := big.NewInt(math.MaxInt64), big.NewInt(math.MinInt64)
	for range 2000 {
		var a, b collection.Total
		wa, wb := new(big.Int), new(big.Int)
		for range r.IntN(300) {
			m := randomMoney(r)
			a, wa = a.Plus(m), wa.Add(wa, bigOf(m))
			if r.IntN(2) == 0 {
				b, wb = b.Plus(m), wb.Add(wb, bigOf(m))
			} else {
				n := randomMoney(r)
				b, wb = b.Plus(n), wb.Add(wb, bigOf(n))
			}
		}
		if got, want := a.Cmp(b), wa.Cmp(wb); got != want {
			t.Fatalf("Cmp = %d, want %d (%s vs %s)", got, want, wa, wb)
		}
		if got, want := a.Sign(), wa.Sign(); got != want {
			t.Fatalf("Sign = %d, want %d (%s)", got, want, wa)
		}
		m, ok := a.Money()
		if ok != wa.IsInt64() || (ok && int64(m) != wa.Int64()) {
			t.Fatalf("Money() = %d, %v; the sum is %s", m, ok, wa)
		}
		clamped := wa
		switch {
		case wa.Cmp(maxI) > 0:
			clamped = maxI
		case wa.Cmp(minI) < 0:
			clamped = minI
		}
		if got := a.Clamped(); int64(got) != clamped.Int64() {
			t.Fatalf("Clamped() = %d, want %s (the sum is %s)", got, clamped, wa)
		}
	}
	if collection.TotalOf().Sign() != 0 || collection.TotalOf(1, -1).Sign() != 0 {
		t.Error("TotalOf of nothing, or of 1 and -1, is not 0")
	}
}

// TestPaymentOfTotals agrees with PaymentOf where both apply, and stays
// exact beyond int64.
func TestPaymentOfTotals(t *testing.T) {
	for _, owed := range []collection.Money{1, 100, collection.MaxAmount} {
		for _, paid := range []collection.Money{-5, 0, 1, owed - 1, owed, owed + 1, collection.MaxAmount} {
			if got, want := collection.PaymentOfTotals(collection.TotalOf(owed), collection.TotalOf(paid)), collection.PaymentOf(owed, paid); got != want {
				t.Errorf("PaymentOfTotals(%d, %d) = %s, PaymentOf says %s", owed, paid, got, want)
			}
		}
	}
	n93 := func(m collection.Money) collection.Total {
		var t collection.Total
		for range 93 {
			t = t.Plus(m)
		}
		return t
	}
	owed := n93(collection.MaxAmount)
	for _, tc := range []struct {
		paid collection.Total
		want collection.PaymentStatus
	}{
		{collection.TotalOf(), collection.Unpaid},
		{n93(1), collection.PartiallyPaid},
		{owed, collection.Paid},
		{owed.Plus(1), collection.Overpaid},
	} {
		if got := collection.PaymentOfTotals(owed, tc.paid); got != tc.want {
			t.Errorf("93 debts at the ceiling: %s, want %s", got, tc.want)
		}
	}
}

// TestProjectDebtorBeyondInt64: a debtor's sums over 93 debts at the
// ceiling are exact (the owed sum wrapped to a negative one, which read
// OVERPAID).
func TestProjectDebtorBeyondInt64(t *testing.T) {
	now := collection.Now{Today: scalar.NewDate(2026, 11, 20), Location: time.UTC}
	debts := make([]collection.DebtFacts, 93)
	for i := range debts {
		debts[i] = collection.DebtFacts{ID: i + 1, Charged: collection.MaxAmount, Paid: 1, CreatedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), DemandSentAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	}
	if p := collection.ProjectDebtor(debts, now); p.Payment == nil || *p.Payment != collection.PartiallyPaid {
		t.Errorf("93 debts at the ceiling, 1 öre paid on each: %v, want PARTIALLY_PAID", p.Payment)
	}
	for i := range debts {
		debts[i].Paid = collection.MaxAmount
	}
	if p := collection.ProjectDebtor(debts, now); p.Payment == nil || *p.Payment != collection.Paid {
		t.Errorf("93 debts at the ceiling, each paid: %v, want PAID", p.Payment)
	}
}

// validDebt is a hand-over of one item of 100.00 that Normalize accepts.
func validDebt(items ...collection.DebtItemRecord) collection.DebtorWithDebtsRecord {
	d := validDebtor()
	if len(items) == 0 {
		items = []collection.DebtItemRecord{debtItem("F-1", kr(100))}
	}
	return collection.DebtorWithDebtsRecord{IdentificationNumber: d.IdentificationNumber, Name: d.Name, Address: d.Address, Debts: items}
}

func debtItem(number string, amount collection.Money, payments ...collection.Money) collection.DebtItemRecord {
	at := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	it := collection.DebtItemRecord{InvoiceNumber: number, InvoiceDate: at, DueDate: at.AddDate(0, 1, 0), Amount: amount}
	for _, p := range payments {
		it.Payments = append(it.Payments, collection.ItemPaymentRecord{Amount: p, TransactionDate: at})
	}
	return it
}

// TestDebtRecordCeiling: a hand-over's items sum to at most the ceiling
// (refused on "debts" beyond), an item's opening payments cannot wrap
// around to a sum below its amount, and an amount made in Go above the
// ceiling is refused on its field. Amounts returns the exact totals.
func TestDebtRecordCeiling(t *testing.T) {
	at := validDebt(debtItem("A", collection.MaxAmount-kr(1), kr(5)), debtItem("B", kr(1), 50))
	if err := at.Normalize(); err != nil {
		t.Fatalf("items summing to the ceiling: %v", err)
	}
	if o, p, err := at.Amounts(); err != nil || o != collection.MaxAmount || p != kr(5)+50 {
		t.Errorf("Amounts() = %d, %d, %v", o, p, err)
	}

	above := validDebt(debtItem("A", collection.MaxAmount-kr(1)), debtItem("B", kr(1)+1))
	checkFields(t, above.Normalize(), "debts")
	if _, _, err := above.Amounts(); err == nil {
		t.Error("Amounts() of a debt above the ceiling gave no error")
	}

	items := make([]collection.DebtItemRecord, 500)
	for i := range items {
		items[i] = debtItem("M-"+strconv.Itoa(i), collection.MaxAmount)
	}
	many := validDebt(items...)
	checkFields(t, many.Normalize(), "debts")

	payments := make([]collection.Money, 93)
	for i := range payments {
		payments[i] = collection.MaxAmount
	}
	wrapping := validDebt(debtItem("P", kr(10), payments...))
	checkFields(t, wrapping.Normalize(), "debts.0.payments")

	huge := validDebt(debtItem("H", collection.MaxAmount+1, collection.MaxAmount+1))
	checkFields(t, huge.Normalize(), "debts", "debts.0.amount", "debts.0.payments", "debts.0.payments.0.amount")

	p := collection.PaymentRecord{Amount: collection.MaxAmount + 1, TransactionDate: scalar.NewDate(2026, 11, 20)}
	checkFields(t, p.Check(collection.Now{Today: scalar.NewDate(2026, 11, 20), Location: time.UTC}), "amount")
	p.Amount = collection.MaxAmount
	checkFields(t, p.Check(collection.Now{Today: scalar.NewDate(2026, 11, 20), Location: time.UTC}))

	for _, tc := range []struct {
		paid, amount collection.Money
		ok           bool
	}{
		{0, collection.MaxAmount, true},
		{1, collection.MaxAmount, false},
		{collection.MaxAmount - 1, 1, true},
		{collection.MaxAmount, 1, false},
		{math.MaxInt64, 1, false},
	} {
		if got := collection.PaidWithin(tc.paid, tc.amount); got != tc.ok {
			t.Errorf("PaidWithin(%d, %d) = %v", tc.paid, tc.amount, got)
		}
	}
}

// TestInvoiceRecordCeiling: totals and articles at the ceiling pass; the
// totals' comparison is exact whatever their size (made in Go, beyond the
// ceiling and near int64's end, they are refused, never wrapped into a
// match).
func TestInvoiceRecordCeiling(t *testing.T) {
	r := validInvoice()
	r.TotalExcludingVAT, r.TotalVATAmount, r.TotalAmountIncludingVAT = collection.MaxAmount-kr(1), kr(1), collection.MaxAmount
	r.Articles[0].PriceExcludingVAT, r.Articles[0].Discount = collection.MaxAmount, collection.MaxAmount
	if err := r.Normalize(); err != nil {
		t.Fatalf("an invoice at the ceiling: %v", err)
	}
	r = validInvoice()
	r.TotalExcludingVAT, r.TotalVATAmount, r.TotalAmountIncludingVAT = collection.MaxAmount, collection.MaxAmount, collection.MaxAmount
	err := r.Normalize()
	checkFields(t, err, "totalAmountIncludingVAT")
	if err == nil || !strings.Contains(err.Error(), "1999999999999999.98") {
		t.Errorf("the mismatch does not name the exact sum: %v", err)
	}
	// Made in Go: parts whose int64 sum wraps around to the total.
	r = validInvoice()
	r.TotalExcludingVAT, r.TotalVATAmount, r.TotalAmountIncludingVAT = math.MaxInt64, 2, math.MinInt64+1
	checkFields(t, r.Normalize(), "totalExcludingVAT", "totalAmountIncludingVAT")
	r = validInvoice()
	r.TotalExcludingVAT, r.TotalVATAmount, r.TotalAmountIncludingVAT = collection.MaxAmount, collection.MaxAmount, 2*collection.MaxAmount
	checkFields(t, r.Normalize(), "totalAmountIncludingVAT") // the parts match, but the total is above the ceiling
	r = validInvoice()
	r.Articles[1].Discount = collection.MaxAmount + 1
	checkFields(t, r.Normalize(), "articles.1.discount")
}

// TestSplitSignOnSQLite: SQLite's SUM of integers fails past int64, so
// the sums of unbounded numbers of amounts (an invoice's paid amount, a
// debtor's totals) are split there (splitSign); the sign of the sum, and
// of the difference of two sums, is the exact one (math/big) for amounts
// of every size and sign, where SUM itself fails.
func TestSplitSignOnSQLite(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (g INTEGER, a INTEGER, b INTEGER)"); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	const groups = 300
	wantA, wantD := make([]*big.Int, groups), make([]*big.Int, groups)
	overflows := 0
	for g := range groups {
		wantA[g], wantD[g] = new(big.Int), new(big.Int)
		n := r.IntN(200)
		if g%3 == 0 {
			n = 93 + r.IntN(10)
		}
		for range n {
			a, b := randomMoney(r), randomMoney(r)
			switch g % 3 {
			case 0: // at the ceiling, a and b nearly equal
				a, b = collection.MaxAmount-collection.Money(r.Int64N(2)), collection.MaxAmount-collection.Money(r.Int64N(2))
			case 1: // b within one öre of a
				if a > math.MinInt64 && a < math.MaxInt64 {
					b = a + collection.Money(r.Int64N(3)) - 1
				}
			}
			wantA[g].Add(wantA[g], bigOf(a))
			wantD[g].Add(wantD[g], new(big.Int).Sub(bigOf(a), bigOf(b)))
			if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (?, ?, ?)", g, int64(a), int64(b)); err != nil {
				t.Fatal(err)
			}
		}
		if !wantA[g].IsInt64() {
			overflows++
		}
	}
	if overflows < groups/4 {
		t.Fatalf("only %d of %d sums pass int64: the test proves little", overflows, groups)
	}
	var sum int64
	if err := db.QueryRowContext(ctx, "SELECT SUM(a) FROM t WHERE g = 0").Scan(&sum); err == nil || !strings.Contains(err.Error(), "integer overflow") {
		t.Fatalf("SQLite's SUM of 93 amounts at the ceiling gave %d, %v; want an integer overflow", sum, err)
	}
	rows, err := db.QueryContext(ctx, "SELECT g, "+collection.SplitSignSQL("a", "")+", "+collection.SplitSignSQL("a", "b")+" FROM t GROUP BY g")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var g, signA, signD int
		if err := rows.Scan(&g, &signA, &signD); err != nil {
			t.Fatal(err)
		}
		seen++
		if signA != wantA[g].Sign() || signD != wantD[g].Sign() {
			t.Errorf("group %d: signs %d and %d, want %d (sum %s) and %d (difference %s)", g, signA, signD, wantA[g].Sign(), wantA[g], wantD[g].Sign(), wantD[g])
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no groups")
	}
}
