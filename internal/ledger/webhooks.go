package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/apikey"
	"github.com/debtql/debtql/ent/auditevent"
	"github.com/debtql/debtql/ent/auditeventrecord"
	"github.com/debtql/debtql/ent/schema"
	"github.com/debtql/debtql/ent/webhookdelivery"
	"github.com/debtql/debtql/ent/webhookendpoint"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/audit"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/scalar"
	"github.com/debtql/debtql/internal/webhook"
)

// The webhooks' use cases (api.md §12): endpoints, their deliveries' log
// and manual retry, and the queue the dispatcher (internal/webhook) sends
// from. Deliveries are queued by a trigger on audit_events, in the
// transaction of the change (store: webhook_queue), so nothing here queues
// them.

// The operations of the webhooks, as the audit trail names them.
const (
	OpCreateWebhookEndpoint = "createWebhookEndpoint"
	OpUpdateWebhookEndpoint = "updateWebhookEndpoint"
	OpDeleteWebhookEndpoint = "deleteWebhookEndpoint"
	OpRetryWebhookDelivery  = "retryWebhookDelivery"
)

// WebhookEndpointInput is an endpoint's URL, description and the
// operations (mutation field names) whose events it receives (every one
// when empty).
type WebhookEndpointInput struct {
	URL         string   `json:"url"`
	Description *string  `json:"description"`
	Operations  []string `json:"operations"`
}

// UseWebhookPolicy sets the rule webhook URLs must follow (Policy.CheckURL),
// checked when an endpoint is created or changed.
func (s *Service) UseWebhookPolicy(p webhook.Policy) { s.webhookPolicy = p }

// checkEndpoint refuses an input's broken fields, every one.
func (s *Service) checkEndpoint(ctx context.Context, in WebhookEndpointInput, isOperation func(string) bool) error {
	var errs apierr.List
	in.URL = strings.TrimSpace(in.URL)
	if in.URL == "" {
		errs.Add("input.url", "is required")
	} else if err := s.webhookPolicy.CheckURL(ctx, in.URL); err != nil {
		errs.Add("input.url", "%s", err.Error())
	}
	if in.Description != nil && len([]rune(*in.Description)) > 2000 {
		errs.Add("input.description", "must be at most 2000 characters")
	}
	for i, op := range in.Operations {
		if !isOperation(op) {
			errs.Add("input.operations."+strconv.Itoa(i), "%q is not a mutation field", op)
		}
	}
	return errs.Err()
}

// endpointClient is the client an endpoint created for clientID belongs
// to: clientID (authorized, existing), a CLIENT key's own when nil, or
// none (every client's) for an ADMIN key when nil.
func (s *Service) endpointClient(ctx context.Context, a Actor, clientID *string) (*string, error) {
	if clientID == nil {
		if a.Role == apikey.RoleADMIN {
			return nil, nil
		}
		own := a.ClientID
		return &own, nil
	}
	if err := s.forClient(ctx, *clientID); err != nil {
		return nil, err
	}
	return clientID, nil
}

// CreateWebhookEndpoint creates an endpoint and returns it with its signing
// secret, shown this once.
func (s *Service) CreateWebhookEndpoint(ctx context.Context, a Actor, clientID *string, in WebhookEndpointInput, isOperation func(string) bool) (*ent.WebhookEndpoint, string, error) {
	ctx = a.scope(ctx)
	owner, err := s.endpointClient(ctx, a, clientID)
	if err != nil {
		return nil, "", err
	}
	if err := s.checkEndpoint(ctx, in, isOperation); err != nil {
		return nil, "", err
	}
	secret, err := webhook.NewSecret()
	if err != nil {
		return nil, "", err
	}
	e, err := inTx(ctx, s, func(ctx context.Context) (*ent.WebhookEndpoint, error) {
		c := s.db(ctx).WebhookEndpoint.Create().
			SetNillableClientID(owner).
			SetURL(strings.TrimSpace(in.URL)).
			SetNillableDescription(in.Description).
			SetSecret(secret)
		if len(in.Operations) > 0 {
			c.SetOperations(in.Operations)
		}
		e, err := c.Save(ctx)
		if err != nil {
			return nil, err
		}
		return recorded(s, ctx, e, event{a, OpCreateWebhookEndpoint}, owner, nil)
	})
	if err != nil {
		return nil, "", err
	}
	return e, secret, nil
}

// webhookEndpoint reads an endpoint a may manage: another client's, or one
// of every client's for a CLIENT key, is NOT_FOUND like a missing one.
func (s *Service) webhookEndpoint(ctx context.Context, id string) (*ent.WebhookEndpoint, error) {
	e, err := s.db(ctx).WebhookEndpoint.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, apierr.New(apierr.NotFound, "webhook endpoint %s does not exist", id)
	}
	return e, err
}

// UpdateWebhookEndpoint replaces an endpoint's URL, description and
// operations; its secret stays.
func (s *Service) UpdateWebhookEndpoint(ctx context.Context, a Actor, id string, in WebhookEndpointInput, isOperation func(string) bool) (*ent.WebhookEndpoint, error) {
	ctx = a.scope(ctx)
	if err := s.checkEndpoint(ctx, in, isOperation); err != nil {
		return nil, err
	}
	return inTx(ctx, s, func(ctx context.Context) (*ent.WebhookEndpoint, error) {
		e, err := s.webhookEndpoint(ctx, id)
		if err != nil {
			return nil, err
		}
		upd := e.Update().SetURL(strings.TrimSpace(in.URL))
		if len(in.Operations) > 0 {
			upd.SetOperations(in.Operations)
		} else {
			upd.ClearOperations()
		}
		if in.Description == nil {
			upd.ClearDescription()
		} else {
			upd.SetDescription(*in.Description)
		}
		if e, err = upd.Save(ctx); err != nil {
			return nil, err
		}
		return recorded(s, ctx, e, event{a, OpUpdateWebhookEndpoint}, e.ClientID, nil)
	})
}

// DeleteWebhookEndpoint deletes an endpoint and its deliveries' log, and
// returns it as it was.
func (s *Service) DeleteWebhookEndpoint(ctx context.Context, a Actor, id string) (*ent.WebhookEndpoint, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) (*ent.WebhookEndpoint, error) {
		e, err := s.webhookEndpoint(ctx, id)
		if err != nil {
			return nil, err
		}
		if _, err := s.db(ctx).WebhookDelivery.Delete().Where(webhookdelivery.EndpointID(id)).Exec(ctx); err != nil {
			return nil, err
		}
		if err := s.db(ctx).WebhookEndpoint.DeleteOne(e).Exec(ctx); err != nil {
			return nil, err
		}
		return recorded(s, ctx, e, event{a, OpDeleteWebhookEndpoint}, e.ClientID, nil)
	})
}

// WebhookEndpoints lists endpoints, oldest first: a client's (a CLIENT
// key's own when clientID is nil), or for an ADMIN key with clientID nil
// every endpoint.
func (s *Service) WebhookEndpoints(ctx context.Context, a Actor, clientID *string) ([]*ent.WebhookEndpoint, error) {
	ctx = a.scope(ctx)
	q := s.db(ctx).WebhookEndpoint.Query().Order(webhookendpoint.ByCreatedAt(), webhookendpoint.ByID())
	if clientID != nil {
		if err := s.forClient(ctx, *clientID); err != nil {
			return nil, err
		}
		q.Where(webhookendpoint.ClientID(*clientID))
	}
	return q.All(ctx)
}

// WebhookEndpoint reads one endpoint (WebhookDelivery.endpoint).
func (s *Service) WebhookEndpoint(ctx context.Context, id string) (*ent.WebhookEndpoint, error) {
	return s.webhookEndpoint(ctx, id)
}

// WebhookDeliveryList is the log of an endpoint's deliveries, newest first.
func (s *Service) WebhookDeliveryList(ctx context.Context, a Actor, endpointID string, args Page) (List[*ent.WebhookDeliveryQuery, *ent.WebhookDeliveryOrder], error) {
	ctx = a.scope(ctx)
	l := List[*ent.WebhookDeliveryQuery, *ent.WebhookDeliveryOrder]{
		Order: &ent.WebhookDeliveryOrder{Direction: entgql.OrderDirectionDesc, Field: ent.WebhookDeliveryOrderFieldCreatedAt},
		order: newListOrder("webhookDeliveries", "CREATED_AT", entgql.OrderDirectionDesc, timeValue, true)}
	p, err := args.paging(l.order)
	if err != nil {
		return l, err
	}
	if _, err := s.webhookEndpoint(ctx, endpointID); err != nil {
		return l, err
	}
	l.Query, l.Paging = s.db(ctx).WebhookDelivery.Query().Where(webhookdelivery.EndpointID(endpointID)), p
	return l, nil
}

// RetryWebhookDelivery queues a delivery again, now, whatever its status:
// one more attempt, and the retries of its 24 hours if they are not over
// (a failed delivery that fails again is failed again).
func (s *Service) RetryWebhookDelivery(ctx context.Context, a Actor, id string) (*ent.WebhookDelivery, error) {
	ctx = a.scope(ctx)
	return inTx(ctx, s, func(ctx context.Context) (*ent.WebhookDelivery, error) {
		d, err := s.db(ctx).WebhookDelivery.Get(ctx, id)
		if ent.IsNotFound(err) {
			return nil, apierr.New(apierr.NotFound, "webhook delivery %s does not exist", id)
		}
		if err != nil {
			return nil, err
		}
		d, err = d.Update().SetStatus(webhookdelivery.StatusPENDING).SetNextAttemptAt(time.Now().UTC().Truncate(time.Microsecond)).Save(ctx)
		if err != nil {
			return nil, err
		}
		return recorded(s, ctx, d, event{a, OpRetryWebhookDelivery}, d.ClientID, nil)
	})
}

// ClaimDeliveries takes up to n due deliveries for lease (webhook.Queue):
// their next attempt moves a lease ahead, in a transaction that skips the
// rows another sender holds (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite's
// one writer at a time), so that no two senders take one delivery. It
// answers each with its endpoint and body.
func (s *Service) ClaimDeliveries(ctx context.Context, n int, lease time.Duration) ([]webhook.Delivery, error) {
	ctx = Background(auth.System(ctx))
	now := time.Now().UTC().Truncate(time.Microsecond)
	// Most looks find nothing due: ask without a transaction (on SQLite,
	// one that would take the write lock) first.
	due, err := s.orm.WebhookDelivery.Query().
		Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPENDING), webhookdelivery.NextAttemptAtLTE(now)).Exist(ctx)
	if err != nil || !due {
		return nil, err
	}
	claimed, err := inTx(ctx, s, func(ctx context.Context) ([]*ent.WebhookDelivery, error) {
		q := s.db(ctx).WebhookDelivery.Query().
			Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPENDING), webhookdelivery.NextAttemptAtLTE(now)).
			Order(webhookdelivery.ByNextAttemptAt()).Limit(n)
		if s.store.IsPostgres() {
			q.Modify(func(sel *sql.Selector) { sel.ForUpdate(sql.WithLockAction(sql.SkipLocked)) })
		}
		due, err := q.All(ctx)
		if err != nil || len(due) == 0 {
			return nil, err
		}
		ids := make([]string, len(due))
		for i, d := range due {
			ids[i] = d.ID
		}
		if err := s.db(ctx).WebhookDelivery.Update().Where(webhookdelivery.IDIn(ids...)).
			SetNextAttemptAt(now.Add(lease)).Exec(ctx); err != nil {
			return nil, err
		}
		return due, nil
	})
	if err != nil || len(claimed) == 0 {
		return nil, err
	}
	endpointIDs, eventIDs := []string{}, []int{}
	for _, d := range claimed {
		endpointIDs = append(endpointIDs, d.EndpointID)
		eventIDs = append(eventIDs, d.EventID)
	}
	endpoints, err := s.orm.WebhookEndpoint.Query().Where(webhookendpoint.IDIn(endpointIDs...)).All(ctx)
	if err != nil {
		return nil, err
	}
	byEndpoint := map[string]*ent.WebhookEndpoint{}
	for _, e := range endpoints {
		byEndpoint[e.ID] = e
	}
	evs, err := s.orm.AuditEvent.Query().Where(auditevent.IDIn(intIDs(eventIDs)...)).
		WithRecords(func(q *ent.AuditEventRecordQuery) { q.Order(auditeventrecord.ByID()) }).All(ctx)
	if err != nil {
		return nil, err
	}
	byEvent := map[int]*ent.AuditEvent{}
	for _, e := range evs {
		byEvent[int(e.ID)] = e
	}
	out := make([]webhook.Delivery, 0, len(claimed))
	for _, d := range claimed {
		ep, ev := byEndpoint[d.EndpointID], byEvent[d.EventID]
		if ep == nil || ev == nil {
			continue // deleted meanwhile, or the trail was reset: its lease lapses
		}
		body, err := WebhookBody(ev, ep.ClientID != nil)
		if err != nil {
			return nil, err
		}
		out = append(out, webhook.Delivery{ID: d.ID, URL: ep.URL, Secret: ep.Secret, EventID: d.EventID, Body: body})
	}
	return out, nil
}

// RecordAttempt appends an attempt to a delivery (webhook.Queue) and sets
// its next step: DELIVERED on a 2xx, else PENDING at the next time of the
// schedule (webhook.NextAttempt), or FAILED 24 hours after it was queued.
func (s *Service) RecordAttempt(ctx context.Context, id string, a webhook.Attempt) error {
	ctx = Background(auth.System(ctx))
	_, err := inTx(ctx, s, func(ctx context.Context) (bool, error) {
		q := s.db(ctx).WebhookDelivery.Query().Where(webhookdelivery.ID(id))
		if s.store.IsPostgres() {
			q.ForUpdate()
		}
		d, err := q.Only(ctx)
		if ent.IsNotFound(err) {
			return false, nil // its endpoint was deleted
		}
		if err != nil {
			return false, err
		}
		attempts := append(d.Attempts, schema.WebhookAttempt{At: a.At, HTTPStatus: nonZero(a.HTTPStatus), Error: nonZero(a.Error), ResponseBody: nonZero(a.ResponseBody)})
		upd := d.Update().SetAttempts(attempts)
		switch next, ok := webhook.NextAttempt(d.CreatedAt, len(attempts), a.At); {
		case a.Delivered():
			upd.SetStatus(webhookdelivery.StatusDELIVERED).ClearNextAttemptAt()
		case ok:
			upd.SetStatus(webhookdelivery.StatusPENDING).SetNextAttemptAt(next.UTC().Truncate(time.Microsecond))
		default:
			upd.SetStatus(webhookdelivery.StatusFAILED).ClearNextAttemptAt()
		}
		return true, upd.Exec(ctx)
	})
	return err
}

// intIDs converts event ids for a query.
func intIDs(ids []int) []scalar.IntID {
	out := make([]scalar.IntID, len(ids))
	for i, id := range ids {
		out[i] = scalar.IntID(id)
	}
	return out
}

// WebhookBody is a delivery's body: the event as the API shows it
// (AuditEvent's fields, with the records' statuses), as a client's key sees
// it when forClient (an ADMIN key that acted is not named).
func WebhookBody(e *ent.AuditEvent, forClient bool) ([]byte, error) {
	type record struct {
		RecordType string          `json:"recordType"`
		RecordID   string          `json:"recordId"`
		Before     json.RawMessage `json:"before"`
		After      json.RawMessage `json:"after"`
	}
	body := struct {
		ID         int       `json:"id"`
		CreatedAt  time.Time `json:"createdAt"`
		Operation  string    `json:"operation"`
		Role       string    `json:"role"`
		APIKeyID   *string   `json:"apiKeyId"`
		APIKeyName *string   `json:"apiKeyName"`
		ClientID   *string   `json:"clientId"`
		RequestID  string    `json:"requestId"`
		Records    []record  `json:"records"`
	}{ID: int(e.ID), CreatedAt: e.CreatedAt.UTC(), Operation: e.Operation, Role: e.Role.String(), ClientID: e.ClientID,
		RequestID: e.RequestID, Records: []record{}}
	if !forClient || e.Role != auditevent.RoleADMIN {
		body.APIKeyID, body.APIKeyName = &e.APIKeyID, &e.APIKeyName
	}
	for _, r := range e.Edges.Records {
		before, err := statusesJSON(r.Before)
		if err != nil {
			return nil, err
		}
		after, err := statusesJSON(r.After)
		if err != nil {
			return nil, err
		}
		body.Records = append(body.Records, record{RecordType: r.RecordType.String(), RecordID: r.RecordID, Before: before, After: after})
	}
	return json.Marshal(body)
}

// gqlValue is a value with the API's wire form (enums by name, money as a
// decimal string): the statuses' types write it themselves.
type gqlValue interface{ MarshalGQL(w io.Writer) }

// statusesJSON writes statuses as the API's RecordStatuses does.
func statusesJSON(st *audit.Statuses) (json.RawMessage, error) {
	if st == nil {
		return json.RawMessage("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	field := func(name string, v gqlValue, set bool) {
		if !set {
			return
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		fmt.Fprintf(&b, "%q:", name)
		v.MarshalGQL(&b)
	}
	field("paymentStatus", st.PaymentStatus, st.PaymentStatus != nil)
	field("mainStatus", st.MainStatus, st.MainStatus != nil)
	field("underStatus", st.UnderStatus, st.UnderStatus != nil)
	field("activeStatus", st.ActiveStatus, st.ActiveStatus != nil)
	field("invoiceStatus", st.InvoiceStatus, st.InvoiceStatus != nil)
	field("invoiceProcessStatus", st.InvoiceProcessStatus, st.InvoiceProcessStatus != nil)
	field("paidAmount", st.PaidAmount, st.PaidAmount != nil)
	b.WriteByte('}')
	if !json.Valid(b.Bytes()) {
		return nil, fmt.Errorf("ledger: statuses wrote invalid JSON: %s", b.Bytes())
	}
	return b.Bytes(), nil
}

// nonZero is v, or nil for its zero value (an attempt's missing parts).
func nonZero[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}
