package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/debtql/debtql/internal/apierr"
)

// requestShape is what a POST body must be.
const requestShape = `a JSON object {"query": ..., "operationName": ..., "variables": {...}}`

// memberShapes are what the members of a request must be.
var memberShapes = map[string]string{
	"query":         "a string",
	"operationName": "a string",
	"variables":     "a JSON object",
	"extensions":    "a JSON object",
}

// decodeObject decodes data, which must hold one JSON object, into v,
// keeping numbers exact (json.Number) so that Decimal inputs are never
// rounded through float64. A refusal says what is wrong with the text
// called name, and where: a caller who built the JSON by hand (a pasted
// multi-line document in a string, a trailing comma) is pointed at the
// character, not left to guess.
func decodeObject(name, shape string, data []byte, v any) *apierr.Error {
	start := skipSpace(data, 0)
	if start == len(data) {
		return apierr.New(apierr.BadUserInput, "%s is empty: send %s", name, shape)
	}
	if data[start] != '{' {
		// Valid JSON of another kind, or not JSON at all.
		var other any
		if err := decodeJSON(data, &other); err != nil {
			return notJSON(name, data, err)
		}
		return apierr.New(apierr.BadUserInput, "%s must be %s, not %s", name, shape, jsonKind(other))
	}
	err := decodeJSON(data, v)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typeErr) && typeErr.Field != "":
		want, ok := memberShapes[typeErr.Field]
		if !ok {
			want = "of another type"
		}
		got, _, _ := strings.Cut(typeErr.Value, " ") // "number 5" → number
		if got == "bool" {
			got = "boolean"
		}
		return apierr.New(apierr.BadUserInput, "in %s, %q must be %s, not %s %s", name, typeErr.Field, want, article(got), got)
	default:
		return notJSON(name, data, err)
	}
}

// decodeJSON decodes the one JSON value of data; data after it is a
// syntax error of its own (trailingData).
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if at := skipSpace(data, int(dec.InputOffset())); at < len(data) {
		return &trailingData{offset: at}
	}
	return nil
}

// trailingData is a JSON text that goes on after its value.
type trailingData struct{ offset int }

func (e *trailingData) Error() string { return "unexpected data after the JSON value" }

// notJSON explains a JSON syntax error with its place in data.
func notJSON(name string, data []byte, err error) *apierr.Error {
	var (
		syntax   *json.SyntaxError
		trailing *trailingData
		msg      = err.Error()
		offset   = -1
	)
	switch {
	case errors.As(err, &syntax):
		// Offset counts the bytes read up to and including the bad one.
		offset = max(int(syntax.Offset)-1, 0)
	case errors.As(err, &trailing):
		offset = trailing.offset
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		msg, offset = "unexpected end of JSON input", len(data)
	}
	if offset < 0 || offset > len(data) {
		return apierr.New(apierr.BadUserInput, "%s is not valid JSON: %s", name, msg)
	}
	line, column := lineColumn(data, offset)
	return apierr.New(apierr.BadUserInput, "%s is not valid JSON: %s at offset %d (line %d, column %d)", name, msg, offset, line, column)
}

// lineColumn is where byte offset lies in data: 1-based line and column,
// the column counted in characters as an editor counts them.
func lineColumn(data []byte, offset int) (line, column int) {
	before := data[:offset]
	line = 1 + bytes.Count(before, []byte{'\n'})
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return line, 1 + utf8.RuneCount(before)
}

// skipSpace is the offset of the first byte of data from i on that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// jsonKind names the kind of a decoded JSON value, with its article.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
}
