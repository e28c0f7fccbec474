package ledger

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtitem"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/ent/debtstep"
	"github.com/debtql/debtql/ent/idempotencyrecord"
	"github.com/debtql/debtql/ent/invoice"
	"github.com/debtql/debtql/ent/invoicearticle"
	"github.com/debtql/debtql/ent/predicate"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// The operations of data rights (api.md §14). The export is a query, but
// an access to personal data is recorded like a change.
const (
	OpAnonymizeDebtor  = "anonymizeDebtor"
	OpDebtorDataExport = "debtorDataExport"
)

// eraseBatch bounds the stored answers read at once while they are
// searched for an anonymised debtor's data.
const eraseBatch = 200

// now is the service's clock, to the microsecond both databases keep.
func (s *Service) now() time.Time {
	now := time.Now
	if s.clock.Now != nil {
		now = s.clock.Now
	}
	return now().UTC().Truncate(time.Microsecond)
}

// openDebt selects the debts that are open (collection.OpenCondition, as
// the lists' activeStatus filter reads it: COLLECTION and LEGAL).
func (s *Service) openDebt() predicate.Debt {
	at := s.clock.At()
	return predicate.Debt(func(sel *sql.Selector) {
		sel.Where(collection.NewDebtSQL(sel, at).ActiveIs(collection.Active))
	})
}

// AnonymizeDebtor replaces a debtor's personal data wherever DebtQL holds
// it with collection.Anonymized (api.md §14): the debtor's row (and so the
// search keys and the name suffixes the database keeps from it), the free
// text that repeats it (of its debts and items, and of the client's
// invoices of the same numbers), and the stored idempotent answers that
// hold it. Amounts, dates, statuses, payments and the audit trail stay. CONFLICT while the debtor has an open debt or when
// it is anonymised already. Its event names the debtor, not the values.
func (s *Service) AnonymizeDebtor(ctx context.Context, a Actor, clientID, id string) (*ent.Debtor, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) (*ent.Debtor, error) {
		if err := s.forClient(ctx, clientID); err != nil {
			return nil, err
		}
		// createDebt reuses a debtor under the lock of its identity: no
		// debt can open on the debtor while it is being anonymised. The
		// identity is read first, then locked, then the row (the order
		// createDebt takes them in).
		key, err := s.db(ctx).Debtor.Query().Where(debtor.ClientID(clientID), debtor.ID(id)).
			Select(debtor.FieldIdentificationKey).String(ctx)
		if ent.IsNotFound(err) {
			return nil, apierr.New(apierr.NotFound, "debtor %s does not exist", id)
		}
		if err != nil {
			return nil, err
		}
		if err := s.lockKeys(ctx, clientID, []int64{debtorLock(clientID, key)}); err != nil {
			return nil, err
		}
		return s.anonymizeDebtor(ctx, a, clientID, id)
	})
}

func (s *Service) anonymizeDebtor(ctx context.Context, a Actor, clientID, id string) (*ent.Debtor, error) {
	db := s.db(ctx)
	d, err := db.Debtor.Query().Where(debtor.ClientID(clientID), debtor.ID(id)).Modify(s.store.LockRows).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierr.New(apierr.NotFound, "debtor %s does not exist", id)
	}
	if err != nil {
		return nil, err
	}
	if err := notAnonymized(d); err != nil {
		return nil, err
	}
	open, err := db.Debt.Query().Where(debt.DebtorID(id), s.openDebt()).Count(ctx)
	if err != nil {
		return nil, err
	}
	if open > 0 {
		return nil, apierr.New(apierr.Conflict, "debtor %s has %d open debt(s): a debtor is anonymized once all its debts are closed", id, open)
	}
	erase := formerValues(d)
	updated, err := db.Debtor.UpdateOne(d).
		SetName(collection.Anonymized).
		SetAddress1(collection.Anonymized).
		ClearAddress2().
		ClearCareOf().
		SetZipCode(collection.Anonymized).
		SetCity(collection.Anonymized).
		ClearEmail().
		ClearPhone().
		SetAnonymizedAt(s.now()).
		// The number and its key together, past the key's hook: every
		// anonymised debtor keeps a key of its own (AnonymizedKey).
		Modify(func(u *sql.UpdateBuilder) {
			u.Set(debtor.FieldIdentificationNumber, collection.Anonymized).
				Set(debtor.FieldIdentificationKey, collection.AnonymizedKey(id))
		}).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.eraseDebtText(ctx, clientID, id, erase); err != nil {
		return nil, err
	}
	if err := s.eraseStoredAnswers(ctx, clientID, erase); err != nil {
		return nil, err
	}
	return recorded(s, ctx, updated, event{a, OpAnonymizeDebtor}, &clientID, nil, touched(auditeventrecord.RecordTypeDEBTOR, id))
}

// notAnonymized refuses to change an anonymised debtor (updateDebtor,
// anonymizeDebtor): its personal data is gone for good, and a new
// hand-over with its former number makes a new debtor.
func notAnonymized(d *ent.Debtor) error {
	if d.AnonymizedAt != nil {
		return apierr.New(apierr.Conflict, "debtor %s is anonymized: its record cannot be changed", d.ID)
	}
	return nil
}

// formerValues is the eraser of a debtor's personal values: every field
// anonymisation replaces, and the number's key (its digits), in which
// form free text may repeat it. The country code stays: it names no one.
func formerValues(d *ent.Debtor) collection.Eraser {
	values := []string{d.Name, d.IdentificationNumber, d.IdentificationKey, d.Address1, d.ZipCode, d.City}
	for _, v := range []*string{d.Address2, d.CareOf, d.Email, d.Phone} {
		if v != nil {
			values = append(values, *v)
		}
	}
	return collection.NewEraser(values...)
}

// eraseDebtText erases the values from the free text of the debtor's debts
// (withdrawal and dispute comments), their steps' comments and items
// (descriptions), and of the client's
// registered invoices of the same numbers (withdrawal comments, article
// names and descriptions), which callers write and which may name the
// debtor.
func (s *Service) eraseDebtText(ctx context.Context, clientID, debtorID string, erase collection.Eraser) error {
	db := s.db(ctx)
	debts, err := db.Debt.Query().Where(debt.DebtorID(debtorID), debt.Or(debt.WithdrawCommentNotNil(), debt.DisputeCommentNotNil())).
		Select(debt.FieldID, debt.FieldWithdrawComment, debt.FieldDisputeComment).All(ctx)
	if err != nil {
		return err
	}
	for _, x := range debts {
		u, changed := db.Debt.UpdateOneID(x.ID), false
		if x.WithdrawComment != nil {
			if text, ok := erase.Text(*x.WithdrawComment); ok {
				u, changed = u.SetWithdrawComment(text), true
			}
		}
		if x.DisputeComment != nil {
			if text, ok := erase.Text(*x.DisputeComment); ok {
				u, changed = u.SetDisputeComment(text), true
			}
		}
		if changed {
			if err := u.Exec(ctx); err != nil {
				return err
			}
		}
	}
	// The comments of the process's steps.
	steps, err := db.DebtStep.Query().Where(debtstep.HasDebtWith(debt.DebtorID(debtorID)), debtstep.CommentNotNil()).
		Select(debtstep.FieldID, debtstep.FieldComment).All(ctx)
	if err != nil {
		return err
	}
	for _, st := range steps {
		text, ok := erase.Text(*st.Comment)
		if !ok {
			continue
		}
		// A step is immutable to every other use case.
		if _, err := db.DebtStep.Update().Where(debtstep.ID(st.ID)).
			Modify(func(u *sql.UpdateBuilder) { u.Set(debtstep.FieldComment, text) }).
			Save(ctx); err != nil {
			return err
		}
	}
	items, err := db.DebtItem.Query().Where(debtitem.HasDebtWith(debt.DebtorID(debtorID)), debtitem.DescriptionNotNil()).
		Select(debtitem.FieldID, debtitem.FieldDescription).All(ctx)
	if err != nil {
		return err
	}
	for _, it := range items {
		text, ok := erase.Text(*it.Description)
		if !ok {
			continue
		}
		// A description is immutable to every other use case.
		if _, err := db.DebtItem.Update().Where(debtitem.ID(it.ID)).
			Modify(func(u *sql.UpdateBuilder) { u.Set(debtitem.FieldDescription, text) }).
			Save(ctx); err != nil {
			return err
		}
	}
	numbers, err := db.DebtItem.Query().Where(debtitem.HasDebtWith(debt.DebtorID(debtorID))).
		Unique(true).Select(debtitem.FieldInvoiceNumber).Strings(ctx)
	if err != nil {
		return err
	}
	for start := 0; start < len(numbers); start += eraseBatch {
		if err := s.eraseInvoiceText(ctx, clientID, numbers[start:min(start+eraseBatch, len(numbers))], erase); err != nil {
			return err
		}
	}
	return nil
}

// eraseInvoiceText erases the values from the client's invoices of the
// given numbers: their withdrawal comments, and their articles' names
// (with the names' search keys) and descriptions.
func (s *Service) eraseInvoiceText(ctx context.Context, clientID string, numbers []string, erase collection.Eraser) error {
	db := s.db(ctx)
	invoices, err := db.Invoice.Query().Where(invoice.ClientID(clientID), invoice.InvoiceNumberIn(numbers...)).
		WithArticles().All(ctx)
	if err != nil {
		return err
	}
	for _, inv := range invoices {
		if inv.WithdrawComment != nil {
			if text, ok := erase.Text(*inv.WithdrawComment); ok {
				if err := db.Invoice.UpdateOneID(inv.ID).SetWithdrawComment(text).Exec(ctx); err != nil {
					return err
				}
			}
		}
		for _, a := range inv.Edges.Articles {
			name, renamed := erase.Text(a.Name)
			var description string
			redescribed := false
			if a.Description != nil {
				description, redescribed = erase.Text(*a.Description)
			}
			if !renamed && !redescribed {
				continue
			}
			// An article is immutable to every other use case.
			if _, err := db.InvoiceArticle.Update().Where(invoicearticle.ID(a.ID)).
				Modify(func(u *sql.UpdateBuilder) {
					if renamed {
						u.Set(invoicearticle.FieldName, name).Set(invoicearticle.FieldNameKey, collection.SearchKey(name))
					}
					if redescribed {
						u.Set(invoicearticle.FieldDescription, description)
					}
				}).
				Save(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// eraseStoredAnswers erases the values from the stored answers of
// idempotent requests (internal/server) that an API key able to see the
// debtor made: its client's keys and the ADMIN keys. A replay then answers
// the stored answer less the erased values; the record is kept, so that a
// retried request is still not done twice. Records are the server's own
// (auth.System), read in batches: there are 24 hours of them at most.
func (s *Service) eraseStoredAnswers(ctx context.Context, clientID string, erase collection.Eraser) error {
	sys := auth.System(ctx)
	db := s.db(ctx)
	keys, err := db.APIKey.Query().Where(apikey.Or(apikey.ClientID(clientID), apikey.RoleEQ(apikey.RoleADMIN))).IDs(sys)
	if err != nil {
		return err
	}
	for after := scalar.IntID(0); ; {
		records, err := db.IdempotencyRecord.Query().
			Where(idempotencyrecord.APIKeyIDIn(keys...), idempotencyrecord.IDGT(after)).
			Order(ent.Asc(idempotencyrecord.FieldID)).Limit(eraseBatch).
			Select(idempotencyrecord.FieldID, idempotencyrecord.FieldBody).All(sys)
		if err != nil {
			return err
		}
		for _, r := range records {
			after = r.ID
			body, ok := erase.JSON(r.Body)
			if !ok {
				continue
			}
			// The answer is immutable to the server: only erasure rewrites it.
			if _, err := db.IdempotencyRecord.Update().Where(idempotencyrecord.ID(r.ID)).
				Modify(func(u *sql.UpdateBuilder) { u.Set(idempotencyrecord.FieldBody, body) }).
				Save(sys); err != nil {
				return err
			}
		}
		if len(records) < eraseBatch {
			return nil
		}
	}
}
