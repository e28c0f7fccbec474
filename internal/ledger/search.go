package ledger

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/predicate"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// SearchType is which fields a search looks at (the GraphQL enum
// SearchType).
type SearchType string

// Search types.
const (
	// Every field the list supports (code 0).
	SearchTypeAll SearchType = "ALL"
	// The debtor's name; on invoices, the article names (code 1).
	SearchTypeName SearchType = "NAME"
	// The identification number, ignoring spaces and hyphens (code 2).
	SearchTypeIdentificationNumber SearchType = "IDENTIFICATION_NUMBER"
	// Invoice numbers, ignoring spaces and hyphens (code 3).
	SearchTypeInvoiceNumber SearchType = "INVOICE_NUMBER"
	// The e-mail address (code 4).
	SearchTypeEmail SearchType = "EMAIL"
	// The debt's id, exactly (code 5).
	SearchTypeDebtID SearchType = "DEBT_ID"
	// The debt's payment reference (OCR number), exactly, ignoring spaces (code 6).
	SearchTypePaymentReference SearchType = "PAYMENT_REFERENCE"
)

// AllSearchType are the search types.
var AllSearchType = []SearchType{
	SearchTypeAll,
	SearchTypeName,
	SearchTypeIdentificationNumber,
	SearchTypeInvoiceNumber,
	SearchTypeEmail,
	SearchTypeDebtID,
	SearchTypePaymentReference,
}

// IsValid reports whether e is a search type.
func (e SearchType) IsValid() bool {
	switch e {
	case SearchTypeAll, SearchTypeName, SearchTypeIdentificationNumber, SearchTypeInvoiceNumber, SearchTypeEmail, SearchTypeDebtID,
		SearchTypePaymentReference:
		return true
	}
	return false
}

func (e SearchType) String() string {
	return string(e)
}

// UnmarshalGQL reads a GraphQL name.
func (e *SearchType) UnmarshalGQL(v any) error {
	str, ok := v.(string)
	if !ok {
		return fmt.Errorf("enums must be strings")
	}

	*e = SearchType(str)
	if !e.IsValid() {
		return fmt.Errorf("%s is not a valid SearchType", str)
	}
	return nil
}

// MarshalGQL writes the GraphQL name of e.
func (e SearchType) MarshalGQL(w io.Writer) {
	_, _ = fmt.Fprint(w, strconv.Quote(e.String()))
}

// UnmarshalJSON reads a JSON string.
func (e *SearchType) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return err
	}
	return e.UnmarshalGQL(s)
}

// MarshalJSON writes e as a JSON string.
func (e SearchType) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	e.MarshalGQL(&buf)
	return buf.Bytes(), nil
}

// searchTerm is a search of a list: its type (ALL by default) and its term,
// nil when the term is blank (no search).
type searchTerm struct {
	typ  SearchType
	term string
}

func newSearch(typ *SearchType, term *string) (*searchTerm, error) {
	if blankTerm(term) {
		return nil, nil
	}
	s := &searchTerm{typ: SearchTypeAll, term: strings.TrimSpace(*term)}
	if e := collection.CheckField("filter.searchTerm", s.term, collection.MaxStringLength, false); e != nil {
		return nil, e
	}
	if typ != nil {
		s.typ = *typ
	}
	return s, nil
}

// blankTerm reports whether a search term searches nothing: absent or blank.
func blankTerm(term *string) bool { return term == nil || strings.TrimSpace(*term) == "" }

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
	return n, err == nil && debtIDInRange(n)
}

// paymentReference is the term as a debt's payment reference: the debt's id.
func (s *searchTerm) paymentReference() (int, bool) {
	n, ok := collection.ParsePaymentReference(s.term)
	return n, ok && debtIDInRange(n)
}

// debtIDInRange reports whether n can be a debt's id.
func debtIDInRange(n int) bool { return n > 0 && n <= 1<<31-1 }

// needDebtID refuses a DEBT_ID search for a term that is not an id.
func (s *searchTerm) needDebtID() (int, error) {
	n, ok := s.debtID()
	if !ok {
		return 0, apierr.Invalid("filter.searchTerm", "must be a debt id (a whole number) when searchType is DEBT_ID")
	}
	return n, nil
}

// searchFields are how one list matches each kind of search.
type searchFields[P ~func(*sql.Selector)] struct {
	name, email, identification, invoiceNumber func(key string) P
	debtID                                     func(id scalar.IntID) P
	or                                         func(...P) P
}

// match is the predicate of a debtor or debt search (api.md §7): one field
// by its type, or under ALL the union of name, e-mail, identification
// number, invoice number and, when the term is a number, debt id.
func match[P ~func(*sql.Selector)](s *searchTerm, f searchFields[P]) (P, error) {
	byIdent := func() P {
		if k, ok := s.identKey(); ok {
			return f.identification(k)
		}
		return nothing[P]()
	}
	key, number := collection.SearchKey(s.term), collection.NumberKey(s.term)
	switch s.typ {
	case SearchTypeName:
		return f.name(key), nil
	case SearchTypeEmail:
		return f.email(key), nil
	case SearchTypeIdentificationNumber:
		return byIdent(), nil
	case SearchTypeInvoiceNumber:
		return f.invoiceNumber(number), nil
	case SearchTypeDebtID:
		id, err := s.needDebtID()
		if err != nil {
			return nil, err
		}
		return f.debtID(scalar.IntID(id)), nil
	case SearchTypePaymentReference:
		id, ok := s.paymentReference()
		if !ok {
			return nil, apierr.Invalid("filter.searchTerm", "must be a payment reference (the debt's OCR number, with its length and check digits) when searchType is PAYMENT_REFERENCE")
		}
		return f.debtID(scalar.IntID(id)), nil
	}
	alts := []P{f.name(key), f.email(key), f.invoiceNumber(number), byIdent()}
	if id, ok := s.debtID(); ok {
		alts = append(alts, f.debtID(scalar.IntID(id)))
	}
	if id, ok := s.paymentReference(); ok {
		alts = append(alts, f.debtID(scalar.IntID(id)))
	}
	return f.or(alts...), nil
}

// nothing is a predicate no row meets.
func nothing[P ~func(*sql.Selector)]() P {
	return func(s *sql.Selector) { s.Where(sql.False()) }
}

// clientSearch matches the name as a case-insensitive substring, the
// organisation number by its digits, and the client number exactly when the
// term is a number; nil for a blank term.
func clientSearch(term string) predicate.Creditor {
	term = strings.TrimSpace(term)
	if term == "" {
		return nil
	}
	preds := []predicate.Creditor{creditor.NameKeyContains(collection.SearchKey(term))}
	if digits := collection.Digits(term); digits != "" && collection.Digits(term) == collection.WithoutSeparators(term) {
		preds = append(preds, creditor.OrganizationNumberDigitsContains(digits))
	}
	if n, err := strconv.Atoi(term); err == nil {
		preds = append(preds, creditor.ClientNumber(n))
	}
	return creditor.Or(preds...)
}
