package server

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/debtql/debtql/ent"
	"github.com/debtql/debtql/ent/idempotencyrecord"
	"github.com/debtql/debtql/graph"
	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/ledger"
)

// idempotencyWindow is how long a response is replayed for its key.
const idempotencyWindow = 24 * time.Hour

// txn runs every mutation operation in one transaction: all of it commits,
// or none of it. (On PostgreSQL, a mutation that is one statement, atomic
// by itself, or a hand-over that the ledger groups in a transaction of its
// own, and whose answer cannot fail after it runs without BEGIN and
// COMMIT: graph.RunsAlone.) With an Idempotency-Key it also records the response in
// that same transaction, so that the work and its record are never apart:
// a retry either finds both or neither.
type txn struct{ s *Server }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
	graphql.ResponseInterceptor
} = txn{}

func (txn) ExtensionName() string                     { return "DebtQLTransaction" }
func (txn) Validate(_ graphql.ExecutableSchema) error { return nil }

// MutateOperationContext runs the resolvers of a mutation one at a time, as
// they share one transaction.
func (txn) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	if opCtx.Operation == nil || opCtx.Operation.Operation != ast.Mutation {
		return nil
	}
	previous := opCtx.ResolverMiddleware
	var mu sync.Mutex
	opCtx.ResolverMiddleware = func(ctx context.Context, next graphql.Resolver) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		return previous(ctx, next)
	}
	return nil
}

// savepoint marks where a mutation's own work starts inside its
// transaction, so that a refused mutation can undo its work yet keep the
// idempotency lock and record its refusal.
const savepoint = "debtql_mutation"

func (t txn) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	opCtx := graphql.GetOperationContext(ctx)
	if opCtx == nil || opCtx.Operation == nil || opCtx.Operation.Operation != ast.Mutation {
		return next(ctx)
	}
	ex := exchangeFrom(ctx)
	keyed := ex != nil && ex.idempotencyKey != ""
	if !keyed && graph.RunsAlone(opCtx) && t.s.ledger.RunsAlone() {
		// Work that commits on its own, and an answer that cannot fail
		// after it (graph.RunsAlone): no BEGIN, no COMMIT. A refused
		// payment or hand-over wrote nothing.
		// Nothing may refuse the answer once the work has committed:
		// no budget (the answer is one payment's row, with its debt and
		// item, or one debt's row, and short).
		resp := next(ledger.Alone(withoutBudget(ctx)))
		if len(resp.Errors) > 0 {
			return &graphql.Response{Errors: resp.Errors, Extensions: resp.Extensions}
		}
		return resp
	}
	tx, err := t.s.db.Ent.Tx(ctx)
	if err != nil {
		return t.fail(ctx, fmt.Errorf("beginning transaction: %w", err))
	}
	rollback := func() { _ = tx.Rollback() }
	defer func() {
		if p := recover(); p != nil {
			rollback()
			panic(p)
		}
	}()
	txCtx := ent.NewTxContext(ent.NewContext(ctx, tx.Client()), tx)
	if keyed {
		replay, err := t.s.idempotencyBegin(txCtx, tx, ex)
		if err != nil {
			rollback()
			return t.fail(ctx, err)
		}
		if replay != nil {
			rollback()
			ex.rendered, ex.replayed = replay, true
			return &graphql.Response{}
		}
		if _, err := tx.ExecContext(txCtx, "SAVEPOINT "+savepoint); err != nil {
			rollback()
			return t.fail(ctx, fmt.Errorf("setting savepoint: %w", err))
		}
	}
	resp := next(txCtx)
	if len(resp.Errors) > 0 {
		// A refused mutation writes nothing: no data survives either.
		resp = &graphql.Response{Errors: resp.Errors, Extensions: resp.Extensions}
		if !keyed {
			rollback()
			return resp
		}
		if _, err := tx.ExecContext(txCtx, "ROLLBACK TO SAVEPOINT "+savepoint); err != nil {
			rollback()
			return t.fail(ctx, fmt.Errorf("rolling back to savepoint: %w", err))
		}
	}
	if keyed {
		out := renderResponse(opCtx, resp, ex.contentType)
		if out.status >= http.StatusInternalServerError {
			// A failure of ours, not an answer: nothing is recorded, so
			// that a retry with the key runs again (Stripe does the same).
			rollback()
			return resp
		}
		stored := out
		if created := createsSecret(opCtx); out.status < http.StatusBadRequest && created != "" {
			// The secret of a new API key is shown once and never stored,
			// not even here: a retry learns that the key exists.
			stored = secretWithheld(ex.contentType, created)
		}
		if err := t.s.idempotencyRecord(txCtx, tx, ex, stored); err != nil {
			rollback()
			return t.fail(ctx, err)
		}
		ex.rendered = &out
	}
	if err := tx.Commit(); err != nil {
		if ex != nil {
			ex.rendered = nil
		}
		return t.fail(ctx, fmt.Errorf("committing: %w", err))
	}
	return resp
}

// secretsCreated are the mutations whose answer holds a secret, with what
// a retry of a keyed one is told instead: where to find what was created,
// and what to do when its secret was lost.
var secretsCreated = map[string]string{
	"createApiKey": "an API key; its secret was shown once and is not kept: " +
		"find the key in apiKeys, revoke it if its secret was lost, and create another",
	"createWebhookEndpoint": "a webhook endpoint; its signing secret was shown once and is not kept: " +
		"find the endpoint in webhookEndpoints, delete it if its secret was lost, and create another",
}

// createsSecret is the mutation of an operation that creates an API key or
// a webhook endpoint, whose answer holds a secret; "" for any other.
func createsSecret(opCtx *graphql.OperationContext) string {
	for _, f := range graphql.CollectFields(opCtx, opCtx.Operation.SelectionSet, nil) {
		if _, ok := secretsCreated[f.Name]; ok {
			return f.Name
		}
	}
	return ""
}

// secretWithheld is what a keyed mutation that created a secret records in
// place of its answer: a retry is told what was created, not its secret.
func secretWithheld(contentType, mutation string) rendered {
	err := apierr.New(apierr.Conflict, "this Idempotency-Key already created %s", secretsCreated[mutation])
	return rendered{status: http.StatusConflict, contentType: contentType,
		body: encodeResponse(nil, gqlerror.List{gqlError(err, nil)}, nil)}
}

// fail answers the operation with err alone, through the presenter.
func (t txn) fail(ctx context.Context, err error) *graphql.Response {
	return &graphql.Response{Errors: gqlerror.List{t.s.presenter(ctx, err)}}
}

// idempotencyBegin claims the request's key for this transaction and returns
// the stored response when the key has been answered before.
//
// A retry that finds the key locked reads its record all the same: retries
// of a finished request replay its answer side by side, so that one of
// them holding the lock while it reads never tells the others that the
// first is "still running". Only a key that is locked and has no committed
// answer is a request still at work. (The first request, and a retry that
// gets the lock, read the record once, under the lock.)
func (s *Server) idempotencyBegin(ctx context.Context, tx *ent.Tx, ex *exchange) (*rendered, error) {
	v := auth.ViewerFrom(ctx)
	if v == nil {
		return nil, apierr.New(apierr.Unauthenticated, "an API key is required")
	}
	locked, err := s.db.TryLock(ctx, tx, lockKey(v.Key.ID, ex.idempotencyKey))
	if err != nil {
		return nil, err
	}
	replay, answered, err := s.idempotencyReplay(ctx, tx, v.Key.ID, ex, locked)
	if err != nil || answered || locked {
		return replay, err
	}
	return nil, apierr.New(apierr.Conflict, "a request with this Idempotency-Key is still running; retry when it has finished")
}

// idempotencyReplay reads the key's record: answered is true when the key
// has a live answer, which replay holds (or err, when the record is of
// another request). An expired record reads as no answer; it is deleted
// only by a caller that holds the key's lock (locked).
func (s *Server) idempotencyReplay(ctx context.Context, tx *ent.Tx, apiKeyID string, ex *exchange, locked bool) (replay *rendered, answered bool, err error) {
	sys := auth.System(ctx)
	rec, err := tx.IdempotencyRecord.Query().
		Where(idempotencyrecord.APIKeyID(apiKeyID), idempotencyrecord.Key(ex.idempotencyKey)).
		Only(sys)
	switch {
	case ent.IsNotFound(err):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("reading idempotency record: %w", err)
	case time.Since(rec.CreatedAt) > idempotencyWindow:
		if !locked {
			return nil, false, nil
		}
		if err := tx.IdempotencyRecord.DeleteOne(rec).Exec(sys); err != nil {
			return nil, false, fmt.Errorf("expiring idempotency record: %w", err)
		}
		return nil, false, nil
	case rec.RequestHash != ex.requestHash:
		return nil, true, apierr.New(apierr.Conflict, "this Idempotency-Key was already used with a different request")
	}
	s.replays.Add(1)
	return &rendered{status: rec.Status, contentType: rec.ContentType, body: rec.Body}, true, nil
}

// idempotencyRecord stores the response to a keyed mutation.
func (s *Server) idempotencyRecord(ctx context.Context, tx *ent.Tx, ex *exchange, out rendered) error {
	v := auth.ViewerFrom(ctx)
	if v == nil {
		return errors.New("idempotency record without a viewer")
	}
	_, err := tx.IdempotencyRecord.Create().
		SetAPIKeyID(v.Key.ID).
		SetKey(ex.idempotencyKey).
		SetRequestHash(ex.requestHash).
		SetStatus(out.status).
		SetContentType(out.contentType).
		SetBody(out.body).
		Save(auth.System(ctx))
	if err != nil {
		return fmt.Errorf("writing idempotency record: %w", err)
	}
	return nil
}

// lockKey names the advisory lock of an API key's idempotency key.
func lockKey(apiKeyID, key string) int64 {
	sum := sha256.Sum256([]byte(apiKeyID + "\x00" + key))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// PruneIdempotencyRecords deletes the records older than the replay window
// and returns how many it deleted. serve runs it hourly.
func (s *Server) PruneIdempotencyRecords(ctx context.Context) (int, error) {
	return s.db.Ent.IdempotencyRecord.Delete().
		Where(idempotencyrecord.CreatedAtLT(time.Now().Add(-idempotencyWindow))).
		Exec(auth.System(ctx))
}
