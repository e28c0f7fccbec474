package graph

import (
	"context"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/scalar"
)

// The entities of the federation subgraph (federation.graphqls,
// docs/federation.md): Query._entities hands each type's representations
// to its FindMany resolver at once, which reads them with one query of the
// ledger (one per type, whatever their number), eager-loads what the
// selection on the type asks for, as the single lookups do, and primes the
// loaders of the fields nested under them, as the lists do. A
// representation of a record that does not exist, or of another client's,
// is null without an error (the ledger's tenancy).

// DebtByIDsInput is the key of a Debt representation that _entities is
// given (federation.graphqls: @key(fields: "id")). gqlgen's federation
// plugin would write it with an int; a debt's id is a scalar.IntID, the
// type of ent.Debt.ID that the plugin reads the key with.
type DebtByIDsInput struct {
	ID scalar.IntID `json:"ID"`
}

// entityClients reads the clients of reps.
func (r *Resolver) entityClients(ctx context.Context, reps []*ClientByIDsInput) ([]*ent.Creditor, error) {
	clients, err := r.ledger.ClientsByID(ctx, keysOf(reps, func(k *ClientByIDsInput) string { return k.ID }),
		func(q *ent.CreditorQuery) error { _, err := q.CollectFields(ctx, "Client"); return err })
	if err != nil {
		return nil, err
	}
	r.primeClients(ctx, found(clients))
	return clients, nil
}

// entityDebtors reads the debtors of reps.
func (r *Resolver) entityDebtors(ctx context.Context, reps []*DebtorByIDsInput) ([]*ent.Debtor, error) {
	debtors, err := r.ledger.DebtorsByID(ctx, keysOf(reps, func(k *DebtorByIDsInput) string { return k.ID }),
		func(q *ent.DebtorQuery) error { _, err := q.CollectFields(ctx, "Debtor"); return err })
	if err != nil {
		return nil, err
	}
	for _, d := range found(debtors) {
		r.primeDebtors(ctx, d.ClientID, []*ent.Debtor{d})
	}
	return debtors, nil
}

// entityInvoices reads the invoices of reps.
func (r *Resolver) entityInvoices(ctx context.Context, reps []*InvoiceByIDsInput) ([]*ent.Invoice, error) {
	invoices, err := r.ledger.InvoicesByID(ctx, keysOf(reps, func(k *InvoiceByIDsInput) string { return k.ID }),
		func(q *ent.InvoiceQuery) error { _, err := q.CollectFields(ctx, "Invoice"); return err })
	if err != nil {
		return nil, err
	}
	// Invoice.debt, its statuses and amounts load for all the invoices at
	// once, with what the selection asks for under debt.
	r.loaders(ctx).invoiceDebt.add(mergeNamed(nil, graphql.CollectFieldsCtx(ctx, []string{"Invoice"}), "debt"))
	r.loaders(ctx).invoiceFacts.prime(found(invoices)...)
	return invoices, nil
}

// entityDebts reads the debts of reps.
func (r *Resolver) entityDebts(ctx context.Context, reps []*DebtByIDsInput) ([]*ent.Debt, error) {
	debts, err := r.ledger.DebtsByID(ctx, keysOf(reps, func(k *DebtByIDsInput) scalar.IntID { return k.ID }),
		func(q *ent.DebtQuery) error { _, err := q.CollectFields(ctx, "Debt"); return err })
	if err != nil {
		return nil, err
	}
	l := r.loaders(ctx)
	for _, d := range found(debts) {
		l.debtEvents.prime(d)
		r.primeDebts(ctx, d.ClientID, []*ent.Debt{d})
	}
	return debts, nil
}

// FederationFields is a field middleware (the server installs it) for the
// two root fields of federation, which gqlgen's plugin resolves by itself
// and fails with errors of its own that the server could only answer as
// INTERNAL:
//
//   - _entities: a representation whose __typename is not one of the
//     subgraph's entity types, or whose id is missing or not an id of the
//     type, is refused as BAD_USER_INPUT on the representation. A
//     well-formed id that finds no record is null, without an error.
//   - _service: with introspection turned off, the subgraph's schema is not
//     served either (NOT_FOUND), as GET /graphql/schema.graphql is not.
func FederationFields(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Object != "Query" {
		return next(ctx)
	}
	switch fc.Field.Name {
	case "_service":
		if oc := graphql.GetOperationContext(ctx); oc != nil && oc.DisableIntrospection {
			return nil, apierr.SchemaNotServed()
		}
	case "_entities":
		reps, _ := fc.Args["representations"].([]map[string]any)
		if err := checkRepresentations(reps); err != nil {
			return nil, err
		}
	}
	return next(ctx)
}

// checkRepresentations refuses every representation that names no entity
// type of the subgraph, or no id of its type.
func checkRepresentations(reps []map[string]any) error {
	var errs apierr.List
	for i, rep := range reps {
		field := "representations." + strconv.Itoa(i)
		typ, _ := rep["__typename"].(string)
		id, ok := rep["id"]
		switch {
		case typ != "Client" && typ != "Debtor" && typ != "Invoice" && typ != "Debt":
			errs.Add(field+".__typename", "must be Client, Debtor, Invoice or Debt, the types with @key")
		case !ok || id == nil:
			errs.Add(field+".id", "the key id is missing")
		case typ == "Debt":
			var n scalar.IntID
			if err := n.UnmarshalGQL(id); err != nil {
				errs.Add(field+".id", "%s", err)
			}
		default:
			if s, isString := id.(string); !isString {
				errs.Add(field+".id", "must be a UUID string")
			} else if _, err := scalar.ParseUUID(s); err != nil {
				errs.Add(field+".id", "%s", err)
			}
		}
	}
	return errs.Err()
}

// keysOf returns the key of every representation.
func keysOf[R any, K any](reps []R, key func(R) K) []K {
	out := make([]K, len(reps))
	for i, rep := range reps {
		out[i] = key(rep)
	}
	return out
}

// found returns the records that were found (not nil).
func found[T any](records []*T) []*T {
	out := make([]*T, 0, len(records))
	for _, rec := range records {
		if rec != nil {
			out = append(out, rec)
		}
	}
	return out
}
