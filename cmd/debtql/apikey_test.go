package main

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/scalar"
	"github.com/debtql/debtql/internal/store"
)

var (
	// createdKeyID finds the id in "Created ADMIN key <id> ("name")".
	createdKeyID = regexp.MustCompile(`Created (?:ADMIN|CLIENT) key ([0-9a-f-]{36}) `)
	// secretPattern matches a DebtQL secret: dq_ and 32 bytes of base64url.
	secretPattern = regexp.MustCompile(`dq_[A-Za-z0-9_-]{43}`)
)

// createKey runs `apikey create` and returns the new key's id and secret.
func createKey(t *testing.T, path string, args ...string) (id, secret string) {
	t.Helper()
	stdout, stderr, err := runCLI(t, append([]string{"apikey", "create", "--sqlite", path}, args...)...)
	if err != nil {
		t.Fatalf("apikey create %q: %v\nstderr:\n%s", args, err, stderr)
	}
	m := createdKeyID.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("apikey create %q: no confirmation with the key id on stderr:\n%s", args, stderr)
	}
	return m[1], strings.TrimSpace(stdout)
}

// seedClient stores a client directly, for CLIENT keys to refer to.
func seedClient(t *testing.T, path string) string {
	t.Helper()
	ctx := auth.System(context.Background())
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := db.Ent.Creditor.Create().
		SetClientNumber(1).
		SetName("Acme AB").
		SetOrganizationNumber("556677-8899").
		SetAdress1("Storgatan 1").
		SetAddress2("Box 1").
		SetZipCode("111 22").
		SetCity("Stockholm").
		SetCountryCode("SE").
		SetBankNumber("5050-1055").
		SetEmail("billing@acme.example").
		SetContactName("Ada").
		SetContactEmail("ada@acme.example").
		SetContactPhone("+46 8 123 45 67").
		Save(ctx)
	if err != nil {
		t.Fatalf("seeding a client: %v", err)
	}
	return c.ID
}

func TestAPIKeyCreateAdmin(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	stdout, stderr, err := runCLI(t, "apikey", "create", "--role", "ADMIN", "--name", "ops", "--sqlite", path)
	if err != nil {
		t.Fatalf("apikey create: %v\nstderr:\n%s", err, stderr)
	}
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Errorf("stdout is not exactly one line: %q", stdout)
	}
	secret := strings.TrimSpace(stdout)
	if !strings.HasPrefix(secret, "dq_") || len(secret) < 43 {
		t.Fatalf("secret = %q, want dq_ and at least 43 characters", secret)
	}
	if !secretPattern.MatchString(secret) {
		t.Errorf("secret %q is not dq_ + 43 base64url characters", secret)
	}
	if strings.Contains(stderr, secret) {
		t.Errorf("the secret was written to stderr too:\n%s", stderr)
	}
	if !strings.Contains(stderr, "Created ADMIN key") || !strings.Contains(stderr, `"ops"`) {
		t.Errorf("stderr lacks the confirmation:\n%s", stderr)
	}

	// The key is stored with the hash of the secret, and without a client.
	ctx := auth.System(context.Background())
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key, err := db.Ent.APIKey.Query().Where(apikey.SecretHash(auth.HashSecret(secret))).Only(ctx)
	if err != nil {
		t.Fatalf("looking up the new key by its secret: %v", err)
	}
	if key.Role != apikey.RoleADMIN || key.Name != "ops" || key.ClientID != nil || key.RevokedAt != nil {
		t.Errorf("stored key = role %s, name %q, client %v, revoked %v; want an active ADMIN key named ops",
			key.Role, key.Name, key.ClientID, key.RevokedAt)
	}
	if m := createdKeyID.FindStringSubmatch(stderr); m == nil || m[1] != key.ID {
		t.Errorf("the confirmation does not name the key id %s:\n%s", key.ID, stderr)
	}
}

func TestAPIKeyCreateSecretsDiffer(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	_, a := createKey(t, path, "--role", "ADMIN", "--name", "a")
	_, b := createKey(t, path, "--role", "admin", "--name", "b") // the role in any case
	if a == b {
		t.Fatalf("two keys got the same secret %q", a)
	}
}

func TestAPIKeyCreateClient(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	clientID := seedClient(t, path)
	id, secret := createKey(t, path, "--role", "CLIENT", "--client", strings.ToUpper(clientID), "--name", "acme")
	if !secretPattern.MatchString(secret) {
		t.Errorf("secret = %q", secret)
	}
	stdout, _, err := runCLI(t, "apikey", "list", "--sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	line := lineWith(stdout, id)
	// The client id is stored in canonical (lower case) form.
	for _, want := range []string{"CLIENT", clientID, "acme"} {
		if !strings.Contains(line, want) {
			t.Errorf("list line of the CLIENT key lacks %q: %q", want, line)
		}
	}
}

func TestAPIKeyCreateRefusesBadInput(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"client key without client", []string{"--role", "CLIENT", "--name", "c"}, "clientId"},
		{"client not a uuid", []string{"--role", "CLIENT", "--client", "not-a-uuid", "--name", "c"}, "UUID"},
		{"client does not exist", []string{"--role", "CLIENT", "--client", scalar.NewUUID(), "--name", "c"}, "does not exist"},
		{"admin key with client", []string{"--role", "ADMIN", "--client", scalar.NewUUID(), "--name", "c"}, "clientId"},
		{"unknown role", []string{"--role", "OWNER", "--name", "c"}, "role"},
		{"no role", []string{"--name", "c"}, "role"},
		{"no name", []string{"--role", "ADMIN"}, "name"},
		{"blank name", []string{"--role", "ADMIN", "--name", "   "}, "name"},
		{"name too long", []string{"--role", "ADMIN", "--name", strings.Repeat("x", 256)}, "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, _, err := runCLI(t, append([]string{"apikey", "create", "--sqlite", path}, tc.args...)...)
			if err == nil {
				t.Fatalf("apikey create %q succeeded, want an error mentioning %q", tc.args, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if stdout != "" {
				t.Errorf("a refused key printed %q", stdout)
			}
		})
	}

	_, _, err := runCLI(t, "apikey", "create", "--sqlite", path, "--role", "ADMIN", "--name", "x", "extra")
	if !errors.Is(err, errUsage) {
		t.Errorf("apikey create with a positional argument = %v, want errUsage", err)
	}

	// None of them created a key.
	stdout, _, err := runCLI(t, "apikey", "list", "--sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := nonEmptyLines(stdout); len(lines) != 1 {
		t.Errorf("refused creations left keys behind:\n%s", stdout)
	}
}

func TestAPIKeyListAndRevoke(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)

	stdout, stderr, err := runCLI(t, "apikey", "list", "--sqlite", path)
	if err != nil {
		t.Fatalf("apikey list on a fresh file: %v\n%s", err, stderr)
	}
	lines := nonEmptyLines(stdout)
	if len(lines) != 1 {
		t.Fatalf("list of no keys = %q, want the header alone", stdout)
	}
	for _, col := range []string{"ID", "ROLE", "CLIENT", "NAME", "CREATED", "LAST USED", "REVOKED"} {
		if !strings.Contains(lines[0], col) {
			t.Errorf("header %q lacks %s", lines[0], col)
		}
	}

	opsID, opsSecret := createKey(t, path, "--role", "ADMIN", "--name", "ops")
	ciID, ciSecret := createKey(t, path, "--role", "ADMIN", "--name", "ci runner")

	stdout, _, err = runCLI(t, "apikey", "list", "--sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := nonEmptyLines(stdout); len(lines) != 3 {
		t.Fatalf("list has %d lines, want a header and 2 keys:\n%s", len(lines), stdout)
	}
	for _, k := range []struct{ id, name string }{{opsID, "ops"}, {ciID, "ci runner"}} {
		line := lineWith(stdout, k.id)
		if line == "" {
			t.Fatalf("list lacks key %s:\n%s", k.id, stdout)
		}
		fields := strings.Fields(line)
		if fields[0] != k.id || fields[1] != "ADMIN" || fields[2] != "-" {
			t.Errorf("list line %q: want id, ADMIN, no client", line)
		}
		if !strings.Contains(line, k.name) {
			t.Errorf("list line %q lacks the name %q", line, k.name)
		}
		if !strings.HasSuffix(line, "-") {
			t.Errorf("list line %q: an active key shows a revocation time", line)
		}
	}
	assertNoSecrets(t, stdout, opsSecret, ciSecret)

	stdout, stderr, err = runCLI(t, "apikey", "revoke", "--sqlite", path, opsID)
	if err != nil {
		t.Fatalf("apikey revoke: %v\n%s", err, stderr)
	}
	if !strings.HasPrefix(stdout, "Revoked ADMIN key "+opsID) || !strings.Contains(stdout, `"ops"`) {
		t.Errorf("revoke printed %q", stdout)
	}
	assertNoSecrets(t, stdout+stderr, opsSecret, ciSecret)

	stdout, _, err = runCLI(t, "apikey", "list", "--sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if line := lineWith(stdout, opsID); strings.HasSuffix(line, " -") {
		t.Errorf("the revoked key shows no revocation time: %q", line)
	}
	if line := lineWith(stdout, ciID); !strings.HasSuffix(line, " -") {
		t.Errorf("revoking one key touched another: %q", line)
	}
	assertNoSecrets(t, stdout, opsSecret, ciSecret)

	_, _, err = runCLI(t, "apikey", "revoke", "--sqlite", path, opsID)
	if err == nil || !strings.Contains(err.Error(), "already revoked") {
		t.Errorf("revoking a revoked key = %v, want an error saying it is already revoked", err)
	}
	unknown := scalar.NewUUID()
	_, _, err = runCLI(t, "apikey", "revoke", "--sqlite", path, unknown)
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("revoking an unknown key = %v, want an error saying it does not exist", err)
	}
	_, _, err = runCLI(t, "apikey", "revoke", "--sqlite", path, "not-a-uuid")
	if err == nil || !strings.Contains(err.Error(), "UUID") {
		t.Errorf("revoking not-a-uuid = %v, want an error asking for a UUID", err)
	}
	for _, args := range [][]string{{}, {opsID, ciID}} {
		_, _, err = runCLI(t, append([]string{"apikey", "revoke", "--sqlite", path}, args...)...)
		if !errors.Is(err, errUsage) {
			t.Errorf("apikey revoke %q = %v, want errUsage", args, err)
		}
	}
	// None of the failed attempts revoked the other key.
	stdout, _, _ = runCLI(t, "apikey", "list", "--sqlite", path)
	if line := lineWith(stdout, ciID); !strings.HasSuffix(line, " -") {
		t.Errorf("failed revocations touched another key: %q", line)
	}
}

func TestAPIKeyUnknownSubcommand(t *testing.T) {
	cleanEnv(t)
	_, stderr, err := runCLI(t, "apikey", "frobnicate", "--sqlite", dbPath(t))
	if !errors.Is(err, errUsage) {
		t.Fatalf("err = %v, want errUsage", err)
	}
	if !strings.Contains(stderr, `unknown apikey command "frobnicate"`) {
		t.Errorf("stderr lacks the unknown subcommand:\n%s", stderr)
	}
}

func TestAPIKeyRefusesBadLogSettings(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	if _, _, err := runCLI(t, "apikey", "list", "--sqlite", path, "--log-level", "loud"); err == nil || !strings.Contains(err.Error(), "log level") {
		t.Errorf("--log-level loud = %v, want an error about the log level", err)
	}
	t.Setenv("LOG_FORMAT", "xml")
	if _, _, err := runCLI(t, "apikey", "list", "--sqlite", path); err == nil || !strings.Contains(err.Error(), "log format") {
		t.Errorf("LOG_FORMAT=xml = %v, want an error about the log format", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused configuration touched the database file (stat: %v)", err)
	}
}

// assertNoSecrets fails when out shows a secret or its stored hash.
func assertNoSecrets(t *testing.T, out string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("output shows a secret:\n%s", out)
		}
		if strings.Contains(out, auth.HashSecret(s)) {
			t.Errorf("output shows a secret's hash:\n%s", out)
		}
	}
	if secretPattern.MatchString(out) {
		t.Errorf("output shows something like a secret:\n%s", out)
	}
}

func nonEmptyLines(s string) []string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// lineWith is the line of s that contains sub, without trailing blanks.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return strings.TrimRight(l, " ")
		}
	}
	return ""
}
