package server

import (
	"cmp"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/debtql/debtql/graph"
	"github.com/debtql/debtql/internal/apierr"
)

// apiSchema is the schema the executor runs: gqlgen compiles
// schema.graphqls into graph (its parsedSchema), and an executable schema
// without resolvers hands out that same parsed schema.
var apiSchema = graph.NewExecutableSchema(graph.Config{}).Schema()

// sdl is the text apiSchema was parsed from.
var sdl = schemaText(apiSchema)

// mainSchemaFile is the file of the API's types; the other files of the
// API extend them.
const mainSchemaFile = "schema.graphqls"

// SDL returns the API's schema in GraphQL's schema definition language: the
// text of schema.graphqls as gqlgen compiled it into the server, not a copy
// read from disk, so that GET /graphql/schema.graphql, `debtql schema` and
// the executor cannot disagree.
func SDL() string { return sdl }

// schemaText recovers the source text of a parsed schema: every definition
// keeps a pointer to the source it came from. Only the sources that define
// types or directives count: gqlparser's and gqlgen's built-in ones
// (String, __Schema, federation's _Any...) are not the API's text, and a
// file that only extends types (federation.graphqls, the subgraph's keys)
// adds no definition, so the download is schema.graphqls and the API's
// other files (datarights.graphqls), without the federation keys.
func schemaText(s *ast.Schema) string {
	var sources []*ast.Source
	add := func(p *ast.Position) {
		if p != nil && p.Src != nil && !p.Src.BuiltIn && !slices.Contains(sources, p.Src) {
			sources = append(sources, p.Src)
		}
	}
	for _, t := range s.Types {
		add(t.Position)
	}
	for _, d := range s.Directives {
		add(d.Position)
	}
	// Maps have no order: schema.graphqls (the contract's types) first,
	// then the files that add to it (datarights.graphqls), by name.
	slices.SortFunc(sources, func(a, b *ast.Source) int {
		return cmp.Or(cmp.Compare(fileRank(a), fileRank(b)), strings.Compare(a.Name, b.Name))
	})
	var b strings.Builder
	for _, src := range sources {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(src.Input)
	}
	return b.String()
}

// fileRank puts schema.graphqls before the files that extend it.
func fileRank(src *ast.Source) int {
	if path.Base(src.Name) == mainSchemaFile {
		return 0
	}
	return 1
}

// schemaHandler serves GET /graphql/schema.graphql: the SDL as text, for
// code generators and editors that read a schema file rather than run an
// introspection query. It sits behind the API's authentication, since the
// schema is what introspection answers, and is off (404) when introspection
// is (--introspection=false).
func schemaHandler(enabled bool) http.Handler {
	body := []byte(SDL())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeErrors(w, r, http.StatusMethodNotAllowed, apierr.New(apierr.BadUserInput, "use GET to download the schema"))
			return
		}
		if !enabled {
			writeErrors(w, r, http.StatusNotFound, apierr.SchemaNotServed())
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		// Saved from a browser, the file gets the name code generators expect.
		h.Set("Content-Disposition", `inline; filename="schema.graphql"`)
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	})
}
