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
	path := filepath.Join(t.TempDir(), "rates.db")
	d, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
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
