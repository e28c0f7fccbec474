package store_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
	"github.com/debtql/debtql/internal/store"
)

// referenceRates reads the reference_rates table, oldest first.
func referenceRates(t *testing.T, db *sql.DB) []collection.ReferenceRate {
	t.Helper()
	rows, err := db.Query(`SELECT valid_from, rate FROM reference_rates ORDER BY valid_from`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []collection.ReferenceRate
	for rows.Next() {
		var d scalar.Date
		var r int64
		if err := rows.Scan(&d, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, collection.ReferenceRate{ValidFrom: d, Rate: collection.Rate(r)})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestShippedReferenceRates holds the three copies of the shipped
// reference rates to one another: the rows of docs/reference-rates.md that
// have a value, store.ShippedReferenceRates (which SQLite gets), and what a
// migrated database holds (on PostgreSQL: the migration
// reference_rates_data).
func TestShippedReferenceRates(t *testing.T) {
	shipped := store.ShippedReferenceRates()
	for i, r := range shipped {
		if err := r.Check(); err != nil {
			t.Errorf("%s: %v", r.ValidFrom, err)
		}
		if i > 0 && !shipped[i-1].ValidFrom.Before(r.ValidFrom) {
			t.Errorf("%s follows %s: the list must be oldest first, one entry a date", r.ValidFrom, shipped[i-1].ValidFrom)
		}
	}

	// The page's table: | date | rate (or —, or "1.50 (note)") | kind | ...
	doc, err := os.ReadFile("../../docs/reference-rates.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| (\d{4}-\d\d-\d\d) \| (-?\d+\.\d\d)?[^|]*\|`)
	var documented []collection.ReferenceRate
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		if m[2] == "" {
			continue // no value found
		}
		d, err := scalar.ParseDate(m[1])
		if err != nil {
			t.Fatal(err)
		}
		r, err := collection.ParseRate(m[2])
		if err != nil {
			t.Fatal(err)
		}
		documented = append(documented, collection.ReferenceRate{ValidFrom: d, Rate: r})
	}
	if !reflect.DeepEqual(documented, shipped) {
		t.Errorf("docs/reference-rates.md has the values\n%v\nstore.ShippedReferenceRates has\n%v", documented, shipped)
	}

	env := apitest.New(t)
	if got := referenceRates(t, env.DB.SQL); !reflect.DeepEqual(got, shipped) {
		t.Errorf("a migrated database (PostgreSQL: %v) holds\n%v\nwant store.ShippedReferenceRates\n%v", env.Postgres, got, shipped)
	}
}

// TestSQLiteKeepsReferenceRatesAcrossStarts: every start of a SQLite
// database inserts the shipped rates it lacks and keeps the ones it has, so
// that a rate an ADMIN key set survives a restart.
func TestSQLiteKeepsReferenceRatesAcrossStarts(t *testing.T) {
	ctx := context.Background()
	d := migratedSQLite(t, "rates.db")
	shipped := store.ShippedReferenceRates()
	if got := referenceRates(t, d.SQL); !reflect.DeepEqual(got, shipped) {
		t.Fatalf("a new SQLite database holds %v, want %v", got, shipped)
	}
	last := shipped[len(shipped)-1].ValidFrom
	if _, err := d.SQL.ExecContext(ctx, `UPDATE reference_rates SET rate = 27500 WHERE valid_from = ?`, last); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SQL.ExecContext(ctx, `DELETE FROM reference_rates WHERE valid_from = ?`, shipped[0].ValidFrom); err != nil {
		t.Fatal(err)
	}
	if err := d.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	want := append([]collection.ReferenceRate(nil), shipped...)
	want[len(want)-1].Rate = 27500
	if got := referenceRates(t, d.SQL); !reflect.DeepEqual(got, want) {
		t.Errorf("after a second start: %v, want %v", got, want)
	}
}

// TestSQLiteFillsLastPaymentOn: a SQLite database of a version before
// debts.last_payment_on gets it filled from its payments at the next
// start, as the PostgreSQL migration add_debt_last_payment_on fills it.
func TestSQLiteFillsLastPaymentOn(t *testing.T) {
	ctx := context.Background()
	d := migratedSQLite(t, "last.db")
	conn, err := d.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The earlier version's rows: two debts, one with payments.
	for _, s := range []string{
		"PRAGMA foreign_keys = OFF",
		"ALTER TABLE debts DROP COLUMN last_payment_on",
		`INSERT INTO debts (id, created_at, updated_at, original_amount, paid_amount, charged_amount, interest_bearing, demand_sent_at,
		   client_id, debtor_id, interest_rule, collection_fee, late_compensation)
		 VALUES (1, '2026-01-01', '2026-01-01', 100, 30, 100, false, '2026-01-01', 'c', 'd', 'NONE', 0, false),
		        (2, '2026-01-01', '2026-01-01', 100, 0, 100, false, '2026-01-01', 'c', 'd', 'NONE', 0, false)`,
		`INSERT INTO payments (id, created_at, client_id, amount, transaction_date, source, debt_id, debt_invoice_id)
		 VALUES (1, '2026-01-01', 'c', 10, '2026-03-02', 'REPORTED', 1, 1), (2, '2026-01-01', 'c', 20, '2026-02-28', 'REPORTED', 1, 1)`,
		"PRAGMA foreign_keys = ON",
	} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	conn.Close()
	if err := d.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := d.SQL.QueryContext(ctx, "SELECT id, coalesce(last_payment_on, '') FROM debts ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[int]string{}
	for rows.Next() {
		var id int
		var last string
		if err := rows.Scan(&id, &last); err != nil {
			t.Fatal(err)
		}
		got[id] = last
	}
	if want := map[int]string{1: "2026-03-02", 2: ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("last_payment_on after the upgrade: %v, want %v", got, want)
	}
}

// migratedSQLite is a new SQLite database named name, migrated, closed at
// the test's end.
func migratedSQLite(t *testing.T, name string) *store.DB {
	t.Helper()
	ctx := context.Background()
	d, err := store.Open(ctx, filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return d
}
