package graph

import (
	"strconv"
	"strings"

	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/predicate"
	"github.com/debtql/debtql/internal/collection"
)

// clientSearch matches the name as a case-insensitive substring, the
// organisation number by its digits, and the client number exactly when the
// term is a number; nil for a blank term.
func clientSearch(term string) predicate.Creditor {
	term = strings.TrimSpace(term)
	if term == "" {
		return nil
	}
	preds := []predicate.Creditor{creditor.NameKeyContains(collection.SearchKey(term))}
	if digits := collection.Digits(term); digits != "" && collection.Digits(term) == strings.NewReplacer(" ", "", "-", "").Replace(term) {
		preds = append(preds, creditor.OrganizationNumberDigitsContains(digits))
	}
	if n, err := strconv.Atoi(term); err == nil {
		preds = append(preds, creditor.ClientNumber(n))
	}
	return creditor.Or(preds...)
}
