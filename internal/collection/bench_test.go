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
	{ID: 1, Charged: 100000, Paid: 0, CreatedAt: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), DemandSentAt: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)},
	{ID: 2, Charged: 100000, Paid: 0, CreatedAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC), DemandSentAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)},
	{ID: 3, Charged: 100000, Paid: 25000, CreatedAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC), DemandSentAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)},
	{ID: 4, Charged: 100000, Paid: 100000, CreatedAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC), DemandSentAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)},
	{ID: 5, Charged: 100000, Paid: 120000, CreatedAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC), DemandSentAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)},
	{ID: 6, Charged: 100000, Paid: 0, Withdrawn: true, CreatedAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC), DemandSentAt: time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)},
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

// BenchmarkClaim1000Items100Payments is the claim of a large debt: 1,000
// items under statutory interest, due over three years, with 100 payments
// spread over them and half-yearly reference rates (issue target: under
// 5 ms).
func BenchmarkClaim1000Items100Payments(b *testing.B) {
	f := collection.ClaimFacts{Terms: collection.Terms{Interest: collection.InterestStatutory, CollectionFee: 180_00}}
	start := scalar.DateOf(time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC))
	for i := 0; i < 1000; i++ {
		it := collection.ClaimItem{ID: i + 1, Due: start.AddDays(i), Amount: collection.Money(1000_00 + i)}
		if i%10 == 0 {
			r := collection.Rate(12_0000)
			it.InterestRate = &r
		}
		f.Items = append(f.Items, it)
	}
	for i := 0; i < 100; i++ {
		f.Payments = append(f.Payments, collection.ClaimPayment{ID: i + 1, Date: start.AddDays(10 * i), Amount: 5000_00, Item: 1 + (i*37)%1000})
	}
	for y := 2000; y <= 2026; y++ {
		for _, m := range []time.Month{1, 7} {
			f.Rates = append(f.Rates, collection.ReferenceRate{ValidFrom: scalar.DateOf(time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)),
				Rate: collection.Rate((y % 5) * 1_0000)})
		}
	}
	f.Fees = collection.HandoverFees(f.Terms, nil, false, start)
	asOf := scalar.DateOf(time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC))
	if _, err := f.Claim(asOf); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Claim(asOf); err != nil {
			b.Fatal(err)
		}
	}
}
