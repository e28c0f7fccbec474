package store

import (
	"context"
	"database/sql"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// shippedReferenceRates are the Riksbank's reference rates that DebtQL
// ships (before 1 July 2002 the discount rate), valid-from date and percent,
// as docs/reference-rates.md records them with their sources: every row of
// its table that has a value. 2000-01-01 is the discount rate in force that
// day (set from 4 October 1999); the value set in January 2000 was not
// found (the page's note a). The half-years 2000-07-01 to 2002-01-01 and
// 2026-07-01 have no value found and no row. PostgreSQL gets these rows
// from the migration reference_rates_data, SQLite from Migrate;
// TestShippedReferenceRates holds both to this list.
var shippedReferenceRates = [][2]string{
	{"2000-01-01", "1.50"},
	{"2002-07-01", "4.50"},
	{"2003-01-01", "4.00"},
	{"2003-07-01", "3.00"},
	{"2004-01-01", "3.00"},
	{"2004-07-01", "2.00"},
	{"2005-01-01", "2.00"},
	{"2005-07-01", "1.50"},
	{"2006-01-01", "1.50"},
	{"2006-07-01", "2.50"},
	{"2007-01-01", "3.00"},
	{"2007-07-01", "3.50"},
	{"2008-01-01", "4.00"},
	{"2008-07-01", "4.50"},
	{"2009-01-01", "2.00"},
	{"2009-07-01", "0.50"},
	{"2010-01-01", "0.50"},
	{"2010-07-01", "0.50"},
	{"2011-01-01", "1.50"},
	{"2011-07-01", "2.00"},
	{"2012-01-01", "2.00"},
	{"2012-07-01", "1.50"},
	{"2013-01-01", "1.00"},
	{"2013-07-01", "1.00"},
	{"2014-01-01", "1.00"},
	{"2014-07-01", "1.00"},
	{"2015-01-01", "0.00"},
	{"2015-07-01", "0.00"},
	{"2016-01-01", "0.00"},
	{"2016-07-01", "-0.50"},
	{"2017-01-01", "-0.50"},
	{"2017-07-01", "-0.50"},
	{"2018-01-01", "-0.50"},
	{"2018-07-01", "-0.50"},
	{"2019-01-01", "-0.50"},
	{"2019-07-01", "0.00"},
	{"2020-01-01", "0.00"},
	{"2020-07-01", "0.00"},
	{"2021-01-01", "0.00"},
	{"2021-07-01", "0.00"},
	{"2022-01-01", "0.00"},
	{"2022-07-01", "0.50"},
	{"2023-01-01", "2.50"},
	{"2023-07-01", "3.50"},
	{"2024-01-01", "4.00"},
	{"2024-07-01", "4.00"},
	{"2025-01-01", "3.00"},
	{"2025-07-01", "2.00"},
	{"2026-01-01", "2.00"},
}

// ShippedReferenceRates returns the reference rates DebtQL ships, oldest
// first (see shippedReferenceRates). It panics on an entry that is not a
// valid reference rate (collection.ReferenceRate.Check), which the tests
// rule out.
func ShippedReferenceRates() []collection.ReferenceRate {
	out := make([]collection.ReferenceRate, len(shippedReferenceRates))
	for i, e := range shippedReferenceRates {
		d, err := scalar.ParseDate(e[0])
		if err != nil {
			panic("store: shipped reference rate " + e[0] + ": " + err.Error())
		}
		r, err := collection.ParseRate(e[1])
		if err != nil {
			panic("store: shipped reference rate " + e[0] + ": " + err.Error())
		}
		out[i] = collection.ReferenceRate{ValidFrom: d, Rate: r}
		if err := out[i].Check(); err != nil {
			panic("store: shipped reference rate " + e[0] + ": " + err.Error())
		}
	}
	return out
}

// sqliteReferenceRates inserts the shipped reference rates that a SQLite
// database lacks, in one transaction: on a new database all of them, as
// the migration reference_rates_data does on PostgreSQL. An entry already
// there is kept as it is, so that a rate an ADMIN key set
// (setReferenceRate) survives every start, and an entry a later DebtQL
// ships is added on its first start.
func sqliteReferenceRates(ctx context.Context, db *sql.DB) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	for _, r := range ShippedReferenceRates() {
		if _, err := tx.ExecContext(ctx, `INSERT INTO reference_rates (valid_from, rate) VALUES (?, ?)
		  ON CONFLICT (valid_from) DO NOTHING`, r.ValidFrom, int64(r.Rate)); err != nil {
			return err
		}
	}
	return tx.Commit()
}
