package auth_test

import (
	"context"
	"testing"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/internal/apitest"
	"github.com/debtql/debtql/internal/auth"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// TestTenantFilterUnderTheResolvers checks the filter itself, below any
// resolver: a query of a CLIENT viewer that forgets to name its client still
// sees only its client's rows, and cannot change another client.
func TestTenantFilterUnderTheResolvers(t *testing.T) {
	env := apitest.New(t)
	ownID, _ := env.NewClient(t, "Own AB")
	otherID, _ := env.NewClient(t, "Other AB")
	_, secret := env.NewKey(t, "CLIENT", ownID)
	client := env.DB.Ent

	viewer, err := auth.Authenticate(context.Background(), client, "Bearer "+secret)
	if err != nil {
		t.Fatal(err)
	}
	ctx := auth.WithViewer(context.Background(), viewer)

	all, err := client.Creditor.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].ID != ownID {
		t.Fatalf("a CLIENT viewer's unfiltered query saw %d clients", len(all))
	}
	if _, err := client.Creditor.Get(ctx, otherID); !ent.IsNotFound(err) {
		t.Fatalf("a CLIENT viewer read another client: %v", err)
	}
	if err := client.Creditor.UpdateOneID(otherID).SetName("Hijacked").Exec(ctx); err == nil {
		t.Fatal("a CLIENT viewer updated another client")
	}
	if _, err := client.APIKey.Create().SetName("x").SetRole(apikey.RoleADMIN).SetSecretHash("x").Save(ctx); err == nil {
		t.Fatal("a CLIENT viewer created an API key below the resolvers")
	}
	keys, err := client.APIKey.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.ClientID == nil || *k.ClientID != ownID {
			t.Fatalf("a CLIENT viewer saw another client's or an ADMIN key: %+v", k)
		}
	}
	// The reference rates are no client's: read whole, changed by ADMIN only.
	rates, err := client.ReferenceRate.Query().All(ctx)
	if err != nil || len(rates) == 0 {
		t.Fatalf("a CLIENT viewer read %d reference rates: %v", len(rates), err)
	}
	if err := client.ReferenceRate.UpdateOneID(rates[0].ID).SetRate(99).Exec(ctx); err == nil {
		t.Fatal("a CLIENT viewer changed a reference rate below the resolvers")
	}
	if _, err := client.ReferenceRate.Create().SetValidFrom(rates[0].ValidFrom.AddDays(1)).SetRate(0).Save(ctx); err == nil {
		t.Fatal("a CLIENT viewer created a reference rate below the resolvers")
	}
	other, err := client.Creditor.Get(auth.System(context.Background()), otherID)
	if err != nil || other.Name != "Other AB" {
		t.Fatalf("the other client changed: %+v %v", other, err)
	}

	// Without a viewer (and not as the system) nothing is read at all.
	if _, err := client.Creditor.Query().All(context.Background()); err == nil {
		t.Fatal("a query without a viewer was answered")
	}
}
