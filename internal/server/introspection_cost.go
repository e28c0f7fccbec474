package server

import (
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// introspectionCost is the complexity of an operation's introspection
// (__schema and __type), which gqlgen's complexity leaves out: the fields
// its answer would hold, counted against this schema (each of the types,
// fields, arguments and enum values it lists), so that aliases and
// fragments that repeat the schema many times cost what they return. The
// walk stops as soon as the count passes limit (then it returns a number
// above limit; a negative limit is none), so that it is never more work
// than an allowed answer.
func introspectionCost(opCtx *graphql.OperationContext, schema *ast.Schema, limit int) int {
	w := &introspectionWalker{opCtx: opCtx, schema: schema, limit: limit, fields: map[fieldsKey][]graphql.CollectedField{}}
	root := schema.Query
	if opCtx.Operation.Operation == ast.Mutation && schema.Mutation != nil {
		root = schema.Mutation
	}
	if root == nil {
		return 0
	}
	for _, f := range w.collect(opCtx.Operation.SelectionSet, root.Name) {
		switch f.Name {
		case "__schema":
			w.schemaCost(f.Selections)
		case "__type":
			w.add(1)
			if name, ok := f.ArgumentMap(opCtx.Variables)["name"].(string); ok {
				if def := schema.Types[name]; def != nil {
					w.typeCost(f.Selections, typeRef{def: def})
				}
			}
		}
		if w.over() {
			break
		}
	}
	return w.cost
}

type fieldsKey struct {
	set      *ast.Selection
	typeName string
}

type introspectionWalker struct {
	opCtx  *graphql.OperationContext
	schema *ast.Schema
	limit  int
	cost   int
	fields map[fieldsKey][]graphql.CollectedField
}

func (w *introspectionWalker) add(n int) { w.cost += n }

func (w *introspectionWalker) over() bool { return w.limit >= 0 && w.cost > w.limit }

// collect is graphql.CollectFields, remembered per selection set and type:
// the walk visits the same selection once per type or field it lists.
func (w *introspectionWalker) collect(set ast.SelectionSet, typeName string) []graphql.CollectedField {
	if len(set) == 0 {
		return nil
	}
	k := fieldsKey{&set[0], typeName}
	if f, ok := w.fields[k]; ok {
		return f
	}
	f := graphql.CollectFields(w.opCtx, set, []string{typeName})
	w.fields[k] = f
	return f
}

func (w *introspectionWalker) schemaCost(set ast.SelectionSet) {
	w.add(1)
	for _, f := range w.collect(set, "__Schema") {
		if w.over() {
			return
		}
		w.add(1)
		switch f.Name {
		case "types":
			for _, def := range w.schema.Types {
				if w.over() {
					return
				}
				w.typeCost(f.Selections, typeRef{def: def})
			}
		case "queryType", "mutationType", "subscriptionType":
			if def := map[string]*ast.Definition{"queryType": w.schema.Query, "mutationType": w.schema.Mutation, "subscriptionType": w.schema.Subscription}[f.Name]; def != nil {
				w.typeCost(f.Selections, typeRef{def: def})
			}
		case "directives":
			for _, d := range w.schema.Directives {
				w.directiveCost(f.Selections, d)
			}
		}
	}
}

// typeRef is what a __Type stands for: a named type, or a wrapper (list
// or non-null) of another.
type typeRef struct {
	def  *ast.Definition
	wrap *ast.Type
}

func (w *introspectionWalker) ref(t *ast.Type) typeRef {
	if t.NonNull || t.Elem != nil {
		return typeRef{wrap: t}
	}
	return typeRef{def: w.schema.Types[t.NamedType]}
}

func (w *introspectionWalker) typeCost(set ast.SelectionSet, t typeRef) {
	w.add(1)
	for _, f := range w.collect(set, "__Type") {
		if w.over() {
			return
		}
		w.add(1)
		switch f.Name {
		case "ofType":
			if t.wrap == nil {
				continue
			}
			inner := *t.wrap
			if inner.NonNull {
				inner.NonNull = false
				w.typeCost(f.Selections, w.ref(&inner))
			} else {
				w.typeCost(f.Selections, w.ref(t.wrap.Elem))
			}
		case "fields":
			if t.def == nil {
				continue
			}
			for _, fd := range t.def.Fields {
				if !strings.HasPrefix(fd.Name, "__") {
					w.fieldCost(f.Selections, fd)
				}
			}
		case "inputFields":
			if t.def == nil || t.def.Kind != ast.InputObject {
				continue
			}
			for _, fd := range t.def.Fields {
				w.inputValueCost(f.Selections, fd.Type)
			}
		case "interfaces":
			if t.def == nil {
				continue
			}
			for _, name := range t.def.Interfaces {
				if def := w.schema.Types[name]; def != nil {
					w.typeCost(f.Selections, typeRef{def: def})
				}
			}
		case "possibleTypes":
			if t.def == nil || (t.def.Kind != ast.Interface && t.def.Kind != ast.Union) {
				continue
			}
			for _, def := range w.schema.GetPossibleTypes(t.def) {
				w.typeCost(f.Selections, typeRef{def: def})
			}
		case "enumValues":
			if t.def == nil {
				continue
			}
			for range t.def.EnumValues {
				w.add(1 + len(w.collect(f.Selections, "__EnumValue")))
			}
		}
	}
}

func (w *introspectionWalker) fieldCost(set ast.SelectionSet, fd *ast.FieldDefinition) {
	w.add(1)
	for _, f := range w.collect(set, "__Field") {
		w.add(1)
		switch f.Name {
		case "args":
			w.argumentsCost(f.Selections, fd.Arguments)
		case "type":
			w.typeCost(f.Selections, w.ref(fd.Type))
		}
	}
}

// argumentsCost is the cost of a field's or a directive's args.
func (w *introspectionWalker) argumentsCost(set ast.SelectionSet, args ast.ArgumentDefinitionList) {
	for _, a := range args {
		w.inputValueCost(set, a.Type)
	}
}

func (w *introspectionWalker) inputValueCost(set ast.SelectionSet, t *ast.Type) {
	w.add(1)
	for _, f := range w.collect(set, "__InputValue") {
		w.add(1)
		if f.Name == "type" {
			w.typeCost(f.Selections, w.ref(t))
		}
	}
}

func (w *introspectionWalker) directiveCost(set ast.SelectionSet, d *ast.DirectiveDefinition) {
	w.add(1)
	for _, f := range w.collect(set, "__Directive") {
		w.add(1)
		switch f.Name {
		case "args":
			w.argumentsCost(f.Selections, d.Arguments)
		case "locations":
			w.add(len(d.Locations))
		}
	}
}
