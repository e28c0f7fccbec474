package collection_test

import (
	"testing"

	"github.com/debtql/debtql/internal/collection"
)

// The worked example of docs/collection.md, which a debtor can check by
// hand: the numbers there are these.
func TestClaimWorkedExample(t *testing.T) {
	f := collection.ClaimFacts{
		Items:    []collection.ClaimItem{{ID: 1, Due: cday("2026-03-31"), Amount: 10_000_00}},
		Terms:    collection.Terms{Interest: collection.InterestStatutory, CollectionFee: 180_00},
		Rates:    []collection.ReferenceRate{{ValidFrom: cday("2025-07-01"), Rate: *pct("2.00")}, {ValidFrom: cday("2026-01-01"), Rate: *pct("2.00")}},
		Fees:     collection.HandoverFees(collection.Terms{CollectionFee: 180_00}, nil, false, cday("2026-04-15")),
		Payments: []collection.ClaimPayment{{ID: 1, Date: cday("2026-05-15"), Amount: 5_000_00, Item: 1}},
	}
	c, err := f.Claim(cday("2026-06-30"))
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Allocations[1]; a != (collection.Allocation{Fees: 180_00, Interest: 123_29, Principal: 4_696_71}) {
		t.Errorf("the payment was applied as %+v", a)
	}
	want := collection.Claim{
		Principal: collection.Part{Charged: 10_000_00, Paid: 4_696_71, Outstanding: 5_303_29},
		Interest:  collection.Part{Charged: 190_12, Paid: 123_29, Outstanding: 66_83},
		Fees:      collection.Part{Charged: 180_00, Paid: 180_00},
		Total:     collection.Part{Charged: 10_370_12, Paid: 5_000_00, Outstanding: 5_370_12},
	}
	if c.Principal != want.Principal || c.Interest != want.Interest || c.Fees != want.Fees || c.Total != want.Total || c.Overpaid != 0 {
		t.Errorf("claim on 2026-06-30:\n got %+v %+v %+v %+v\nwant %+v %+v %+v %+v", c.Principal, c.Interest, c.Fees, c.Total,
			want.Principal, want.Interest, want.Fees, want.Total)
	}
}
