package ledger

import (
	"context"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
)

// CreateDebtor registers a debtor of a client; its identification number
// (by digits) must be new to the client.
func (s *Service) CreateDebtor(ctx context.Context, a Actor, clientID string, in collection.DebtorRecord) (*ent.Debtor, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) (*ent.Debtor, error) {
		if err := s.forClient(ctx, clientID); err != nil {
			return nil, err
		}
		if err := in.Normalize(); err != nil {
			return nil, apierr.Prefix(err, "input")
		}
		// Under the lock of the identity, as createDebt creates a debtor.
		if err := s.lockKeys(ctx, clientID, []int64{debtorLock(clientID, collection.IdentificationKey(in.IdentificationNumber))}); err != nil {
			return nil, err
		}
		if err := s.checkDebtorNumberFree(ctx, clientID, in.IdentificationNumber, ""); err != nil {
			return nil, err
		}
		create := s.db(ctx).Debtor.Create().SetClientID(clientID)
		setDebtor(create.Mutation(), in)
		d, err := create.Save(ctx)
		if ent.IsConstraintError(err) { // a concurrent createDebtor took the number
			return nil, errDebtorNumberTaken
		}
		if err != nil {
			return nil, err
		}
		return recorded(s, ctx, d, event{a, OpCreateDebtor}, &clientID, nil, touched(auditeventrecord.RecordTypeDEBTOR, d.ID))
	})
}

// UpdateDebtor replaces a debtor's record: an optional field not given
// becomes empty.
func (s *Service) UpdateDebtor(ctx context.Context, a Actor, clientID, id string, in collection.DebtorRecord) (*ent.Debtor, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) (*ent.Debtor, error) {
		if err := s.forClient(ctx, clientID); err != nil {
			return nil, err
		}
		if err := in.Normalize(); err != nil {
			return nil, apierr.Prefix(err, "input")
		}
		current, err := s.db(ctx).Debtor.Query().Where(debtor.ClientID(clientID), debtor.ID(id)).
			Select(debtor.FieldAnonymizedAt, debtor.FieldIdentificationKey).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apierr.New(apierr.NotFound, "debtor %s does not exist", id)
		}
		if err != nil {
			return nil, err
		}
		if err := notAnonymized(current); err != nil {
			return nil, err
		}
		// Under the locks of the identity it has and the one it takes, as
		// createDebt reuses and creates debtors.
		if err := s.lockKeys(ctx, clientID, []int64{debtorLock(clientID, current.IdentificationKey),
			debtorLock(clientID, collection.IdentificationKey(in.IdentificationNumber))}); err != nil {
			return nil, err
		}
		if err := s.checkDebtorNumberFree(ctx, clientID, in.IdentificationNumber, id); err != nil {
			return nil, err
		}
		update := s.db(ctx).Debtor.UpdateOneID(id).Where(debtor.ClientID(clientID))
		setDebtor(update.Mutation(), in)
		d, err := update.Save(ctx)
		switch {
		case ent.IsNotFound(err):
			return nil, apierr.New(apierr.NotFound, "debtor %s does not exist", id)
		case ent.IsConstraintError(err):
			return nil, errDebtorNumberTaken
		case err != nil:
			return nil, err
		}
		return recorded(s, ctx, d, event{a, OpUpdateDebtor}, &clientID, nil, touched(auditeventrecord.RecordTypeDEBTOR, id))
	})
}

// debtorFields is what creating and updating a debtor have in common.
type debtorFields interface {
	SetIsCorporation(bool)
	SetIdentificationNumber(string)
	SetName(string)
	SetAddress1(string)
	SetAddress2(string)
	ClearAddress2()
	SetCareOf(string)
	ClearCareOf()
	SetZipCode(string)
	SetCity(string)
	SetCountryCode(string)
	SetEmail(string)
	ClearEmail()
	SetPhone(string)
	ClearPhone()
}

// setDebtor writes a normalised record onto a mutation; an optional field
// that is not given is cleared (updateDebtor replaces the record).
func setDebtor(m debtorFields, in collection.DebtorRecord) {
	m.SetIsCorporation(in.IsCorporation)
	m.SetIdentificationNumber(in.IdentificationNumber)
	m.SetName(in.Name)
	m.SetAddress1(in.Address.Address1)
	setOrClear(in.Address.Address2, m.SetAddress2, m.ClearAddress2)
	setOrClear(in.Address.CareOf, m.SetCareOf, m.ClearCareOf)
	m.SetZipCode(in.Address.ZipCode)
	m.SetCity(in.Address.City)
	m.SetCountryCode(in.Address.CountryCode)
	var email, phone *string
	if ci := in.ContactInformation; ci != nil {
		email, phone = ci.Email, ci.Phone
	}
	setOrClear(email, m.SetEmail, m.ClearEmail)
	setOrClear(phone, m.SetPhone, m.ClearPhone)
}

func setOrClear(v *string, set func(string), clear func()) {
	if v == nil {
		clear()
		return
	}
	set(*v)
}

// checkDebtorNumberFree refuses a second debtor of the client with the same
// identification number (compared by digits).
func (s *Service) checkDebtorNumberFree(ctx context.Context, clientID, number, exceptID string) error {
	q := s.db(ctx).Debtor.Query().Where(debtor.ClientID(clientID), debtor.IdentificationKey(collection.IdentificationKey(number)))
	if exceptID != "" {
		q.Where(debtor.IDNEQ(exceptID))
	}
	taken, err := q.Exist(ctx)
	if err != nil {
		return err
	}
	if taken {
		return errDebtorNumberTaken
	}
	return nil
}

// errDebtorNumberTaken refuses a second debtor with a client's number.
var errDebtorNumberTaken = &apierr.Error{Code: apierr.Conflict, Field: "input.identificationNumber",
	Message: "the client already has a debtor with this identification number"}
