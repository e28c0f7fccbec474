package ledger

import (
	"strings"
	"time"

	"entgo.io/contrib/entgql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// Paging defaults and bounds (api.md §7).
const (
	DefaultRowsPerPage = 25
	MaxRowsPerPage     = 100
)

// Page are the paging arguments every list takes: a page number and size,
// or cursors, never both.
type Page struct {
	Page, RowsPerPage, First, Last *int
	After, Before                  *string
}

// List is a list read, ready to page: the query of the rows that match the
// list's filter, the page to read and the order to read it in. The caller
// reads the page (ent's Page or PageEach, which collect the fields the
// operation selects) and stamps the cursors it hands out with TagCursors.
type List[Q, O any] struct {
	Query  Q
	Paging ent.Paging
	Order  O
	order  listOrder
}

// TagCursors stamps the cursors a page of the list hands out with the list
// and order, so that only this list and order accept them back.
func (l List[Q, O]) TagCursors(cursors ...*ent.Cursor) { l.order.tagCursors(cursors...) }

// cursorValue checks that a decoded cursor carries a value of the type the
// list is ordered by, and returns it in the form SQL compares, so that a
// cursor from another list or order is refused as input instead of reaching
// SQL.
type cursorValue func(v any) (any, bool)

// timeValue accepts cursors of lists ordered by a timestamp. Timestamps are
// compared in UTC, the form they are stored in.
func timeValue(v any) (any, bool) {
	t, ok := v.(time.Time)
	return t.UTC(), ok
}

// stringValue accepts cursors of lists ordered by a text column.
func stringValue(v any) (any, bool) {
	s, ok := v.(string)
	return s, ok
}

// dateValue accepts cursors of lists ordered by a date (scalar.Date travels
// in a cursor as its text).
func dateValue(v any) (any, bool) {
	var b []byte
	switch v := v.(type) {
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		return nil, false
	}
	var d scalar.Date
	if err := d.UnmarshalText(b); err != nil {
		return nil, false
	}
	return d, true
}

// moneyValue accepts cursors of lists ordered by an amount (öre).
func moneyValue(v any) (any, bool) {
	switch v := v.(type) {
	case int8:
		return collection.Money(v), true
	case int16:
		return collection.Money(v), true
	case int32:
		return collection.Money(v), true
	case int64:
		return collection.Money(v), true
	case uint8:
		return collection.Money(v), true
	case uint16:
		return collection.Money(v), true
	case uint32:
		return collection.Money(v), true
	case uint64:
		if v > 1<<62 {
			return nil, false
		}
		return collection.Money(v), true
	}
	return nil, false
}

// intIDValue accepts cursors of lists ordered by an integer id.
func intIDValue(v any) (any, bool) {
	m, ok := moneyValue(v)
	if !ok {
		return nil, false
	}
	return scalar.IntID(m.(collection.Money)), true
}

// listOrder identifies a list and its order, so that a cursor is accepted
// only by the list and order that issued it.
type listOrder struct {
	tag     string      // e.g. "invoices:DUE_DATE:ASC"
	value   cursorValue // the type of the order's values
	uuidIDs bool        // whether the list's ids are UUIDs (else integers)
}

// newListOrder names the order of a list.
func newListOrder(list, field string, direction entgql.OrderDirection, value cursorValue, uuidIDs bool) listOrder {
	return listOrder{tag: list + ":" + field + ":" + string(direction), value: value, uuidIDs: uuidIDs}
}

// tagCursors stamps the cursors a page hands out with the list and order.
// The stamp rides in the cursor's id, before a separator no id contains.
func (o listOrder) tagCursors(cursors ...*ent.Cursor) {
	for _, c := range cursors {
		c.ID = o.tag + cursorTagSeparator + c.ID
	}
}

const cursorTagSeparator = "|"

// untag checks a cursor's stamp and removes it.
func (o listOrder) untag(c *ent.Cursor) bool {
	tag, id, ok := strings.Cut(c.ID, cursorTagSeparator)
	if !ok || tag != o.tag {
		return false
	}
	c.ID = id
	return true
}

// paging checks the paging arguments and returns the page to load: by page
// number (the default: page 1 of 25) or by cursors, never both.
func (a Page) paging(order listOrder) (ent.Paging, error) {
	byCursor := a.First != nil || a.Last != nil || a.After != nil || a.Before != nil
	if byCursor && (a.Page != nil || a.RowsPerPage != nil) {
		field := "page"
		if a.Page == nil {
			field = "rowsPerPage"
		}
		return ent.Paging{}, apierr.Invalid(field, "page and rowsPerPage cannot be combined with the cursor arguments first, after, last and before")
	}
	if !byCursor {
		page, rows := 1, DefaultRowsPerPage
		if a.Page != nil {
			page = *a.Page
		}
		if a.RowsPerPage != nil {
			rows = *a.RowsPerPage
		}
		var errs apierr.List
		if page < 1 {
			errs.Add("page", "must be 1 or more")
		}
		if rows < 1 || rows > MaxRowsPerPage {
			errs.Add("rowsPerPage", "must be between 1 and %d", MaxRowsPerPage)
		}
		if err := errs.Err(); err != nil {
			return ent.Paging{}, err
		}
		// A page far past the end is an empty page, not an overflow.
		offset := (min(page, 1<<31/rows) - 1) * rows
		return ent.Paging{ByPage: true, Offset: offset, Limit: rows}, nil
	}
	var errs apierr.List
	if a.First != nil && a.Last != nil {
		errs.Add("last", "cannot be combined with first")
	}
	p := ent.Paging{First: a.First, Last: a.Last}
	for _, n := range []struct {
		name string
		v    *int
	}{{"first", a.First}, {"last", a.Last}} {
		if n.v != nil && (*n.v < 1 || *n.v > MaxRowsPerPage) {
			errs.Add(n.name, "must be between 1 and %d", MaxRowsPerPage)
		}
	}
	if p.First == nil && p.Last == nil {
		rows := DefaultRowsPerPage
		if a.Before != nil && a.After == nil {
			p.Last = &rows
		} else {
			p.First = &rows
		}
	}
	for _, c := range []struct {
		name string
		raw  *string
		dst  **ent.Cursor
	}{{"after", a.After, &p.After}, {"before", a.Before, &p.Before}} {
		if c.raw == nil {
			continue
		}
		var cur ent.Cursor
		err := cur.UnmarshalGQL(*c.raw)
		tagged := err == nil && order.untag(&cur)
		v, ok := order.value(cur.Value)
		if !tagged || !ok || !validID(cur.ID, order.uuidIDs) {
			errs.Add(c.name, "is not a cursor of this list and order")
			continue
		}
		cur.Value = v
		*c.dst = &cur
	}
	if err := errs.Err(); err != nil {
		return ent.Paging{}, err
	}
	return p, nil
}

func validID(id string, uuid bool) bool {
	if uuid {
		_, err := scalar.ParseUUID(id)
		return err == nil
	}
	var i scalar.IntID
	return i.UnmarshalGQL(id) == nil
}
