package store_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/store"
)

// The open-debt rule (collection.OpenCondition) is written once in Go: the
// partial indexes (ent/schema/debt.go) and SQLite's debt_counts triggers are
// built from it. PostgreSQL's migrations are SQL files, fixed once applied,
// so they repeat it; this test holds every repetition to the definition:
// each place a migration compares a debt's paid and original amounts must
// be the open condition, on one row, whole.
func TestMigrationsRepeatTheOpenConditionExactly(t *testing.T) {
	// The condition on a row (NEW, OLD, a table or none), quotes aside,
	// comparing paid_amount with the column it compares with.
	row := `(?:(\w+)\.)?`
	condition := func(owed string) (open, piece *regexp.Regexp) {
		open = regexp.MustCompile(row + `withdrawn_at IS NULL\)? AND \(?` + row + `paid_amount < ` + row + owed)
		// A comparison of the amounts is the half of it that can drift
		// (withdrawn_at IS NULL alone is the rule of an unwithdrawn debt).
		piece = regexp.MustCompile(`(?i)paid_amount\s*[<>=!]+\s*(?:\w+\.)?` + owed + `|` + owed + `\s*[<>=!]+\s*(?:\w+\.)?paid_amount`)
		return open, piece
	}
	// Up to the migration collection_process a debt was open while paid
	// less than its original amount; from it on, less than its charged
	// amount. Each file is held to the rule of its time, and neither
	// comparison appears where the other rule holds.
	const changed = "20261125164117_collection_process.sql"
	formerOpen, formerPiece := condition("original_amount")
	open, piece := condition("charged_amount")

	// The Go definition is the one the pattern describes.
	if !open.MatchString(collection.OpenCondition) || !open.MatchString(collection.OpenConditionOf("NEW")) {
		t.Fatalf("collection.OpenCondition %q no longer has the form this test checks; update both", collection.OpenCondition)
	}
	dir, err := store.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	files, err := dir.Files()
	if err != nil {
		t.Fatal(err)
	}
	found, foundChanged := 0, false
	for _, f := range files {
		path := f.Name()
		fileOpen, filePiece, otherPiece := open, piece, formerPiece
		if path < changed {
			fileOpen, filePiece, otherPiece = formerOpen, formerPiece, piece
		}
		foundChanged = foundChanged || path == changed
		text := strings.ReplaceAll(string(f.Bytes()), `"`, "")
		// Comments may speak of the rule in words.
		var code []string
		for _, line := range strings.Split(text, "\n") {
			if i := strings.Index(line, "--"); i >= 0 {
				line = line[:i]
			}
			code = append(code, line)
		}
		text = strings.Join(code, "\n")
		whole := fileOpen.FindAllStringSubmatchIndex(text, -1)
		for _, m := range whole {
			// One row throughout: NEW.withdrawn_at with OLD.paid_amount is
			// not the condition.
			rows := map[string]bool{}
			for g := 1; g <= 3; g++ {
				if m[2*g] >= 0 {
					rows[text[m[2*g]:m[2*g+1]]] = true
				} else {
					rows[""] = true
				}
			}
			if len(rows) != 1 {
				t.Errorf("%s: %q mixes rows", path, text[m[0]:m[1]])
			}
			found++
		}
		for _, p := range filePiece.FindAllStringIndex(text, -1) {
			inside := false
			for _, m := range whole {
				if p[0] >= m[0] && p[1] <= m[1] {
					inside = true
				}
			}
			if !inside {
				t.Errorf("%s: %q tests a debt's openness other than as collection.OpenCondition", path, text[p[0]:p[1]])
			}
		}
		if p := otherPiece.FindString(text); p != "" {
			t.Errorf("%s: %q compares the amounts of the open condition of another time", path, p)
		}
	}
	if found == 0 || !foundChanged {
		t.Fatal("no migration repeats the open condition, or the migration that changed it is gone: the test reads nothing")
	}
}
