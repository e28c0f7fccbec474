package graph

import (
	"context"
	"strconv"
	"strings"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/predicate"
	"github.com/debtql/debtql/internal/collection"
)

// firstClientNumber is the number of the first client; numbers below it are
// never handed out, so that a client number never looks like a small count.
const firstClientNumber = 1001

// clientNumberLock names the lock under which the next client number is
// handed out.
const clientNumberLock int64 = 0x64656274716c0001

// nextClientNumber hands out the next client number, under a lock so that
// two concurrent createClient calls never draw the same one.
func (r *Resolver) nextClientNumber(ctx context.Context) (int, error) {
	if tx := ent.TxFromContext(ctx); tx != nil {
		if err := r.locker.Lock(ctx, tx, clientNumberLock); err != nil {
			return 0, err
		}
	}
	last, err := r.db(ctx).Creditor.Query().Aggregate(ent.Max(creditor.FieldClientNumber)).Int(ctx)
	if err != nil {
		// No clients yet: MAX is NULL.
		if n, cerr := r.db(ctx).Creditor.Query().Count(ctx); cerr == nil && n == 0 {
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

// clientSearch matches the name as a case-insensitive substring, the
// organisation number by its digits, and the client number exactly when the
// term is a number; nil for a blank term.
func clientSearch(term string) predicate.Creditor {
	term = strings.TrimSpace(term)
	if term == "" {
		return nil
	}
	preds := []predicate.Creditor{creditor.NameKeyContains(collection.SearchKey(term))}
	if digits := collection.Digits(term); digits != "" && collection.Digits(term) == strings.NewReplacer(" ", "", "-", "").Replace(term) {
		preds = append(preds, creditor.OrganizationNumberDigitsContains(digits))
	}
	if n, err := strconv.Atoi(term); err == nil {
		preds = append(preds, creditor.ClientNumber(n))
	}
	return creditor.Or(preds...)
}
