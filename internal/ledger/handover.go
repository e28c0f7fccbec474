package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"slices"
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
	"github.com/debtql/debtql/internal/store"
)

// OpCreateDebts is the operation of createDebts' events: one event per
// debt, as createDebt writes.
const OpCreateDebts = "createDebts"

// MaxHandoverBatch is how many debtors with their debts one createDebts
// hands over (api.md, Limits).
const MaxHandoverBatch = 500

// maxFineLocks bounds the advisory locks one hand-over takes on its
// debtors and invoice numbers. PostgreSQL keeps advisory locks in its
// shared lock table, sized for max_locks_per_transaction (64 by default)
// per connection: a hand-over with more keys than this takes its client's
// lock exclusively instead of one lock per key (docs/decisions.md,
// "Hand-over locks").
const maxFineLocks = 64

// lockKey names an advisory lock: the first 8 bytes of the SHA-256 of its
// name.
func lockKey(name string) int64 {
	sum := sha256.Sum256([]byte(name))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// clientLock names the client's hand-over lock: every hand-over of the
// client takes it shared, and one with more keys than maxFineLocks takes it
// exclusively.
func clientLock(clientID string) int64 { return lockKey("debts:" + clientID) }

// debtorLock names the lock of a debtor identity of the client (its
// identification key): reusing or creating that debtor happens under it,
// so that the debtor is created once.
func debtorLock(clientID, identificationKey string) int64 {
	return lockKey("debtor:" + clientID + ":" + identificationKey)
}

// invoiceLock names the lock of an invoice number of the client: checking
// that no unwithdrawn debt holds the number and taking it happen under it,
// so that two debts never hold it at once.
func invoiceLock(clientID, number string) int64 {
	return lockKey("invoice:" + clientID + ":" + number)
}

// lockKeys takes the client's lock shared and the given debtor and invoice
// locks exclusively (sorted, so that overlapping sets cannot deadlock), or,
// with more than maxFineLocks keys, the client's lock exclusively: for the
// rest of the transaction, in one statement. Outside a transaction (no
// caller here) and on SQLite, whose writers run one at a time, it takes
// nothing.
func (s *Service) lockKeys(ctx context.Context, clientID string, keys []int64) error {
	tx := ent.TxFromContext(ctx)
	if tx == nil {
		return nil
	}
	shared, exclusive := lockSet(clientID, keys)
	return s.store.LockKeys(ctx, tx, shared, exclusive)
}

// lockSet is what lockKeys takes for keys: the client's lock shared and
// keys exclusively, sorted and each once, or the client's lock alone,
// exclusively.
func lockSet(clientID string, keys []int64) (shared, exclusive []int64) {
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if len(keys) > maxFineLocks {
		return nil, []int64{clientLock(clientID)}
	}
	return []int64{clientLock(clientID)}, keys
}

// handoverLocks are the locks of handing entries over: their debtors'
// identities and their invoice numbers (entryLocks), for lockKeys.
func handoverLocks(clientID string, entries []collection.DebtorWithDebtsRecord) []int64 {
	var keys []int64
	for _, e := range entries {
		keys = entryLocks(keys, clientID, e)
	}
	return keys
}

// entryLocks appends to keys the locks one entry of a hand-over takes: its
// debtor's identity and each of its invoice numbers.
func entryLocks(keys []int64, clientID string, e collection.DebtorWithDebtsRecord) []int64 {
	keys = append(keys, debtorLock(clientID, collection.IdentificationKey(e.IdentificationNumber)))
	for _, it := range e.Debts {
		keys = append(keys, invoiceLock(clientID, it.InvoiceNumber))
	}
	return keys
}

// CreateDebts hands many debtors' receivables over at once (createDebts):
// every entry as CreateDebt would, in one transaction, all or nothing.
// Errors name their entry: "input.17.debts.0.invoiceNumber". The debts are
// returned in the order of in.
func (s *Service) CreateDebts(ctx context.Context, a Actor, clientID string, in []collection.DebtorWithDebtsRecord) ([]*ent.Debt, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) ([]*ent.Debt, error) {
		client, err := s.clientFor(ctx, clientID)
		if err != nil {
			return nil, err
		}
		if n := len(in); n < 1 || n > MaxHandoverBatch {
			return nil, apierr.Invalid("input", "must hold 1 to %d debtors with their debts, not %d", MaxHandoverBatch, n)
		}
		e := event{a, OpCreateDebts}
		return s.handOver(ctx, client, in, func(int) event { return e }, func(i int) string { return "input." + strconv.Itoa(i) })
	})
}

// handover is one entry of a hand-over on its way to the database.
type handover struct {
	in           collection.DebtorWithDebtsRecord
	debtorID     string
	terms        collection.Terms
	fees         []collection.Fee
	facts        collection.ClaimFacts
	demandSentAt time.Time
	original     collection.Money
	paid         collection.Money
	charged      collection.Money
}

// debt is the row of the entry's debt, as both ways of inserting it write
// it (no id yet).
func (h *handover) debt(clientID string, created time.Time) *ent.Debt {
	return &ent.Debt{
		ClientID:         clientID,
		DebtorID:         h.debtorID,
		CreatedAt:        created,
		UpdatedAt:        created,
		OriginalAmount:   h.original,
		PaidAmount:       h.paid,
		LastPaymentOn:    collection.LastPaymentOn(h.facts.Payments),
		ChargedAmount:    h.charged,
		InterestRule:     debt.InterestRule(h.terms.Interest.String()),
		CollectionFee:    h.terms.CollectionFee,
		LateCompensation: h.terms.LateCompensation,
		InterestBearing:  h.facts.InterestBearing(),
		DemandSentAt:     h.demandSentAt,
	}
}

// item is the row of the entry's item at pos (no id nor debt yet); its
// invoice_number_key is the one ent's hook derives.
func (h *handover) item(pos int) *ent.DebtItem {
	it := h.in.Debts[pos]
	var reminder *time.Time
	if it.ReminderDate != nil {
		u := it.ReminderDate.UTC()
		reminder = &u
	}
	dueOn := scalar.DateOf(it.DueDate)
	return &ent.DebtItem{
		Position:         pos,
		InvoiceNumber:    it.InvoiceNumber,
		InvoiceNumberKey: collection.NumberKey(it.InvoiceNumber),
		Description:      it.Description,
		InvoiceDate:      it.InvoiceDate.UTC(),
		DueDate:          it.DueDate.UTC(),
		ReminderDate:     reminder,
		DueOn:            &dueOn,
		Amount:           it.Amount,
		PaidAmount:       it.Paid(),
		InterestRate:     it.InterestRate,
		ReminderFee:      it.ReminderFee,
	}
}

// payment is the row of a payment received before hand-over (no id, debt
// nor item yet).
func (h *handover) payment(p collection.ItemPaymentRecord) *ent.Payment {
	var booked *scalar.Date
	if p.BookedDate != nil {
		b := scalar.DateOf(*p.BookedDate)
		booked = &b
	}
	return &ent.Payment{Amount: p.Amount, TransactionDate: scalar.DateOf(p.TransactionDate), BookedDate: booked,
		Source: payment.SourceBEFORE_HANDOVER}
}

// Rows per insert of a hand-over: below the databases' parameter limits
// (65,535 on PostgreSQL, 32,766 on SQLite) with every column of the row.
const (
	handoverItemRows    = 1500
	handoverPaymentRows = 3000
	handoverFeeRows     = 3000
)

// handOver writes entries, each a debtor with its debts, as one debt each,
// with a number of statements that does not grow with the number of
// entries: the locks, the check of the invoice numbers, the reference
// rates (when needed; the client's terms come with client, read by the
// caller), the debtors (read, inserted, and
// one update per debtor that existed), then one insert each of the debts,
// their items, opening payments, fees, events and the events' records
// (each per so many rows). ev is an entry's event (its actor and
// operation: the entries of grouped createDebt calls come from several
// requests), field names an entry's place in the arguments ("input" for
// createDebt, "input.3" for createDebts).
func (s *Service) handOver(ctx context.Context, client *ent.Creditor, entries []collection.DebtorWithDebtsRecord,
	ev func(int) event, field func(int) string) ([]*ent.Debt, error) {
	at := s.clock.At()
	hs, normalized, err := prepareHandover(at, entries, field)
	if err != nil {
		return nil, err
	}
	if err := s.lockKeys(ctx, client.ID, handoverLocks(client.ID, normalized)); err != nil {
		return nil, err
	}
	inOne := s.handoverInOne && ent.TxFromContext(ctx) != nil
	held, err := s.readHeld(ctx, client.ID, normalized, inOne)
	if err != nil {
		return nil, err
	}
	return s.writeHandover(ctx, at, client, hs, normalized, held, ev, field, nil)
}

// prepareHandover normalizes entries (their errors named by field) as of
// at, as the hand-over's entries and as they are (normalized).
func prepareHandover(at collection.Now, entries []collection.DebtorWithDebtsRecord, field func(int) string) (
	hs []handover, normalized []collection.DebtorWithDebtsRecord, err error) {
	hs = make([]handover, len(entries))
	var errs apierr.List
	for i := range entries {
		hs[i].in = entries[i]
		if err := hs[i].in.NormalizeAt(at.Today); err != nil {
			if !appendErrs(&errs, apierr.Prefix(err, field(i))) {
				return nil, nil, err
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, capped(errs)
	}
	normalized = make([]collection.DebtorWithDebtsRecord, len(hs))
	for i := range hs {
		normalized[i] = hs[i].in
	}
	return hs, normalized, nil
}

// writeHandover writes the prepared entries hs (normalized as they are)
// as of at, under their locks, given what the client holds of their
// numbers and identities (held). In a piped transaction (PostgreSQL) the
// statement that writes the rows goes with its COMMIT, and the debts are
// filled in when it has committed.
func (s *Service) writeHandover(ctx context.Context, at collection.Now, client *ent.Creditor, hs []handover,
	normalized []collection.DebtorWithDebtsRecord, held handoverHeld,
	ev func(int) event, field func(int) string, piped *store.PipedTx) ([]*ent.Debt, error) {
	clientID := client.ID
	inOne := s.handoverInOne && ent.TxFromContext(ctx) != nil
	if err := numbersFree(normalized, held.numbers, field); err != nil {
		return nil, err
	}
	created := time.Now().UTC().Truncate(time.Microsecond)
	newDebtors, err := s.handoverDebtors(ctx, clientID, hs, held.debtors, created, !inOne)
	if err != nil {
		return nil, err
	}
	var clientTerms *collection.Terms
	var rates []collection.ReferenceRate
	ratesRead := false
	for i := range hs {
		h := &hs[i]
		// Within the ceiling: Normalize refused items that sum above it.
		if h.original, h.paid, err = h.in.Amounts(); err != nil {
			return nil, err
		}
		switch {
		case h.in.Terms != nil:
			h.terms = *h.in.Terms
		case clientTerms != nil:
			h.terms = *clientTerms
		default:
			t := ClientTerms(client)
			clientTerms, h.terms = &t, t
		}
		// The demand: sent at the hand-over's instant, today, or on the
		// day given (from the start of that day).
		demandDay := at.Today
		h.demandSentAt = created
		if h.in.DemandSentOn != nil {
			demandDay = *h.in.DemandSentOn
			h.demandSentAt = demandDay.Start(at.Location).UTC()
		}
		h.fees = handoverFees(h.in, h.terms, demandDay)
		h.facts = handoverFactsWithout(h.in, h.terms, h.fees)
		if h.terms.Interest == collection.InterestStatutory {
			if !ratesRead {
				if rates, err = s.RatesInForce(ctx); err != nil {
					return nil, err
				}
				ratesRead = true
			}
			h.facts.Rates = rates
		}
		if h.charged, err = h.facts.Summary(at.Today); err != nil {
			return nil, err
		}
	}
	if inOne {
		return s.insertHandover(ctx, ent.TxFromContext(ctx), piped, clientID, created, newDebtors, hs, ev)
	}
	db := s.db(ctx)
	debtCreates := make([]*ent.DebtCreate, len(hs))
	for i := range hs {
		d := hs[i].debt(clientID, created)
		debtCreates[i] = db.Debt.Create().
			SetClientID(d.ClientID).
			SetDebtorID(d.DebtorID).
			SetCreatedAt(d.CreatedAt).
			SetUpdatedAt(d.UpdatedAt).
			SetOriginalAmount(d.OriginalAmount).
			SetPaidAmount(d.PaidAmount).
			SetNillableLastPaymentOn(d.LastPaymentOn).
			SetChargedAmount(d.ChargedAmount).
			SetInterestRule(d.InterestRule).
			SetCollectionFee(d.CollectionFee).
			SetLateCompensation(d.LateCompensation).
			SetInterestBearing(d.InterestBearing).
			SetDemandSentAt(d.DemandSentAt)
	}
	debts, err := db.Debt.CreateBulk(debtCreates...).Save(ctx)
	if err != nil {
		return nil, err
	}
	var itemCreates []*ent.DebtItemCreate
	for i := range hs {
		for pos := range hs[i].in.Debts {
			it := hs[i].item(pos)
			itemCreates = append(itemCreates, db.DebtItem.Create().
				SetClientID(clientID).
				SetDebtID(debts[i].ID).
				SetPosition(it.Position).
				SetInvoiceNumber(it.InvoiceNumber).
				SetNillableDescription(it.Description).
				SetInvoiceDate(it.InvoiceDate).
				SetDueDate(it.DueDate).
				SetNillableReminderDate(it.ReminderDate).
				SetNillableDueOn(it.DueOn).
				SetAmount(it.Amount).
				SetPaidAmount(it.PaidAmount).
				SetNillableInterestRate(it.InterestRate).
				SetNillableReminderFee(it.ReminderFee))
		}
	}
	items, err := saveInChunks(ctx, itemCreates, handoverItemRows, func(c []*ent.DebtItemCreate) ([]*ent.DebtItem, error) {
		return db.DebtItem.CreateBulk(c...).Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	var paymentCreates []*ent.PaymentCreate
	var paymentOf []int // the entry of each payment
	var feeCreates []*ent.FeeCreate
	var feeOf []int
	next := 0 // the first item of the entry
	for i, h := range hs {
		for pos, it := range h.in.Debts {
			for _, in := range it.Payments {
				p := h.payment(in)
				paymentCreates = append(paymentCreates, db.Payment.Create().
					SetClientID(clientID).
					SetDebtID(debts[i].ID).
					SetDebtItemID(items[next+pos].ID).
					SetAmount(p.Amount).
					SetTransactionDate(p.TransactionDate).
					SetNillableBookedDate(p.BookedDate).
					SetSource(p.Source))
				paymentOf = append(paymentOf, i)
			}
		}
		next += len(h.in.Debts)
		for _, f := range h.fees {
			feeCreates = append(feeCreates, feeCreate(db, clientID, debts[i].ID, f))
			feeOf = append(feeOf, i)
		}
	}
	fees, err := saveInChunks(ctx, feeCreates, handoverFeeRows, func(c []*ent.FeeCreate) ([]*ent.Fee, error) {
		return db.Fee.CreateBulk(c...).Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	payments, err := saveInChunks(ctx, paymentCreates, handoverPaymentRows, func(c []*ent.PaymentCreate) ([]*ent.Payment, error) {
		return db.Payment.CreateBulk(c...).Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	// Each debt's event names its debtor, the debt, its items, fees and
	// opening payments, as createDebt's.
	events := make([][]auditRecord, len(hs))
	next = 0
	for i, h := range hs {
		debtRecord := touchedInt(auditeventrecord.RecordTypeDEBT, debts[i].ID)
		debtRecord.after = s.debtStatuses(debts[i])
		events[i] = append(events[i], touched(auditeventrecord.RecordTypeDEBTOR, h.debtorID), debtRecord)
		for _, it := range items[next : next+len(h.in.Debts)] {
			events[i] = append(events[i], touchedInt(auditeventrecord.RecordTypeDEBT_INVOICE, it.ID))
		}
		next += len(h.in.Debts)
	}
	for j, f := range fees {
		events[feeOf[j]] = append(events[feeOf[j]], touchedInt(auditeventrecord.RecordTypeFEE, f.ID))
	}
	for j, p := range payments {
		events[paymentOf[j]] = append(events[paymentOf[j]], touchedInt(auditeventrecord.RecordTypePAYMENT, p.ID))
	}
	ids := make([]scalar.IntID, len(debts))
	for i, d := range debts {
		ids[i] = d.ID
	}
	if err := s.recordMany(ctx, ev, clientID, ids, events); err != nil {
		return nil, err
	}
	return debts, nil
}

// appendErrs appends err's API errors to errs; false when err is not one.
func appendErrs(errs *apierr.List, err error) bool {
	var list apierr.List
	var one *apierr.Error
	switch {
	case errors.As(err, &list):
		*errs = append(*errs, list...)
	case errors.As(err, &one):
		*errs = append(*errs, one)
	default:
		return false
	}
	return true
}

// saveInChunks saves creates in chunks of at most n rows, one statement
// each, and returns what they saved in order.
func saveInChunks[C any, T any](ctx context.Context, creates []C, n int, save func([]C) ([]T, error)) ([]T, error) {
	out := make([]T, 0, len(creates))
	for start := 0; start < len(creates); start += n {
		saved, err := save(creates[start:min(start+n, len(creates))])
		if err != nil {
			return nil, err
		}
		out = append(out, saved...)
	}
	return out, nil
}

// handoverHeld is what a hand-over finds of its keys, under their locks:
// the debt that holds each of its invoice numbers (an unwithdrawn debt of
// the client), and the client's debtor of each of its identities (by
// identification key).
type handoverHeld struct {
	numbers map[string]scalar.IntID
	debtors map[string]string
}

// newHandoverHeld is an empty handoverHeld, for readHeld to fill.
func newHandoverHeld() handoverHeld {
	return handoverHeld{numbers: map[string]scalar.IntID{}, debtors: map[string]string{}}
}

// heldKeys are what readHeld looks up of entries: their invoice numbers
// and their debtors' identification keys (each once).
func heldKeys(entries []collection.DebtorWithDebtsRecord) (numbers, keys []string) {
	for _, e := range entries {
		keys = append(keys, collection.IdentificationKey(e.IdentificationNumber))
		for _, it := range e.Debts {
			numbers = append(numbers, it.InvoiceNumber)
		}
	}
	slices.Sort(keys)
	return numbers, slices.Compact(keys)
}

// readHeld reads what the client holds of the entries' invoice numbers and
// debtors' identities: with one statement when inOne (PostgreSQL), two
// through ent otherwise.
func (s *Service) readHeld(ctx context.Context, clientID string, entries []collection.DebtorWithDebtsRecord, inOne bool) (handoverHeld, error) {
	numbers, keys := heldKeys(entries)
	held := newHandoverHeld()
	if inOne {
		p := &store.Pipeline{}
		queueHeld(p, held, clientID, numbers, keys)
		return held, p.RunIn(ctx, ent.TxFromContext(ctx))
	}
	db := s.db(ctx)
	items, err := db.DebtItem.Query().
		Where(debtitem.ClientID(clientID), debtitem.InvoiceNumberIn(numbers...),
			debtitem.HasDebtWith(debt.WithdrawnAtIsNil())).
		Select(debtitem.FieldInvoiceNumber, debtitem.FieldDebtID).
		All(ctx)
	if err != nil {
		return held, err
	}
	for _, it := range items {
		held.numbers[it.InvoiceNumber] = it.DebtID
	}
	debtors, err := db.Debtor.Query().
		Where(debtor.ClientID(clientID), debtor.IdentificationKeyIn(keys...)).
		Select(debtor.FieldID, debtor.FieldIdentificationKey).
		All(ctx)
	if err != nil {
		return held, err
	}
	for _, d := range debtors {
		held.debtors[d.IdentificationKey] = d.ID
	}
	return held, nil
}

// numbersFree refuses items whose invoice number an unwithdrawn debt of
// the client already holds (held: the number's debt), or an earlier entry
// of the same hand-over: no invoice is collected twice.
func numbersFree(entries []collection.DebtorWithDebtsRecord, byNumber map[string]scalar.IntID, field func(int) string) error {
	var errs apierr.List
	first := map[string]string{} // the field of a number's first item here
	for i, e := range entries {
		for j, it := range e.Debts {
			f := field(i) + ".debts." + strconv.Itoa(j) + ".invoiceNumber"
			if id, ok := byNumber[it.InvoiceNumber]; ok {
				errs = append(errs, &apierr.Error{Code: apierr.Conflict, Field: f,
					Message: "invoice " + it.InvoiceNumber + " is already in collection in debt " + strconv.Itoa(int(id))})
				continue
			}
			if earlier, ok := first[it.InvoiceNumber]; ok {
				errs = append(errs, &apierr.Error{Code: apierr.Conflict, Field: f,
					Message: "invoice " + it.InvoiceNumber + " is handed over twice: also at " + earlier})
				continue
			}
			first[it.InvoiceNumber] = f
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return capped(errs)
}

// maxHandoverErrors bounds the errors of one refused hand-over, as the
// errors of a request's variables are bounded (api.md, "One error per
// broken field").
const maxHandoverErrors = 100

// capped is errs with at most maxHandoverErrors errors: the first ones,
// and one without a field that says how many more there were.
func capped(errs apierr.List) error {
	if len(errs) <= maxHandoverErrors {
		return errs
	}
	more := &apierr.Error{Code: errs[0].Code,
		Message: strconv.Itoa(len(errs)-maxHandoverErrors) + " more errors are not reported: only the first " + strconv.Itoa(maxHandoverErrors) + " are"}
	return append(errs[:maxHandoverErrors:maxHandoverErrors], more)
}

// handoverDebtors sets each entry's debtorID: the client's debtor with the
// entry's identification number, refreshed with the entry's name, address
// and contact details (contact details not given are kept), or a new
// debtor. Entries of one identity share one debtor, refreshed as if they
// came one after the other. found holds the client's debtors of the
// entries' identities (readHeld). One statement updates the existing ones
// (on SQLite, one each); the new ones are inserted by one more when
// insert is true, and otherwise returned, with their ids, for the caller
// to insert (insertHandover).
func (s *Service) handoverDebtors(ctx context.Context, clientID string, hs []handover, found map[string]string, created time.Time, insert bool) ([]*ent.Debtor, error) {
	db := s.db(ctx)
	type identity struct {
		key      string
		record   collection.DebtorWithDebtsRecord // the last entry's, with the last e-mail and phone given
		entries  []int
		debtorID string // found, or drawn for a new debtor
	}
	var order []*identity
	byKey := map[string]*identity{}
	for i := range hs {
		in := hs[i].in
		k := collection.IdentificationKey(in.IdentificationNumber)
		id := byKey[k]
		if id == nil {
			id = &identity{key: k}
			byKey[k] = id
			order = append(order, id)
		}
		email, phone := id.record.Email, id.record.Phone
		id.record = in
		if in.Email == nil {
			id.record.Email = email
		}
		if in.Phone == nil {
			id.record.Phone = phone
		}
		id.entries = append(id.entries, i)
	}
	var fresh []*ent.Debtor
	var creates []*ent.DebtorCreate
	var refreshed []refresh
	for _, id := range order {
		in := id.record
		if debtorID, ok := found[id.key]; ok {
			refreshed = append(refreshed, refresh{debtorID, in})
			id.debtorID = debtorID
			continue
		}
		id.debtorID = debtor.DefaultID()
		if insert {
			create := db.Debtor.Create().SetID(id.debtorID).SetClientID(clientID).SetCreatedAt(created).SetUpdatedAt(created)
			setDebtor(create.Mutation(), in.Debtor())
			creates = append(creates, create)
			continue
		}
		d := debtorRow(clientID, in, created)
		d.ID = id.debtorID
		fresh = append(fresh, d)
	}
	if err := s.refreshDebtors(ctx, clientID, refreshed); err != nil {
		return nil, err
	}
	for _, id := range order {
		for _, i := range id.entries {
			hs[i].debtorID = id.debtorID
		}
	}
	_, err := saveInChunks(ctx, creates, 1000, func(c []*ent.DebtorCreate) ([]*ent.Debtor, error) {
		return db.Debtor.CreateBulk(c...).Save(ctx)
	})
	return fresh, err
}

// debtorRow is the row of a debtor with in's details, as a hand-over
// writes it (no id yet): its search keys are those ent's hooks derive.
func debtorRow(clientID string, in collection.DebtorWithDebtsRecord, at time.Time) *ent.Debtor {
	d := &ent.Debtor{ClientID: clientID, CreatedAt: at, UpdatedAt: at,
		IsCorporation: in.IsCorporation, IdentificationNumber: in.IdentificationNumber,
		IdentificationKey: collection.IdentificationKey(in.IdentificationNumber),
		Name:              in.Name, NameKey: collection.SearchKey(in.Name),
		Address1: in.Address.Address1, Address2: in.Address.Address2, CareOf: in.Address.CareOf,
		ZipCode: in.Address.ZipCode, City: in.Address.City, CountryCode: in.Address.CountryCode,
		Email: in.Email, Phone: in.Phone}
	if in.Email != nil {
		k := collection.SearchKey(*in.Email)
		d.EmailKey = &k
	}
	return d
}

// recordMany appends one event per debt of a hand-over, each with its
// records, in the use case's transaction: one insert of the events and
// one of their records (per so many rows). ev is the i-th debt's event.
func (s *Service) recordMany(ctx context.Context, ev func(int) event, clientID string, debtIDs []scalar.IntID, records [][]auditRecord) error {
	if len(debtIDs) == 1 {
		return s.record(ctx, ev(0), &clientID, &debtIDs[0], records[0]...)
	}
	tx := ent.TxFromContext(ctx)
	if tx == nil {
		return errNoTransaction
	}
	s.afterCommit(ctx)
	db := s.db(ctx)
	creates := make([]*ent.AuditEventCreate, len(debtIDs))
	for i := range debtIDs {
		creates[i] = eventCreate(db, ev(i), &clientID, &debtIDs[i])
	}
	events, err := db.AuditEvent.CreateBulk(creates...).Save(ctx)
	if err != nil {
		return err
	}
	var recs []*ent.AuditEventRecordCreate
	for i, ev := range events {
		recs = append(recs, recordCreates(db, ev.ID, &clientID, records[i])...)
	}
	return saveRecords(ctx, db, recs)
}

// debtorColumns are debtor rows as the arrays of a statement's unnest,
// in the order of args: id, is_corporation, identification_number,
// identification_key, name, name_key, address1, address2, care_of,
// zip_code, city, country_code, email, email_key, phone.
type debtorColumns struct {
	ids, numbers, idKeys, names, nameKeys, address1s, zips, cities, countries []string
	address2s, careOfs, emails, emailKeys, phones                             []*string
	corporations                                                              []bool
}

func (c *debtorColumns) add(d *ent.Debtor) {
	c.ids, c.corporations, c.numbers, c.idKeys = append(c.ids, d.ID), append(c.corporations, d.IsCorporation), append(c.numbers, d.IdentificationNumber), append(c.idKeys, d.IdentificationKey)
	c.names, c.nameKeys = append(c.names, d.Name), append(c.nameKeys, d.NameKey)
	c.address1s, c.address2s, c.careOfs = append(c.address1s, d.Address1), append(c.address2s, d.Address2), append(c.careOfs, d.CareOf)
	c.zips, c.cities, c.countries = append(c.zips, d.ZipCode), append(c.cities, d.City), append(c.countries, d.CountryCode)
	c.emails, c.emailKeys, c.phones = append(c.emails, d.Email), append(c.emailKeys, d.EmailKey), append(c.phones, d.Phone)
}

func (c *debtorColumns) args() []any {
	return []any{c.ids, c.corporations, c.numbers, c.idKeys, c.names, c.nameKeys, c.address1s, c.address2s, c.careOfs,
		c.zips, c.cities, c.countries, c.emails, c.emailKeys, c.phones}
}

// refresh is an existing debtor's id and the hand-over's details for it.
type refresh struct {
	id string
	in collection.DebtorWithDebtsRecord
}

// refreshDebtors writes the hand-over's details into existing debtors:
// isCorporation, number (as now written), name and address; e-mail and
// phone when given (kept when not). On PostgreSQL with one statement for
// all of them, its keys computed as ent's hooks compute them; on SQLite
// through ent, one statement each.
func (s *Service) refreshDebtors(ctx context.Context, clientID string, rs []refresh) error {
	if len(rs) == 0 {
		return nil
	}
	tx := ent.TxFromContext(ctx)
	if !s.store.IsPostgres() || tx == nil {
		db := s.db(ctx)
		for _, r := range rs {
			in := r.in
			update := db.Debtor.UpdateOneID(r.id).
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
				return err
			}
		}
		return nil
	}
	var cols debtorColumns
	now := time.Now().UTC().Truncate(time.Microsecond)
	for _, r := range rs {
		d := debtorRow(clientID, r.in, now)
		d.ID = r.id
		cols.add(d)
	}
	_, err := tx.ExecContext(ctx, `UPDATE debtors AS d SET is_corporation = u.is_corporation,
	    identification_number = u.identification_number, identification_key = u.identification_key,
	    name = u.name, name_key = u.name_key, address1 = u.address1, address2 = u.address2, care_of = u.care_of,
	    zip_code = u.zip_code, city = u.city, country_code = u.country_code,
	    email = coalesce(u.email, d.email), email_key = coalesce(u.email_key, d.email_key),
	    phone = coalesce(u.phone, d.phone), updated_at = $16
	  FROM unnest($1::uuid[], $2::boolean[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
	              $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[])
	       AS u(id, is_corporation, identification_number, identification_key, name, name_key, address1, address2,
	            care_of, zip_code, city, country_code, email, email_key, phone)
	 WHERE d.id = u.id AND d.client_id = $17`,
		append(cols.args(), now, clientID)...)
	return err
}
