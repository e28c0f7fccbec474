package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtitem"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/ent/payment"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// clientLock names the lock under which a client's debts are created and
// its invoices withdrawn, so that an invoice number is never held by two
// unwithdrawn debts and a new debtor is created once.
func clientLock(clientID string) int64 {
	sum := sha256.Sum256([]byte("debts:" + clientID))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// lockClient takes the client's lock for the rest of the transaction.
func (s *Service) lockClient(ctx context.Context, clientID string) error {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return s.locker.Lock(ctx, tx, clientLock(clientID))
	}
	return nil
}

// CreateDebt hands a debtor's receivables over: reuse or create the
// debtor, then write the debt, its items and opening payments, all or
// nothing.
func (s *Service) CreateDebt(ctx context.Context, a Actor, clientID string, in collection.DebtorWithDebtsRecord) (*ent.Debt, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) (*ent.Debt, error) {
		if err := s.forClient(ctx, clientID); err != nil {
			return nil, err
		}
		return s.createDebt(ctx, a, clientID, in)
	})
}

func (s *Service) createDebt(ctx context.Context, a Actor, clientID string, in collection.DebtorWithDebtsRecord) (*ent.Debt, error) {
	at := s.clock.At()
	if err := in.NormalizeAt(at.Today); err != nil {
		return nil, apierr.Prefix(err, "input")
	}
	if err := s.lockClient(ctx, clientID); err != nil {
		return nil, err
	}
	if err := s.checkNumbersFree(ctx, clientID, in.Debts); err != nil {
		return nil, err
	}
	db := s.db(ctx)
	debtorID, err := s.reuseDebtor(ctx, clientID, in)
	if err != nil {
		return nil, err
	}
	// Within the ceiling: Normalize refused items that sum above it.
	original, paid, err := in.Amounts()
	if err != nil {
		return nil, err
	}
	terms, err := s.handoverTerms(ctx, clientID, in)
	if err != nil {
		return nil, err
	}
	// The demand: sent at the hand-over's instant, today, or on the day
	// given (from the start of that day).
	created := time.Now().UTC().Truncate(time.Microsecond)
	demandSentAt, demandDay := created, at.Today
	if in.DemandSentOn != nil {
		demandDay = *in.DemandSentOn
		demandSentAt = demandDay.Start(at.Location).UTC()
	}
	fees := handoverFees(in, terms, demandDay)
	facts, err := s.handoverFacts(ctx, in, terms, fees)
	if err != nil {
		return nil, err
	}
	charged, err := facts.Summary(at.Today)
	if err != nil {
		return nil, err
	}
	d, err := db.Debt.Create().
		SetClientID(clientID).
		SetDebtorID(debtorID).
		SetCreatedAt(created).
		SetUpdatedAt(created).
		SetOriginalAmount(original).
		SetPaidAmount(paid).
		SetChargedAmount(charged).
		SetInterestRule(debt.InterestRule(terms.Interest.String())).
		SetCollectionFee(terms.CollectionFee).
		SetLateCompensation(terms.LateCompensation).
		SetInterestBearing(facts.InterestBearing()).
		SetDemandSentAt(demandSentAt).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	items := make([]*ent.DebtItemCreate, len(in.Debts))
	for i, it := range in.Debts {
		var reminder *time.Time
		if it.ReminderDate != nil {
			u := it.ReminderDate.UTC()
			reminder = &u
		}
		items[i] = db.DebtItem.Create().
			SetClientID(clientID).
			SetDebtID(d.ID).
			SetPosition(i).
			SetInvoiceNumber(it.InvoiceNumber).
			SetNillableDescription(it.Description).
			SetInvoiceDate(it.InvoiceDate.UTC()).
			SetDueDate(it.DueDate.UTC()).
			SetNillableReminderDate(reminder).
			SetDueOn(scalar.DateOf(it.DueDate)).
			SetAmount(it.Amount).
			SetPaidAmount(it.Paid()).
			SetNillableInterestRate(it.InterestRate).
			SetNillableReminderFee(it.ReminderFee)
	}
	saved, err := db.DebtItem.CreateBulk(items...).Save(ctx)
	if err != nil {
		return nil, err
	}
	var payments []*ent.PaymentCreate
	for i, it := range in.Debts {
		for _, p := range it.Payments {
			var booked *scalar.Date
			if p.BookedDate != nil {
				b := scalar.DateOf(*p.BookedDate)
				booked = &b
			}
			payments = append(payments, db.Payment.Create().
				SetClientID(clientID).
				SetDebtID(d.ID).
				SetDebtItemID(saved[i].ID).
				SetAmount(p.Amount).
				SetTransactionDate(scalar.DateOf(p.TransactionDate)).
				SetNillableBookedDate(booked).
				SetSource(payment.SourceBEFORE_HANDOVER))
		}
	}
	feeIDs, err := s.chargeFees(ctx, clientID, d.ID, fees)
	if err != nil {
		return nil, err
	}
	// The event names the debtor, the debt, its items and its opening
	// payments.
	records := make([]auditRecord, 0, 2+len(saved)+len(payments))
	records = append(records, touched(auditeventrecord.RecordTypeDEBTOR, debtorID))
	debtRecord := touchedInt(auditeventrecord.RecordTypeDEBT, d.ID)
	debtRecord.after = s.debtStatuses(d)
	records = append(records, debtRecord)
	for _, it := range saved {
		records = append(records, touchedInt(auditeventrecord.RecordTypeDEBT_INVOICE, it.ID))
	}
	for _, id := range feeIDs {
		records = append(records, touchedInt(auditeventrecord.RecordTypeFEE, id))
	}
	// Bulk inserts stay below the databases' parameter limits.
	for start := 0; start < len(payments); start += 1000 {
		created, err := db.Payment.CreateBulk(payments[start:min(start+1000, len(payments))]...).Save(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range created {
			records = append(records, touchedInt(auditeventrecord.RecordTypePAYMENT, p.ID))
		}
	}
	return recorded(s, ctx, d, event{a, OpCreateDebt}, &clientID, &d.ID, records...)
}

// handoverTerms are a new debt's terms: those given with it, else its
// client's.
func (s *Service) handoverTerms(ctx context.Context, clientID string, in collection.DebtorWithDebtsRecord) (collection.Terms, error) {
	if in.Terms != nil {
		return *in.Terms, nil
	}
	c, err := s.db(ctx).Creditor.Get(ctx, clientID)
	if err != nil {
		return collection.Terms{}, err
	}
	return ClientTerms(c), nil
}

// checkNumbersFree refuses items whose invoice number an unwithdrawn debt of
// the client already holds: no invoice is collected twice.
func (s *Service) checkNumbersFree(ctx context.Context, clientID string, items []collection.DebtItemRecord) error {
	numbers := make([]string, len(items))
	for i, it := range items {
		numbers[i] = it.InvoiceNumber
	}
	held, err := s.db(ctx).DebtItem.Query().
		Where(debtitem.ClientID(clientID), debtitem.InvoiceNumberIn(numbers...),
			debtitem.HasDebtWith(debt.WithdrawnAtIsNil())).
		Select(debtitem.FieldInvoiceNumber, debtitem.FieldDebtID).
		All(ctx)
	if err != nil || len(held) == 0 {
		return err
	}
	byNumber := map[string]scalar.IntID{}
	for _, h := range held {
		byNumber[h.InvoiceNumber] = h.DebtID
	}
	var errs apierr.List
	for i, it := range items {
		if id, ok := byNumber[it.InvoiceNumber]; ok {
			errs = append(errs, &apierr.Error{Code: apierr.Conflict, Field: "input.debts." + strconv.Itoa(i) + ".invoiceNumber",
				Message: "invoice " + it.InvoiceNumber + " is already in collection in debt " + strconv.Itoa(int(id))})
		}
	}
	return errs.Err()
}

// reuseDebtor returns the client's debtor with the input's identification
// number, refreshed with the input's name, address and contact details
// (contact details not given are kept), or a new debtor.
func (s *Service) reuseDebtor(ctx context.Context, clientID string, in collection.DebtorWithDebtsRecord) (string, error) {
	db := s.db(ctx)
	existing, err := db.Debtor.Query().
		Where(debtor.ClientID(clientID), debtor.IdentificationKey(collection.IdentificationKey(in.IdentificationNumber))).
		Only(ctx)
	switch {
	case ent.IsNotFound(err):
		create := db.Debtor.Create().SetClientID(clientID)
		setDebtor(create.Mutation(), in.Debtor())
		d, err := create.Save(ctx)
		if err != nil {
			return "", err
		}
		return d.ID, nil
	case err != nil:
		return "", err
	}
	update := db.Debtor.UpdateOne(existing).
		SetIsCorporation(in.IsCorporation).
		SetIdentificationNumber(in.IdentificationNumber).
		SetName(in.Name).
		SetAddress1(in.Address.Address1).
		SetZipCode(in.Address.ZipCode).
		SetCity(in.Address.City).
		SetCountryCode(in.Address.CountryCode).
		SetNillableEmail(in.Email).
		SetNillablePhone(in.Phone)
	m := update.Mutation()
	setOrClear(in.Address.Address2, m.SetAddress2, m.ClearAddress2)
	setOrClear(in.Address.CareOf, m.SetCareOf, m.ClearCareOf)
	if err := update.Exec(ctx); err != nil {
		return "", err
	}
	return existing.ID, nil
}

// lockedDebt reads a debt of the client and locks its row for the rest of
// the transaction (on PostgreSQL), so that payments and withdrawals on one
// debt happen one after the other.
func (s *Service) lockedDebt(ctx context.Context, clientID string, id scalar.IntID) (*ent.Debt, error) {
	d, err := s.db(ctx).Debt.Query().
		Where(debt.ClientID(clientID), debt.ID(id)).
		Modify(s.locker.LockRows).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierr.New(apierr.NotFound, "debt %d does not exist", id)
	}
	return d, err
}

// WithdrawDebtRecord is a withdrawal of a debt: its id, the client it
// names (when given, the client of the call), and a comment.
type WithdrawDebtRecord struct {
	ID       scalar.IntID
	ClientID *string
	Comment  *string
}

// WithdrawDebt withdraws a debt of the client: a withdrawn or closed debt
// is CONFLICT. Input errors name the fields under "input".
func (s *Service) WithdrawDebt(ctx context.Context, a Actor, clientID string, in WithdrawDebtRecord) (*ent.Debt, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) (*ent.Debt, error) {
		if err := s.forClient(ctx, clientID); err != nil {
			return nil, err
		}
		if in.ClientID != nil && *in.ClientID != clientID {
			return nil, apierr.Invalid("input.clientId", "must be the clientId argument (%s) when given", clientID)
		}
		comment, err := collection.Comment(in.Comment, "input.comment")
		if err != nil {
			return nil, err
		}
		return s.withdrawDebt(ctx, a, clientID, in.ID, comment)
	})
}

func (s *Service) withdrawDebt(ctx context.Context, a Actor, clientID string, id scalar.IntID, comment *string) (*ent.Debt, error) {
	d, err := s.lockedDebt(ctx, clientID, id)
	if err != nil {
		return nil, err
	}
	switch p := collection.ProjectDebt(d.Facts(), s.clock.At()); {
	case d.WithdrawnAt != nil:
		return nil, apierr.New(apierr.Conflict, "debt %d is already withdrawn", d.ID)
	case p.Main == collection.StageClosed:
		return nil, apierr.New(apierr.Conflict, "debt %d is paid in full and closed: it cannot be withdrawn", d.ID)
	}
	withdrawn, err := s.db(ctx).Debt.UpdateOne(d).
		SetWithdrawnAt(time.Now().UTC().Truncate(time.Microsecond)).
		SetNillableWithdrawComment(comment).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	if withdrawn.InterestBearing {
		// Interest stops on the day of withdrawal: the summary is the
		// claim of that day.
		if err := s.resummarize(ctx, withdrawn); err != nil {
			return nil, err
		}
	}
	debtRecord := touchedInt(auditeventrecord.RecordTypeDEBT, d.ID)
	debtRecord.before, debtRecord.after = s.debtStatuses(d), s.debtStatuses(withdrawn)
	return recorded(s, ctx, withdrawn, event{a, OpWithdrawDebt}, &clientID, &d.ID, debtRecord)
}
