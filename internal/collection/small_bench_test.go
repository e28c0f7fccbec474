package collection_test

import (
	"testing"

	"github.com/debtql/debtql/internal/collection"
)

func BenchmarkClaimSmall(b *testing.B) {
	f := collection.ClaimFacts{
		Items:    []collection.ClaimItem{{ID: 1, Due: cday("2026-03-31"), Amount: 10_000_00}, {ID: 2, Due: cday("2026-04-30"), Amount: 5_000_00}},
		Payments: []collection.ClaimPayment{{ID: 1, Date: cday("2026-05-15"), Amount: 5_000_00, Item: 1}, {ID: 2, Date: cday("2026-03-01"), Amount: 100_00, Item: 2, Opening: true}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Claim(cday("2026-11-25")); err != nil {
			b.Fatal(err)
		}
	}
}
