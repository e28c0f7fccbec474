package graph

import (
	"strconv"
	"strings"

	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
)

// searchTerm is a search of a list: its type (ALL by default) and its term,
// nil when the term is blank (no search).
type searchTerm struct {
	typ  SearchType
	term string
}

func newSearch(typ *SearchType, term *string) (*searchTerm, error) {
	if term == nil || strings.TrimSpace(*term) == "" {
		return nil, nil
	}
	s := &searchTerm{typ: SearchTypeAll, term: strings.TrimSpace(*term)}
	if !collection.CheckLength(s.term, collection.MaxStringLength) {
		return nil, apierr.Invalid("filter.searchTerm", "must be at most %d characters", collection.MaxStringLength)
	}
	if typ != nil {
		s.typ = *typ
	}
	return s, nil
}

// identKey is the term as an identification number is compared (see
// collection.IdentificationKey): its digits, ignoring spaces, hyphens and
// the century '+'; a term with letters searches numbers with letters.
func (s *searchTerm) identKey() (string, bool) {
	k := collection.IdentificationKey(s.term)
	return k, k != ""
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
