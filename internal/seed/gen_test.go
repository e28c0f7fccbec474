package seed

import (
	"testing"

	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// TestBenchShape checks, without a database, that the bench preset has the
// benchmark's shape (../shared/bench/README.md, seed.sql): its row-to-client
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
		want := 2 + n%19 // seed.sql: n % 4 = 0 -> client 1, else 1002 + n % 19
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

	// Payment j is on debt (7j mod 200000)+1, one each on 150,000 debts.
	paid := map[int]bool{}
	for j := 1; j <= cfg.Payments; j++ {
		paid[(7*j)%cfg.Debts+1] = true
	}
	total := 0
	for i := 1; i <= cfg.Debts; i++ {
		m := g.paymentCount(i)
		total += m
		if (m == 1) != paid[i] || m > 1 {
			t.Fatalf("debt %d gets %d payments; in the benchmark it has a payment: %v", i, m, paid[i])
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

func TestModInverse(t *testing.T) {
	for _, m := range []int64{2, 60, 200_000, 1_999_999} {
		for _, a := range []int64{7, 11, 13} {
			inv, ok := modInverse(a, m)
			if ok != (gcd(a, m) == 1) || ok && (a*inv)%m != 1 {
				t.Errorf("modInverse(%d, %d) = %d, %v", a, m, inv, ok)
			}
		}
	}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
