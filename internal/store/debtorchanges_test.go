package store_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/google/uuid"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/store"
)

// TestDebtorVersionCheckCountsOnlyOnChange: the statements of a remembered
// search total run the count (here NameSuffixTotal's scan of
// debtor_name_suffixes) only when the client's version is not the
// remembered one, and read the version as the sum of the changes and the
// greatest transaction id over the client's rows.
func TestDebtorVersionCheckCountsOnlyOnChange(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("debtor_changes is PostgreSQL's")
	}
	ctx := context.Background()
	client := uuid.NewString()
	// Two shards of the client, one of another client; and two suffixes.
	for _, q := range []string{
		`INSERT INTO debtor_changes (client_id, shard, changes, last_xact)
		 VALUES ($1, 3, 5, 100), ($1, 7, 2, 90), (gen_random_uuid(), 3, 50, 500)`,
		`INSERT INTO debtor_name_suffixes (client_id, suffix, debtor_id)
		 VALUES ($1, 'berg', gen_random_uuid()), ($1, 'bergström', gen_random_uuid())`,
	} {
		if _, err := env.DB.SQL.ExecContext(ctx, q, client); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		_, _ = env.DB.SQL.ExecContext(ctx, `DELETE FROM debtor_name_suffixes WHERE client_id = $1`, client)
	}()
	total := func() *entsql.Selector { return store.NameSuffixTotal(client, "berg") }
	// run reads the statement's row, and whether its plan ran the count.
	run := func(t *testing.T, s *entsql.Selector, into ...any) (counted bool) {
		t.Helper()
		q, args := s.Query()
		if err := env.DB.SQL.QueryRowContext(ctx, q, args...).Scan(into...); err != nil {
			t.Fatal(err)
		}
		plan := strings.Join(apitest.Strings(t, env.DB.SQL, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "+q, args...), "\n")
		scans := 0
		for _, line := range strings.Split(plan, "\n") {
			if strings.Contains(line, "debtor_name_suffixes") {
				scans++
				counted = !strings.Contains(line, "never executed")
			}
		}
		if scans != 1 {
			t.Fatalf("%d scans of debtor_name_suffixes in the plan:\n%s", scans, plan)
		}
		return counted
	}
	held := store.DebtorVersion{Changes: 7, LastXact: 100}
	for _, tc := range []struct {
		name       string
		remembered *store.DebtorVersion
		counted    bool
	}{
		{"nothing remembered", nil, true},
		{"the version remembered", &held, false},
		{"an older version", &store.DebtorVersion{Changes: 6, LastXact: 100}, true},
		{"the same sum of other rows", &store.DebtorVersion{Changes: 7, LastXact: 99}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var changes, lastXact, n sql.NullInt64
			counted := run(t, store.DebtorVersionCheck(client, tc.remembered, total()), &changes, &lastXact, &n)
			if changes.Int64 != 7 || lastXact.Int64 != 100 {
				t.Errorf("version (%v, %v), want (7, 100)", changes, lastXact)
			}
			if counted != tc.counted || n.Valid != tc.counted || (n.Valid && n.Int64 != 2) {
				t.Errorf("counted %v, total %v; want counted %v (2)", counted, n, tc.counted)
			}
			// The page's total: the remembered 40 while the version holds.
			remembered := held
			if tc.remembered != nil {
				remembered = *tc.remembered
			}
			var got int64
			counted = run(t, store.RememberedTotal(client, remembered, 40, total()), &got)
			if want := map[bool]int64{false: 40, true: 2}[remembered != held]; got != want || counted != (remembered != held) {
				t.Errorf("remembered total %d (counted %v), want %d", got, counted, want)
			}
		})
	}
	t.Run("a client without rows", func(t *testing.T) {
		var changes, lastXact, n sql.NullInt64
		// Nothing to remember a count at: the caller's page counts, not
		// this statement.
		for _, remembered := range []*store.DebtorVersion{nil, &held} {
			if run(t, store.DebtorVersionCheck(uuid.NewString(), remembered, total()), &changes, &lastXact, &n) ||
				changes.Valid || lastXact.Valid || n.Valid {
				t.Errorf("version (%v, %v), total %v; want none, and no count", changes, lastXact, n)
			}
		}
	})
}

// TestNumberSearchPageReadsTheNameIndexAlone guards change 23 of
// docs/performance.md: the debtors' name index carries the identification
// number and its search key, so that a number search's page ordered by
// name, selecting the name and the number, can walk that index without
// reading the table (an index-only scan, which needs every column it
// reads in the index).
func TestNumberSearchPageReadsTheNameIndexAlone(t *testing.T) {
	env := apitest.New(t)
	if !env.Postgres {
		t.Skip("INCLUDE is PostgreSQL's")
	}
	ctx := context.Background()
	// In a transaction of its own: its settings end with it, and do not
	// go back to the pool.
	tx, err := env.DB.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	// On a table this small the planner would read it whole; without
	// that choice it shows which index can answer alone.
	for _, q := range []string{"SET LOCAL enable_seqscan = off", "SET LOCAL enable_bitmapscan = off", "SET LOCAL enable_sort = off"} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	plan := apitest.Strings(t, tx, `EXPLAIN SELECT id, name, identification_number FROM debtors
	  WHERE client_id = $1 AND identification_key LIKE '%0101%' ORDER BY name, id LIMIT 51`, uuid.NewString())
	if !strings.Contains(strings.Join(plan, "\n"), "Index Only Scan using debtor_client_id_name_id") {
		t.Errorf("the number search's page does not read the name index alone:\n%s", strings.Join(plan, "\n"))
	}
}
