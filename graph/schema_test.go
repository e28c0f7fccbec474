package graph_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

// TestSchemaIsDescribed: every type, field, argument, input field and enum
// value that callers see in GraphiQL has a description.
func TestSchemaIsDescribed(t *testing.T) {
	env := apitest.New(t)
	type arg struct{ Name, Description string }
	var out struct {
		Schema struct {
			Types []struct {
				Kind, Name, Description string
				Fields                  []struct {
					Name, Description string
					Args              []arg
				}
				InputFields []arg
				EnumValues  []arg
			}
		} `json:"__schema"`
	}
	env.Admin().Do(t, `{ __schema { types { kind name description
	  fields { name description args { name description } }
	  inputFields { name description }
	  enumValues { name description } } } }`, nil).OK(t, &out)
	builtin := map[string]bool{"String": true, "Int": true, "Float": true, "Boolean": true, "ID": true}
	checked := 0
	for _, ty := range out.Schema.Types {
		if strings.HasPrefix(ty.Name, "__") || builtin[ty.Name] || federationTypes[ty.Name] {
			continue
		}
		checked++
		if strings.TrimSpace(ty.Description) == "" {
			t.Errorf("type %s has no description", ty.Name)
		}
		for _, f := range ty.Fields {
			if ty.Name == "Query" && federationQueryFields[f.Name] {
				continue
			}
			if strings.TrimSpace(f.Description) == "" {
				t.Errorf("field %s.%s has no description", ty.Name, f.Name)
			}
			for _, a := range f.Args {
				if strings.TrimSpace(a.Description) == "" {
					t.Errorf("argument %s.%s(%s) has no description", ty.Name, f.Name, a.Name)
				}
			}
		}
		for _, f := range ty.InputFields {
			if strings.TrimSpace(f.Description) == "" {
				t.Errorf("input field %s.%s has no description", ty.Name, f.Name)
			}
		}
		for _, v := range ty.EnumValues {
			if strings.TrimSpace(v.Description) == "" {
				t.Errorf("enum value %s.%s has no description", ty.Name, v.Name)
			}
			// Status values give their integer code (api.md §8).
			if statusEnums[ty.Name] && !codeRE.MatchString(v.Description) {
				t.Errorf("status value %s.%s does not give its code: %q", ty.Name, v.Name, v.Description)
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d types checked: the introspection query missed the schema", checked)
	}
}

var (
	// The types and Query fields that gqlgen's federation plugin adds
	// (docs/federation.md), as the federation specification defines them,
	// without descriptions: for gateways, not for callers.
	federationTypes = map[string]bool{"_Any": true, "_Entity": true, "_Service": true, "FieldSet": true,
		"federation__Policy": true, "federation__Scope": true, "Entity": true,
		"ClientByIDsInput": true, "DebtorByIDsInput": true, "InvoiceByIDsInput": true, "DebtByIDsInput": true}
	federationQueryFields = map[string]bool{"_entities": true, "_service": true}

	statusEnums = map[string]bool{"PaymentStatus": true, "CollectionStage": true, "CollectionSubStatus": true,
		"InvoiceStatus": true, "InvoiceProcessStatus": true, "ActiveStatus": true}
	codeRE = regexp.MustCompile(`\(code \d+\)`)
)
