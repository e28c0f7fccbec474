package ledger

import (
	"context"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/referencerate"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
)

// ReferenceRates returns the reference-rate table, oldest first. It is
// global data: every key reads all of it.
func (s *Service) ReferenceRates(ctx context.Context) ([]*ent.ReferenceRate, error) {
	return s.db(ctx).ReferenceRate.Query().Order(ent.Asc(referencerate.FieldValidFrom)).All(ctx)
}

// RatesInForce returns the reference-rate table as the claim engine takes
// it (collection.ClaimFacts.Rates), oldest first: the rate in force on a
// day is the entry with the latest ValidFrom on or before it, 0 before the
// first.
func (s *Service) RatesInForce(ctx context.Context) ([]collection.ReferenceRate, error) {
	rows, err := s.ReferenceRates(ctx)
	if err != nil {
		return nil, err
	}
	rates := make([]collection.ReferenceRate, len(rows))
	for i, r := range rows {
		rates[i] = collection.ReferenceRate{ValidFrom: r.ValidFrom, Rate: r.Rate}
	}
	return rates, nil
}

// SetReferenceRate sets the reference rate in force from in.ValidFrom
// (ADMIN): it adds the entry, or replaces the rate of the entry of that
// date. Its event names no client and no record: the table is no client's,
// and the audit trail has no record type for it.
func (s *Service) SetReferenceRate(ctx context.Context, a Actor, in collection.ReferenceRate) (*ent.ReferenceRate, error) {
	ctx = a.scope(ctx)
	if err := auth.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if err := in.Check(); err != nil {
		return nil, apierr.Prefix(err, "input")
	}
	return inTx(ctx, s, func(ctx context.Context) (*ent.ReferenceRate, error) {
		db := s.db(ctx)
		// One statement whether the date is new or not, so that two
		// concurrent calls for a new date do not collide on its key.
		err := db.ReferenceRate.Create().SetValidFrom(in.ValidFrom).SetRate(in.Rate).
			OnConflictColumns(referencerate.FieldValidFrom).UpdateRate().
			Exec(ctx)
		if err != nil {
			return nil, err
		}
		r, err := db.ReferenceRate.Query().Where(referencerate.ValidFrom(in.ValidFrom)).Only(ctx)
		if err != nil {
			return nil, err
		}
		return recorded(s, ctx, r, event{a, OpSetReferenceRate}, nil, nil)
	})
}
