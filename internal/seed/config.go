// Package seed fills a DebtQL database with deterministic, realistic data:
// Swedish clients and debtors with valid identity numbers, invoices with
// articles, debts with items, opening and reported payments, and cases that
// are open, paid in full or withdrawn. The same Config gives the same rows.
//
// The data is a pure function of the Config: every value derives from the
// row number and the seed by integer arithmetic (no clock, no shared random
// state), so tables can be generated in any order and regenerated at will.
// Timestamps are laid out over the two years before Config.AsOf.
package seed

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/debtql/debtql/internal/scalar"
)

// Fixed shape of the data, as in the benchmark's data set.
const (
	// ItemsPerDebt is the number of items (DebtInvoices) of every debt.
	ItemsPerDebt = 2
	// ArticlesPerInvoice is the number of articles of every invoice.
	ArticlesPerInvoice = 3
	// FirstClientNumber is the number of the first (hot) client.
	FirstClientNumber = 1001
)

// Limits of the sizes, to keep identity numbers unique and runs sane.
const (
	MaxClients  = 999
	MaxDebts    = 2_000_000
	MaxInvoices = 2_000_000
	// MaxPaymentsPerDebt bounds the payments of one debt.
	MaxPaymentsPerDebt = 10
)

// Config is what to generate.
type Config struct {
	// Clients is the number of clients; client 1 (number 1001) is the hot one.
	Clients int
	// Debts is the number of debtors and of debts: debt i belongs to
	// debtor i, and both to the same client.
	Debts int
	// HotShare is the share (0–1) of the debtors, debts and invoices that
	// belong to the hot client; the rest go round the other clients.
	HotShare float64
	// Payments is the number of payments. Every debt paid in full has at
	// least one; the rest are part payments and second and later payments
	// (see plan). With fewer payments than closed debts, more of those are
	// withdrawn rather than paid in full.
	Payments int
	// Invoices is the number of registered invoices (each with
	// ArticlesPerInvoice articles).
	Invoices int
	// Seed varies names, addresses, amounts, dates and outcomes. The ids,
	// the row-to-client mapping and, with BenchOpen, which debts are open do
	// not depend on it.
	Seed uint64
	// BenchOpen makes the open debts the benchmark's: debt i is open (in
	// collection, not withdrawn nor paid in full) exactly when data.sql
	// gives it main_status = 2 (benchOpen), whatever the seed, so that Q1
	// answers with the same rows on both servers. Without it, as many
	// debts (35 %) are open, picked by the seed.
	BenchOpen bool
	// AsOf is the day the data leads up to: everything happened before it
	// began (in Europe/Stockholm), the newest debts in its last 8 days.
	AsOf scalar.Date
}

// Presets are the named sizes of --scale.
var Presets = map[string]Config{
	// small is a few clients with tens of rows each, to explore in GraphiQL.
	"small": {Clients: 3, Debts: 60, HotShare: 0.5, Payments: 75, Invoices: 40},
	// bench is the benchmark anchor's data set (bench/data.sql at scale 1).
	"bench": {Clients: 20, Debts: 200_000, HotShare: 0.25, Payments: 150_000, Invoices: 100_000, BenchOpen: true},
	// bench10 is the anchor's data at scale 10: ten times the rows, the
	// same ids, mapping and open debts (the hot client holds 500,000 debts).
	"bench10": {Clients: 20, Debts: 2_000_000, HotShare: 0.25, Payments: 1_500_000, Invoices: 1_000_000, BenchOpen: true},
}

// PresetNames lists the presets in a stable order.
func PresetNames() []string {
	names := make([]string, 0, len(Presets))
	for n := range Presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Preset returns the preset named name.
func Preset(name string) (Config, error) {
	c, ok := Presets[name]
	if !ok {
		names := PresetNames()
		return Config{}, fmt.Errorf("unknown scale %q: use %s or %s", name, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
	c.Seed = 1
	return c, nil
}

// Validate checks the sizes.
func (c Config) Validate() error {
	var errs []error
	if c.Clients < 1 || c.Clients > MaxClients {
		errs = append(errs, fmt.Errorf("clients must be 1–%d, not %d", MaxClients, c.Clients))
	}
	if c.Debts < 0 || c.Debts > MaxDebts {
		errs = append(errs, fmt.Errorf("debts must be 0–%d, not %d", MaxDebts, c.Debts))
	}
	if c.Invoices < 0 || c.Invoices > MaxInvoices {
		errs = append(errs, fmt.Errorf("invoices must be 0–%d, not %d", MaxInvoices, c.Invoices))
	}
	if most := MaxPaymentsPerDebt * max(c.Debts, 0); c.Payments < 0 || c.Payments > most {
		errs = append(errs, fmt.Errorf("payments must be 0–%d (at most %d on each debt), not %d",
			most, MaxPaymentsPerDebt, c.Payments))
	}
	if !(c.HotShare >= 0 && c.HotShare <= 1) {
		errs = append(errs, fmt.Errorf("hot share must be between 0 and 1, not %v", c.HotShare))
	}
	if c.AsOf.IsZero() {
		errs = append(errs, errors.New("the as-of date is not set"))
	}
	return errors.Join(errs...)
}

// hotPPM is the hot share in parts per million, the form the row mapping
// uses (integer arithmetic keeps it the same on every machine).
func (c Config) hotPPM() uint64 {
	return uint64(c.HotShare*1e6 + 0.5)
}
