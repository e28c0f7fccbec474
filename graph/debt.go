package graph

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtcount"
	"github.com/debtql/debtql/ent/debtinvoice"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/ent/payment"
	"github.com/debtql/debtql/ent/predicate"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// defaultDebtOrder is newest first (api.md §7).
var defaultDebtOrder = &ent.DebtOrder{Direction: entgql.OrderDirectionDesc, Field: ent.DebtOrderFieldCreatedAt}

// debtCursorValues are the cursor value types of the debt orders.
var debtCursorValues = map[string]cursorValue{
	"CREATED_AT":      timeValue,
	"ID":              intIDValue,
	"ORIGINAL_AMOUNT": moneyValue,
}

// debts lists a client's debts (of one debtor when debtorID is set); the
// caller has authorized the client.
func (r *Resolver) debts(ctx context.Context, clientID, debtorID string, filter *DebtFilter, orderBy *ent.DebtOrder, args pageArgs) (*ent.DebtConnection, error) {
	q, p, lo, order, err := r.debtQuery(ctx, clientID, filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	if debtorID != "" {
		q.Where(debt.DebtorID(debtorID))
	} else {
		p.Total = keptDebtTotal(clientID, filter)
	}
	conn, err := q.Page(ctx, p, ent.WithDebtOrder(order))
	if err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		lo.tagCursors(&e.Cursor)
	}
	r.primeDebts(ctx, clientID, conn.Nodes())
	return conn, nil
}

// keptDebtTotal is the total of a client's debts that match filter as
// debt_counts keeps it, for the filters those counts answer: none, or open
// or closed debts by mainStatus or activeStatus (SelectsOpen), without a
// search. Any other filter is counted (nil).
func keptDebtTotal(clientID string, f *DebtFilter) func(dialect string) *sql.Selector {
	t := sql.Table(debtcount.Table)
	column := t.C(debtcount.FieldDebts)
	if f != nil {
		if f.UnderStatus != nil || f.PaymentStatus != nil || !blankTerm(f.SearchTerm) {
			return nil
		}
		var selects []func() (open, ok bool)
		if f.MainStatus != nil {
			selects = append(selects, f.MainStatus.SelectsOpen)
		}
		if f.ActiveStatus != nil {
			selects = append(selects, f.ActiveStatus.SelectsOpen)
		}
		var want *bool
		for _, sel := range selects {
			open, ok := sel()
			if !ok || (want != nil && *want != open) {
				return nil // a value no debt reads, or open and closed at once: counted
			}
			want = &open
		}
		switch {
		case want == nil:
		case *want:
			column = t.C(debtcount.FieldOpenDebts)
		default:
			column = t.C(debtcount.FieldDebts) + " - " + t.C(debtcount.FieldOpenDebts)
		}
	}
	return func(d string) *sql.Selector {
		return sql.Dialect(d).Select(sql.As(column, "n")).From(t).
			Where(sql.EQ(t.C(debtcount.FieldID), clientID))
	}
}

// debtQuery checks a debt list's arguments and returns the query of the
// client's debts that match the filter, the page to read and its order.
func (r *Resolver) debtQuery(ctx context.Context, clientID string, filter *DebtFilter, orderBy *ent.DebtOrder, args pageArgs) (*ent.DebtQuery, ent.Paging, listOrder, *ent.DebtOrder, error) {
	q, p, lo, order, err := r.debtListQuery(ctx, filter, orderBy, args)
	if err != nil {
		return nil, p, lo, nil, err
	}
	return q.Where(debt.ClientID(clientID)), p, lo, order, nil
}

// debtListQuery checks a debt list's arguments and returns the query of the
// debts (of every client) that match the filter, the page to read and its
// order.
func (r *Resolver) debtListQuery(ctx context.Context, filter *DebtFilter, orderBy *ent.DebtOrder, args pageArgs) (*ent.DebtQuery, ent.Paging, listOrder, *ent.DebtOrder, error) {
	order := defaultDebtOrder
	if orderBy != nil {
		order = orderBy
	}
	lo := newListOrder("debts", order.Field.String(), order.Direction, debtCursorValues[order.Field.String()], false)
	p, err := args.paging(lo)
	if err != nil {
		return nil, p, lo, nil, err
	}
	preds, err := debtFilter(filter, r.clock.At())
	if err != nil {
		return nil, p, lo, nil, err
	}
	return r.db(ctx).Debt.Query().Where(preds...), p, lo, order, nil
}

// debtFilter builds the predicates of a DebtFilter (api.md §7).
func debtFilter(f *DebtFilter, now collection.Now) ([]predicate.Debt, error) {
	if f == nil {
		return nil, nil
	}
	var preds []predicate.Debt
	is := func(p func(collection.DebtSQL) *sql.Predicate) {
		preds = append(preds, func(s *sql.Selector) { s.Where(p(collection.NewDebtSQL(s, now))) })
	}
	if v := f.ActiveStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.ActiveIs(*v) })
	}
	if v := f.MainStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.MainIs(*v) })
	}
	if v := f.UnderStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.UnderIs(*v) })
	}
	if v := f.PaymentStatus; v != nil {
		is(func(q collection.DebtSQL) *sql.Predicate { return q.PaymentIs(*v) })
	}
	s, err := newSearch(f.SearchType, f.SearchTerm)
	if err != nil {
		return nil, err
	}
	if s != nil {
		p, err := match(s, debtSearch)
		if err != nil {
			return nil, err
		}
		preds = append(preds, p)
	}
	return preds, nil
}

// debtSearch matches debts by their debtor's name, identification number or
// e-mail, their items' invoice numbers, or their id.
var debtSearch = searchFields[predicate.Debt]{
	name:  func(k string) predicate.Debt { return debt.HasDebtorWith(debtor.NameKeyContains(k)) },
	email: func(k string) predicate.Debt { return debt.HasDebtorWith(debtor.EmailKeyContains(k)) },
	identification: func(k string) predicate.Debt {
		return debt.HasDebtorWith(debtor.IdentificationKeyContains(k))
	},
	invoiceNumber: func(k string) predicate.Debt { return debt.HasInvoicesWith(debtinvoice.InvoiceNumberKeyContains(k)) },
	debtID:        func(id scalar.IntID) predicate.Debt { return debt.ID(id) },
	or:            debt.Or,
}

// intIDValue accepts cursors of lists ordered by an integer id.
func intIDValue(v any) (any, bool) {
	m, ok := moneyValue(v)
	if !ok {
		return nil, false
	}
	return scalar.IntID(m.(collection.Money)), true
}

// debtProjection is the debt's statuses at the current date.
func (r *Resolver) debtProjection(d *ent.Debt) collection.DebtProjection {
	return collection.ProjectDebt(*debtFacts(d), r.clock.At())
}

// clientLock names the lock under which a client's debts are created and
// its invoices withdrawn, so that an invoice number is never held by two
// unwithdrawn debts and a new debtor is created once.
func clientLock(clientID string) int64 {
	sum := sha256.Sum256([]byte("debts:" + clientID))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// lockClient takes the client's lock for the rest of the transaction.
func (r *Resolver) lockClient(ctx context.Context, clientID string) error {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return r.locker.Lock(ctx, tx, clientLock(clientID))
	}
	return nil
}

// createDebt hands a debtor's receivables over (api.md §5, §6): reuse or
// create the debtor, then write the debt, its items and opening payments.
// The mutation's transaction makes it all or nothing.
func (r *Resolver) createDebt(ctx context.Context, clientID string, in collection.DebtorWithDebtsRecord) (*ent.Debt, error) {
	if err := in.Normalize(); err != nil {
		return nil, apierr.Prefix(err, "input")
	}
	if err := r.lockClient(ctx, clientID); err != nil {
		return nil, err
	}
	if err := r.checkNumbersFree(ctx, clientID, in.Debts); err != nil {
		return nil, err
	}
	db := r.db(ctx)
	debtorID, err := r.reuseDebtor(ctx, clientID, in)
	if err != nil {
		return nil, err
	}
	// Within the ceiling: Normalize refused items that sum above it.
	original, paid, err := in.Amounts()
	if err != nil {
		return nil, err
	}
	d, err := db.Debt.Create().
		SetClientID(clientID).
		SetDebtorID(debtorID).
		SetOriginalAmount(original).
		SetPaidAmount(paid).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	items := make([]*ent.DebtInvoiceCreate, len(in.Debts))
	for i, it := range in.Debts {
		var reminder *time.Time
		if it.ReminderDate != nil {
			u := it.ReminderDate.UTC()
			reminder = &u
		}
		items[i] = db.DebtInvoice.Create().
			SetClientID(clientID).
			SetDebtID(d.ID).
			SetPosition(i).
			SetInvoiceNumber(it.InvoiceNumber).
			SetNillableDescription(it.Description).
			SetInvoiceDate(it.InvoiceDate.UTC()).
			SetDueDate(it.DueDate.UTC()).
			SetNillableReminderDate(reminder).
			SetAmount(it.Amount).
			SetPaidAmount(it.Paid())
	}
	saved, err := db.DebtInvoice.CreateBulk(items...).Save(ctx)
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
				SetDebtInvoiceID(saved[i].ID).
				SetAmount(p.Amount).
				SetTransactionDate(scalar.DateOf(p.TransactionDate)).
				SetNillableBookedDate(booked).
				SetSource(payment.SourceBEFORE_HANDOVER))
		}
	}
	// The event names the debtor, the debt, its items and its opening
	// payments.
	records := make([]auditRecord, 0, 2+len(saved)+len(payments))
	records = append(records, touched(auditeventrecord.RecordTypeDEBTOR, debtorID))
	debtRecord := touchedInt(auditeventrecord.RecordTypeDEBT, d.ID)
	debtRecord.after = r.debtStatuses(d)
	records = append(records, debtRecord)
	for _, it := range saved {
		records = append(records, touchedInt(auditeventrecord.RecordTypeDEBT_INVOICE, it.ID))
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
	return auditResult(r, ctx, d, nil, &clientID, &d.ID, records...)
}

// checkNumbersFree refuses items whose invoice number an unwithdrawn debt of
// the client already holds: no invoice is collected twice.
func (r *Resolver) checkNumbersFree(ctx context.Context, clientID string, items []collection.DebtItemRecord) error {
	numbers := make([]string, len(items))
	for i, it := range items {
		numbers[i] = it.InvoiceNumber
	}
	held, err := r.db(ctx).DebtInvoice.Query().
		Where(debtinvoice.ClientID(clientID), debtinvoice.InvoiceNumberIn(numbers...),
			debtinvoice.HasDebtWith(debt.WithdrawnAtIsNil())).
		Select(debtinvoice.FieldInvoiceNumber, debtinvoice.FieldDebtID).
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
func (r *Resolver) reuseDebtor(ctx context.Context, clientID string, in collection.DebtorWithDebtsRecord) (string, error) {
	db := r.db(ctx)
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
func (r *Resolver) lockedDebt(ctx context.Context, clientID string, id scalar.IntID) (*ent.Debt, error) {
	d, err := r.db(ctx).Debt.Query().
		Where(debt.ClientID(clientID), debt.ID(id)).
		Modify(r.locker.LockRows).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierr.New(apierr.NotFound, "debt %d does not exist", id)
	}
	return d, err
}

// addDebtPayment records a payment on a debt item (api.md §5).
//
// Every payment on a debt updates the debt's row and its item's, whose row
// locks are held until COMMIT, so payments on one debt queue behind one
// another for as long as those locks are held. On PostgreSQL the payment is
// booked by one statement (bookPayments), which takes the locks, inserts the
// payment and writes the audit event; the commit follows. Without a
// transaction (SingleStatement), payments on one debt that arrive while one
// is being booked are booked together by one such statement when it ends
// (paymentQueues). On SQLite, which
// runs one write transaction at a time, the checks, the reads and the insert
// come first, the two updates last, each one statement that returns the new
// amount; then the audit event (whose statuses come from those amounts).
// The locks are held until the commit, which comes after the whole answer
// is resolved: answering the payment with its debt and item sends no
// further query, but fields a caller nests deeper (the debt's debtor, its
// events) run inside the hold. The debt's update re-checks that it is not
// withdrawn, so a withdrawal that commits in between still refuses the
// payment, and that the payment keeps its paid amount within the money
// ceiling (collection.MaxAmount), so that concurrent payments cannot pass
// it together: on every path the check holds under the row lock, and a
// payment refused by it writes nothing (BAD_USER_INPUT on input.amount).
func (r *Resolver) addDebtPayment(ctx context.Context, clientID string, in collection.PaymentRecord) (*ent.Payment, error) {
	if err := in.Check(r.clock.At()); err != nil {
		// An unknown client is NOT_FOUND before its input is looked at.
		if err := r.clientExists(ctx, clientID); err != nil {
			return nil, err
		}
		return nil, apierr.Prefix(err, "input")
	}
	tx := ent.TxFromContext(ctx)
	single := tx == nil && singleStatement(ctx)
	if tx == nil && !single {
		return nil, errors.New("addDebtPayment runs in the mutation's transaction")
	}
	if single || tx.Dialect() == dialect.Postgres {
		// In a transaction, or alone (SingleStatement): the statement is
		// atomic either way.
		actor, err := r.auditActor(ctx)
		if err != nil {
			return nil, err
		}
		m := &paymentMember{in: in, actor: actor}
		if single {
			err = r.bookQueued(ctx, clientID, m)
		} else {
			err = r.bookPayments(ctx, tx, clientID, in.DebtID, []*paymentMember{m})
		}
		if err != nil {
			return nil, err
		}
		if m.p != nil {
			return m.p, nil
		}
		return nil, r.unpayable(ctx, clientID, in)
	}
	d, item, err := r.payableDebt(ctx, clientID, in)
	if err != nil {
		return nil, err
	}
	if !collection.PaidWithin(d.PaidAmount, in.Amount) {
		return nil, apierr.Prefix(collection.ErrPaidAboveCeiling(d.PaidAmount), "input")
	}
	db := r.db(ctx)
	p, err := db.Payment.Create().
		SetClientID(clientID).
		SetDebtID(d.ID).
		SetDebtInvoiceID(item.ID).
		SetAmount(in.Amount).
		SetTransactionDate(in.TransactionDate).
		SetSource(payment.SourceREPORTED).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	// The locks, last.
	now := time.Now().UTC().Truncate(time.Microsecond)
	b := sql.Dialect(tx.Dialect())
	paid, ok, err := addReturning(ctx, tx, b.Update(debt.Table).
		Add(debt.FieldPaidAmount, int64(in.Amount)).
		Set(debt.FieldUpdatedAt, now).
		Where(sql.And(sql.EQ(debt.FieldID, d.ID), sql.EQ(debt.FieldClientID, clientID), sql.IsNull(debt.FieldWithdrawnAt),
			// The ceiling, without an overflow: in.Amount is within it.
			sql.LTE(debt.FieldPaidAmount, int64(collection.MaxAmount-in.Amount)))).
		Returning(debt.FieldPaidAmount))
	if err != nil {
		return nil, err
	}
	if !ok {
		// Withdrawn, or paid up to the ceiling, since it was read; the
		// transaction rolls back.
		return nil, r.unpayable(ctx, clientID, in)
	}
	d.PaidAmount, d.UpdatedAt = paid, now
	itemPaid, ok, err := addReturning(ctx, tx, b.Update(debtinvoice.Table).
		Add(debtinvoice.FieldPaidAmount, int64(in.Amount)).
		Where(sql.EQ(debtinvoice.FieldID, item.ID)).
		Returning(debtinvoice.FieldPaidAmount))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("debt item %d vanished while paying it", item.ID)
	}
	item.PaidAmount = itemPaid
	// The debt's statuses around the payment, from the sum its update
	// returned under the row lock: exact even when payments race. (Written
	// after the updates, so it lengthens the lock's hold by the event's
	// inserts; an event with a guessed "before" would be wrong.)
	debtRecord := touchedInt(auditeventrecord.RecordTypeDEBT, d.ID)
	before := *d
	before.PaidAmount = paid - in.Amount
	debtRecord.before = r.debtStatuses(&before)
	debtRecord.after = r.debtStatuses(d)
	if err := r.audit(ctx, &clientID, &d.ID,
		touchedInt(auditeventrecord.RecordTypePAYMENT, p.ID),
		debtRecord,
		touchedInt(auditeventrecord.RecordTypeDEBT_INVOICE, item.ID)); err != nil {
		return nil, err
	}
	// d has only this item loaded: hand out a copy without edges, whose
	// invoices (and the rest) load when asked for.
	paidDebt := *d
	paidDebt.Edges = ent.DebtEdges{}
	p.SetLoadedEdges(&paidDebt, item)
	return p, nil
}

// payableDebt reads the debt and the item a payment is for, without locks,
// and checks that the client and the debt exist, that the debt is not
// withdrawn and that the item is one of its own.
func (r *Resolver) payableDebt(ctx context.Context, clientID string, in collection.PaymentRecord) (*ent.Debt, *ent.DebtInvoice, error) {
	if err := r.clientExists(ctx, clientID); err != nil {
		return nil, nil, err
	}
	d, err := r.db(ctx).Debt.Query().
		Where(debt.ClientID(clientID), debt.ID(in.DebtID)).
		WithInvoices(func(q *ent.DebtInvoiceQuery) { q.Where(debtinvoice.ID(in.InvoiceID)) }).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil, apierr.New(apierr.NotFound, "debt %d does not exist", in.DebtID)
	}
	if err != nil {
		return nil, nil, err
	}
	if d.WithdrawnAt != nil {
		return nil, nil, debtWithdrawn(d.ID)
	}
	if len(d.Edges.Invoices) != 1 {
		return nil, nil, apierr.Invalid("input.invoiceId", "must be the id of an item (DebtInvoice) of debt %d", d.ID)
	}
	return d, d.Edges.Invoices[0], nil
}

// unpayable says why a payment was not booked: the debt or its item is
// not there, the debt is withdrawn, or the payment would take its paid
// amount above the ceiling (as they are read now); else the debt changed
// meanwhile.
func (r *Resolver) unpayable(ctx context.Context, clientID string, in collection.PaymentRecord) error {
	d, _, err := r.payableDebt(ctx, clientID, in)
	if err != nil {
		return err
	}
	if !collection.PaidWithin(d.PaidAmount, in.Amount) {
		return apierr.Prefix(collection.ErrPaidAboveCeiling(d.PaidAmount), "input")
	}
	return apierr.New(apierr.Conflict, "debt %d changed while the payment was being booked: retry", in.DebtID)
}

// debtWithdrawn refuses a payment on a withdrawn debt.
func debtWithdrawn(id scalar.IntID) error {
	return apierr.New(apierr.Conflict, "debt %d is withdrawn: payments cannot be added", id)
}

// addReturning runs an UPDATE that returns one amount, and reports whether
// it updated a row.
func addReturning(ctx context.Context, tx *ent.Tx, u *sql.UpdateBuilder) (collection.Money, bool, error) {
	query, args := u.Query()
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return 0, false, rows.Err()
	}
	var v int64
	if err := rows.Scan(&v); err != nil {
		return 0, false, err
	}
	return collection.Money(v), true, rows.Close()
}

// withdrawDebt withdraws a debt (api.md §5, §8): a closed debt is CONFLICT.
func (r *Resolver) withdrawDebt(ctx context.Context, clientID string, in WithdrawDebtInput) (*ent.Debt, error) {
	if in.ClientID != nil && *in.ClientID != clientID {
		return nil, apierr.Invalid("input.clientId", "must be the clientId argument (%s) when given", clientID)
	}
	comment, err := trimComment(in.Comment, "input.comment")
	if err != nil {
		return nil, err
	}
	d, err := r.lockedDebt(ctx, clientID, scalar.IntID(in.ID))
	if err != nil {
		return nil, err
	}
	switch p := r.debtProjection(d); {
	case d.WithdrawnAt != nil:
		return nil, apierr.New(apierr.Conflict, "debt %d is already withdrawn", d.ID)
	case p.Main == collection.StageClosed:
		return nil, apierr.New(apierr.Conflict, "debt %d is paid in full and closed: it cannot be withdrawn", d.ID)
	}
	withdrawn, err := r.db(ctx).Debt.UpdateOne(d).
		SetWithdrawnAt(time.Now().UTC().Truncate(time.Microsecond)).
		SetNillableWithdrawComment(comment).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	debtRecord := touchedInt(auditeventrecord.RecordTypeDEBT, d.ID)
	debtRecord.before, debtRecord.after = r.debtStatuses(d), r.debtStatuses(withdrawn)
	return auditResult(r, ctx, withdrawn, nil, &clientID, &d.ID, debtRecord)
}

// trimComment trims a comment; blank is none; free text (tabs and line
// breaks allowed) of at most 2000 characters.
func trimComment(comment *string, field string) (*string, error) {
	if comment == nil {
		return nil, nil
	}
	c := strings.TrimSpace(*comment)
	if c == "" {
		return nil, nil
	}
	if e := collection.CheckField(field, c, collection.MaxTextLength, true); e != nil {
		return nil, e
	}
	return &c, nil
}

// sortItems puts a debt's items in the order they were given.
func sortItems(items []*ent.DebtInvoice) []*ent.DebtInvoice {
	sort.Slice(items, func(i, j int) bool { return items[i].Position < items[j].Position })
	return items
}

// sortPayments puts payments oldest first.
func sortPayments(p []*ent.Payment) []*ent.Payment {
	sort.Slice(p, func(i, j int) bool { return p[i].ID < p[j].ID })
	return p
}

// reloadDebt reads a debt just written, with the fields the mutation's
// selection asks for eager-loaded.
func (r *Resolver) reloadDebt(ctx context.Context, id scalar.IntID) (*ent.Debt, error) {
	q, err := r.db(ctx).Debt.Query().Where(debt.ID(id)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	return q.Only(ctx)
}
