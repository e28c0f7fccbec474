package scalar

import (
	"encoding/json"
	"fmt"
	"io"
)

// JSON is a JSON document already written (the JSON scalar of api.md §14,
// debtorDataExport): it is answered as it is, without being decoded and
// encoded again, so that a large document is held once.
type JSON []byte

// MarshalGQL writes the document as it is; an empty one is null.
func (j JSON) MarshalGQL(w io.Writer) {
	if len(j) == 0 {
		_, _ = io.WriteString(w, "null")
		return
	}
	_, _ = w.Write(j)
}

// UnmarshalGQL takes any input value as its JSON encoding. No argument of
// the API is JSON today; the method is what gqlgen needs of a scalar.
func (j *JSON) UnmarshalGQL(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("must be a JSON value: %w", err)
	}
	*j = b
	return nil
}
