package graph

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/ledger"
	"github.com/debtql/debtql/internal/scalar"
)

// The planned path answers the list queries that front ends send most (a
// page of debts, debtors or invoices with their scalar fields, statuses,
// debtor, items, articles and debt) without gqlgen's per-field machinery: gqlgen parses, validates,
// limits and authorizes the operation as always, and then, instead of a
// field context, a middleware call, a marshaler and often a goroutine per
// field of every row, the planned path walks a plan of the selection made
// once per operation and writes the JSON of each row directly. It calls the
// same resolvers and ent methods as the generated code, so the rows, the
// statements and the values are the same; only the execution differs.
//
// It serves an operation only when it knows every field selected: a query
// whose root fields are debts, debtors and invoices (and __typename), selecting only
// the fields of plannedTypes. Anything else, and any error on the way (an
// argument out of range, FORBIDDEN, NOT_FOUND, a null where the schema
// allows none), goes to gqlgen's executor, which runs the operation from the
// start and answers as it always does; a query writes nothing, so running it
// again is safe. Tests run every query both ways and compare the answers
// byte for byte (PlannedOptions.Check).

// plannedTypes are the fields the planned path knows, by type: the type of
// the field's value for object fields, "" for leaves.
var plannedTypes = map[string]map[string]string{
	"Query": {"debts": "DebtConnection", "debtors": "DebtorConnection", "invoices": "InvoiceConnection"},
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
		"withdrawnAt": "", "withdrawComment": "", "createdAt": "", "updatedAt": "",
	},
	"DebtInvoice": {
		"id": "", "invoiceNumber": "", "description": "", "invoiceDate": "", "dueDate": "",
		"reminderDate": "", "amount": "", "paidAmount": "", "remainingAmount": "", "createdAt": "",
	},
	"Debtor": {
		"id": "", "isCorporation": "", "identificationNumber": "", "name": "",
		"address": "Address", "contactInformation": "ContactInformation",
		"paymentStatus": "", "errandStatus": "", "errandProcessStatus": "", "isCompleted": "",
		"createdAt": "", "updatedAt": "",
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
	// The other root fields: single lookups and the agency's lists.
	"Query": {"apiKeys", "auditEvents", "client", "clients", "debt", "debtor", "invoice", "viewer"},
	// Edges that lists seldom select, and whose loads the executor's
	// loaders batch.
	"Debt":        {"client", "events", "payments"},
	"DebtInvoice": {"invoice", "payments"},
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

// errTooLarge ends the planned path with PlannedOptions.TooLarge: the
// answer has grown beyond PlannedOptions.MaxBytes.
type errTooLarge struct{}

func (errTooLarge) Error() string {
	return "planned path: the answer is larger than the response limit"
}

// errFallBack ends the planned path: gqlgen's executor answers instead.
type errFallBack struct{ reason string }

func (e errFallBack) Error() string { return "planned path: " + e.reason }

// writer writes the answer of a planned operation.
type writer struct {
	ec  *executionContext
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
	debtR     DebtResolver
	debtorR   DebtorResolver
	debtItemR DebtInvoiceResolver
	invoiceR  InvoiceResolver
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

// query writes the data of a query operation. ctx carries the operation.
func (w *writer) query(ctx context.Context, plans []plan) {
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Object: "Query"})
	w.object(plans, "Query", func(p *plan) {
		// The root field's context, with its arguments coerced as gqlgen's
		// executor coerces them (the generated fieldContext_Query_…). An
		// argument that does not coerce is reported there; it is reported
		// into a response context of its own, which is dropped, since the
		// executor, which answers instead, reports it again.
		root := func(fieldContext func(context.Context, graphql.CollectedField) (*graphql.FieldContext, error)) (context.Context, map[string]any) {
			fc, err := fieldContext(graphql.WithFreshResponseContext(ctx), p.field)
			if w.fail(err) {
				return ctx, nil
			}
			return graphql.WithFieldContext(ctx, fc), fc.Args
		}
		switch p.field.Name {
		case "debts":
			ctx, a := root(w.ec.fieldContext_Query_debts)
			if a == nil {
				return
			}
			conn, err := w.ec.Resolvers.Query().Debts(ctx, a["clientId"].(string), a["filter"].(*ledger.DebtFilter), a["orderBy"].(*ent.DebtOrder), a["page"].(*int), a["rowsPerPage"].(*int), a["first"].(*int), a["after"].(*string), a["last"].(*int), a["before"].(*string))
			if w.fail(err) {
				return
			}
			if conn := nonNull(w, "Query.debts", conn); conn != nil {
				w.debtConnection(ctx, p.sub, conn)
			}
		case "debtors":
			ctx, a := root(w.ec.fieldContext_Query_debtors)
			if a == nil {
				return
			}
			conn, err := w.ec.Resolvers.Query().Debtors(ctx, a["clientId"].(string), a["filter"].(*ledger.DebtorFilter), a["orderBy"].(*ent.DebtorOrder), a["page"].(*int), a["rowsPerPage"].(*int), a["first"].(*int), a["after"].(*string), a["last"].(*int), a["before"].(*string))
			if w.fail(err) {
				return
			}
			if conn := nonNull(w, "Query.debtors", conn); conn != nil {
				w.debtorConnection(ctx, p.sub, conn)
			}
		case "invoices":
			ctx, a := root(w.ec.fieldContext_Query_invoices)
			if a == nil {
				return
			}
			conn, err := w.ec.Resolvers.Query().Invoices(ctx, a["clientId"].(string), a["filter"].(*ledger.InvoiceFilter), a["orderBy"].(*ent.InvoiceOrder), a["page"].(*int), a["rowsPerPage"].(*int), a["first"].(*int), a["after"].(*string), a["last"].(*int), a["before"].(*string))
			if w.fail(err) {
				return
			}
			if conn := nonNull(w, "Query.invoices", conn); conn != nil {
				w.invoiceConnection(ctx, p.sub, conn)
			}
		}
	})
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
	w.marshal(*c)
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
						w.marshal(cursor)
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
			w.money(d.RemainingAmount())
		case "overpaidAmount":
			w.money(d.OverpaidAmount())
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
		}
	})
}

func (w *writer) debtItem(ctx context.Context, plans []plan, item *ent.DebtInvoice) {
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

// runPlanned answers a query operation (Exec checks that it is one) on the
// planned path: its data, or
// false when gqlgen's executor must answer it.
func (e *executableSchema) runPlanned(ctx context.Context, maxBytes int) (data []byte, ok bool, err error) {
	opCtx := graphql.GetOperationContext(ctx)
	plans, ok := makePlan(opCtx, "Query", opCtx.Operation.SelectionSet)
	if !ok {
		return nil, false, nil
	}
	ec := newExecutionContext(opCtx, e, nil)
	w := &writer{ec: ec, ctx: ctx, maxBytes: maxBytes, debtR: ec.Resolvers.Debt(), debtorR: ec.Resolvers.Debtor(), debtItemR: ec.Resolvers.DebtInvoice(), invoiceR: ec.Resolvers.Invoice()}
	// A panic is a bug of the path's, never its way out: gqlgen's executor
	// answers instead, and the check of the tests reports it.
	defer func() {
		if p := recover(); p != nil {
			data, ok, err = nil, false, fmt.Errorf("planned path panicked: %v", p)
		}
	}()
	w.query(ctx, plans)
	if w.err != nil {
		return nil, false, w.err
	}
	return w.buf.Bytes(), true, nil
}

// PlannedOptions configure the planned path.
type PlannedOptions struct {
	// Check runs every query that the planned path answers on gqlgen's
	// executor too, and answers an error when the two answers differ
	// (tests).
	Check bool
	// Observe, when set, is told for every query operation whether the
	// planned path answered it (metrics).
	Observe func(planned bool)
	// MaxBytes is the largest answer the planned path writes; a larger one
	// is answered with the error TooLarge alone (0: no limit).
	MaxBytes int
	TooLarge *gqlerror.Error
}

// PlannedSchema is the executable schema with the planned path in front of
// gqlgen's executor.
func PlannedSchema(cfg Config, opts PlannedOptions) graphql.ExecutableSchema {
	return &plannedSchema{executableSchema: NewExecutableSchema(cfg).(*executableSchema), opts: opts}
}

type plannedSchema struct {
	*executableSchema
	opts PlannedOptions
}

func (s *plannedSchema) Exec(ctx context.Context) graphql.ResponseHandler {
	opCtx := graphql.GetOperationContext(ctx)
	if opCtx.Operation == nil || opCtx.Operation.Operation != ast.Query {
		return s.executableSchema.Exec(ctx)
	}
	var fallback graphql.ResponseHandler
	first := true
	return func(ctx context.Context) *graphql.Response {
		if fallback != nil {
			return fallback(ctx)
		}
		if !first {
			return nil
		}
		first = false
		data, ok, perr := s.runPlanned(ctx, s.opts.MaxBytes)
		if s.opts.Observe != nil {
			s.opts.Observe(ok)
		}
		if ok && s.opts.Check {
			return s.compare(ctx, data)
		}
		if ok {
			return &graphql.Response{Data: data}
		}
		if _, tooLarge := perr.(errTooLarge); tooLarge && s.opts.TooLarge != nil {
			return &graphql.Response{Errors: gqlerror.List{s.opts.TooLarge}}
		}
		if perr != nil && s.opts.Check {
			if _, isFallBack := perr.(errFallBack); !isFallBack {
				return graphql.ErrorResponse(ctx, "%s", perr.Error())
			}
		}
		fallback = s.executableSchema.Exec(ctx)
		return fallback(ctx)
	}
}

// compare runs the operation on gqlgen's executor too, and answers an error
// when its answer differs from the planned one.
func (s *plannedSchema) compare(ctx context.Context, planned []byte) *graphql.Response {
	resp := s.executableSchema.Exec(ctx)(ctx)
	if errs := graphql.GetErrors(ctx); len(errs) > 0 {
		return graphql.ErrorResponse(ctx, "planned path answered %s where gqlgen's executor reported errors: %v", planned, errs)
	}
	if resp == nil || !bytes.Equal(resp.Data, planned) {
		var gql []byte
		if resp != nil {
			gql = resp.Data
		}
		return graphql.ErrorResponse(ctx, "planned path answered\n%s\ngqlgen's executor answered\n%s", planned, gql)
	}
	return resp
}
