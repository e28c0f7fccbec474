package ledger

import (
	"context"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/ent/payment"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/scalar"
)

// OperatorKeyID is the API key id the audit trail records for work done
// from the command line, where no API key acts (the nil UUID): the event's
// apiKeyName says which command it was.
const OperatorKeyID = "00000000-0000-0000-0000-000000000000"

// Operator is the actor of a command run by the operator of the machine
// (debtql retention): ADMIN, without an API key.
func Operator(command, runID string) Actor {
	return Actor{KeyID: OperatorKeyID, KeyName: command, Role: apikey.RoleADMIN, RequestID: runID}
}

// RetentionEnd is the instant the yearly retention run for year counts
// from: the start of the next year in the service's time zone.
func (s *Service) RetentionEnd(year int) time.Time {
	return time.Date(year+1, time.January, 1, 0, 0, 0, 0, s.clock.At().Location)
}

// RetentionDue lists the debtors that the yearly retention run for year
// may anonymise (docs/operations.md): not anonymised yet, registered
// before the end of year, and whose debts all closed before it: none is
// open, none was created, withdrawn or paid at or after the end of year
// (a payment counts by its transaction date and by when it was booked
// here, whichever is later). Oldest first, by client. ADMIN only.
func (s *Service) RetentionDue(ctx context.Context, a Actor, year int) ([]*ent.Debtor, error) {
	ctx = a.scope(ctx)
	if err := auth.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if year < 1900 || year > 9998 {
		return nil, apierr.Invalid("before", "must be a year from 1900 to 9998, not %d", year)
	}
	end := s.RetentionEnd(year)
	endDay := scalar.DateOf(end)
	late := debt.Or(
		s.openDebt(),
		debt.CreatedAtGTE(end),
		debt.WithdrawnAtGTE(end),
		debt.HasPaymentsWith(payment.Or(payment.CreatedAtGTE(end), payment.TransactionDateGTE(endDay))),
	)
	return s.db(ctx).Debtor.Query().
		Where(debtor.AnonymizedAtIsNil(), debtor.CreatedAtLT(end), debtor.Not(debtor.HasDebtsWith(late))).
		Order(ent.Asc(debtor.FieldClientID), ent.Asc(debtor.FieldCreatedAt), ent.Asc(debtor.FieldID)).
		Select(debtor.FieldID, debtor.FieldClientID, debtor.FieldCreatedAt).
		All(ctx)
}
