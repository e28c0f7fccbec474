package main

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/debtql/debtql/ent/auditevent"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/store"
)

// retentionFixture stores debtors of one client directly: "paid" (its
// debt paid in full), "withdrawn", "open" (an open debt), "mixed" (one
// closed and one open debt) and "none" (no debts), all created now.
func retentionFixture(t *testing.T, path string) map[string]string {
	t.Helper()
	clientID := seedClient(t, path)
	ctx := auth.System(context.Background())
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := map[string]string{}
	for _, name := range []string{"paid", "withdrawn", "open", "mixed", "none"} {
		d, err := db.Ent.Debtor.Create().SetClientID(clientID).SetIsCorporation(false).
			SetIdentificationNumber("NO-" + name).SetName("Debtor " + name).
			SetAddress1("Storgata 1").SetZipCode("0150").SetCity("Oslo").SetCountryCode("NO").
			SetEmail(name + "@example.org").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = d.ID
		debt := func(paid collection.Money, withdrawn bool) {
			c := db.Ent.Debt.Create().SetClientID(clientID).SetDebtorID(d.ID).SetOriginalAmount(10000).SetPaidAmount(paid).
				SetChargedAmount(10000).SetDemandSentAt(time.Now())
			if withdrawn {
				c.SetWithdrawnAt(time.Now())
			}
			if _, err := c.Save(ctx); err != nil {
				t.Fatal(err)
			}
		}
		switch name {
		case "paid":
			debt(10000, false)
		case "withdrawn":
			debt(0, true)
		case "open":
			debt(5000, false)
		case "mixed":
			debt(10000, false)
			debt(0, false)
		}
	}
	return ids
}

func TestRetention(t *testing.T) {
	cleanEnv(t)
	path := dbPath(t)
	ids := retentionFixture(t, path)
	year := time.Now().In(stockholm).Year()
	due := []string{ids["paid"], ids["withdrawn"], ids["none"]}

	t.Run("dry run lists and counts, writes nothing", func(t *testing.T) {
		stdout, stderr, err := runCLI(t, "retention", "--sqlite", path, "--before", itoa(year))
		if err != nil {
			t.Fatalf("retention: %v\n%s", err, stderr)
		}
		for _, id := range due {
			if !strings.Contains(stdout, "debtor "+id) {
				t.Errorf("the dry run does not list debtor %s:\n%s", id, stdout)
			}
		}
		for _, name := range []string{"open", "mixed"} {
			if strings.Contains(stdout, ids[name]) {
				t.Errorf("the dry run lists the %s debtor:\n%s", name, stdout)
			}
		}
		if !strings.Contains(stdout, "3 debtors have had all their debts closed before") || !strings.Contains(stdout, "dry run") {
			t.Errorf("the dry run's count:\n%s", stdout)
		}
		if strings.Contains(stdout, "Debtor paid") || strings.Contains(stdout, "@example.org") {
			t.Errorf("the run prints personal data:\n%s", stdout)
		}
		// The debts closed this year: none closed before the end of last year.
		stdout, _, err = runCLI(t, "retention", "--sqlite", path, "--before", itoa(year-1))
		if err != nil || !strings.Contains(stdout, "0 debtors have had") {
			t.Errorf("retention --before %d: %v\n%s", year-1, err, stdout)
		}
		checkNames(t, path, ids, nil)
	})

	t.Run("--apply anonymises them", func(t *testing.T) {
		stdout, stderr, err := runCLI(t, "retention", "--sqlite", path, "--before", itoa(year), "--apply")
		if err != nil {
			t.Fatalf("retention --apply: %v\n%s", err, stderr)
		}
		if !strings.Contains(stdout, "3 debtors anonymized") {
			t.Errorf("retention --apply:\n%s", stdout)
		}
		checkNames(t, path, ids, due)
		ctx := auth.System(context.Background())
		db, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		events, err := db.Ent.AuditEvent.Query().Where(auditevent.Operation("anonymizeDebtor")).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 3 || events[0].APIKeyName != "debtql retention" || events[0].Role != auditevent.RoleADMIN {
			t.Errorf("the run's audit events: %v", events)
		}
		// Again: nothing left to do.
		stdout, _, err = runCLI(t, "retention", "--sqlite", path, "--before", itoa(year), "--apply")
		if err != nil || !strings.Contains(stdout, "0 debtors anonymized") {
			t.Errorf("a second run: %v\n%s", err, stdout)
		}
	})

	t.Run("bad command lines", func(t *testing.T) {
		for _, args := range [][]string{{}, {"--before", "x"}, {"--before", "2020", "extra"}} {
			_, _, err := runCLI(t, append([]string{"retention", "--sqlite", path}, args...)...)
			if !errors.Is(err, errUsage) && !isUsage(err) {
				t.Errorf("retention %v: %v, want a usage error", args, err)
			}
		}
		if _, _, err := runCLI(t, "retention", "--sqlite", path, "--before", "1800"); err == nil || !strings.Contains(err.Error(), "before") {
			t.Errorf("retention --before 1800: %v", err)
		}
	})
}

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

func itoa(n int) string { return strconv.Itoa(n) }

// checkNames fails t unless exactly the debtors of anonymized read
// [anonymized].
func checkNames(t *testing.T, path string, ids map[string]string, anonymized []string) {
	t.Helper()
	ctx := auth.System(context.Background())
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, id := range ids {
		d, err := db.Ent.Debtor.Query().Where(debtor.ID(id)).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := "Debtor " + name
		for _, a := range anonymized {
			if a == id {
				want = collection.Anonymized
			}
		}
		if d.Name != want || (want == collection.Anonymized) != (d.AnonymizedAt != nil && d.Email == nil) {
			t.Errorf("debtor %s (%s) reads %q, anonymizedAt %v", name, id, d.Name, d.AnonymizedAt)
		}
	}
}
