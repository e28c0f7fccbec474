package ent

// Hand-written (not generated): the statuses of a debt that do not depend on
// the date. GraphQL binds Debt's fields of the same names to these methods,
// which run inline, instead of to resolvers, which gqlgen runs each on a
// goroutine of its own (docs/performance.md). underStatus depends on the
// date (DEMAND_SENT for 8 days) and stays a resolver.

import (
	"time"

	"github.com/debtql/debtql/internal/collection"
)

// settled is the debt's projection for the fields that do not depend on
// the date: every field but Under.
func (_m *Debt) settled() collection.DebtProjection {
	return collection.ProjectDebt(collection.DebtFacts{
		ID:        int(_m.ID),
		Original:  _m.OriginalAmount,
		Paid:      _m.PaidAmount,
		Withdrawn: _m.WithdrawnAt != nil,
		CreatedAt: _m.CreatedAt,
	}, collection.Now{Location: time.UTC})
}

// MainStatus is CLOSED when withdrawn or paid in full, else COLLECTION.
func (_m *Debt) MainStatus() collection.CollectionStage { return _m.settled().Main }

// PaymentStatus is paid against originalAmount.
func (_m *Debt) PaymentStatus() collection.PaymentStatus { return _m.settled().Payment }

// ActiveStatus is INACTIVE exactly when CLOSED.
func (_m *Debt) ActiveStatus() collection.ActiveStatus { return _m.settled().Active }

// IsCompleted reports whether the debt is CLOSED.
func (_m *Debt) IsCompleted() bool { return _m.settled().IsCompleted }

// RemainingAmount is originalAmount - paidAmount, never below 0.
func (_m *Debt) RemainingAmount() collection.Money { return _m.settled().Remaining }

// OverpaidAmount is what was paid beyond originalAmount.
func (_m *Debt) OverpaidAmount() collection.Money { return _m.settled().Overpaid }
