package store_test

import (
	"testing"

	"github.com/debtql/debtql/ent/migrate"
)

// TestEveryTenantTableCarriesItsClient holds the schema to what
// docs/scaling.md's plan for distributing by client needs: every table of a
// client's data has a client_id column, the distribution key, so that its
// rows can live on the client's shard next to the rows they join (child
// tables such as payments are reached through their parent, whose lists
// lead with client_id). A new table must either carry client_id or be
// named here as shared, with the reason.
func TestEveryTenantTableCarriesItsClient(t *testing.T) {
	shared := map[string]string{
		"clients":             "the tenants themselves: a reference table",
		"api_keys":            "read on every request, small: a reference table (client_id nullable for ADMIN keys)",
		"idempotency_records": "keyed by API key, never joined: local to the coordinator",
		"reference_rates":     "the Riksbank's rates, the same for every client: a reference table",
	}
	seen := map[string]bool{}
	for _, table := range migrate.Tables {
		seen[table.Name] = true
		if _, ok := shared[table.Name]; ok {
			continue
		}
		hasColumn := false
		for _, c := range table.Columns {
			if c.Name == "client_id" {
				hasColumn = true
			}
		}
		if !hasColumn {
			t.Errorf("table %s has no client_id column: tenant data must carry its client (docs/scaling.md), or name the table as shared here", table.Name)
		}
	}
	for name := range shared {
		if !seen[name] {
			t.Errorf("shared table %s no longer exists: remove it from the list", name)
		}
	}
}
