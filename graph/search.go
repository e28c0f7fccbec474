package graph

import (
	"strconv"
	"strings"

	"github.com/debtql/debtql/internal/apierr"
)

// searchTerm is a search of a list: its type (ALL by default) and its term,
// nil when the term is blank (no search).
type searchTerm struct {
	typ  SearchType
	term string
}

func newSearch(typ *SearchType, term *string) *searchTerm {
	if term == nil || strings.TrimSpace(*term) == "" {
		return nil
	}
	s := &searchTerm{typ: SearchTypeAll, term: strings.TrimSpace(*term)}
	if typ != nil {
		s.typ = *typ
	}
	return s
}

// identDigits is the term as an identification number: without spaces,
// hyphens and the century '+', and only when what is left is digits
// (identification numbers are compared by their digits).
func (s *searchTerm) identDigits() (string, bool) {
	d := strings.NewReplacer(" ", "", "-", "", "+", "").Replace(s.term)
	for _, c := range d {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return d, d != ""
}

// debtID is the term as a debt id.
func (s *searchTerm) debtID() (int, bool) {
	n, err := strconv.Atoi(s.term)
	return n, err == nil && n > 0 && n <= 1<<31-1
}

// needDebtID refuses a DEBT_ID search for a term that is not an id.
func (s *searchTerm) needDebtID() (int, error) {
	n, ok := s.debtID()
	if !ok {
		return 0, apierr.Invalid("filter.searchTerm", "must be a debt id (a whole number) when searchType is DEBT_ID")
	}
	return n, nil
}
