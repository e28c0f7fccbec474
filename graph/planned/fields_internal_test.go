package planned

import (
	"slices"
	"sort"
	"testing"

	"github.com/debtql/debtql/graph"
)

// Every field of a type the planned path writes is either planned
// (plannedTypes) or left to gqlgen's executor on purpose (unplannedFields):
// a field added to the schema fails here until it is one or the other.
func TestPlannedPathKnowsEveryField(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	for root, typ := range roots {
		if f := schema.Query.Fields.ForName(root); f == nil || f.Type.Name() != typ {
			t.Errorf("roots answers Query.%s as %s, which the schema does not have", root, typ)
		}
	}
	for typ, planned := range plannedTypes {
		def := schema.Types[typ]
		if def == nil {
			t.Errorf("plannedTypes names %s, which the schema does not have", typ)
			continue
		}
		for name := range planned {
			if def.Fields.ForName(name) == nil {
				t.Errorf("plannedTypes plans %s.%s, which the schema does not have", typ, name)
			}
		}
		var missing []string
		for _, f := range def.Fields {
			if len(f.Name) > 1 && f.Name[:2] == "__" {
				continue
			}
			if _, ok := planned[f.Name]; !ok && !slices.Contains(unplannedFields[typ], f.Name) {
				missing = append(missing, f.Name)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s has fields the planned path neither plans nor leaves to gqlgen's executor: %v. "+
				"Add each to plannedTypes and the writer (graph/planned/planned.go), or to unplannedFields", typ, missing)
		}
	}
	for typ, fields := range unplannedFields {
		for _, name := range fields {
			if _, ok := plannedTypes[typ][name]; ok {
				t.Errorf("%s.%s is both planned and unplanned", typ, name)
			}
		}
	}
}
