package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/vektah/gqlparser/v2/gqlerror"
	"go.opentelemetry.io/otel/trace"

	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/auth"
	"github.com/debtql/debtql/internal/store"
)

type requestIDKey struct{}

// RequestID returns the request id of ctx, "" outside a request.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// withRequestID gives every request an id: the caller's X-Request-Id when
// it is a sane token, else a new one. It is echoed in the response and put
// on every log line of the request.
func (s *Server) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// statusRecorder remembers the status and size of a response.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *statusRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// requestLog is what the GraphQL handler adds to a request's log line and
// metrics.
type requestLog struct {
	// graphql marks a GraphQL request (see markGraphQL).
	graphql bool
	// operation names the operation for the log: "mutation CreateClient".
	operation string
	// metricOperation names it for the metrics: its name alone, or as in
	// the log when it has none ("query {clients}").
	metricOperation string
	// codes are the error codes of the response, first error first.
	codes []string
}

// setCodes records the codes of the errors a request is answered with.
func setCodes(ctx context.Context, codes []string) {
	if l := requestLogFrom(ctx); l != nil {
		l.codes = codes
	}
}

// markGraphQL marks the requests that the metrics count as GraphQL
// requests: those to /graphql that get past CORS (a preflight that CORS
// answers is not one), whether or not they are then refused.
func markGraphQL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l := requestLogFrom(r.Context()); l != nil {
			l.graphql = true
		}
		next.ServeHTTP(w, r)
	})
}

type requestLogKey struct{}

func requestLogFrom(ctx context.Context) *requestLog {
	l, _ := ctx.Value(requestLogKey{}).(*requestLog)
	return l
}

// logRequests writes one log line per request, with its id, status and
// duration, and for GraphQL the operation and error codes, and counts the
// request in the metrics. Headers are not logged, so neither is
// Authorization.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		gql := &requestLog{}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), requestLogKey{}, gql)))
		elapsed := time.Since(start)
		s.metrics.observe(r, rec.status, gql, elapsed)
		annotateSpan(r.Context(), rec.status, gql)
		level := slog.LevelInfo
		switch {
		case rec.status >= 500:
			level = slog.LevelError
		case r.URL.Path == "/healthz" || r.URL.Path == "/readyz":
			level = slog.LevelDebug // probes every few seconds would drown the log
		}
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", rec.status),
			slog.Int("bytes", rec.bytes),
			slog.Duration("duration", elapsed),
		}
		if gql.operation != "" {
			attrs = append(attrs, slog.String("operation", gql.operation))
		}
		if len(gql.codes) > 0 {
			attrs = append(attrs, slog.Any("error_codes", gql.codes))
		}
		s.log.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// recoverPanics answers 500 for a panic outside the GraphQL executor (which
// recovers its own) and logs it.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				_ = s.recoverFunc(r.Context(), p)
				writeErrors(w, r, http.StatusInternalServerError, apierr.New(apierr.Internal, "internal error"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// apiHeaders sets the headers every response carries.
func apiHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		if r.URL.Path != "/" && r.URL.Path[:min(len(r.URL.Path), 10)] != "/graphiql/" {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

// withDeadline puts the request deadline (--request-timeout) on a GraphQL
// request's context before anything touches the database, the API key's
// lookup included: a request that waits for a connection of a full pool,
// or for a database that does not answer, gives up at the deadline and
// answers 503 instead of hanging.
func (s *Server) withDeadline(next http.Handler) http.Handler {
	t := s.limits.RequestTimeout
	if t <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		deadline := time.Now().Add(t)
		ctx, cancel := context.WithDeadline(r.Context(), deadline)
		defer cancel()
		// The connection keeps the deadline too: a body trickled in
		// slowly is cut at it (408), and an answer still being written
		// past it, plus the time to write a refusal, is cut off.
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(deadline)
		_ = rc.SetWriteDeadline(deadline.Add(writeGrace))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// writeGrace is how long after the request's deadline its answer may still
// be written: enough for the 503 that reports the deadline.
const writeGrace = 5 * time.Second

// limitBody refuses bodies beyond max bytes (413).
func (s *Server) limitBody(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, max)
		next.ServeHTTP(w, r)
	})
}

// authenticate puts the viewer of the request's API key in the context, or
// answers 401 with WWW-Authenticate and no data.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr := clientAddress(r)
		var wait time.Duration
		looked := false // only a key looked up and refused spends a token
		mayLookUp := func() error {
			var spent bool
			if spent, wait = s.authFailures.exhausted(addr); spent {
				return errTooManyFailures
			}
			looked = true
			return nil
		}
		v, err := s.keys.Authenticate(r.Context(), s.db.Ent, r.Header.Get("Authorization"), mayLookUp)
		if err != nil {
			if errors.Is(err, errTooManyFailures) {
				w.Header().Set("Retry-After", retryAfter(wait))
				writeErrors(w, r, statusOf(codeRateLimited),
					apierr.New(codeRateLimited, "too many requests with an invalid API key from this address; retry after %s seconds", retryAfter(wait)))
				return
			}
			var ae *apierr.Error
			if errors.As(err, &ae) {
				if looked {
					s.authFailures.take(addr)
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="debtql"`)
				writeErrors(w, r, statusOf(ae.Code), ae)
				return
			}
			if store.Unavailable(err) || errors.Is(err, context.DeadlineExceeded) {
				s.log.WarnContext(r.Context(), "cannot check the API key: database unavailable or deadline passed", "error", err.Error())
			} else {
				s.log.ErrorContext(r.Context(), "authentication failed", "error", err.Error())
			}
			writeErrors(w, r, http.StatusServiceUnavailable,
				&apierr.Error{Code: codeServiceUnavailable, Message: "the service cannot check API keys right now; try again shortly"})
			return
		}
		if ok, wait := s.rate.allow(v.Key.ID); !ok {
			w.Header().Set("Retry-After", retryAfter(wait))
			writeErrors(w, r, statusOf(codeRateLimited),
				apierr.New(codeRateLimited, "too many requests with this API key; retry after %s seconds", retryAfter(wait)))
			return
		}
		next.ServeHTTP(w, r.WithContext(auth.WithViewer(r.Context(), v)))
	})
}

// errTooManyFailures stops a key lookup for an address that has failed
// authentication too often (Limits.AuthFailuresPerSecond).
var errTooManyFailures = errors.New("too many failed authentications from this address")

// clientAddress is the address a request came from: the peer of its
// connection (a proxy's, behind one; see docs/reliability.md).
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// writeErrors answers r with errors alone, in the media type its Accept
// header asks for, and records their codes for the log and metrics.
func writeErrors(w http.ResponseWriter, r *http.Request, status int, errs ...*apierr.Error) {
	list := make(gqlerror.List, len(errs))
	for i, e := range errs {
		list[i] = gqlError(e, nil)
	}
	setCodes(r.Context(), errorCodes(list))
	w.Header().Set("Content-Type", negotiate(r.Header.Get("Accept"))+"; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(encodeResponse(nil, list, nil))
}

// contextHandler adds the request id, and when tracing is on the trace and
// span ids, to every log record made with a request's context.
type contextHandler struct{ slog.Handler }

// NewLogHandler wraps h so that log records carry the request id and, when
// the request is traced, its trace_id and span_id.
func NewLogHandler(h slog.Handler) slog.Handler { return contextHandler{h} }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}
