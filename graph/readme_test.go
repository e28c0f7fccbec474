package graph_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

// TestReadmeWalkThrough runs the README's walk-through as written against a
// fresh server: each step's document with its variables, the ids of earlier
// steps put in for the placeholders, as a reader would.
func TestReadmeWalkThrough(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	steps := regexp.MustCompile("(?s)<!-- walkthrough:([^>]*)-->\\s*```graphql\\n(.*?)```\\s*```json\\n(.*?)```").
		FindAllStringSubmatch(string(readme), -1)
	if len(steps) < 8 {
		t.Fatalf("found %d walk-through steps in README.md, want the 8 of the walk-through", len(steps))
	}
	env := apitest.New(t)
	saved := map[string]any{}
	for i, step := range steps {
		vars := step[3]
		for name, v := range saved {
			b, _ := json.Marshal(v)
			vars = strings.ReplaceAll(vars, `"<`+name+`>"`, string(b))
		}
		if strings.Contains(vars, `"<`) {
			t.Fatalf("step %d: a placeholder has no value yet: %s", i+1, vars)
		}
		var v apitest.Vars
		if err := json.Unmarshal([]byte(vars), &v); err != nil {
			t.Fatalf("step %d: the variables are not JSON: %v\n%s", i+1, err, vars)
		}
		r := env.Admin().Do(t, step[2], v)
		var data map[string]any
		r.OK(t, &data)
		for _, save := range strings.Split(step[1], ";") {
			name, path, ok := strings.Cut(strings.TrimSpace(save), "=")
			if !ok {
				continue
			}
			value := lookup(data, strings.Split(strings.TrimSpace(path), "."))
			if value == nil {
				t.Fatalf("step %d: no %s in %s", i+1, path, r.Data)
			}
			saved[strings.TrimSpace(name)] = value
		}
	}
}

func lookup(v any, path []string) any {
	for _, p := range path {
		switch c := v.(type) {
		case map[string]any:
			v = c[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}
