// Package server is DebtQL's HTTP face: the routes of api.md §1, the
// middleware every request passes (request id, log line, panic recovery,
// body limit, authentication), the GraphQL transport with the contract's
// status codes, the transaction and idempotency of mutations, and the
// offline GraphiQL page.
package server

import (
	"context"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"go.opentelemetry.io/otel/trace"

	"github.com/debtql/debtql/graph"
	"github.com/debtql/debtql/graph/planned"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/buildinfo"
	"github.com/debtql/debtql/internal/collection"
	"github.com/debtql/debtql/internal/events"
	"github.com/debtql/debtql/internal/ledger"
	"github.com/debtql/debtql/internal/server/graphiql"
	"github.com/debtql/debtql/internal/store"
	"github.com/debtql/debtql/internal/webhook"
)

// DefaultMaxBodyBytes is the largest request body accepted (api.md §1).
const DefaultMaxBodyBytes = 1 << 20

// Options configure a Server.
type Options struct {
	DB     *store.DB
	Logger *slog.Logger
	// CheckPlanned runs every query that the planned path answers on
	// gqlgen's executor too, and answers an error when the two differ
	// (tests; see graph/planned).
	CheckPlanned bool
	// Now is the clock that statuses are evaluated at; time.Now when nil.
	Now func() time.Time
	// Location is the service's time zone (TZ), where "today" is.
	Location *time.Location
	// MaxBodyBytes limits request bodies; DefaultMaxBodyBytes when 0.
	MaxBodyBytes int64
	// DisableIntrospection turns GraphQL introspection off.
	DisableIntrospection bool
	// Limits are the abuse limits; DefaultLimits when nil.
	Limits *Limits
	// AllowedOrigins are the browser origins allowed to call the API
	// (CORS); "*" allows any. None by default.
	AllowedOrigins []string
	// SeparateMetrics keeps GET /metrics off the main handler (it answers
	// 404 there), for serving MetricsHandler on a listener of its own
	// (--metrics-addr). By default the main handler serves /metrics.
	SeparateMetrics bool
	// TracerProvider turns tracing on: an HTTP span per request (honouring
	// an incoming W3C traceparent), a span per GraphQL operation and one per
	// SQL statement, and trace and span ids on the log lines. Nil is off:
	// nothing is traced, not even through OpenTelemetry's global provider.
	TracerProvider trace.TracerProvider
	// PaymentOrder is what applyForPaymentOrder charges;
	// collection.DefaultPaymentOrderAmounts when nil.
	PaymentOrder *collection.PaymentOrderAmounts
	// Events configure the subscriptions' hub (buffer per subscriber,
	// safety poll); its defaults when zero.
	Events events.Options
	// WebSocketInitTimeout is how long a WebSocket client may take to send
	// connection_init (10 s when 0).
	WebSocketInitTimeout time.Duration
	// WebhookPolicy is the rule of webhook URLs: https and public
	// addresses, unless AllowInsecure (DEBTQL_WEBHOOK_ALLOW_INSECURE).
	WebhookPolicy webhook.Policy
	// WebhookWorkers is how many deliveries a server sends at once (16
	// when 0); negative sends none (another process sends them).
	WebhookWorkers int
}

// persistedQueries bounds the cache of automatic persisted queries.
const persistedQueries = 1000

// Server is the HTTP handler of DebtQL.
type Server struct {
	db      *store.DB
	log     *slog.Logger
	handler http.Handler
	// replays counts idempotent replays (debtql_idempotent_replays_total).
	replays atomic.Int64
	limits  Limits
	// ledger runs the use cases (the mutations' transactions ask it
	// whether a payment may run alone).
	ledger *ledger.Service
	rate   *rateLimiter
	// authFailures limits failed authentications per client address.
	authFailures *rateLimiter
	metrics      *metrics
	// tracer is nil when tracing is off.
	tracer trace.Tracer
	// keys caches the API keys requests use, while its listener is live
	// (PostgreSQL); close stops the listener.
	keys      *auth.KeyCache
	closeOnce sync.Once
	close     func()
	// sockets are the open subscription connections, closed on Close.
	sockets sync.Map // *wsConn → struct{}
	hub     *events.Hub
	// groups are the shared runs of subscriptions (wsgroup.go); wsInit is
	// how long a socket may take to send connection_init.
	groups wsGroups
	wsInit time.Duration
}

// New builds the server. It installs the tenant filter on the database
// client, so that no server runs without it.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	limits := DefaultLimits
	if opts.Limits != nil {
		limits = *opts.Limits
	}
	s := &Server{db: opts.DB, log: opts.Logger, limits: limits, rate: newRateLimiter(limits.RatePerSecond, limits.RateBurst),
		authFailures: newRateLimiter(limits.AuthFailuresPerSecond, limits.AuthFailureBurst)}
	auth.RegisterTenancy(opts.DB.Ent)
	s.keys = auth.NewKeyCache()
	s.keys.Watch(opts.DB.Ent)
	s.close = func() {}
	if opts.DB.IsPostgres() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.keys.Listen(ctx, opts.DB.Connect, opts.DB.SQL, time.Second, s.log)
		}()
		s.close = func() { cancel(); <-done }
	}
	s.metrics = newMetrics(s, opts.DB.PoolCollector())

	s.ledger = ledger.New(opts.DB, ledger.Clock{Now: opts.Now, Location: opts.Location})
	if opts.PaymentOrder != nil {
		s.ledger.SetPaymentOrderAmounts(*opts.PaymentOrder)
	}
	resolver := graph.NewResolver(opts.DB.Ent, s.ledger)
	resolver.UseRequestIDs(RequestID)
	s.startEvents(opts, resolver)
	schema := graph.Costed(graph.NewExecutableSchema(graph.Config{Resolvers: resolver, Complexity: graph.Complexity()}))
	if opts.CheckPlanned {
		schema = planned.Check(schema, func(ctx context.Context) context.Context { return withBudget(ctx, limits) })
	}
	exec := executor.New(schema)
	exec.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	exec.SetErrorPresenter(s.presenter)
	exec.SetRecoverFunc(s.recoverFunc)
	if opts.TracerProvider != nil {
		s.tracer = opts.TracerProvider.Tracer(tracerName)
		// First, so that its span is around every other extension's work
		// (the transaction of a mutation included).
		exec.Use(operationTracing{tracer: s.tracer})
	}
	if !opts.DisableIntrospection {
		exec.Use(extension.Introspection{})
	}
	// Automatic persisted queries (Apollo's protocol): clients send a hash
	// instead of a known document, which their own API key registered.
	exec.Use(extension.AutomaticPersistedQuery{Cache: perKeyCache{lru.New[string](persistedQueries)}})
	exec.Use(&limitsExtension{limits: limits})
	exec.Use(txn{s: s})
	// Inside the transaction, so that a mutation whose answer is refused
	// as too large is rolled back.
	exec.Use(responseLimit{limits: limits})
	// Loaders batch the fields nested under lists. A query's root fields
	// share one set. The root fields of a mutation run one after the other,
	// each writing, so each gets a set of its own and answers from the
	// database as the fields before it left it, not from what they cached.
	isMutation := func(ctx context.Context) bool {
		oc := graphql.GetOperationContext(ctx)
		return oc.Operation != nil && oc.Operation.Operation == ast.Mutation
	}
	// A subscription gets none: its loaders would live as long as it and
	// answer later events from what they cached for the first.
	exec.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		if oc := graphql.GetOperationContext(ctx); oc.Operation != nil && oc.Operation.Operation == ast.Query {
			ctx = resolver.WithLoaders(ctx)
		}
		return next(ctx)
	})
	exec.AroundRootFields(func(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
		if isMutation(ctx) {
			ctx = resolver.WithLoaders(ctx)
		}
		return next(ctx)
	})
	exec.AroundFields(resolveField)
	// Inside the budget's middleware, which charges the root field.
	exec.AroundFields(planned.Middleware(planned.Options{Resolvers: resolver, Observe: s.metrics.observePlanned,
		MaxBytes: limits.MaxResponseBytes, TooLarge: overBudget}))
	// Federation's _service and _entities (docs/federation.md): their
	// refusals in the API's codes.
	exec.AroundFields(graph.FederationFields)

	gql := &graphqlHandler{exec: exec, s: s}
	mux := http.NewServeMux()
	plain := s.cors(opts.AllowedOrigins, markGraphQL(s.withDeadline(s.limitBody(opts.MaxBodyBytes, s.authenticate(gql)))))
	ws := s.websocket(exec, opts.AllowedOrigins)
	mux.HandleFunc("/graphql", func(w http.ResponseWriter, r *http.Request) {
		if isWebSocket(r) {
			ws.ServeHTTP(w, r)
			return
		}
		plain.ServeHTTP(w, r)
	})
	// The SDL, with the API's key like introspection (see schema.go).
	mux.Handle("/graphql/schema.graphql", s.cors(opts.AllowedOrigins, s.withDeadline(s.authenticate(schemaHandler(!opts.DisableIntrospection)))))
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	if !opts.SeparateMetrics {
		// No API key: the metrics hold no tenant data (see README, Metrics).
		mux.Handle("GET /metrics", s.metrics.handler)
	}
	mux.Handle("/", graphiql.Handler("/graphql"))
	inner := s.logRequests(s.recoverPanics(apiHeaders(mux)))
	if s.tracer != nil {
		inner = s.traceRequests(inner)
	}
	s.handler = s.withRequestID(inner)
	return s
}

// perKeyCache keeps each API key's persisted queries apart: a hash that
// another key registered is unknown, so that a hash-only request cannot
// tell whether anyone else sent that document. The keys share the bound.
type perKeyCache struct{ docs graphql.Cache[string] }

func (c perKeyCache) scoped(ctx context.Context, hash string) (string, bool) {
	v := auth.ViewerFrom(ctx)
	if v == nil {
		return "", false
	}
	return v.Key.ID + "\x00" + hash, true
}

func (c perKeyCache) Get(ctx context.Context, hash string) (string, bool) {
	if k, ok := c.scoped(ctx, hash); ok {
		return c.docs.Get(ctx, k)
	}
	return "", false
}

func (c perKeyCache) Add(ctx context.Context, hash, doc string) {
	if k, ok := c.scoped(ctx, hash); ok {
		c.docs.Add(ctx, k, doc)
	}
}

// KeyCacheLive reports whether API keys are answered from the cache (its
// listener hears its pings; PostgreSQL only).
func (s *Server) KeyCacheLive() bool { return s.keys.Live() }

// Close stops what the server runs besides answering requests (the API key
// cache's listener); call it before closing the database.
func (s *Server) Close() { s.closeOnce.Do(s.close) }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

// healthz answers "ok" as text, as it always has, for probes that read the
// body; a caller that accepts JSON (and not text first) gets the status
// with the version and commit running, for a deploy to check what is live.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if wantsJSON(r.Header.Get("Accept")) {
		in := buildinfo.Get()
		body, _ := marshalJSON(struct {
			Status string `json:"status"`
			buildinfo.Info
		}{"ok", in})
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(append(body, '\n'))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// wantsJSON reports whether an Accept header names application/json
// before any text type (curl's */* and a browser's text/html get text).
func wantsJSON(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch {
		case mt == mediaJSON:
			return true
		case strings.HasPrefix(mt, "text/"):
			return false
		}
	}
	return false
}

// readyz answers 200 when the database answers a ping within a second.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := s.db.Ping(ctx); err != nil {
		s.log.WarnContext(r.Context(), "not ready: database does not answer", "error", err.Error())
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("database unavailable\n"))
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}
