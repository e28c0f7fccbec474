package ledger

import (
	"testing"
	"time"
)

// TestRememberedSearch: only a NAME, IDENTIFICATION_NUMBER or EMAIL search
// with nothing else in the filter is remembered (what the debtors' version
// covers), keyed by client, type and the trimmed term.
func TestRememberedSearch(t *testing.T) {
	str := func(s string) *string { return &s }
	typ := func(s SearchType) *SearchType { return &s }
	yes, now, number := true, time.Now(), 7
	for _, tc := range []struct {
		name   string
		filter *DebtorFilter
		want   *searchTotalKey
	}{
		{"no filter", nil, nil},
		{"NAME", &DebtorFilter{SearchType: typ(SearchTypeName), SearchTerm: str(" Berg ")}, &searchTotalKey{"c", "NAME", "Berg"}},
		{"IDENTIFICATION_NUMBER", &DebtorFilter{SearchType: typ(SearchTypeIdentificationNumber), SearchTerm: str("600101")},
			&searchTotalKey{"c", "IDENTIFICATION_NUMBER", "600101"}},
		{"EMAIL", &DebtorFilter{SearchType: typ(SearchTypeEmail), SearchTerm: str("berg.se")}, &searchTotalKey{"c", "EMAIL", "berg.se"}},
		{"ALL reads debts", &DebtorFilter{SearchType: typ(SearchTypeAll), SearchTerm: str("berg")}, nil},
		{"no type is ALL", &DebtorFilter{SearchTerm: str("berg")}, nil},
		{"INVOICE_NUMBER reads debts", &DebtorFilter{SearchType: typ(SearchTypeInvoiceNumber), SearchTerm: str("1")}, nil},
		{"DEBT_ID reads debts", &DebtorFilter{SearchType: typ(SearchTypeDebtID), SearchTerm: str("1")}, nil},
		{"a blank term is no search", &DebtorFilter{SearchType: typ(SearchTypeName), SearchTerm: str("  ")}, nil},
		{"with a status", &DebtorFilter{SearchType: typ(SearchTypeName), SearchTerm: str("berg"), IsCompleted: &yes}, nil},
		{"with a date", &DebtorFilter{SearchType: typ(SearchTypeName), SearchTerm: str("berg"), InvoiceCreatedDate: &now}, nil},
		{"with a client number", &DebtorFilter{SearchType: typ(SearchTypeName), SearchTerm: str("berg"), ClientNumber: &number}, nil},
	} {
		key, ok := rememberedSearch("c", searchAlone(tc.filter))
		if ok != (tc.want != nil) || (ok && key != *tc.want) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, key, ok, tc.want)
		}
	}
}
