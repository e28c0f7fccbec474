package server

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/debtql/debtql/graph"
	"github.com/debtql/debtql/internal/scalar"
)

// Every broken field of an input at once (api.md, Rules for every input).
//
// gqlgen coerces variables with gqlparser's validator.VariableValues, which
// returns at the first broken value: a form that left three required fields
// out would learn of them one request at a time. When it refuses,
// allVariableErrors walks the variables again and reports every broken
// value, each with its path. It runs only on that refusal, so a valid
// request pays nothing, and it refuses nothing gqlparser accepts: its
// checks are gqlparser's, plus the custom scalars' own (UUID, Date,
// DateTime, Decimal, and the text rule of String), which the executor
// would apply next anyway.
//
// A literal written in the document is validated by gqlparser's rules,
// which report every broken field already but name only a line and column:
// annotateLiteralErrors adds the argument path.

// maxInputErrors bounds the errors of one request: a list of a thousand
// broken items needs the first ones fixed, not a megabyte of errors.
const maxInputErrors = 100

// allVariableErrors replaces gqlgen's one variable error (errs) by every
// broken variable value. Any other errs are returned unchanged, and so is
// errs when the walk finds nothing (gqlparser refused for a reason the
// walk does not know: its error stands).
func allVariableErrors(opCtx *graphql.OperationContext, vars map[string]any, errs gqlerror.List) gqlerror.List {
	if len(errs) != 1 || opCtx == nil || opCtx.Operation == nil {
		return errs
	}
	if p := errs[0].Path; len(p) < 2 || p[0] != ast.PathName("variable") {
		return errs
	}
	w := varWalker{schema: apiSchema}
	w.operation(opCtx.Operation, vars)
	if len(w.errs) == 0 {
		return errs
	}
	// gqlparser's own error leads when the walk did not find it too.
	if !slices.ContainsFunc(w.errs, func(e *gqlerror.Error) bool { return samePath(e.Path, errs[0].Path) }) {
		w.errs = append(gqlerror.List{errs[0]}, w.errs...)
	}
	if w.dropped > 0 {
		w.errs = append(w.errs, &gqlerror.Error{Message: fmt.Sprintf(
			"%d more broken values are not reported: only the first %d are", w.dropped, maxInputErrors)})
	}
	return w.errs
}

func samePath(a, b ast.Path) bool {
	return slices.Equal(a, b)
}

// varWalker collects the broken values of an operation's variables. A path
// starts with "variable" and the variable's name, as gqlparser's do, so
// that requestErrors writes extensions.field the same way for both.
type varWalker struct {
	schema  *ast.Schema
	errs    gqlerror.List
	dropped int
}

func (w *varWalker) add(path ast.Path, format string, args ...any) {
	if len(w.errs) >= maxInputErrors {
		w.dropped++
		return
	}
	w.errs = append(w.errs, gqlerror.ErrorPathf(path, format, args...))
}

// at is path with one more step, in a slice of its own (paths of siblings
// must not share a backing array).
func at(path ast.Path, step ast.PathElement) ast.Path {
	return append(path[:len(path):len(path)], step)
}

func (w *varWalker) operation(op *ast.OperationDefinition, vars map[string]any) {
	for _, v := range op.VariableDefinitions {
		path := ast.Path{ast.PathName("variable"), ast.PathName(v.Variable)}
		if def := w.schema.Types[v.Type.Name()]; def == nil || !def.IsInputType() {
			continue // validation refuses such an operation before this
		}
		val, ok := vars[v.Variable]
		switch {
		case !ok && v.DefaultValue != nil:
			// The default applies; validation checked it.
		case !ok && v.Type.NonNull:
			w.add(path, "required variable $%s (%s) is missing from the variables", v.Variable, v.Type)
		case ok && val == nil && v.Type.NonNull:
			w.add(path, "required variable $%s (%s) cannot be null", v.Variable, v.Type)
		case ok && val != nil:
			w.value(v.Type, val, path)
		}
	}
}

// value checks val (not nil) against typ.
func (w *varWalker) value(typ *ast.Type, val any, path ast.Path) {
	if typ.Elem != nil {
		list, ok := val.([]any)
		if !ok {
			// A single value stands for a list of one (GraphQL's input
			// coercion), checked as its element 0, as gqlparser does.
			list = []any{val}
		}
		for i, el := range list {
			p := at(path, ast.PathIndex(i))
			if el == nil {
				if typ.Elem.NonNull {
					w.add(p, "cannot be null: the list holds %s", typ.Elem)
				}
				continue
			}
			w.value(typ.Elem, el, p)
		}
		return
	}
	def := w.schema.Types[typ.NamedType]
	if def == nil {
		return
	}
	switch def.Kind {
	case ast.InputObject:
		w.object(def, val, path)
	case ast.Enum:
		w.enum(def, val, path)
	case ast.Scalar:
		if msg := scalarProblem(def.Name, val); msg != "" {
			w.add(path, "%s", msg)
		}
	}
}

func (w *varWalker) object(def *ast.Definition, val any, path ast.Path) {
	obj, ok := val.(map[string]any)
	if !ok {
		w.add(path, "must be a %s object, not %s", def.Name, describe(val))
		return
	}
	// Unknown fields first, in a stable order (suggestFields then names
	// the field most likely meant).
	var unknown []string
	for name := range obj {
		if name != "__typename" && def.Fields.ForName(name) == nil {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		w.add(at(path, ast.PathName(name)), "unknown field")
	}
	for _, f := range def.Fields {
		p := at(path, ast.PathName(f.Name))
		v, ok := obj[f.Name]
		switch {
		case !ok && f.Type.NonNull && f.DefaultValue == nil:
			w.add(p, "required field %s (%s) of %s is missing", f.Name, f.Type, def.Name)
		case ok && v == nil && f.Type.NonNull:
			w.add(p, "required field %s (%s) of %s cannot be null", f.Name, f.Type, def.Name)
		case ok && v != nil:
			w.value(f.Type, v, p)
		}
	}
}

// enum accepts a value's name in any case, as gqlparser's coercion does
// (the executor then reads it).
func (w *varWalker) enum(def *ast.Definition, val any, path ast.Path) {
	s, ok := val.(string)
	if ok {
		for _, ev := range def.EnumValues {
			if strings.EqualFold(s, ev.Name) {
				return
			}
		}
	}
	names := make([]string, len(def.EnumValues))
	for i, ev := range def.EnumValues {
		names[i] = ev.Name
	}
	w.add(path, "must be one of %s's values (%s), not %s", def.Name, strings.Join(names, ", "), describe(val))
}

// scalarProblem is why val is not a value of the scalar named, or "".
// Built-in scalars are checked as gqlparser checks them; the API's own by
// the functions the executor unmarshals them with. Decimal is checked as a
// decimal: whether it is money (2 decimals) or a rate (4) the executor
// tells next.
func scalarProblem(name string, val any) string {
	var err error
	switch name {
	case "Int":
		if isInt(val) {
			return ""
		}
		return "must be an Int, not " + describe(val)
	case "Float":
		if isFloat(val) {
			return ""
		}
		return "must be a Float, not " + describe(val)
	case "Boolean":
		if _, ok := val.(bool); ok {
			return ""
		}
		return "must be a Boolean (true or false), not " + describe(val)
	case "ID":
		if isID(val) {
			return ""
		}
		return "must be an ID (a string or an integer), not " + describe(val)
	case "String":
		switch val.(type) {
		case string, json.Number:
			_, err = graph.UnmarshalString(val)
		default:
			return "must be a String, not " + describe(val)
		}
	case "UUID":
		_, err = scalar.UnmarshalUUID(val)
	case "Date":
		var d scalar.Date
		err = d.UnmarshalGQL(val)
	case "DateTime":
		_, err = scalar.UnmarshalDateTime(val)
	case "Decimal":
		_, err = scalar.UnmarshalDecimal(val)
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func isInt(val any) bool {
	switch v := val.(type) {
	case int, int32, int64:
		return true
	case float64:
		return !math.IsInf(v, 0) && v == math.Trunc(v)
	case json.Number:
		_, err := strconv.ParseInt(string(v), 10, 64)
		return err == nil
	case string:
		_, err := strconv.ParseInt(v, 10, 64)
		return err == nil
	}
	return false
}

func isFloat(val any) bool {
	switch v := val.(type) {
	case int, int32, int64, float32, float64:
		return true
	case json.Number:
		_, err := strconv.ParseFloat(string(v), 64)
		return err == nil
	case string:
		_, err := strconv.ParseFloat(v, 64)
		return err == nil
	}
	return false
}

func isID(val any) bool {
	switch v := val.(type) {
	case int, int32, int64, string, json.Number:
		return true
	case float64:
		return !math.IsInf(v, 0) && v == math.Trunc(v) && math.Abs(v) <= 1<<53-1
	}
	return false
}

// describe names a JSON value for a message: its kind, and a short quote
// of a string or number.
func describe(val any) string {
	switch v := val.(type) {
	case nil:
		return "null"
	case string:
		return "the string " + strconv.Quote(shorten(v))
	case json.Number:
		return "the number " + shorten(string(v))
	case float64, float32, int, int32, int64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("the boolean %v", v)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", val)
}

// shorten keeps a quoted value short: the message is about its kind.
func shorten(s string) string {
	const limit = 40
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit]) + "…"
}

// The wordings of gqlparser's validation errors about a literal input that
// annotateLiteralErrors gives a path. TestRequiredFieldsAreAllReportedAtOnce
// pins them (its literal cases): a gqlparser that words them otherwise
// fails that test rather than silently losing the paths.
var (
	literalMissingField = regexp.MustCompile(`^Field "[^".]+\.([^"]+)" of required type "[^"]+" was not provided\.$`)
	literalMissingArg   = regexp.MustCompile(`^Field "[^"]+" argument "([^"]+)" of type "[^"]+" is required, but it was not provided\.$`)
	literalNull         = regexp.MustCompile(`^Expected value of type "[^"]+", found null\.$`)
)

// annotateLiteralErrors sets extensions.field on validation errors about
// an argument written in the document: a required field or argument not
// given, a null for a non-null type, an unknown field. gqlparser reports
// each at a line and column only; the path is found by parsing the
// document again (only on this error path) and finding the value there.
func annotateLiteralErrors(query string, errs gqlerror.List) {
	var (
		parsed           bool
		values, children map[position]ast.Path
	)
	for _, e := range errs {
		if len(e.Path) > 0 || len(e.Locations) != 1 {
			continue
		}
		if m := literalMissingArg.FindStringSubmatch(e.Message); m != nil {
			setField(e, m[1])
			continue
		}
		missing := literalMissingField.FindStringSubmatch(e.Message)
		unknown := unknownLiteralField.FindStringSubmatch(e.Message)
		if missing == nil && unknown == nil && !literalNull.MatchString(e.Message) {
			continue
		}
		if !parsed {
			parsed = true
			doc, err := parser.ParseQuery(&ast.Source{Input: query})
			if err != nil || doc == nil {
				return
			}
			values, children = literalPaths(doc)
		}
		if values == nil {
			return
		}
		loc := e.Locations[0]
		switch {
		case missing != nil:
			if p, ok := values[position{loc.Line, loc.Column}]; ok {
				setField(e, pathString(at(p, ast.PathName(missing[1]))))
			}
		case unknown != nil:
			if p, ok := children[position{loc.Line, loc.Column}]; ok {
				setField(e, pathString(p))
			}
		default:
			if p, ok := values[position{loc.Line, loc.Column}]; ok {
				setField(e, pathString(p))
			}
		}
	}
}

func setField(e *gqlerror.Error, field string) {
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["field"] = field
}

type position struct{ line, column int }

// literalPaths maps the position of every argument value in doc, and of
// every field name inside an input object, to its path from the argument:
// input, input.address, input.debts.0.amount.
func literalPaths(doc *ast.QueryDocument) (values, children map[position]ast.Path) {
	values, children = map[position]ast.Path{}, map[position]ast.Path{}
	var walkValue func(v *ast.Value, path ast.Path)
	walkValue = func(v *ast.Value, path ast.Path) {
		if v == nil {
			return
		}
		if v.Position != nil {
			values[position{v.Position.Line, v.Position.Column}] = path
		}
		for i, c := range v.Children {
			p := at(path, ast.PathIndex(i))
			if v.Kind == ast.ObjectValue {
				p = at(path, ast.PathName(c.Name))
				if c.Position != nil {
					children[position{c.Position.Line, c.Position.Column}] = p
				}
			}
			walkValue(c.Value, p)
		}
	}
	var walkSet func(set ast.SelectionSet)
	walkSet = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				for _, arg := range sel.Arguments {
					walkValue(arg.Value, ast.Path{ast.PathName(arg.Name)})
				}
				walkSet(sel.SelectionSet)
			case *ast.InlineFragment:
				walkSet(sel.SelectionSet)
			}
		}
	}
	for _, op := range doc.Operations {
		walkSet(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		walkSet(f.SelectionSet)
	}
	return values, children
}
