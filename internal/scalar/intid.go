package scalar

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
)

// IntID is the id of debts, debt invoices and payments (the interface
// description's int32). It is a named type because entgql, paging over
// entities with UUID ids and with integer ids, keeps cursor ids as strings and
// needs every non-string id to marshal itself; on the wire it is a bare
// GraphQL Int.
type IntID int

// MarshalGQL writes the id as a bare number.
func (id IntID) MarshalGQL(w io.Writer) {
	_, _ = io.WriteString(w, strconv.Itoa(int(id)))
}

// UnmarshalGQL reads an Int, or the string form that entgql's cursors carry.
func (id *IntID) UnmarshalGQL(v any) error {
	var n int64
	switch v := v.(type) {
	case int:
		n = int64(v)
	case int32:
		n = int64(v)
	case int64:
		n = v
	case json.Number:
		i, err := v.Int64()
		if err != nil {
			return fmt.Errorf("must be an integer id")
		}
		n = i
	case string:
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("must be an integer id")
		}
		n = i
	case float64:
		if v != math.Trunc(v) || v < math.MinInt32 || v > math.MaxInt32 {
			return fmt.Errorf("must be a 32-bit integer id")
		}
		n = int64(v)
	default:
		return fmt.Errorf("must be an integer id")
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return fmt.Errorf("must be a 32-bit integer id")
	}
	*id = IntID(n)
	return nil
}
