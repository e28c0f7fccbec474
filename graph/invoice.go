package graph

import (
	"context"
	"sort"
	"time"

	"entgo.io/contrib/entgql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/creditor"
	"github.com/debtql/debtql/ent/invoice"
	"github.com/debtql/debtql/ent/invoicearticle"
	"github.com/debtql/debtql/ent/predicate"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/audit"
	"github.com/debtql/debtql/internal/collection"
)

// defaultInvoiceOrder is newest first (api.md §7).
var defaultInvoiceOrder = &ent.InvoiceOrder{Direction: entgql.OrderDirectionDesc, Field: ent.InvoiceOrderFieldCreatedAt}

// invoiceCursorValues are the cursor value types of the invoice orders.
var invoiceCursorValues = map[string]cursorValue{
	"CREATED_AT":     timeValue,
	"INVOICE_NUMBER": stringValue,
	"INVOICE_DATE":   dateValue,
	"DUE_DATE":       dateValue,
	"TOTAL_AMOUNT":   moneyValue,
}

// invoices lists a client's invoices; the caller has authorized the client.
func (r *Resolver) invoices(ctx context.Context, clientID string, filter *InvoiceFilter, orderBy *ent.InvoiceOrder, args pageArgs) (*ent.InvoiceConnection, error) {
	q, p, lo, order, err := r.invoiceListQuery(ctx, filter, orderBy, args)
	if err != nil {
		return nil, err
	}
	r.loaders(ctx).invoiceDebt.add(nodeSelection(ctx, "debt"))
	conn, err := q.Where(invoice.ClientID(clientID)).Page(ctx, p, ent.WithInvoiceOrder(order))
	if err != nil {
		return nil, err
	}
	for _, e := range conn.Edges {
		lo.tagCursors(&e.Cursor)
	}
	r.loaders(ctx).invoiceFacts.prime(conn.Nodes()...)
	return conn, nil
}

// invoiceListQuery checks an invoice list's arguments and returns the query
// of the invoices (of every client) that match the filter, the page to read
// and its order.
func (r *Resolver) invoiceListQuery(ctx context.Context, filter *InvoiceFilter, orderBy *ent.InvoiceOrder, args pageArgs) (*ent.InvoiceQuery, ent.Paging, listOrder, *ent.InvoiceOrder, error) {
	order := defaultInvoiceOrder
	if orderBy != nil {
		order = orderBy
	}
	lo := newListOrder("invoices", order.Field.String(), order.Direction, invoiceCursorValues[order.Field.String()], true)
	p, err := args.paging(lo)
	if err != nil {
		return nil, p, lo, nil, err
	}
	preds, err := invoiceFilter(filter, r.clock.At())
	if err != nil {
		return nil, p, lo, nil, err
	}
	return r.db(ctx).Invoice.Query().Where(preds...), p, lo, order, nil
}

// invoiceFilter builds the predicates of an InvoiceFilter (api.md §7). Each
// status filter compares the SQL form of the same projection the field
// resolvers use.
func invoiceFilter(f *InvoiceFilter, now collection.Now) ([]predicate.Invoice, error) {
	if f == nil {
		return nil, nil
	}
	var preds []predicate.Invoice
	status := func(value func(collection.InvoiceSQL) collection.Expr, code int) {
		preds = append(preds, statusIs[collection.InvoiceSQL, predicate.Invoice](now, collection.NewInvoiceSQL, value, code))
	}
	if f.PaymentStatus != nil {
		status(collection.InvoiceSQL.Payment, int(*f.PaymentStatus))
	}
	if f.InvoiceStatus != nil {
		status(collection.InvoiceSQL.Status, int(*f.InvoiceStatus))
	}
	if f.InvoiceProcessStatus != nil {
		status(collection.InvoiceSQL.Process, int(*f.InvoiceProcessStatus))
	}
	if f.ReceivableMainStatus != nil {
		status(collection.InvoiceSQL.ReceivableMain, int(*f.ReceivableMainStatus))
	}
	if f.ReceivableSubStatus != nil {
		status(collection.InvoiceSQL.ReceivableSub, int(*f.ReceivableSubStatus))
	}
	if f.ActiveStatus != nil {
		status(collection.InvoiceSQL.Active, int(*f.ActiveStatus))
	}
	if f.IsCompleted != nil {
		preds = append(preds, flagIs[collection.InvoiceSQL, predicate.Invoice](now, collection.NewInvoiceSQL, collection.InvoiceSQL.IsCompleted, *f.IsCompleted))
	}
	if f.InvoiceCreatedDate != nil {
		preds = append(preds, invoice.CreatedAtGTE(f.InvoiceCreatedDate.UTC()))
	}
	if f.ClientNumber != nil {
		preds = append(preds, invoice.HasClientWith(creditor.ClientNumber(*f.ClientNumber)))
	}
	s, err := newSearch(f.SearchType, f.SearchTerm)
	if err != nil {
		return nil, err
	}
	if s != nil {
		byNumber := invoice.InvoiceNumberKeyContains(collection.NumberKey(s.term))
		byArticle := invoice.HasArticlesWith(invoicearticle.NameKeyContains(collection.SearchKey(s.term)))
		switch s.typ {
		case SearchTypeAll:
			preds = append(preds, invoice.Or(byNumber, byArticle))
		case SearchTypeInvoiceNumber:
			preds = append(preds, byNumber)
		case SearchTypeName:
			preds = append(preds, byArticle)
		default:
			return nil, apierr.Invalid("filter.searchType", "invoices can be searched by ALL, INVOICE_NUMBER or NAME (article names), not %s", s.typ)
		}
	}
	return preds, nil
}

// invoiceProjection is the invoice's statuses at the current date.
func (r *Resolver) invoiceProjection(ctx context.Context, inv *ent.Invoice) (collection.InvoiceProjection, error) {
	facts, err := r.loaders(ctx).invoiceFacts.get(ctx, inv)
	if err != nil {
		return collection.InvoiceProjection{}, err
	}
	now := r.clock.At()
	f := collection.InvoiceFacts{
		Total:        inv.TotalAmountIncludingVat,
		Paid:         facts.paid.Clamped(), // the statuses compare it with the total: exact
		DueDate:      inv.DueDate,
		ReminderDate: inv.ReminderDate,
		Withdrawn:    inv.WithdrawnAt != nil,
	}
	if facts.holding != nil {
		h := collection.ProjectDebt(*facts.holding, now)
		f.Holding = &h
	}
	return collection.ProjectInvoice(f, now), nil
}

// invoicePaid is what was paid on the invoice: the exact sum, or the
// largest amount int64 holds (92 233 720 368 547 758.07) when it is more
// (docs/decisions.md, "Money ceiling").
func (r *Resolver) invoicePaid(ctx context.Context, inv *ent.Invoice) (collection.Money, error) {
	facts, err := r.loaders(ctx).invoiceFacts.get(ctx, inv)
	return facts.paid.Clamped(), err
}

// checkInvoiceNumberFree refuses a second invoice of the client with the
// same number (compared exactly as given, trimmed).
func (r *Resolver) checkInvoiceNumberFree(ctx context.Context, clientID, number string) error {
	taken, err := r.db(ctx).Invoice.Query().Where(invoice.ClientID(clientID), invoice.InvoiceNumber(number)).Exist(ctx)
	if err != nil {
		return err
	}
	if taken {
		return errInvoiceNumberTaken
	}
	return nil
}

// errInvoiceNumberTaken refuses a second invoice with a client's number.
var errInvoiceNumberTaken = &apierr.Error{Code: apierr.Conflict, Field: "input.invoiceNumber",
	Message: "the client already has an invoice with this number"}

// createInvoice writes an invoice and its articles.
func (r *Resolver) createInvoice(ctx context.Context, clientID string, in collection.InvoiceRecord) (*ent.Invoice, error) {
	db := r.db(ctx)
	inv, err := db.Invoice.Create().
		SetClientID(clientID).
		SetInvoiceNumber(in.InvoiceNumber).
		SetInvoiceDate(in.InvoiceDate).
		SetDaysUntilExpiration(in.DaysUntilExpiration).
		SetDueDate(in.DueDate).
		SetNillableInterestRate(in.InterestRate).
		SetTotalExcludingVat(in.TotalExcludingVAT).
		SetTotalVatAmount(in.TotalVATAmount).
		SetTotalAmountIncludingVat(in.TotalAmountIncludingVAT).
		SetNillableReminderDate(in.ReminderDate).
		SetNillableReminderFee(in.ReminderFee).
		Save(ctx)
	if ent.IsConstraintError(err) { // a concurrent createInvoice took the number
		return nil, errInvoiceNumberTaken
	}
	if err != nil {
		return nil, err
	}
	creates := make([]*ent.InvoiceArticleCreate, len(in.Articles))
	for i, a := range in.Articles {
		creates[i] = db.InvoiceArticle.Create().
			SetClientID(clientID).
			SetInvoiceID(inv.ID).
			SetPosition(i).
			SetName(a.Name).
			SetNillableDescription(a.Description).
			SetPriceExcludingVat(a.PriceExcludingVAT).
			SetTotalVatAmount(a.TotalVATAmount).
			SetTotalAmountIncludingVat(a.TotalAmountIncludingVAT).
			SetTotalAmountExcludingVat(a.TotalAmountExcludingVAT).
			SetQuantity(a.Quantity).
			SetVatPercentage(a.VATPercentage).
			SetDiscount(a.Discount)
	}
	articles, err := db.InvoiceArticle.CreateBulk(creates...).Save(ctx)
	if err != nil {
		return nil, err
	}
	inv.Edges.Articles = articles
	return inv, nil
}

// sortArticles puts articles in the order they were given.
func sortArticles(a []*ent.InvoiceArticle) []*ent.InvoiceArticle {
	sort.Slice(a, func(i, j int) bool { return a[i].Position < a[j].Position })
	return a
}

// withdrawInvoice withdraws an invoice of the client (api.md §8): a
// withdrawn or paid invoice, or one an unwithdrawn debt holds, is CONFLICT.
func (r *Resolver) withdrawInvoice(ctx context.Context, clientID, id string, comment *string) (*ent.Invoice, error) {
	comment, err := trimComment(comment, "comment")
	if err != nil {
		return nil, err
	}
	// Under the client's debt lock: no debt takes the invoice meanwhile.
	if err := r.lockClient(ctx, clientID); err != nil {
		return nil, err
	}
	db := r.db(ctx)
	inv, err := db.Invoice.Query().Where(invoice.ClientID(clientID), invoice.ID(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierr.New(apierr.NotFound, "invoice %s does not exist", id)
	}
	if err != nil {
		return nil, err
	}
	p, err := r.invoiceProjection(ctx, inv)
	if err != nil {
		return nil, err
	}
	switch p.Status {
	case collection.InvoiceWithdrawn:
		return nil, apierr.New(apierr.Conflict, "invoice %s is already withdrawn", id)
	case collection.InvoicePaid:
		return nil, apierr.New(apierr.Conflict, "invoice %s is paid and cannot be withdrawn", id)
	case collection.InvoiceTransferred:
		return nil, apierr.New(apierr.Conflict, "invoice %s is held by a debt in collection: withdraw the debt instead", id)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	// Only an unwithdrawn invoice is withdrawn: a concurrent withdrawal
	// leaves nothing to update here.
	n, err := db.Invoice.Update().
		Where(invoice.ID(id), invoice.ClientID(clientID), invoice.WithdrawnAtIsNil()).
		SetWithdrawnAt(now).
		SetNillableWithdrawComment(comment).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, apierr.New(apierr.Conflict, "invoice %s is already withdrawn", id)
	}
	withdrawn, err := db.Invoice.Query().Where(invoice.ID(id)).WithArticles().Only(ctx)
	if err != nil {
		return nil, err
	}
	after, err := r.invoiceProjection(ctx, withdrawn)
	if err != nil {
		return nil, err
	}
	rec := touched(auditeventrecord.RecordTypeINVOICE, id)
	rec.before, rec.after = audit.Invoice(p), audit.Invoice(after)
	return auditResult(r, ctx, withdrawn, nil, &clientID, nil, rec)
}
