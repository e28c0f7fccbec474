package examples_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
)

// The README's curl commands must work as pasted. These tests run them in
// bash, with curl and jq as a reader has them, against a fresh server: the
// one-line example, and the walk-through's jq template over every step.
// Only the address changes (the README says localhost:8080).

// readmeBlock is the shell block after the README's marker <!-- curl: name -->.
func readmeBlock(t *testing.T, readme, name string) string {
	t.Helper()
	m := regexp.MustCompile("(?s)<!-- curl: " + regexp.QuoteMeta(name) + " -->\\s*```sh\\n(.*?)```").FindStringSubmatch(readme)
	if m == nil {
		t.Fatalf("README.md has no shell block marked <!-- curl: %s -->", name)
	}
	return m[1]
}

// needTools skips the test where bash, curl or jq is missing, except in CI,
// which must run it.
func needTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed; CI runs the README's curl commands with it", tool)
			}
			t.Skipf("%s is not installed: the README's curl commands are not run", tool)
		}
	}
}

// shell runs a README block in dir with the key in KEY, as pasted, and
// returns what it printed.
func shell(t *testing.T, env *apitest.Env, dir, block string) []byte {
	t.Helper()
	script := strings.ReplaceAll(block, "localhost:8080", strings.TrimPrefix(env.URL, "http://"))
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KEY="+apitest.AdminKey)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%v\n%s\nstdout: %s\nstderr: %s", err, script, out, stderr)
	}
	return out
}

func readReadme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadmeOneLineCurl(t *testing.T) {
	needTools(t)
	readme := readReadme(t)
	block := readmeBlock(t, readme, "one-line")
	// The answer the README shows right after the command.
	m := regexp.MustCompile("(?s)<!-- curl: one-line -->\\s*```sh\\n.*?```\\s*```json\\n(.*?)```").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README.md shows no answer after the one-line example")
	}
	env := apitest.New(t)
	got := strings.TrimSpace(string(shell(t, env, t.TempDir(), block)))
	if want := strings.TrimSpace(m[1]); got != want {
		t.Errorf("the one-line example answered\n%s\nthe README shows\n%s", got, want)
	}
}

// This directory's README sends an example the same way.
func TestExamplesReadmeCurl(t *testing.T) {
	needTools(t)
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := readmeBlock(t, string(b), "example")
	env := apitest.New(t)
	clientID, _ := env.NewClient(t, "Acme AB")
	dir := t.TempDir()
	for _, name := range []string{"debtsPage.graphql", "debtsPage.variables.json"} {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		text = []byte(strings.ReplaceAll(string(text), "<clientId>", clientID))
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := shell(t, env, dir, block)
	if want := `{"data":{"debts":{"totalCount":0,"pageInfo":{"hasNextPage":false,"hasPreviousPage":false},"nodes":[]}}}`; strings.TrimSpace(string(out)) != want {
		t.Errorf("the example answered %s, want %s", out, want)
	}
}

func TestReadmeWalkThroughWithCurl(t *testing.T) {
	needTools(t)
	readme := readReadme(t)
	template := readmeBlock(t, readme, "template")
	steps := regexp.MustCompile("(?s)<!-- walkthrough:([^>]*)-->\\s*```graphql\\n(.*?)```\\s*```json\\n(.*?)```").
		FindAllStringSubmatch(readme, -1)
	if len(steps) < 8 {
		t.Fatalf("found %d walk-through steps in README.md, want the 8 of the walk-through", len(steps))
	}
	env := apitest.New(t)
	dir := t.TempDir()
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
		// The files the README tells the reader to save.
		if err := os.WriteFile(filepath.Join(dir, "step.graphql"), []byte(step[2]), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "step.json"), []byte(vars), 0o600); err != nil {
			t.Fatal(err)
		}
		out := shell(t, env, dir, template)
		var answer struct {
			Data   map[string]any `json:"data"`
			Errors []any          `json:"errors"`
		}
		if err := json.Unmarshal(out, &answer); err != nil || len(answer.Errors) > 0 || answer.Data == nil {
			t.Fatalf("step %d answered %s", i+1, out)
		}
		for _, save := range strings.Split(step[1], ";") {
			name, path, ok := strings.Cut(strings.TrimSpace(save), "=")
			if !ok {
				continue
			}
			value := lookup(answer.Data, strings.Split(strings.TrimSpace(path), "."))
			if value == nil {
				t.Fatalf("step %d: no %s in %s", i+1, path, out)
			}
			saved[strings.TrimSpace(name)] = value
		}
	}
}

// lookup follows a path of names and list indexes into decoded JSON. Ids
// decoded as float64 are integers here and marshal back as such.
func lookup(v any, path []string) any {
	for _, p := range path {
		switch c := v.(type) {
		case map[string]any:
			v = c[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}
