//go:build ignore

// entc.go configures ent's code generation with the entgql extension. It is
// run by `go generate ./...` (see generate.go at the module root).
package main

import (
	"log"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"
)

// pageTemplate adds paging by page number and the connections' nodes field
// (api.md §7) on top of entgql's cursor pagination.
var pageTemplate = gen.MustParse(gen.NewTemplate("gql_page").
	Funcs(entgql.TemplateFuncs).
	ParseFiles("./ent/template/page.tmpl"))

// decodeTemplate overrides ent's row scanner so that the total count a
// page reads with its rows is scanned as an integer (see its comment).
var decodeTemplate = gen.MustParse(gen.NewTemplate("decode").
	ParseFiles("./ent/template/decode.tmpl"))

// extTemplate writes what DebtQL needs inside the generated package (the
// debt's settled statuses, a payment's loaded edges, the row scanner of
// hand-written statements), so that no hand-written file lives there.
var extTemplate = gen.MustParse(gen.NewTemplate("debtql_ext").
	ParseFiles("./ent/template/ext.tmpl"))

func main() {
	ex, err := entgql.NewExtension(
		// The GraphQL schema is written by hand (schema.graphqls) so that
		// every name and description is the contract's; entgql contributes
		// pagination, ordering, field collection (eager loading) and
		// transactions to the generated Go code.
		entgql.WithConfigPath("./gqlgen.yml"),
		entgql.WithTemplates(append(entgql.AllTemplates, pageTemplate)...),
	)
	if err != nil {
		log.Fatalf("creating entgql extension: %v", err)
	}
	opts := []entc.Option{
		entc.Extensions(ex),
		entc.FeatureNames(
			"intercept",
			"namedges",
			"sql/lock",
			"sql/modifier",
			"sql/execquery",
			"sql/upsert",
		),
	}
	if err := entc.Generate("./ent/schema", &gen.Config{
		Target:    "./ent",
		Package:   "github.com/debtql/debtql/ent",
		Templates: []*gen.Template{decodeTemplate, extTemplate},
	}, opts...); err != nil {
		log.Fatalf("running ent codegen: %v", err)
	}
}
