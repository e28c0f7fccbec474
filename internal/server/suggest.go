package server

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// The wording of an unknown input field in a literal, from gqlparser's
// ValuesOfCorrectType rule, with gqlparser's own suggestion after it, if
// any. TestUnknownInputFieldSuggestions pins it: a gqlparser that words it
// otherwise fails that test rather than silently losing the suggestions.
var unknownLiteralField = regexp.MustCompile(`^(Field "([^"]+)" is not defined by type "([^"]+)"\.)(?: Did you mean .*\?)?$`)

// suggestFields adds "did you mean" to the errors of an unknown field in an
// input object, for the known field of the same type the caller most
// likely meant: createClient(input: {address1: ...}) is answered `did you
// mean "adress1"?`. In a literal, gqlparser's validation names the field
// and its type; in variables, gqlparser's coercion says only "unknown
// field" with the path into the variable, so the type is found by walking
// that path from the operation's variable definition. The errors keep
// their path and extensions; only the message changes.
func suggestFields(opCtx *graphql.OperationContext, errs gqlerror.List) gqlerror.List {
	for _, e := range errs {
		if m := unknownLiteralField.FindStringSubmatch(e.Message); m != nil {
			if hint := didYouMean(m[2], inputFieldNames(apiSchema.Types[m[3]])); hint != "" {
				e.Message = m[1] + " D" + hint[1:]
			} else {
				e.Message = m[1]
			}
			continue
		}
		if e.Message != "unknown field" || len(e.Path) < 3 || e.Path[0] != ast.PathName("variable") {
			continue
		}
		name, ok := e.Path[len(e.Path)-1].(ast.PathName)
		def := variableInputType(opCtx, e.Path[1:])
		if !ok || def == nil {
			continue
		}
		e.Message = fmt.Sprintf("unknown field %q of %s", string(name), def.Name)
		if hint := didYouMean(string(name), inputFieldNames(def)); hint != "" {
			e.Message += "; " + hint
		}
	}
	return errs
}

// variableInputType is the input object type that holds the last element
// of path, a path into a variable's value (its first element the
// variable's name), or nil when the path leads elsewhere.
func variableInputType(opCtx *graphql.OperationContext, path ast.Path) *ast.Definition {
	if opCtx == nil || opCtx.Operation == nil {
		return nil
	}
	name, ok := path[0].(ast.PathName)
	if !ok {
		return nil
	}
	v := opCtx.Operation.VariableDefinitions.ForName(string(name))
	if v == nil {
		return nil
	}
	typ := v.Type
	for _, step := range path[1 : len(path)-1] {
		switch step := step.(type) {
		case ast.PathIndex:
			if typ.Elem == nil {
				return nil
			}
			typ = typ.Elem
		case ast.PathName:
			def := apiSchema.Types[typ.Name()]
			if def == nil || typ.Elem != nil {
				return nil
			}
			f := def.Fields.ForName(string(step))
			if f == nil {
				return nil
			}
			typ = f.Type
		}
	}
	def := apiSchema.Types[typ.Name()]
	if def == nil || def.Kind != ast.InputObject || typ.Elem != nil {
		return nil
	}
	return def
}

func inputFieldNames(def *ast.Definition) []string {
	if def == nil || def.Kind != ast.InputObject {
		return nil
	}
	names := make([]string, len(def.Fields))
	for i, f := range def.Fields {
		names[i] = f.Name
	}
	return names
}

// maxSuggestions bounds a "did you mean": past three, a list is noise.
const maxSuggestions = 3

// didYouMean is `did you mean "x"?` for the known names closest to typed,
// or "" when none is close. Close is: the same name in another case; a few
// edits away (at most 1 for names of up to 4 characters, 2 beyond, a swap
// of neighbours counting 1); or one name the start of the other (at least
// 3 characters of it). Names numbered differently are never close: address1
// and address2 are siblings, not each other's typo, so address1 suggests
// adress1 alone. Closer names come first, then the schema's order.
func didYouMean(typed string, known []string) string {
	type candidate struct {
		name  string
		score int
	}
	var found []candidate
	lower := strings.ToLower(typed)
	limit := 2
	if len([]rune(lower)) <= 4 {
		limit = 1
	}
	for _, name := range known {
		ln := strings.ToLower(name)
		score := -1
		switch {
		case ln == lower:
			score = 0
		case numberedSiblings(lower, ln):
		case editDistance(lower, ln) <= limit:
			score = editDistance(lower, ln)
		case min(len(lower), len(ln)) >= 3 && (strings.HasPrefix(ln, lower) || strings.HasPrefix(lower, ln)):
			score = limit + 1
		}
		if score >= 0 {
			found = append(found, candidate{name, score})
		}
	}
	if len(found) == 0 {
		return ""
	}
	slices.SortStableFunc(found, func(a, b candidate) int { return a.score - b.score })
	quoted := make([]string, 0, maxSuggestions)
	for _, c := range found[:min(len(found), maxSuggestions)] {
		quoted = append(quoted, fmt.Sprintf("%q", c.name))
	}
	list := quoted[0]
	if n := len(quoted); n > 1 {
		list = strings.Join(quoted[:n-1], ", ") + " or " + quoted[n-1]
	}
	return "did you mean " + list + "?"
}

// numberedSiblings reports whether a and b both hold digits, and not the
// same ones.
func numberedSiblings(a, b string) bool {
	da, db := digits(a), digits(b)
	return da != "" && db != "" && da != db
}

func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// editDistance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of neighbouring
// characters that turn one into the other.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance of ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			sub := 1
			if ra[i-1] == rb[j-1] {
				sub = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+sub)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
