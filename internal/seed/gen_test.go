package seed

import (
	"slices"
	"testing"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// TestBenchShape checks, without a database, that the bench preset has the
// benchmark's shape (bench/data.sql): its row-to-client
// mapping, its payment mapping, and unique valid identity numbers.
func TestBenchShape(t *testing.T) {
	cfg, err := Preset("bench")
	if err != nil {
		t.Fatal(err)
	}
	cfg.AsOf = scalar.NewDate(2026, 11, 22)
	g := newGenerator(cfg)

	if got := ClientID(1); got != "ea182032-d9e4-fed4-59be-cfc110ca2cf8" {
		t.Errorf("hot client id %s, want md5('client:1')::uuid", got)
	}
	if c := g.client(1); c.number != 1001 {
		t.Errorf("client 1 is number %d", c.number)
	}
	perClient := map[int]int{}
	for n := 1; n <= cfg.Debts; n++ {
		want := 2 + n%19 // data.sql: n % 4 = 0 -> client 1, else 1002 + n % 19
		if n%4 == 0 {
			want = 1
		}
		if got := g.clientOf(n); got != want {
			t.Fatalf("row %d belongs to client %d, want %d", n, got, want)
		}
		perClient[g.clientOf(n)]++
	}
	if perClient[1] != 50_000 || g.hotCount(cfg.Debts) != 50_000 || g.hotCount(cfg.Invoices) != 25_000 || len(perClient) != 20 {
		t.Errorf("debts per client: %v", perClient)
	}

	// The payments: exactly 150,000, at least one on every debt paid in
	// full.
	total := 0
	for i := 1; i <= cfg.Debts; i++ {
		m := g.paymentCount(i)
		total += m
		if g.outcomes[i] == outcomePaid && m == 0 {
			t.Fatalf("debt %d is paid in full without payments", i)
		}
	}
	if total != cfg.Payments {
		t.Errorf("%d payments, want %d", total, cfg.Payments)
	}

	// Identity numbers: valid, and unique within each client.
	seen := map[string]bool{}
	for i := 1; i <= cfg.Debts; i++ {
		var n string
		if i%10 == 0 {
			n = organisationsnummer(i)
			if err := collection.ValidateOrganisationsnummer(n); err != nil {
				t.Fatalf("debtor %d: %s: %v", i, n, err)
			}
		} else {
			n = g.personnummer(i)
			if err := collection.ValidatePersonnummer(n); err != nil || len(n) != 12 {
				t.Fatalf("debtor %d: %s: %v", i, n, err)
			}
		}
		if seen[n] {
			t.Fatalf("debtor %d repeats identity number %s", i, n)
		}
		seen[n] = true
	}

	// The benchmark's Q4 pays item 399991 of debt 199996: a hot-client debt
	// open to payments.
	d := g.debt(199996)
	if d.client != 1 || d.withdrawnAt != nil || d.items[0].id != 399991 {
		t.Errorf("debt 199996: client %d, withdrawn %v, first item %d", d.client, d.withdrawnAt, d.items[0].id)
	}
}

func TestAgeIsIncreasingAndBounded(t *testing.T) {
	for _, n := range []int{1, 2, 60, 200_000, MaxDebts} {
		prev, last := age(1, n), 1
		if prev > newest+history || prev < newest {
			t.Errorf("n=%d: oldest row is %v old", n, prev)
		}
		for _, i := range []int{2, n / 2, n - 1, n} {
			if i <= last || i > n {
				continue
			}
			last = i
			if a := age(i, n); a >= prev || a < newest {
				t.Errorf("n=%d: row %d is %v old, after %v", n, i, a, prev)
			} else {
				prev = a
			}
		}
	}
}

// TestBenchOpenDebts checks, without a database, that the bench preset's
// open debts are the benchmark's main_status = 2: the counts and id sums
// over all debts and over the hot client's, and the hot client's first 50
// by id descending (Q1's page), all read from the harness's debtbench.
func TestBenchOpenDebts(t *testing.T) {
	cfg, err := Preset("bench")
	if err != nil {
		t.Fatal(err)
	}
	cfg.AsOf = scalar.NewDate(2026, 11, 22)
	g := newGenerator(cfg)
	var all, hot, allSum, hotSum int
	var page []int
	byOutcome := map[outcome]int{}
	for i := cfg.Debts; i >= 1; i-- {
		byOutcome[g.outcomes[i]]++
		if (g.outcomes[i] == outcomeOpen) != benchOpen(i) {
			t.Fatalf("debt %d: outcome %d, but open in the benchmark: %v", i, g.outcomes[i], benchOpen(i))
		}
		if !benchOpen(i) {
			continue
		}
		all, allSum = all+1, allSum+i
		if g.clientOf(i) == 1 {
			hot, hotSum = hot+1, hotSum+i
			if len(page) < 50 {
				page = append(page, i)
			}
		}
	}
	// SELECT count(*), sum(id) FROM debts WHERE main_status = 2 [AND client_id = hot]
	if all != 69958 || allSum != 6987137375 || hot != 17405 || hotSum != 1745482460 {
		t.Errorf("open debts: %d (id sum %d), the hot client's %d (%d); debtbench: 69958 (6987137375), 17405 (1745482460)",
			all, allSum, hot, hotSum)
	}
	want := []int{200000, 199996, 199980, 199968, 199956, 199948, 199944, 199936, 199924, 199916, 199912, 199904, 199900,
		199884, 199864, 199856, 199844, 199840, 199836, 199832, 199788, 199772, 199760, 199752, 199744, 199736, 199716,
		199708, 199704, 199692, 199684, 199680, 199668, 199636, 199624, 199616, 199608, 199600, 199592, 199588, 199584,
		199580, 199576, 199548, 199544, 199532, 199488, 199480, 199476, 199448}
	if !slices.Equal(page, want) {
		t.Errorf("Q1's page: %v\nwant %v", page, want)
	}
	t.Logf("outcomes: %d open, %d paid in full, %d withdrawn", byOutcome[outcomeOpen], byOutcome[outcomePaid], byOutcome[outcomeWithdrawn])
}

// TestDebtOutcomes checks every debt's payments against its outcome, at
// sizes where payments are plenty, scarce and none: open and withdrawn
// debts are paid less than their amount, debts paid in full exactly it
// (item by item when in more than one payment), the open debts are the
// benchmark's with BenchOpen, and the payments number exactly
// Config.Payments.
func TestDebtOutcomes(t *testing.T) {
	asOf := scalar.NewDate(2026, 3, 15)
	for _, cfg := range []Config{
		Presets["small"],
		{Clients: 4, Debts: 3000, HotShare: 0.25, Payments: 2250, BenchOpen: true}, // the bench's proportions
		{Clients: 2, Debts: 2000, HotShare: 0.5, Payments: 300},                    // fewer payments than closed debts
		{Clients: 2, Debts: 500, HotShare: 0.5, Payments: 0},                       // none: every closed debt withdrawn
		{Clients: 1, Debts: 300, Payments: 300 * MaxPaymentsPerDebt},               // the most
		{Clients: 1, Debts: 1, Payments: 1}, {Clients: 1, Debts: 2, Payments: 0},
	} {
		cfg.AsOf, cfg.Seed = asOf, 5
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		g := newGenerator(cfg)
		total, n := 0, map[outcome]int{}
		for i := 1; i <= cfg.Debts; i++ {
			d := g.debt(i)
			out := g.outcomes[i]
			n[out]++
			total += len(d.payments)
			if len(d.payments) != g.paymentCount(i) || (out == outcomeOpen) != g.open(i) || cfg.BenchOpen && g.open(i) != benchOpen(i) || (out == outcomeWithdrawn) != (d.withdrawnAt != nil) {
				t.Fatalf("%+v: debt %d: outcome %d, %d payments of %d, withdrawn %v", cfg, i, out, len(d.payments), g.paymentCount(i), d.withdrawnAt)
			}
			var sum collection.Money
			for _, p := range d.payments {
				if p.amount <= 0 {
					t.Fatalf("%+v: debt %d: payment of %d", cfg, i, p.amount)
				}
				sum += p.amount
			}
			if sum != d.paid || d.items[0].paid+d.items[1].paid != d.paid {
				t.Fatalf("%+v: debt %d: paid %d, payments %d, items %d + %d", cfg, i, d.paid, sum, d.items[0].paid, d.items[1].paid)
			}
			switch {
			case out == outcomePaid && d.paid != d.original,
				out == outcomePaid && len(d.payments) > 1 && (d.items[0].paid != d.items[0].amount || d.items[1].paid != d.items[1].amount),
				out != outcomePaid && d.paid >= d.original:
				t.Fatalf("%+v: debt %d: outcome %d, paid %d of %d (items %d of %d, %d of %d)", cfg, i, out, d.paid, d.original,
					d.items[0].paid, d.items[0].amount, d.items[1].paid, d.items[1].amount)
			}
		}
		if total != cfg.Payments {
			t.Errorf("%+v: %d payments", cfg, total)
		}
		t.Logf("%d debts, %d payments: %d open, %d paid in full, %d withdrawn", cfg.Debts, cfg.Payments, n[outcomeOpen], n[outcomePaid], n[outcomeWithdrawn])
	}
}

// TestBench10Shape checks, without a database, that the bench10 preset is
// the anchor's data at scale 10 (bench/data.sql with scale=10): ten times
// the rows, the hot client's quarter (500,000 debts) by the same rule, the
// open debts exactly its main_status = 2 (the counts and id sums read from
// debtbench10), exactly 1,500,000 payments, and identity numbers still
// unique at 2,000,000 debtors.
func TestBench10Shape(t *testing.T) {
	if testing.Short() {
		t.Skip("plans 2,000,000 debts")
	}
	cfg, err := Preset("bench10")
	if err != nil {
		t.Fatal(err)
	}
	cfg.AsOf = scalar.NewDate(2026, 11, 22)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if cfg.Debts != 2_000_000 || cfg.Payments != 1_500_000 || cfg.Invoices != 1_000_000 || cfg.Clients != 20 {
		t.Fatalf("bench10 is %+v", cfg)
	}
	g := newGenerator(cfg)
	if g.hotCount(cfg.Debts) != 500_000 || g.hotCount(cfg.Invoices) != 250_000 {
		t.Errorf("the hot client holds %d debts and %d invoices", g.hotCount(cfg.Debts), g.hotCount(cfg.Invoices))
	}
	var all, hot, allSum, hotSum, payments int
	var page []int
	seen := make(map[string]bool, cfg.Debts)
	for i := cfg.Debts; i >= 1; i-- {
		want := 2 + i%19
		if i%4 == 0 {
			want = 1
		}
		if got := g.clientOf(i); got != want {
			t.Fatalf("row %d belongs to client %d, want %d", i, got, want)
		}
		if (g.outcomes[i] == outcomeOpen) != benchOpen(i) {
			t.Fatalf("debt %d: outcome %d, but open in the benchmark: %v", i, g.outcomes[i], benchOpen(i))
		}
		payments += g.paymentCount(i)
		n := organisationsnummer(i)
		if i%10 != 0 {
			n = g.personnummer(i)
		}
		if seen[n] {
			t.Fatalf("debtor %d repeats identity number %s", i, n)
		}
		seen[n] = true
		if !benchOpen(i) {
			continue
		}
		all, allSum = all+1, allSum+i
		if want == 1 {
			hot, hotSum = hot+1, hotSum+i
			if len(page) < 3 {
				page = append(page, i)
			}
		}
	}
	if payments != cfg.Payments {
		t.Errorf("%d payments, want %d", payments, cfg.Payments)
	}
	// SELECT count(*), sum(id) FROM debts WHERE main_status = 2 [AND client_id = hot] on debtbench10
	if all != bench10Open || allSum != bench10OpenSum || hot != bench10HotOpen || hotSum != bench10HotOpenSum {
		t.Errorf("open debts: %d (id sum %d), the hot client's %d (%d); debtbench10: %d (%d), %d (%d)",
			all, allSum, hot, hotSum, bench10Open, bench10OpenSum, bench10HotOpen, bench10HotOpenSum)
	}
	if !slices.Equal(page, bench10Q1Start) {
		t.Errorf("Q1's page starts %v, debtbench10's %v", page, bench10Q1Start)
	}
}

// debtbench10's open debts (main_status = 2): SELECT count(*), sum(id)
// FROM debts WHERE main_status = 2 [AND client_id = the hot client], and
// the first ids of Q1's page.
const (
	bench10Open, bench10OpenSum       = 700342, 700254377799
	bench10HotOpen, bench10HotOpenSum = 174496, 174708588688
)

var bench10Q1Start = []int{1999992, 1999988, 1999984}

// TestInOrder: the rows of items made on several goroutines come in item
// order, whatever the number of workers and items per chunk, and stopping
// early returns (the workers and the dispatcher finish).
func TestInOrder(t *testing.T) {
	item := func(i int) [][]any {
		rows := make([][]any, i%3) // 0, 1 or 2 rows an item
		for k := range rows {
			rows[k] = []any{i, k}
		}
		return rows
	}
	var want [][2]int
	const n = 5000
	for i := 1; i <= n; i++ {
		for k := range i % 3 {
			want = append(want, [2]int{i, k})
		}
	}
	for _, workers := range []int{1, 2, 3, 8} {
		var got [][2]int
		for row := range inOrder(n, workers, item) {
			got = append(got, [2]int{row[0].(int), row[1].(int)})
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d workers: %d rows, not in order", workers, len(got))
		}
		seen := 0
		for range inOrder(n, workers, item) {
			if seen++; seen == 1500 {
				break
			}
		}
	}
}
