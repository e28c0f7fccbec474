package layers_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/debtql/debtql"

// packageImports reads the imports of every package of the module (test
// files and the generated ent packages aside), by directory.
func packageImports(t *testing.T) map[string]map[string]bool {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no module root at %s: %v", root, err)
	}
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "ent" || strings.HasPrefix(rel, "ent"+string(filepath.Separator)) && rel != filepath.Join("ent", "schema") ||
				strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		for _, c := range f.Comments {
			if strings.Contains(c.Text(), "go:build ignore") || strings.HasPrefix(strings.TrimSpace(c.Text()), "+build ignore") {
				return nil
			}
		}
		pkg := module + "/" + filepath.ToSlash(filepath.Dir(rel))
		if filepath.Dir(rel) == "." {
			pkg = module
		}
		if out[pkg] == nil {
			out[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out[pkg][p] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func importsAny(imports map[string]bool, prefixes ...string) []string {
	var hits []string
	for imp := range imports {
		for _, p := range prefixes {
			if imp == p || strings.HasPrefix(imp, p+"/") {
				hits = append(hits, imp)
			}
		}
	}
	sort.Strings(hits)
	return hits
}

// The house's rules, each checked on every package.
func TestFloorsStayApart(t *testing.T) {
	gqlgen := []string{"github.com/99designs/gqlgen"}
	// database/sql/driver (the Valuer and Scanner interfaces a scalar
	// implements) is not SQL.
	sql := []string{"database/sql", "entgo.io/ent/dialect/sql", "github.com/jackc/pgx"}
	pkgs := packageImports(t)
	if len(pkgs) < 10 {
		t.Fatalf("read only %d packages: the walk is broken", len(pkgs))
	}
	for pkg, imports := range pkgs {
		g := importsAny(imports, gqlgen...)
		var s []string
		for _, imp := range importsAny(imports, sql...) {
			if imp != "database/sql/driver" {
				s = append(s, imp)
			}
		}
		if len(g) > 0 && len(s) > 0 {
			t.Errorf("%s imports both GraphQL (%v) and SQL (%v): SQL belongs under the ledger and store", pkg, g, s)
		}
	}
	if g := importsAny(pkgs[module+"/internal/ledger"], gqlgen...); len(g) > 0 {
		t.Errorf("the use cases (internal/ledger) import GraphQL: %v", g)
	}
	// The event hub fans the trail out; it reads it through the ledger's
	// feed and knows neither SQL nor GraphQL (the transport is the server's).
	if s := importsAny(pkgs[module+"/internal/events"], append(append([]string{}, sql...), append(gqlgen, module+"/internal/store", module+"/graph")...)...); len(s) > 0 {
		t.Errorf("internal/events imports %v: it reads the feed through internal/ledger and serves any transport", s)
	}
	// The webhooks' sender speaks HTTP; the ledger keeps its queue.
	if s := importsAny(pkgs[module+"/internal/webhook"], append(append([]string{}, sql...), append(gqlgen, module+"/internal/store", module+"/internal/ledger", module+"/graph", module+"/ent")...)...); len(s) > 0 {
		t.Errorf("internal/webhook imports %v: it sends what the ledger's queue (webhook.Queue) hands it", s)
	}
	if s := importsAny(pkgs[module+"/graph"], module+"/internal/store"); len(s) > 0 {
		t.Errorf("graph imports %v: it reaches the database through internal/ledger", s)
	}
}
