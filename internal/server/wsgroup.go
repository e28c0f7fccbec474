package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/events"
	"github.com/debtql/debtql/internal/ledger"
)

// Shared runs of a subscription. Subscriptions that send the same
// operation with the same variables under the same API key would each get
// the same answer for every event: a browser's tabs, a BFF's users. They
// share one run: one subscription of the hub, one execution of the
// selection per event, one encoding of the answer, queued to each
// subscriber's socket. The API key is part of what makes two the same, so
// a run answers with its viewer's rights and every member has them.
//
// A subscription joins a running one only when it misses nothing by it:
// when the run has sent no event after the one where the newcomer starts
// (its "now", or its after). Each member gets the run's events after its
// own start. Otherwise it starts a run of its own, which later ones join.

// wsGroups are the shared runs of a server, by key.
type wsGroups struct {
	log  *slog.Logger
	mu   sync.Mutex
	runs map[string]*wsGroup // the newest of each key, which newcomers join
	all  map[*wsGroup]struct{}
}

// wsGroup is one shared run.
type wsGroup struct {
	groups    *wsGroups
	key       string
	plan      *events.Plan
	responses graphql.ResponseHandler
	ctx       context.Context // the operation's
	cancel    context.CancelFunc

	mu      sync.Mutex
	members map[*wsSub]struct{}
	last    ledger.Position // the last event sent to the members
	ended   bool
}

// groupKey is what makes two subscriptions the same: the viewer's key, the
// operation (after its persisted query is resolved) and the coerced
// variables (JSON of a map: keys sorted). "" (no key, or variables that do
// not encode) shares with nothing.
func groupKey(ctx context.Context, rc *graphql.OperationContext) string {
	v := auth.ViewerFrom(ctx)
	if v == nil || v.Key == nil || v.Key.ID == "" {
		return ""
	}
	vars, err := json.Marshal(rc.Variables)
	if err != nil {
		return ""
	}
	return v.Key.ID + "\x00" + rc.OperationName + "\x00" + rc.RawQuery + "\x00" + string(vars)
}

// run makes sub a member of the run of key, or starts a run with the
// operation sub's subscribe dispatched (responses on opCtx, planned in
// plan); the operation is dropped (cancel) when sub joins another run.
func (gs *wsGroups) run(sub *wsSub, key string, plan *events.Plan, responses graphql.ResponseHandler, opCtx context.Context, cancel context.CancelFunc, slot *atomic.Pointer[wsGroup]) {
	gs.mu.Lock()
	if g := gs.runs[key]; key != "" && g != nil && g.join(sub) {
		gs.mu.Unlock()
		cancel()
		return
	}
	g := &wsGroup{groups: gs, key: key, plan: plan, responses: responses, ctx: opCtx, cancel: cancel,
		members: map[*wsSub]struct{}{sub: {}}, last: sub.start}
	sub.group = g
	if gs.runs == nil {
		gs.runs, gs.all = map[string]*wsGroup{}, map[*wsGroup]struct{}{}
	}
	gs.runs[key] = g // the newest run of a key takes those that come next
	gs.all[g] = struct{}{}
	gs.mu.Unlock()
	slot.Store(g)
	sub.conn.s.hub.Attach(opCtx, plan, g.deliver)
}

// join adds sub when it misses nothing by joining (under the groups' lock).
func (g *wsGroup) join(sub *wsSub) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended || sub.start.Less(g.last) {
		return false
	}
	g.members[sub] = struct{}{}
	sub.group = g
	return true
}

// deliver runs the operation for one event and queues the answer to the
// members that started before it (the hub calls it, one event at a time).
func (g *wsGroup) deliver(e *ent.AuditEvent) bool {
	select {
	case g.plan.Events <- e:
	case <-g.ctx.Done():
		return false
	}
	resp := g.responses(g.ctx)
	if resp == nil {
		// The stream ended (debtChanged's debt could not be read, or the
		// run was dropped).
		g.end(nil)
		return false
	}
	payload, err := json.Marshal(resp)
	if err != nil {
		g.end(err)
		return false
	}
	at := ledger.PositionOf(e)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended {
		return false
	}
	g.last = at
	for m := range g.members {
		if m.start.Less(at) {
			m.conn.next(m, payload)
		}
	}
	return true
}

// leave takes sub out; the run ends with its last member.
func (g *wsGroup) leave(sub *wsSub) {
	g.mu.Lock()
	delete(g.members, sub)
	last := len(g.members) == 0 && !g.ended
	if last {
		g.ended = true
	}
	g.mu.Unlock()
	if last {
		g.drop()
	}
}

// drop stops the run and forgets it.
func (g *wsGroup) drop() {
	g.cancel()
	g.groups.mu.Lock()
	if g.groups.runs[g.key] == g {
		delete(g.groups.runs, g.key)
	}
	delete(g.groups.all, g)
	g.groups.mu.Unlock()
}

// end stops the run by itself: its members' subscriptions complete, or
// fail with err.
func (g *wsGroup) end(err error) {
	members := g.stop()
	if err != nil && len(members) > 0 {
		g.groups.log.Error("a subscription's answer could not be encoded", "error", err.Error())
	}
	for m := range members {
		if err != nil {
			m.conn.refuse(m, gqlError(apierr.New(apierr.Internal, "internal error: the subscription's answer could not be encoded"), nil))
		} else if m.conn.remove(m) {
			m.conn.send(wsMessage{ID: m.id, Type: "complete"})
		}
	}
}

// slow ends a run the hub found too slow: its members' connections close
// as too slow, with err as the reason.
func (g *wsGroup) slow(err error) {
	for m := range g.stop() {
		m.conn.end(closeSlowConsumer, err.Error())
	}
}

// stop marks the run ended and answers its members.
func (g *wsGroup) stop() map[*wsSub]struct{} {
	g.mu.Lock()
	if g.ended {
		g.mu.Unlock()
		return nil
	}
	g.ended = true
	members := g.members
	g.members = nil
	g.mu.Unlock()
	g.drop()
	return members
}
