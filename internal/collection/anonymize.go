package collection

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Anonymized is what every personal field of an anonymised debtor reads
// (api.md §14): its name, identification number and the required lines of
// its address. Its optional fields become null.
const Anonymized = "[anonymized]"

// AnonymizedKey is the identification key an anonymised debtor keeps: the
// debtor's id behind a prefix, so that the client's one-debtor-per-number
// rule (a unique key) holds for any number of anonymised debtors, and no
// real number's key (digits, or lower case without spaces and hyphens,
// IdentificationKey) can equal it, since a UUID holds hyphens.
func AnonymizedKey(debtorID string) string { return "anonymized:" + debtorID }

// minEmbedded is the least length, in characters, of a former value that
// Eraser replaces where free text merely contains it; a shorter value
// ("A", "12") is replaced only where a whole text equals it, so that
// erasing a debtor's data does not blank every "a" of a comment.
const minEmbedded = 4

// Eraser replaces the former personal values of one debtor in free text
// and in stored answers. The zero Eraser erases nothing.
type Eraser struct {
	exact    map[string]bool // case-folded, trimmed
	embedded *regexp.Regexp  // the values of minEmbedded characters or more
}

// NewEraser erases the given values (blank ones are ignored), compared
// without regard to case or surrounding space.
func NewEraser(values ...string) Eraser {
	e := Eraser{exact: map[string]bool{}}
	var long []string
	for _, v := range values {
		v = strings.TrimSpace(v)
		if v == "" || v == Anonymized {
			continue
		}
		e.exact[strings.ToLower(v)] = true
		if utf8.RuneCountInString(v) >= minEmbedded {
			long = append(long, regexp.QuoteMeta(v))
		}
	}
	if len(long) > 0 {
		// Longest first: a value that contains another is replaced whole.
		sort.Slice(long, func(i, j int) bool { return len(long[i]) > len(long[j]) })
		e.embedded = regexp.MustCompile("(?i)" + strings.Join(long, "|"))
	}
	return e
}

// Text returns s with the former values replaced by Anonymized, and
// whether anything was replaced.
func (e Eraser) Text(s string) (string, bool) {
	if e.exact[strings.ToLower(strings.TrimSpace(s))] {
		return Anonymized, true
	}
	if e.embedded == nil || !e.embedded.MatchString(s) {
		return s, false
	}
	return e.embedded.ReplaceAllLiteralString(s, Anonymized), true
}

// JSON returns the JSON document body with every string value erased as
// Text erases it (object keys are left as they are), and whether anything
// changed. The rest of the document is kept byte for byte, so that a
// stored answer replays as it was written, less the erased values. A body
// that is not JSON is returned unchanged.
func (e Eraser) JSON(body []byte) ([]byte, bool) {
	var out []byte
	changed := false
	last := 0 // body[last:] is not copied to out yet
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			continue
		}
		end := stringEnd(body, i)
		if end < 0 {
			return body, false
		}
		lit := body[i:end]
		i = end - 1
		if isKey(body, end) {
			continue
		}
		var s string
		if json.Unmarshal(lit, &s) != nil {
			return body, false
		}
		erased, ok := e.Text(s)
		if !ok {
			continue
		}
		out = append(out, body[last:end-len(lit)]...)
		out = appendJSONString(out, erased)
		last = end
		changed = true
	}
	if !changed {
		return body, false
	}
	return append(out, body[last:]...), true
}

// stringEnd is the index after the JSON string literal that starts at
// body[start] (a quote), or -1 when it does not end.
func stringEnd(body []byte, start int) int {
	for j := start + 1; j < len(body); j++ {
		switch body[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// isKey reports whether the literal that ends at body[end] is an object
// key: a colon follows it.
func isKey(body []byte, end int) bool {
	rest := bytes.TrimLeft(body[end:], " \t\r\n")
	return len(rest) > 0 && rest[0] == ':'
}

func appendJSONString(dst []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimRight(b.Bytes(), "\n")...)
}
