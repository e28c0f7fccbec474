package ledger

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/ent/auditevent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debt"
	"github.com/debtql/debtql/ent/debtor"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/audit"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// exportBatch is how many debts (and, after them, audit events) the
// export reads at once: the document grows page by page, and a page's
// records are dropped once written, so that a debtor with thousands of
// debts is held once, as JSON, not also as records.
const exportBatch = 100

// DebtorDataExport writes everything DebtQL holds about one debtor as one
// JSON document (api.md §14): {"debtor", "debts", "auditEvents"}, with
// the API's names and wire forms. Each debt carries its items, payments
// (with how each was applied), terms and claim today, computed by the
// claim engine (Claim). The events are those that name the debtor or
// belong to one of its debts, oldest first; the API key of an ADMIN's
// event is hidden from a CLIENT key, as in auditEvents. The export itself
// is recorded, once the document is written, as an event naming the
// debtor.
func (s *Service) DebtorDataExport(ctx context.Context, a Actor, clientID, id string) (scalar.JSON, error) {
	ctx = a.scope(ctx)
	if err := s.forClient(ctx, clientID); err != nil {
		return nil, err
	}
	db := s.db(ctx)
	d, err := db.Debtor.Query().Where(debtor.ClientID(clientID), debtor.ID(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierr.New(apierr.NotFound, "debtor %s does not exist", id)
	}
	if err != nil {
		return nil, err
	}
	var w exportWriter
	w.raw(`{"debtor":`)
	w.value(debtorDoc(d))
	w.raw(`,"debts":[`)
	if err := s.exportDebts(ctx, &w, id); err != nil {
		return nil, err
	}
	w.raw(`],"auditEvents":[`)
	if err := s.exportEvents(ctx, &w, a, id); err != nil {
		return nil, err
	}
	w.raw(`]}`)
	if w.err != nil {
		return nil, w.err
	}
	doc := scalar.JSON(w.buf.Bytes())
	return inTx(ctx, s, func(ctx context.Context) (scalar.JSON, error) {
		return recorded(s, ctx, doc, event{a, OpDebtorDataExport}, &clientID, nil, touched(auditeventrecord.RecordTypeDEBTOR, id))
	})
}

// exportWriter builds the document; the first error stops it.
type exportWriter struct {
	buf   bytes.Buffer
	err   error
	comma bool // a value was written in the current list
}

func (w *exportWriter) raw(s string) {
	w.buf.WriteString(s)
	w.comma = false
}

// item writes v as the next element of the current list.
func (w *exportWriter) item(v any) {
	if w.comma {
		w.buf.WriteByte(',')
	}
	w.value(v)
	w.comma = true
}

func (w *exportWriter) value(v any) {
	if w.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		w.err = err
		return
	}
	w.buf.Write(b)
}

func (s *Service) exportDebts(ctx context.Context, w *exportWriter, debtorID string) error {
	db := s.db(ctx)
	for after := scalar.IntID(0); ; {
		debts, err := db.Debt.Query().Where(debt.DebtorID(debtorID), debt.IDGT(after)).
			Order(ent.Asc(debt.FieldID)).Limit(exportBatch).
			WithInvoices().WithPayments().
			All(ctx)
		if err != nil {
			return err
		}
		// The batch's claims are read with one statement (PrimeClaims),
		// under a cache of their own that ends with the batch.
		batch := WithClaimCache(ctx)
		PrimeClaims(batch, debts)
		for _, d := range debts {
			after = d.ID
			c, err := s.Claim(batch, d, nil)
			if err != nil {
				return err
			}
			w.item(s.debtDoc(d, c))
		}
		if w.err != nil || len(debts) < exportBatch {
			return w.err
		}
	}
}

func (s *Service) exportEvents(ctx context.Context, w *exportWriter, a Actor, debtorID string) error {
	db := s.db(ctx)
	names := auditevent.Or(
		auditevent.HasDebtWith(debt.DebtorID(debtorID)),
		auditevent.HasRecordsWith(auditeventrecord.RecordTypeEQ(auditeventrecord.RecordTypeDEBTOR), auditeventrecord.RecordID(debtorID)),
	)
	for after := scalar.IntID(0); ; {
		events, err := db.AuditEvent.Query().Where(names, auditevent.IDGT(after)).
			Order(ent.Asc(auditevent.FieldID)).Limit(exportBatch).
			WithRecords().
			All(ctx)
		if err != nil {
			return err
		}
		for _, e := range events {
			after = e.ID
			w.item(eventDocOf(e, ShowsAPIKey(a.Role, e)))
		}
		if w.err != nil || len(events) < exportBatch {
			return w.err
		}
	}
}

// ShowsAPIKey reports whether an actor of role may see which API key
// acted in event e (api.md §9a): an ADMIN sees every key; a CLIENT key
// does not see the ADMIN keys that acted on its client.
func ShowsAPIKey(role apikey.Role, e *ent.AuditEvent) bool {
	return role == apikey.RoleADMIN || e.Role != auditevent.RoleADMIN
}

// The documents below are the export's JSON: the API's field names and
// wire forms (money with two decimals, dates YYYY-MM-DD, instants RFC 3339
// in UTC, enums by name).

type addressDoc struct {
	Address1    string  `json:"address1"`
	Address2    *string `json:"address2"`
	CareOf      *string `json:"careOf"`
	ZipCode     string  `json:"zipCode"`
	City        string  `json:"city"`
	CountryCode string  `json:"countryCode"`
}

type contactDoc struct {
	Email *string `json:"email"`
	Phone *string `json:"phone"`
}

type debtorDocument struct {
	ID                   string      `json:"id"`
	ClientID             string      `json:"clientId"`
	IsCorporation        bool        `json:"isCorporation"`
	IdentificationNumber string      `json:"identificationNumber"`
	Name                 string      `json:"name"`
	Address              addressDoc  `json:"address"`
	ContactInformation   *contactDoc `json:"contactInformation"`
	AnonymizedAt         *string     `json:"anonymizedAt"`
	CreatedAt            string      `json:"createdAt"`
	UpdatedAt            string      `json:"updatedAt"`
}

func debtorDoc(d *ent.Debtor) debtorDocument {
	doc := debtorDocument{
		ID: d.ID, ClientID: d.ClientID, IsCorporation: d.IsCorporation,
		IdentificationNumber: d.IdentificationNumber, Name: d.Name,
		Address: addressDoc{Address1: d.Address1, Address2: d.Address2, CareOf: d.CareOf,
			ZipCode: d.ZipCode, City: d.City, CountryCode: d.CountryCode},
		AnonymizedAt: instantOrNil(d.AnonymizedAt),
		CreatedAt:    scalar.FormatDateTime(d.CreatedAt), UpdatedAt: scalar.FormatDateTime(d.UpdatedAt),
	}
	if d.Email != nil || d.Phone != nil {
		doc.ContactInformation = &contactDoc{Email: d.Email, Phone: d.Phone}
	}
	return doc
}

type termsDoc struct {
	Interest         string `json:"interest"`
	CollectionFee    string `json:"collectionFee"`
	LateCompensation bool   `json:"lateCompensation"`
}

type partDoc struct {
	Charged     string `json:"charged"`
	Paid        string `json:"paid"`
	Outstanding string `json:"outstanding"`
}

type feeDoc struct {
	Kind      string `json:"kind"`
	Amount    string `json:"amount"`
	ChargedOn string `json:"chargedOn"`
}

type claimDoc struct {
	AsOf           string   `json:"asOf"`
	Principal      partDoc  `json:"principal"`
	Interest       partDoc  `json:"interest"`
	Fees           partDoc  `json:"fees"`
	Total          partDoc  `json:"total"`
	OverpaidAmount string   `json:"overpaidAmount"`
	Charges        []feeDoc `json:"charges"`
}

type itemDoc struct {
	ID            int           `json:"id"`
	InvoiceNumber string        `json:"invoiceNumber"`
	Description   *string       `json:"description"`
	InvoiceDate   string        `json:"invoiceDate"`
	DueDate       string        `json:"dueDate"`
	ReminderDate  *string       `json:"reminderDate"`
	Amount        string        `json:"amount"`
	PaidAmount    string        `json:"paidAmount"`
	InterestRate  *string       `json:"interestRate"`
	ReminderFee   *string       `json:"reminderFee"`
	Claim         *itemClaimDoc `json:"claim"`
	CreatedAt     string        `json:"createdAt"`
}

type itemClaimDoc struct {
	Principal partDoc `json:"principal"`
	Interest  partDoc `json:"interest"`
}

type allocationDoc struct {
	Fees      string `json:"fees"`
	Interest  string `json:"interest"`
	Principal string `json:"principal"`
	Credit    string `json:"credit"`
}

type paymentDoc struct {
	ID              int            `json:"id"`
	InvoiceID       int            `json:"invoiceId"`
	Amount          string         `json:"amount"`
	TransactionDate string         `json:"transactionDate"`
	BookedDate      *string        `json:"bookedDate"`
	Source          string         `json:"source"`
	Allocation      *allocationDoc `json:"allocation"`
	CreatedAt       string         `json:"createdAt"`
}

type debtDoc struct {
	ID               int          `json:"id"`
	OriginalAmount   string       `json:"originalAmount"`
	PaidAmount       string       `json:"paidAmount"`
	RemainingAmount  string       `json:"remainingAmount"`
	OverpaidAmount   string       `json:"overpaidAmount"`
	PaymentStatus    string       `json:"paymentStatus"`
	MainStatus       string       `json:"mainStatus"`
	UnderStatus      string       `json:"underStatus"`
	PaymentReference string       `json:"paymentReference"`
	Terms            termsDoc     `json:"terms"`
	WithdrawnAt      *string      `json:"withdrawnAt"`
	WithdrawComment  *string      `json:"withdrawComment"`
	CreatedAt        string       `json:"createdAt"`
	UpdatedAt        string       `json:"updatedAt"`
	Invoices         []itemDoc    `json:"invoices"`
	Payments         []paymentDoc `json:"payments"`
	Claim            claimDoc     `json:"claim"`
}

func (s *Service) debtDoc(d *ent.Debt, c collection.Claim) debtDoc {
	p := collection.ProjectDebt(d.Facts(), s.clock.At())
	t := DebtTerms(d)
	doc := debtDoc{
		ID:             int(d.ID),
		OriginalAmount: d.OriginalAmount.String(), PaidAmount: d.PaidAmount.String(),
		RemainingAmount: p.Remaining.String(), OverpaidAmount: p.Overpaid.String(),
		PaymentStatus: p.Payment.String(), MainStatus: p.Main.String(), UnderStatus: p.Under.String(),
		PaymentReference: collection.PaymentReference(int(d.ID)),
		Terms:            termsDoc{Interest: t.Interest.String(), CollectionFee: t.CollectionFee.String(), LateCompensation: t.LateCompensation},
		WithdrawnAt:      instantOrNil(d.WithdrawnAt), WithdrawComment: d.WithdrawComment,
		CreatedAt: scalar.FormatDateTime(d.CreatedAt), UpdatedAt: scalar.FormatDateTime(d.UpdatedAt),
		Invoices: []itemDoc{}, Payments: []paymentDoc{},
		Claim: claimDoc{AsOf: c.AsOf.String(), Principal: part(c.Principal), Interest: part(c.Interest),
			Fees: part(c.Fees), Total: part(c.Total), OverpaidAmount: c.Overpaid.String(), Charges: []feeDoc{}},
	}
	for _, f := range c.Charges {
		doc.Claim.Charges = append(doc.Claim.Charges, feeDoc{Kind: f.Kind.String(), Amount: f.Amount.String(), ChargedOn: f.ChargedOn.String()})
	}
	items := map[int]*collection.ItemClaim{}
	for i := range c.Items {
		items[c.Items[i].ID] = &c.Items[i]
	}
	invoices := d.Edges.Invoices
	sortByPosition(invoices)
	for _, it := range invoices {
		x := itemDoc{ID: int(it.ID), InvoiceNumber: it.InvoiceNumber, Description: it.Description,
			InvoiceDate: scalar.FormatDateTime(it.InvoiceDate), DueDate: scalar.FormatDateTime(it.DueDate),
			ReminderDate: instantOrNil(it.ReminderDate), Amount: it.Amount.String(), PaidAmount: it.PaidAmount.String(),
			CreatedAt: scalar.FormatDateTime(it.CreatedAt)}
		if it.InterestRate != nil {
			r := it.InterestRate.String()
			x.InterestRate = &r
		}
		if it.ReminderFee != nil {
			f := it.ReminderFee.String()
			x.ReminderFee = &f
		}
		if ic := items[int(it.ID)]; ic != nil {
			x.Claim = &itemClaimDoc{Principal: part(ic.Principal), Interest: part(ic.Interest)}
		}
		doc.Invoices = append(doc.Invoices, x)
	}
	payments := d.Edges.Payments
	sortPaymentsByID(payments)
	for _, pay := range payments {
		x := paymentDoc{ID: int(pay.ID), InvoiceID: int(pay.DebtItemID), Amount: pay.Amount.String(),
			TransactionDate: pay.TransactionDate.String(), Source: string(pay.Source), CreatedAt: scalar.FormatDateTime(pay.CreatedAt)}
		if pay.BookedDate != nil {
			b := pay.BookedDate.String()
			x.BookedDate = &b
		}
		if al, ok := c.Allocations[int(pay.ID)]; ok {
			x.Allocation = &allocationDoc{Fees: al.Fees.String(), Interest: al.Interest.String(),
				Principal: al.Principal.String(), Credit: al.Credit.String()}
		}
		doc.Payments = append(doc.Payments, x)
	}
	return doc
}

type recordDoc struct {
	RecordType string         `json:"recordType"`
	RecordID   string         `json:"recordId"`
	Before     map[string]any `json:"before"`
	After      map[string]any `json:"after"`
}

type eventDoc struct {
	ID         int         `json:"id"`
	CreatedAt  string      `json:"createdAt"`
	Operation  string      `json:"operation"`
	Role       string      `json:"role"`
	APIKeyID   *string     `json:"apiKeyId"`
	APIKeyName *string     `json:"apiKeyName"`
	ClientID   *string     `json:"clientId"`
	DebtID     *int        `json:"debtId"`
	RequestID  string      `json:"requestId"`
	Records    []recordDoc `json:"records"`
}

func eventDocOf(e *ent.AuditEvent, showKey bool) eventDoc {
	doc := eventDoc{ID: int(e.ID), CreatedAt: scalar.FormatDateTime(e.CreatedAt), Operation: e.Operation,
		Role: string(e.Role), ClientID: e.ClientID, RequestID: e.RequestID, Records: []recordDoc{}}
	if showKey {
		doc.APIKeyID, doc.APIKeyName = &e.APIKeyID, &e.APIKeyName
	}
	if e.DebtID != nil {
		id := int(*e.DebtID)
		doc.DebtID = &id
	}
	records := e.Edges.Records
	sortRecordsByID(records)
	for _, r := range records {
		doc.Records = append(doc.Records, recordDoc{RecordType: string(r.RecordType), RecordID: r.RecordID,
			Before: statusesDoc(r.Before), After: statusesDoc(r.After)})
	}
	return doc
}

// statusesDoc writes an audit record's statuses by their API names.
func statusesDoc(st *audit.Statuses) map[string]any {
	if st == nil {
		return nil
	}
	m := map[string]any{}
	if st.PaymentStatus != nil {
		m["paymentStatus"] = st.PaymentStatus.String()
	}
	if st.MainStatus != nil {
		m["mainStatus"] = st.MainStatus.String()
	}
	if st.UnderStatus != nil {
		m["underStatus"] = st.UnderStatus.String()
	}
	if st.ActiveStatus != nil {
		m["activeStatus"] = st.ActiveStatus.String()
	}
	if st.InvoiceStatus != nil {
		m["invoiceStatus"] = st.InvoiceStatus.String()
	}
	if st.InvoiceProcessStatus != nil {
		m["invoiceProcessStatus"] = st.InvoiceProcessStatus.String()
	}
	if st.PaidAmount != nil {
		m["paidAmount"] = st.PaidAmount.String()
	}
	return m
}

func part(p collection.Part) partDoc {
	return partDoc{Charged: p.Charged.String(), Paid: p.Paid.String(), Outstanding: p.Outstanding.String()}
}

func instantOrNil(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := scalar.FormatDateTime(*t)
	return &s
}

func sortByPosition(items []*ent.DebtItem) {
	slices.SortFunc(items, func(a, b *ent.DebtItem) int { return cmp.Compare(a.Position, b.Position) })
}

func sortPaymentsByID(p []*ent.Payment) {
	slices.SortFunc(p, func(a, b *ent.Payment) int { return cmp.Compare(a.ID, b.ID) })
}

func sortRecordsByID(r []*ent.AuditEventRecord) {
	slices.SortFunc(r, func(a, b *ent.AuditEventRecord) int { return cmp.Compare(a.ID, b.ID) })
}
