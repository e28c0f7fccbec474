package collection_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// Benchmarks of the hot paths of a list page (docs/benchmarks-go.md): every
// row's statuses are projected and every amount is marshalled. They run
// only with -bench.

var benchNow = collection.Now{Today: scalar.NewDate(2026, 11, 24), Location: time.UTC}

// benchDebts are debts in every state: open, demand expired, partly paid,
// paid, overpaid, withdrawn.
var benchDebts = []collection.DebtFacts{
	{ID: 1, Original: 100000, Paid: 0, CreatedAt: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)},
	{ID: 2, Original: 100000, Paid: 0, CreatedAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)},
	{ID: 3, Original: 100000, Paid: 25000, CreatedAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)},
	{ID: 4, Original: 100000, Paid: 100000, CreatedAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)},
	{ID: 5, Original: 100000, Paid: 120000, CreatedAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)},
	{ID: 6, Original: 100000, Paid: 0, Withdrawn: true, CreatedAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)},
}

var sinkDebt collection.DebtProjection

func BenchmarkProjectDebt(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sinkDebt = collection.ProjectDebt(benchDebts[i%len(benchDebts)], benchNow)
	}
}

var sinkDebtor collection.DebtorProjection

// BenchmarkProjectDebtor projects a debtor over six debts.
func BenchmarkProjectDebtor(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkDebtor = collection.ProjectDebtor(benchDebts, benchNow)
	}
}

var sinkInvoice collection.InvoiceProjection

// BenchmarkProjectInvoice projects an overdue invoice held by a debt.
func BenchmarkProjectInvoice(b *testing.B) {
	holding := collection.ProjectDebt(benchDebts[2], benchNow)
	reminder := scalar.NewDate(2026, 10, 15)
	f := collection.InvoiceFacts{Total: 125000, Paid: 25000, DueDate: scalar.NewDate(2026, 10, 1), ReminderDate: &reminder, Holding: &holding}
	b.ReportAllocs()
	for b.Loop() {
		sinkInvoice = collection.ProjectInvoice(f, benchNow)
	}
}

func BenchmarkMoneyMarshalGQL(b *testing.B) {
	var buf bytes.Buffer
	m := collection.Money(123456789)
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		m.MarshalGQL(&buf)
	}
}

func BenchmarkMoneyUnmarshalGQL(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var m collection.Money
		if err := m.UnmarshalGQL("1234567.89"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRateMarshalGQL(b *testing.B) {
	var buf bytes.Buffer
	r, err := collection.ParseRate("8.5")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		r.MarshalGQL(&buf)
	}
}

func BenchmarkStatusMarshalGQL(b *testing.B) {
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		collection.SubDemandExpired.MarshalGQL(&buf)
	}
}
