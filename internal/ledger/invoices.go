package ledger

import (
	"context"
	"time"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/debtitem"
	"github.com/debtql/debtql/ent/invoice"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/audit"
	"github.com/debtql/debtql/internal/collection"
)

// CreateInvoice registers an invoice of a client with its articles; its
// number must be new to the client.
func (s *Service) CreateInvoice(ctx context.Context, a Actor, clientID string, in collection.InvoiceRecord) (*ent.Invoice, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) (*ent.Invoice, error) {
		if err := s.forClient(ctx, clientID); err != nil {
			return nil, err
		}
		if err := in.Normalize(); err != nil {
			return nil, apierr.Prefix(err, "input")
		}
		if err := s.checkInvoiceNumberFree(ctx, clientID, in.InvoiceNumber); err != nil {
			return nil, err
		}
		inv, err := s.createInvoice(ctx, clientID, in)
		if err != nil {
			return nil, err
		}
		p, err := s.invoiceStatuses(ctx, inv)
		if err != nil {
			return nil, err
		}
		rec := touched(auditeventrecord.RecordTypeINVOICE, inv.ID)
		rec.after = audit.Invoice(p)
		return recorded(s, ctx, inv, event{a, OpCreateInvoice}, &clientID, nil, rec)
	})
}

// WithdrawInvoice withdraws an invoice of the client: a withdrawn or paid
// invoice, or one an unwithdrawn debt holds, is CONFLICT.
func (s *Service) WithdrawInvoice(ctx context.Context, a Actor, clientID, id string, comment *string) (*ent.Invoice, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) (*ent.Invoice, error) {
		if err := s.forClient(ctx, clientID); err != nil {
			return nil, err
		}
		comment, err := collection.Comment(comment, "comment")
		if err != nil {
			return nil, err
		}
		db := s.db(ctx)
		inv, err := db.Invoice.Query().Where(invoice.ClientID(clientID), invoice.ID(id)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apierr.New(apierr.NotFound, "invoice %s does not exist", id)
		}
		if err != nil {
			return nil, err
		}
		// Under the lock of its number, which a hand-over of that number
		// takes: no debt takes the invoice meanwhile. Its statuses are read
		// after the lock.
		if err := s.lockKeys(ctx, clientID, []int64{invoiceLock(clientID, inv.InvoiceNumber)}); err != nil {
			return nil, err
		}
		facts, err := s.InvoiceFacts(ctx, []*ent.Invoice{inv}, nil)
		if err != nil {
			return nil, err
		}
		p := s.InvoiceStatuses(inv, facts[id])
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
		// Withdrawing changes no debt: the facts read above still hold.
		after := s.InvoiceStatuses(withdrawn, facts[id])
		rec := touched(auditeventrecord.RecordTypeINVOICE, id)
		rec.before, rec.after = audit.Invoice(p), audit.Invoice(after)
		return recorded(s, ctx, withdrawn, event{a, OpWithdrawInvoice}, &clientID, nil, rec)
	})
}

// checkInvoiceNumberFree refuses a second invoice of the client with the
// same number (compared exactly as given, trimmed).
func (s *Service) checkInvoiceNumberFree(ctx context.Context, clientID, number string) error {
	taken, err := s.db(ctx).Invoice.Query().Where(invoice.ClientID(clientID), invoice.InvoiceNumber(number)).Exist(ctx)
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
func (s *Service) createInvoice(ctx context.Context, clientID string, in collection.InvoiceRecord) (*ent.Invoice, error) {
	db := s.db(ctx)
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

// InvoiceDebtFacts are the facts of an invoice that live in debts: what
// was paid on the debt items carrying its number, and the unwithdrawn debt
// that holds it.
type InvoiceDebtFacts struct {
	// Paid sums the items of the invoice's number in all the client's
	// debts, whose number has no bound: exact however large (Total).
	Paid    collection.Total
	Holding *collection.DebtFacts
	// Debt is the invoice's collection case: the unwithdrawn debt holding
	// it, else the most recently created one.
	Debt *ent.Debt
}

// InvoiceFacts reads the debt facts of invoices with one statement. loadDebt,
// when given, shapes the query of the items' debts (eager loading what the
// caller will read of them).
func (s *Service) InvoiceFacts(ctx context.Context, invoices []*ent.Invoice, loadDebt func(*ent.DebtQuery) error) (map[string]InvoiceDebtFacts, error) {
	type clientNumber struct{ client, number string }
	byNumber := map[clientNumber][]string{}
	clients, numbers := map[string]bool{}, map[string]bool{}
	for _, inv := range invoices {
		k := clientNumber{inv.ClientID, inv.InvoiceNumber}
		byNumber[k] = append(byNumber[k], inv.ID)
		clients[inv.ClientID], numbers[inv.InvoiceNumber] = true, true
	}
	var loadErr error
	items, err := s.db(ctx).DebtItem.Query().
		Where(debtitem.ClientIDIn(keys(clients)...), debtitem.InvoiceNumberIn(keys(numbers)...)).
		WithDebt(func(q *ent.DebtQuery) {
			if loadDebt != nil {
				loadErr = loadDebt(q)
			}
		}).
		All(ctx)
	if err == nil {
		err = loadErr
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]InvoiceDebtFacts, len(invoices))
	for _, it := range items {
		for _, id := range byNumber[clientNumber{it.ClientID, it.InvoiceNumber}] {
			f := out[id]
			f.Paid = f.Paid.Plus(it.PaidAmount)
			if d := it.Edges.Debt; d != nil {
				if d.WithdrawnAt == nil {
					facts := d.Facts()
					f.Holding, f.Debt = &facts, d
				} else if f.Holding == nil && (f.Debt == nil || later(d, f.Debt)) {
					f.Debt = d
				}
			}
			out[id] = f
		}
	}
	return out, nil
}

// InvoiceStatuses are an invoice's statuses at the current date, from its
// row and its debt facts.
func (s *Service) InvoiceStatuses(inv *ent.Invoice, facts InvoiceDebtFacts) collection.InvoiceProjection {
	now := s.clock.At()
	f := collection.InvoiceFacts{
		Total:        inv.TotalAmountIncludingVat,
		Paid:         facts.Paid.Clamped(), // the statuses compare it with the total: exact
		DueDate:      inv.DueDate,
		ReminderDate: inv.ReminderDate,
		Withdrawn:    inv.WithdrawnAt != nil,
	}
	if facts.Holding != nil {
		h := collection.ProjectDebt(*facts.Holding, now)
		f.Holding = &h
	}
	return collection.ProjectInvoice(f, now)
}

// invoiceStatuses reads an invoice's debt facts and projects its statuses.
func (s *Service) invoiceStatuses(ctx context.Context, inv *ent.Invoice) (collection.InvoiceProjection, error) {
	facts, err := s.InvoiceFacts(ctx, []*ent.Invoice{inv}, nil)
	if err != nil {
		return collection.InvoiceProjection{}, err
	}
	return s.InvoiceStatuses(inv, facts[inv.ID]), nil
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// later reports whether debt a was created after b (ties: the higher id).
func later(a, b *ent.Debt) bool {
	return a.CreatedAt.After(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID > b.ID)
}
