// Package planned answers the list fields that front ends ask for most (a
// page of debts, debtors or invoices with their scalar fields, statuses,
// debtor, items, articles and debt) without gqlgen's per-field machinery.
//
// It is a field middleware on the root fields debts, debtors and invoices:
// gqlgen parses, validates, limits, authorizes and coerces the arguments as
// always and calls the root resolver; then, instead of a field context, a
// middleware call, a marshaler and often a goroutine per field of every row,
// the middleware walks a plan of the field's selection and writes the JSON
// of each row directly, and hands gqlgen the written bytes as the field's
// value (a graphql.Marshaler). It calls the same resolvers and ent methods
// as the generated code, so the rows, the statements and the values are the
// same; only the execution differs (docs/performance.md has the figures).
//
// It answers a field only when it knows every field selected below it
// (plannedTypes). Anything else, and any error on the way (a null where the
// schema allows none, a failing field resolver), hands the root resolver's
// value to gqlgen's executor, which marshals it as it always does. Check
// runs every query both ways in tests and compares the answers byte for
// byte.
package planned

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/graph"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/scalar"
)

// roots are the root fields the middleware answers, with their types.
var roots = map[string]string{"debts": "DebtConnection", "debtors": "DebtorConnection", "invoices": "InvoiceConnection"}

// plannedTypes are the fields the planned path knows, by type: the type of
// the field's value for object fields, "" for leaves.
var plannedTypes = map[string]map[string]string{
	"DebtConnection": {
		"totalCount": "", "pageInfo": "PageInfo", "edges": "DebtEdge", "nodes": "Debt",
	},
	"DebtEdge": {"cursor": "", "node": "Debt"},
	"DebtorConnection": {
		"totalCount": "", "pageInfo": "PageInfo", "edges": "DebtorEdge", "nodes": "Debtor",
	},
	"DebtorEdge": {"cursor": "", "node": "Debtor"},
	"PageInfo":   {"hasNextPage": "", "hasPreviousPage": "", "startCursor": "", "endCursor": ""},
	"Debt": {
		"id": "", "debtor": "Debtor", "invoices": "DebtInvoice",
		"originalAmount": "", "paidAmount": "", "remainingAmount": "", "overpaidAmount": "",
		"paymentStatus": "", "mainStatus": "", "underStatus": "", "activeStatus": "", "isCompleted": "",
		"withdrawnAt": "", "withdrawComment": "", "createdAt": "", "updatedAt": "", "paymentReference": "",
		"demandSentOn": "", "isDisputed": "", "disputedAt": "", "disputeComment": "", "paymentOrderAppliedAt": "",
		"claim": "Claim",
	},
	// A debt's claim of today (a claim asked on another date, claim(asOf:),
	// is left to the executor).
	"Claim": {
		"asOf": "", "principal": "ClaimPart", "interest": "ClaimPart", "fees": "ClaimPart", "total": "ClaimPart",
		"overpaidAmount": "", "charges": "Fee",
	},
	"ClaimPart": {"charged": "", "paid": "", "outstanding": ""},
	"Fee":       {"kind": "", "amount": "", "chargedOn": ""},
	"DebtInvoice": {
		"id": "", "invoiceNumber": "", "description": "", "invoiceDate": "", "dueDate": "",
		"reminderDate": "", "amount": "", "paidAmount": "", "remainingAmount": "", "createdAt": "",
		"interestRate": "", "reminderFee": "",
	},
	"Debtor": {
		"id": "", "isCorporation": "", "identificationNumber": "", "name": "",
		"address": "Address", "contactInformation": "ContactInformation",
		"paymentStatus": "", "errandStatus": "", "errandProcessStatus": "", "isCompleted": "",
		"createdAt": "", "updatedAt": "", "anonymizedAt": "",
	},
	"InvoiceConnection": {
		"totalCount": "", "pageInfo": "PageInfo", "edges": "InvoiceEdge", "nodes": "Invoice",
	},
	"InvoiceEdge": {"cursor": "", "node": "Invoice"},
	"Invoice": {
		"id": "", "invoiceNumber": "", "invoiceDate": "", "daysUntilExpiration": "", "dueDate": "",
		"interestRate": "", "totalExcludingVAT": "", "totalVATAmount": "", "totalAmountIncludingVAT": "",
		"reminderDate": "", "reminderFee": "", "articles": "Article", "paidAmount": "", "remainingAmount": "",
		"debt": "Debt", "status": "", "processStatus": "", "paymentStatus": "", "receivableMainStatus": "",
		"receivableSubStatus": "", "activeStatus": "", "isCompleted": "", "withdrawnAt": "", "withdrawComment": "",
		"createdAt": "", "updatedAt": "",
	},
	"Article": {
		"name": "", "description": "", "priceExcludingVAT": "", "totalVATAmount": "", "totalAmountIncludingVAT": "",
		"totalAmountExcludingVAT": "", "quantity": "", "vatPercentage": "", "discount": "",
	},
	"Address":            {"address1": "", "address2": "", "careOf": "", "zipCode": "", "city": "", "countryCode": ""},
	"ContactInformation": {"email": "", "phone": ""},
}

// unplannedFields are the fields of the planned types that the planned path
// leaves to gqlgen's executor: a query selecting one is answered there.
// Every field of a planned type is in plannedTypes or here
// (TestPlannedPathKnowsEveryField), so that a field added to the schema
// is a decision, not a silent fall-back.
var unplannedFields = map[string][]string{
	// Edges that lists seldom select, and whose loads the executor's
	// loaders batch.
	// The terms and the claim (computed from the debt's facts, per debt),
	// and the process's steps.
	"Debt":        {"client", "events", "payments", "terms", "steps"},
	"DebtInvoice": {"invoice", "payments", "claim"},
	"Debtor":      {"client", "debts"},
	"Invoice":     {"client"},
}

// plan is a selected field: its name, the key it is answered under (the
// alias as a JSON string and a colon) and, for objects, the plan of its
// selection.
type plan struct {
	field graphql.CollectedField
	key   []byte
	sub   []plan
	// ctx is the context that resolvers of the field are called with: the
	// parent's, with the field's context (ent's eager loading keys the
	// edges it loads by the field's alias). Made at the first call: every
	// row of a list shares it.
	ctx context.Context
}

// in returns the context to resolve p with, under parent ctx on type object.
func (p *plan) in(ctx context.Context, object string) context.Context {
	if p.ctx == nil {
		p.ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Object: object, Field: p.field, IsMethod: true, IsResolver: true})
	}
	return p.ctx
}

// makePlan plans a selection on a type; false when it selects a field the
// planned path does not know, or defers one.
func makePlan(opCtx *graphql.OperationContext, typeName string, sel ast.SelectionSet) ([]plan, bool) {
	known := plannedTypes[typeName]
	fields := graphql.CollectFields(opCtx, sel, []string{typeName})
	plans := make([]plan, 0, len(fields))
	for _, f := range fields {
		if len(f.Deferrables) > 0 {
			return nil, false
		}
		p := plan{field: f}
		var key bytes.Buffer
		graphql.MarshalString(f.Alias).MarshalGQL(&key)
		key.WriteByte(':')
		p.key = key.Bytes()
		if f.Name == "claim" && len(f.Arguments) > 0 {
			return nil, false // claim(asOf:): its argument is the executor's to coerce
		}
		if f.Name != "__typename" {
			child, ok := known[f.Name]
			if !ok {
				return nil, false
			}
			if child != "" {
				sub, ok := makePlan(opCtx, child, f.Selections)
				if !ok {
					return nil, false
				}
				p.sub = sub
			}
		}
		plans = append(plans, p)
	}
	return plans, true
}

// errTooLarge ends the planned path with Options.TooLarge: the answer has
// grown beyond Options.MaxBytes.
type errTooLarge struct{}

func (errTooLarge) Error() string {
	return "planned path: the answer is larger than the response limit"
}

// errFallBack ends the planned path: gqlgen's executor answers instead.
type errFallBack struct{ reason string }

func (e errFallBack) Error() string { return "planned path: " + e.reason }

// writer writes the answer of a planned operation.
type writer struct {
	buf bytes.Buffer
	// ctx is the operation's: the path gives up when its deadline passes.
	ctx context.Context
	// maxBytes ends the path when the answer grows beyond it
	// (errTooLarge).
	maxBytes int
	// err ends the path: errFallBack (gqlgen's executor answers instead)
	// or errTooLarge. Every object and list element stops once it is set.
	err error
	// The resolvers of the types written, made once.
	debtR     graph.DebtResolver
	debtorR   graph.DebtorResolver
	debtItemR graph.DebtInvoiceResolver
	invoiceR  graph.InvoiceResolver
	// packed holds a cursor's MessagePack while it is written (cursorValue).
	packed bytes.Buffer
}

// money writes an amount.
func (w *writer) money(m collection.Money) {
	w.buf.Write(m.AppendJSON(w.buf.AvailableBuffer()))
}

// fail ends the planned path when err is not nil, and reports whether it
// did: the writer stops at the next object or list element, and gqlgen's
// executor answers the operation instead.
func (w *writer) fail(err error) bool {
	if err != nil && w.err == nil {
		w.err = errFallBack{reason: err.Error()}
	}
	return err != nil
}

// typename writes the __typename of the object being written.
func (w *writer) typename(name string) {
	graphql.MarshalString(name).MarshalGQL(&w.buf)
}

// object writes an object, each planned field by write.
func (w *writer) object(plans []plan, typeName string, write func(p *plan)) {
	w.buf.WriteByte('{')
	for i := range plans {
		if w.err != nil {
			return
		}
		if i > 0 {
			w.buf.WriteByte(',')
		}
		p := &plans[i]
		w.buf.Write(p.key)
		if p.field.Name == "__typename" {
			w.typename(typeName)
			continue
		}
		write(p)
	}
	w.buf.WriteByte('}')
}

func (w *writer) marshal(m graphql.Marshaler) { m.MarshalGQL(&w.buf) }

func (w *writer) str(s string) { graphql.MarshalString(s).MarshalGQL(&w.buf) }

func (w *writer) optStr(s *string) {
	if s == nil {
		w.buf.WriteString("null")
		return
	}
	w.str(*s)
}

func (w *writer) boolean(b bool) { w.buf.WriteString(strconv.FormatBool(b)) }

func (w *writer) int(n int) { w.buf.WriteString(strconv.Itoa(n)) }

// dateTime writes a non-null DateTime.
func (w *writer) dateTime(t time.Time) {
	w.buf.Write(scalar.AppendDateTime(w.buf.AvailableBuffer(), t))
}

func (w *writer) optDateTime(t *time.Time) {
	if t == nil {
		w.buf.WriteString("null")
		return
	}
	w.dateTime(*t)
}

// nonNull returns v, or ends the planned path when it is nil where the
// schema allows no null (an error, which gqlgen's executor reports): the
// writers of objects write nothing once the path has ended.
func nonNull[T any](w *writer, field string, v *T) *T {
	if v == nil && w.err == nil {
		w.err = errFallBack{reason: field + " is null"}
	}
	return v
}

func (w *writer) pageInfo(plans []plan, pi *ent.PageInfo) {
	w.object(plans, "PageInfo", func(p *plan) {
		switch p.field.Name {
		case "hasNextPage":
			w.boolean(pi.HasNextPage)
		case "hasPreviousPage":
			w.boolean(pi.HasPreviousPage)
		case "startCursor":
			w.cursor(pi.StartCursor)
		case "endCursor":
			w.cursor(pi.EndCursor)
		}
	})
}

func (w *writer) cursor(c *ent.Cursor) {
	if c == nil {
		w.buf.WriteString("null")
		return
	}
	w.cursorValue(*c)
}

// cursorValue writes c as its MarshalGQL does (entgql: a quoted,
// unpadded base64 of its MessagePack), with a pooled encoder and the
// writer's own buffer instead of a base64 and a MessagePack encoder of
// its own: a page writes 51 cursors. The planned path's check in tests
// holds the bytes to MarshalGQL's.
func (w *writer) cursorValue(c ent.Cursor) {
	w.packed.Reset()
	enc := msgpack.GetEncoder()
	enc.Reset(&w.packed)
	err := enc.Encode(c)
	msgpack.PutEncoder(enc)
	if err != nil {
		w.marshal(c)
		return
	}
	w.buf.WriteByte('"')
	w.buf.Write(base64.RawStdEncoding.AppendEncode(w.buf.AvailableBuffer(), w.packed.Bytes()))
	w.buf.WriteByte('"')
}

// list writes a JSON array of n elements.
func (w *writer) list(n int, write func(i int)) {
	w.buf.WriteByte('[')
	for i := range n {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		if w.maxBytes > 0 && w.buf.Len() > w.maxBytes && w.err == nil {
			w.err = errTooLarge{}
		}
		if w.err != nil || w.fail(w.ctx.Err()) {
			return
		}
		write(i)
	}
	w.buf.WriteByte(']')
}

// connection writes a connection page: its edges (each with its cursor and
// node, read by edge), nodes, pageInfo and totalCount; node writes one node.
func connection[E any, N any](w *writer, plans []plan, names [2]string, edges []*E, edge func(*E) (*N, ent.Cursor),
	nodes []*N, info *ent.PageInfo, total int, node func(plans []plan, n *N)) {
	w.object(plans, names[0], func(p *plan) {
		switch p.field.Name {
		case "totalCount":
			w.int(total)
		case "pageInfo":
			w.pageInfo(p.sub, info)
		case "edges":
			if edges == nil {
				w.buf.WriteString("null")
				return
			}
			w.list(len(edges), func(i int) {
				if edges[i] == nil {
					w.buf.WriteString("null")
					return
				}
				n, cursor := edge(edges[i])
				w.object(p.sub, names[1], func(p *plan) {
					switch p.field.Name {
					case "cursor":
						w.cursorValue(cursor)
					case "node":
						if n == nil {
							w.buf.WriteString("null")
							return
						}
						node(p.sub, n)
					}
				})
			})
		case "nodes":
			w.list(len(nodes), func(i int) {
				node(p.sub, nonNull(w, names[0]+".nodes", nodes[i]))
			})
		}
	})
}

func (w *writer) debtConnection(ctx context.Context, plans []plan, conn *ent.DebtConnection) {
	connection(w, plans, [2]string{"DebtConnection", "DebtEdge"},
		conn.Edges, func(e *ent.DebtEdge) (*ent.Debt, ent.Cursor) { return e.Node, e.Cursor }, conn.Nodes(), &conn.PageInfo, conn.TotalCount,
		func(plans []plan, d *ent.Debt) { w.debt(ctx, plans, d) })
}

func (w *writer) debtorConnection(ctx context.Context, plans []plan, conn *ent.DebtorConnection) {
	connection(w, plans, [2]string{"DebtorConnection", "DebtorEdge"},
		conn.Edges, func(e *ent.DebtorEdge) (*ent.Debtor, ent.Cursor) { return e.Node, e.Cursor }, conn.Nodes(), &conn.PageInfo, conn.TotalCount,
		func(plans []plan, d *ent.Debtor) { w.debtor(ctx, plans, d) })
}

func (w *writer) invoiceConnection(ctx context.Context, plans []plan, conn *ent.InvoiceConnection) {
	connection(w, plans, [2]string{"InvoiceConnection", "InvoiceEdge"},
		conn.Edges, func(e *ent.InvoiceEdge) (*ent.Invoice, ent.Cursor) { return e.Node, e.Cursor }, conn.Nodes(), &conn.PageInfo, conn.TotalCount,
		func(plans []plan, inv *ent.Invoice) { w.invoice(ctx, plans, inv) })
}

func (w *writer) debt(ctx context.Context, plans []plan, d *ent.Debt) {
	w.object(plans, "Debt", func(p *plan) {
		switch p.field.Name {
		case "id":
			w.buf.Write(strconv.AppendInt(w.buf.AvailableBuffer(), int64(d.ID), 10))
		case "debtor":
			debtor, err := d.Debtor(p.in(ctx, "Debt"))
			if w.fail(err) {
				return
			}
			w.debtor(ctx, p.sub, nonNull(w, "Debt.debtor", debtor))
		case "invoices":
			items, err := w.debtR.Invoices(p.in(ctx, "Debt"), d)
			if w.fail(err) {
				return
			}
			w.list(len(items), func(i int) {
				w.debtItem(ctx, p.sub, nonNull(w, "Debt.invoices", items[i]))
			})
		case "originalAmount":
			w.money(d.OriginalAmount)
		case "paidAmount":
			w.money(d.PaidAmount)
		case "remainingAmount":
			m, err := w.debtR.RemainingAmount(p.in(ctx, "Debt"), d)
			if w.fail(err) {
				return
			}
			w.money(m)
		case "overpaidAmount":
			m, err := w.debtR.OverpaidAmount(p.in(ctx, "Debt"), d)
			if w.fail(err) {
				return
			}
			w.money(m)
		case "paymentStatus":
			w.marshal(d.PaymentStatus())
		case "mainStatus":
			w.marshal(d.MainStatus())
		case "underStatus":
			s, err := w.debtR.UnderStatus(p.in(ctx, "Debt"), d)
			if w.fail(err) {
				return
			}
			w.marshal(s)
		case "activeStatus":
			w.marshal(d.ActiveStatus())
		case "isCompleted":
			w.boolean(d.IsCompleted())
		case "withdrawnAt":
			w.optDateTime(d.WithdrawnAt)
		case "withdrawComment":
			w.optStr(d.WithdrawComment)
		case "createdAt":
			w.dateTime(d.CreatedAt)
		case "updatedAt":
			w.dateTime(d.UpdatedAt)
		case "paymentReference":
			w.str(collection.PaymentReference(int(d.ID)))
		case "demandSentOn":
			day, err := w.debtR.DemandSentOn(p.in(ctx, "Debt"), d)
			if w.fail(err) {
				return
			}
			w.marshal(day)
		case "isDisputed":
			w.boolean(d.IsDisputed())
		case "disputedAt":
			w.optDateTime(d.DisputedAt)
		case "disputeComment":
			w.optStr(d.DisputeComment)
		case "paymentOrderAppliedAt":
			w.optDateTime(d.PaymentOrderAppliedAt)
		case "claim":
			c, err := w.debtR.Claim(p.in(ctx, "Debt"), d, nil)
			if w.fail(err) {
				return
			}
			w.claim(p.sub, c)
		}
	})
}

func (w *writer) claim(plans []plan, c *collection.Claim) {
	w.object(plans, "Claim", func(p *plan) {
		switch p.field.Name {
		case "asOf":
			w.marshal(c.AsOf)
		case "principal":
			w.claimPart(p.sub, c.Principal)
		case "interest":
			w.claimPart(p.sub, c.Interest)
		case "fees":
			w.claimPart(p.sub, c.Fees)
		case "total":
			w.claimPart(p.sub, c.Total)
		case "overpaidAmount":
			w.money(c.Overpaid)
		case "charges":
			w.list(len(c.Charges), func(i int) {
				f := c.Charges[i]
				w.object(p.sub, "Fee", func(p *plan) {
					switch p.field.Name {
					case "kind":
						w.marshal(f.Kind)
					case "amount":
						w.money(f.Amount)
					case "chargedOn":
						w.marshal(f.ChargedOn)
					}
				})
			})
		}
	})
}

func (w *writer) claimPart(plans []plan, part collection.Part) {
	w.object(plans, "ClaimPart", func(p *plan) {
		switch p.field.Name {
		case "charged":
			w.money(part.Charged)
		case "paid":
			w.money(part.Paid)
		case "outstanding":
			w.money(part.Outstanding)
		}
	})
}

func (w *writer) debtItem(ctx context.Context, plans []plan, item *ent.DebtItem) {
	w.object(plans, "DebtInvoice", func(p *plan) {
		switch p.field.Name {
		case "id":
			w.buf.Write(strconv.AppendInt(w.buf.AvailableBuffer(), int64(item.ID), 10))
		case "invoiceNumber":
			w.str(item.InvoiceNumber)
		case "description":
			w.optStr(item.Description)
		case "invoiceDate":
			w.dateTime(item.InvoiceDate)
		case "dueDate":
			w.dateTime(item.DueDate)
		case "reminderDate":
			w.optDateTime(item.ReminderDate)
		case "amount":
			w.money(item.Amount)
		case "paidAmount":
			w.money(item.PaidAmount)
		case "remainingAmount":
			m, err := w.debtItemR.RemainingAmount(p.in(ctx, "DebtInvoice"), item)
			if w.fail(err) {
				return
			}
			w.money(m)
		case "createdAt":
			w.dateTime(item.CreatedAt)
		case "interestRate":
			optMarshal(w, item.InterestRate)
		case "reminderFee":
			optMarshal(w, item.ReminderFee)
		}
	})
}

func (w *writer) debtor(ctx context.Context, plans []plan, d *ent.Debtor) {
	w.object(plans, "Debtor", func(p *plan) {
		switch p.field.Name {
		case "id":
			w.buf.Write(strconv.AppendQuote(w.buf.AvailableBuffer(), d.ID))
		case "isCorporation":
			w.boolean(d.IsCorporation)
		case "identificationNumber":
			w.str(d.IdentificationNumber)
		case "name":
			w.str(d.Name)
		case "address":
			a, err := w.debtorR.Address(p.in(ctx, "Debtor"), d)
			if w.fail(err) {
				return
			}
			w.address(p.sub, nonNull(w, "Debtor.address", a))
		case "contactInformation":
			c, err := w.debtorR.ContactInformation(p.in(ctx, "Debtor"), d)
			if w.fail(err) {
				return
			}
			if c == nil {
				w.buf.WriteString("null")
				return
			}
			w.object(p.sub, "ContactInformation", func(p *plan) {
				switch p.field.Name {
				case "email":
					w.optStr(c.Email)
				case "phone":
					w.optStr(c.Phone)
				}
			})
		case "paymentStatus":
			s, err := w.debtorR.PaymentStatus(p.in(ctx, "Debtor"), d)
			if w.fail(err) {
				return
			}
			optMarshal(w, s)
		case "errandStatus":
			s, err := w.debtorR.ErrandStatus(p.in(ctx, "Debtor"), d)
			if w.fail(err) {
				return
			}
			optMarshal(w, s)
		case "errandProcessStatus":
			s, err := w.debtorR.ErrandProcessStatus(p.in(ctx, "Debtor"), d)
			if w.fail(err) {
				return
			}
			optMarshal(w, s)
		case "isCompleted":
			b, err := w.debtorR.IsCompleted(p.in(ctx, "Debtor"), d)
			if w.fail(err) {
				return
			}
			w.boolean(b)
		case "createdAt":
			w.dateTime(d.CreatedAt)
		case "updatedAt":
			w.dateTime(d.UpdatedAt)
		case "anonymizedAt":
			w.optDateTime(d.AnonymizedAt)
		}
	})
}

func (w *writer) invoice(ctx context.Context, plans []plan, inv *ent.Invoice) {
	w.object(plans, "Invoice", func(p *plan) {
		switch p.field.Name {
		case "id":
			w.buf.Write(strconv.AppendQuote(w.buf.AvailableBuffer(), inv.ID))
		case "invoiceNumber":
			w.str(inv.InvoiceNumber)
		case "invoiceDate":
			w.marshal(inv.InvoiceDate)
		case "daysUntilExpiration":
			w.int(inv.DaysUntilExpiration)
		case "dueDate":
			w.marshal(inv.DueDate)
		case "interestRate":
			optMarshal(w, inv.InterestRate)
		case "totalExcludingVAT":
			w.money(inv.TotalExcludingVat)
		case "totalVATAmount":
			w.money(inv.TotalVatAmount)
		case "totalAmountIncludingVAT":
			w.money(inv.TotalAmountIncludingVat)
		case "reminderDate":
			optMarshal(w, inv.ReminderDate)
		case "reminderFee":
			optMarshal(w, inv.ReminderFee)
		case "articles":
			articles, err := w.invoiceR.Articles(p.in(ctx, "Invoice"), inv)
			if w.fail(err) {
				return
			}
			w.list(len(articles), func(i int) {
				w.article(p.sub, nonNull(w, "Invoice.articles", articles[i]))
			})
		case "paidAmount":
			m, err := w.invoiceR.PaidAmount(p.in(ctx, "Invoice"), inv)
			if w.fail(err) {
				return
			}
			w.money(m)
		case "remainingAmount":
			m, err := w.invoiceR.RemainingAmount(p.in(ctx, "Invoice"), inv)
			if w.fail(err) {
				return
			}
			w.money(m)
		case "debt":
			d, err := w.invoiceR.Debt(p.in(ctx, "Invoice"), inv)
			if w.fail(err) {
				return
			}
			if d == nil {
				w.buf.WriteString("null")
				return
			}
			w.debt(ctx, p.sub, d)
		case "status":
			s, err := w.invoiceR.Status(p.in(ctx, "Invoice"), inv)
			if w.fail(err) {
				return
			}
			w.marshal(s)
		case "processStatus":
			s, err := w.invoiceR.ProcessStatus(p.in(ctx, "Invoice"), inv)
			if w.fail(err) {
				return
			}
			w.marshal(s)
		case "paymentStatus":
			s, err := w.invoiceR.PaymentStatus(p.in(ctx, "Invoice"), inv)
			if w.fail(err) {
				return
			}
			w.marshal(s)
		case "receivableMainStatus":
			s, err := w.invoiceR.ReceivableMainStatus(p.in(ctx, "Invoice"), inv)
			if w.fail(err) {
				return
			}
			w.marshal(s)
		case "receivableSubStatus":
			s, err := w.invoiceR.ReceivableSubStatus(p.in(ctx, "Invoice"), inv)
			if w.fail(err) {
				return
			}
			w.marshal(s)
		case "activeStatus":
			s, err := w.invoiceR.ActiveStatus(p.in(ctx, "Invoice"), inv)
			if w.fail(err) {
				return
			}
			w.marshal(s)
		case "isCompleted":
			b, err := w.invoiceR.IsCompleted(p.in(ctx, "Invoice"), inv)
			if w.fail(err) {
				return
			}
			w.boolean(b)
		case "withdrawnAt":
			w.optDateTime(inv.WithdrawnAt)
		case "withdrawComment":
			w.optStr(inv.WithdrawComment)
		case "createdAt":
			w.dateTime(inv.CreatedAt)
		case "updatedAt":
			w.dateTime(inv.UpdatedAt)
		}
	})
}

func (w *writer) article(plans []plan, a *ent.InvoiceArticle) {
	w.object(plans, "Article", func(p *plan) {
		switch p.field.Name {
		case "name":
			w.str(a.Name)
		case "description":
			w.optStr(a.Description)
		case "priceExcludingVAT":
			w.money(a.PriceExcludingVat)
		case "totalVATAmount":
			w.money(a.TotalVatAmount)
		case "totalAmountIncludingVAT":
			w.money(a.TotalAmountIncludingVat)
		case "totalAmountExcludingVAT":
			w.money(a.TotalAmountExcludingVat)
		case "quantity":
			w.marshal(a.Quantity)
		case "vatPercentage":
			w.marshal(a.VatPercentage)
		case "discount":
			w.money(a.Discount)
		}
	})
}

// optMarshal writes a nullable value that marshals itself (enums, dates,
// rates, amounts).
func optMarshal[E graphql.Marshaler](w *writer, e *E) {
	if e == nil {
		w.buf.WriteString("null")
		return
	}
	w.marshal(*e)
}

func (w *writer) address(plans []plan, a *collection.AddressRecord) {
	w.object(plans, "Address", func(p *plan) {
		switch p.field.Name {
		case "address1":
			w.str(a.Address1)
		case "address2":
			w.optStr(a.Address2)
		case "careOf":
			w.optStr(a.CareOf)
		case "zipCode":
			w.str(a.ZipCode)
		case "city":
			w.str(a.City)
		case "countryCode":
			w.str(a.CountryCode)
		}
	})
}

// Options configure the planned path.
type Options struct {
	// Resolvers are the resolvers that the generated code calls.
	Resolvers graph.ResolverRoot
	// Observe, when set, is told for every root list field whether the
	// planned path answered it (metrics).
	Observe func(planned bool)
	// MaxBytes is the largest answer the planned path writes for one
	// field (0: no limit); beyond it the field answers TooLarge's error.
	MaxBytes int
	TooLarge func(ctx context.Context) error
}

// Middleware returns the field middleware that answers the root list fields
// on the planned path. It goes inside the middleware that counts the
// response budget, which charges the root field as any other.
func Middleware(o Options) graphql.FieldMiddleware {
	debtR, debtorR, debtItemR, invoiceR := o.Resolvers.Debt(), o.Resolvers.Debtor(), o.Resolvers.DebtInvoice(), o.Resolvers.Invoice()
	observe := func(ctx context.Context, planned bool) {
		if o.Observe != nil {
			o.Observe(planned)
		}
		if planned {
			if n, ok := ctx.Value(answeredKey{}).(*atomic.Int32); ok {
				n.Add(1)
			}
		}
	}
	// The size of the last answer of each root field: the next starts
	// with room for it, where growing from nothing copies it some ten
	// times (a Q1 page is 22 KB).
	sizes := map[string]*atomic.Int64{}
	for name := range roots {
		sizes[name] = new(atomic.Int64)
	}
	return func(ctx context.Context, next graphql.Resolver) (any, error) {
		fc := graphql.GetFieldContext(ctx)
		if fc == nil || fc.Object != "Query" || roots[fc.Field.Name] == "" || ctx.Value(offKey{}) != nil {
			return next(ctx)
		}
		plans, ok := makePlan(graphql.GetOperationContext(ctx), roots[fc.Field.Name], fc.Field.Selections)
		if !ok {
			observe(ctx, false)
			return next(ctx)
		}
		res, err := next(ctx)
		if err != nil || res == nil {
			observe(ctx, false)
			return res, err
		}
		w := &writer{ctx: ctx, maxBytes: o.MaxBytes, debtR: debtR, debtorR: debtorR, debtItemR: debtItemR, invoiceR: invoiceR}
		size := sizes[fc.Field.Name]
		w.buf.Grow(int(min(size.Load(), maxSizeHint)))
		w.field(ctx, plans, res)
		size.Store(int64(w.buf.Len()))
		if _, tooLarge := w.err.(errTooLarge); tooLarge && o.TooLarge != nil {
			return nil, o.TooLarge(ctx)
		}
		if w.err != nil {
			observe(ctx, false)
			return res, nil
		}
		observe(ctx, true)
		return written(w.buf.Bytes()), nil
	}
}

// maxSizeHint bounds the room an answer starts with: one large answer
// does not make every later one start large.
const maxSizeHint = 256 << 10

// field writes the value of a root list field.
func (w *writer) field(ctx context.Context, plans []plan, res any) {
	// A panic is a bug of the path's, never its way out: gqlgen's executor
	// answers instead, and the check of the tests reports it.
	defer func() {
		if p := recover(); p != nil {
			w.err = errFallBack{reason: fmt.Sprintf("panicked: %v", p)}
		}
	}()
	switch conn := res.(type) {
	case *ent.DebtConnection:
		w.debtConnection(ctx, plans, conn)
	case *ent.DebtorConnection:
		w.debtorConnection(ctx, plans, conn)
	case *ent.InvoiceConnection:
		w.invoiceConnection(ctx, plans, conn)
	default:
		w.err = errFallBack{reason: fmt.Sprintf("unexpected %T", res)}
	}
}

// written is an answer the planned path wrote.
type written []byte

func (b written) MarshalGQL(w io.Writer) { _, _ = w.Write(b) }

type (
	offKey      struct{}
	answeredKey struct{}
)

// Check wraps an executable schema whose fields go through Middleware: each
// query operation that the planned path answered a field of is run again
// with the planned path off, in a context that fresh prepares (a response
// budget of its own), and an answer that differs from gqlgen's is replaced
// by an error naming both (tests).
func Check(es graphql.ExecutableSchema, fresh func(context.Context) context.Context) graphql.ExecutableSchema {
	return checked{ExecutableSchema: es, fresh: fresh}
}

type checked struct {
	graphql.ExecutableSchema
	fresh func(context.Context) context.Context
}

func (c checked) Exec(ctx context.Context) graphql.ResponseHandler {
	opCtx := graphql.GetOperationContext(ctx)
	if opCtx.Operation == nil || opCtx.Operation.Operation != ast.Query {
		return c.ExecutableSchema.Exec(ctx)
	}
	inner := c.ExecutableSchema.Exec(ctx)
	first := true
	return func(ctx context.Context) *graphql.Response {
		if !first {
			return inner(ctx)
		}
		first = false
		answered := new(atomic.Int32)
		resp := inner(context.WithValue(ctx, answeredKey{}, answered))
		if resp == nil || answered.Load() == 0 {
			return resp
		}
		refCtx := context.WithValue(graphql.WithFreshResponseContext(c.fresh(ctx)), offKey{}, true)
		ref := c.ExecutableSchema.Exec(refCtx)(refCtx)
		var refData []byte
		if ref != nil {
			refData = ref.Data
		}
		got, _ := json.Marshal(graphql.GetErrors(ctx))
		want, _ := json.Marshal(graphql.GetErrors(refCtx))
		if !bytes.Equal(resp.Data, refData) || !bytes.Equal(got, want) {
			return graphql.ErrorResponse(ctx, "planned path answered\n%s\nerrors %s\ngqlgen's executor answered\n%s\nerrors %s", resp.Data, got, refData, want)
		}
		return resp
	}
}
