package collection_test

import (
	"encoding/json"
	"testing"

	"github.com/debtql/debtql/internal/collection"
)

func TestEraserText(t *testing.T) {
	e := collection.NewEraser("Anna Ek", "811228-9874", "A", " ", "Storgatan 1")
	for _, tc := range []struct{ in, want string }{
		{"Anna Ek", "[anonymized]"},
		{"  anna ek ", "[anonymized]"},             // a whole value, in any case
		{"A", "[anonymized]"},                      // a short value, as a whole text
		{"A note about Anna", "A note about Anna"}, // a short value is not replaced inside text
		{"Letter to ANNA EK, Storgatan 1", "Letter to [anonymized], [anonymized]"},
		{"pnr 811228-9874.", "pnr [anonymized]."},
		{"nothing here", "nothing here"},
	} {
		got, changed := e.Text(tc.in)
		if got != tc.want || changed != (tc.in != tc.want) {
			t.Errorf("Text(%q) = %q, %v; want %q", tc.in, got, changed, tc.want)
		}
	}
	if got, changed := (collection.Eraser{}).Text("Anna Ek"); got != "Anna Ek" || changed {
		t.Errorf("the zero Eraser erased: %q", got)
	}
}

func TestEraserJSON(t *testing.T) {
	e := collection.NewEraser("Zoë \"Z\" Ek", "name", "zoe@example.org")
	body := []byte(`{"data":{"createDebt":{"id":7,"debtor":{"name":"Zoë \"Z\" Ek","email":"ZOE@example.org","note":"to Zo\u00eb \"Z\" Ek"}}},` +
		`"errors":[{"message":"name taken","extensions":{"field":"name"}}]}`)
	got, changed := e.JSON(body)
	if !changed {
		t.Fatal("nothing erased")
	}
	want := `{"data":{"createDebt":{"id":7,"debtor":{"name":"[anonymized]","email":"[anonymized]","note":"to [anonymized]"}}},` +
		`"errors":[{"message":"[anonymized] taken","extensions":{"field":"[anonymized]"}}]}`
	if string(got) != want {
		t.Errorf("JSON erased to\n%s\nwant\n%s", got, want)
	}
	if !json.Valid(got) {
		t.Error("the erased body is not JSON")
	}
	// Keys are kept; untouched bodies are returned as they are.
	if _, changed := e.JSON([]byte(`{"name":1}`)); changed {
		t.Error("an object key was erased")
	}
	for _, body := range []string{`{"a":"b"}`, `not json "unterminated`, ``} {
		if got, changed := e.JSON([]byte(body)); changed || string(got) != body {
			t.Errorf("JSON(%q) = %q, %v", body, got, changed)
		}
	}
}
