package ledger

import (
	"context"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
)

// CreateClient registers a creditor (ADMIN) under the next client number.
func (s *Service) CreateClient(ctx context.Context, a Actor, in collection.ClientRecord) (*ent.Creditor, error) {
	ctx = a.scope(ctx)
	if err := auth.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if err := in.Normalize(); err != nil {
		return nil, apierr.Prefix(err, "input")
	}
	return inTx(ctx, s, func(ctx context.Context) (*ent.Creditor, error) {
		number, err := s.nextClientNumber(ctx)
		if err != nil {
			return nil, err
		}
		create := s.db(ctx).Creditor.Create().SetClientNumber(number)
		setClient(create.Mutation(), in)
		c, err := create.Save(ctx)
		if err != nil {
			return nil, err
		}
		return recorded(s, ctx, c, event{a, OpCreateClient}, &c.ID, nil, touched(auditeventrecord.RecordTypeCLIENT, c.ID))
	})
}

// UpdateClient replaces a client's record; a CLIENT key may update its own.
func (s *Service) UpdateClient(ctx context.Context, a Actor, id string, in collection.ClientRecord) (*ent.Creditor, error) {
	ctx = a.scope(ctx)
	if err := auth.AuthorizeClient(ctx, id); err != nil {
		return nil, err
	}
	if err := in.Normalize(); err != nil {
		return nil, apierr.Prefix(err, "input")
	}
	return inTx(ctx, s, func(ctx context.Context) (*ent.Creditor, error) {
		update := s.db(ctx).Creditor.UpdateOneID(id)
		setClient(update.Mutation(), in)
		c, err := update.Save(ctx)
		if ent.IsNotFound(err) {
			return nil, apierr.New(apierr.NotFound, "client %s does not exist", id)
		}
		if err != nil {
			return nil, err
		}
		return recorded(s, ctx, c, event{a, OpUpdateClient}, &id, nil, touched(auditeventrecord.RecordTypeCLIENT, id))
	})
}

// firstClientNumber is the number of the first client; numbers below it are
// never handed out, so that a client number never looks like a small count.
const firstClientNumber = 1001

// clientNumberLock names the lock under which the next client number is
// handed out.
const clientNumberLock int64 = 0x64656274716c0001

// nextClientNumber hands out the next client number, under a lock so that
// two concurrent createClient calls never draw the same one.
func (s *Service) nextClientNumber(ctx context.Context) (int, error) {
	if tx := ent.TxFromContext(ctx); tx != nil {
		if err := s.store.Lock(ctx, tx, clientNumberLock); err != nil {
			return 0, err
		}
	}
	last, err := s.db(ctx).Creditor.Query().Aggregate(ent.Max(creditor.FieldClientNumber)).Int(ctx)
	if err != nil {
		// No clients yet: MAX is NULL.
		if n, cerr := s.db(ctx).Creditor.Query().Count(ctx); cerr == nil && n == 0 {
			return firstClientNumber, nil
		}
		return 0, err
	}
	return max(last+1, firstClientNumber), nil
}

// clientSetter is what creating and updating a client have in common.
type clientSetter interface {
	SetName(string)
	SetOrganizationNumber(string)
	SetAdress1(string)
	SetAddress2(string)
	SetZipCode(string)
	SetCity(string)
	SetCountryCode(string)
	SetBankNumber(string)
	SetEmail(string)
	SetContactName(string)
	SetContactEmail(string)
	SetContactPhone(string)
}

// setClient writes a normalised client record onto a create or update
// mutation.
func setClient(m clientSetter, in collection.ClientRecord) {
	m.SetName(in.Name)
	m.SetOrganizationNumber(in.OrganizationNumber)
	m.SetAdress1(in.Adress1)
	m.SetAddress2(in.Address2)
	m.SetZipCode(in.ZipCode)
	m.SetCity(in.City)
	m.SetCountryCode(in.CountryCode)
	m.SetBankNumber(in.BankNumber)
	m.SetEmail(in.Email)
	m.SetContactName(in.ContactName)
	m.SetContactEmail(in.ContactEmail)
	m.SetContactPhone(in.ContactPhone)
}
