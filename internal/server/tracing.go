package server

import (
	"context"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the HTTP and GraphQL spans.
const tracerName = "github.com/debtql/debtql/internal/server"

// Span attributes of DebtQL's own.
const (
	attrRequestID  = attribute.Key("debtql.request_id")
	attrErrorCodes = attribute.Key("debtql.error_codes")
)

// traceRequests starts the HTTP server span of each request, as a child of
// the caller's W3C traceparent when it sends one. logRequests, inside it,
// adds the status, the operation and the error codes when the request is
// done. It is installed only when tracing is on. Probes and scrapes
// (/healthz, /readyz, /metrics) are not traced: they would drown the
// traces that matter.
func (s *Server) traceRequests(next http.Handler) http.Handler {
	prop := propagation.TraceContext{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz", "/readyz", "/metrics":
			next.ServeHTTP(w, r)
			return
		}
		ctx := prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		route := routeLabel(r.URL.Path)
		ctx, span := s.tracer.Start(ctx, r.Method+" "+route,
			trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(
				semconv.HTTPRequestMethodKey.String(r.Method),
				semconv.HTTPRoute(route),
				semconv.URLPath(r.URL.Path),
				attrRequestID.String(RequestID(ctx)),
			))
		defer span.End()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// annotateSpan records a request's outcome on its HTTP span.
func annotateSpan(ctx context.Context, status int, l *requestLog) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if l.operation != "" {
		span.SetAttributes(attribute.String("graphql.operation", l.operation))
	}
	if len(l.codes) > 0 {
		span.SetAttributes(attrErrorCodes.StringSlice(l.codes))
	}
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
}

// operationTracing makes a span per GraphQL operation, named by its type
// and name ("query Overview", or "query" when unnamed), around everything
// the operation does: its transaction, resolvers and SQL. It is the first
// extension, so it is the outermost.
type operationTracing struct{ tracer trace.Tracer }

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = operationTracing{}

func (operationTracing) ExtensionName() string                     { return "DebtQLTracing" }
func (operationTracing) Validate(_ graphql.ExecutableSchema) error { return nil }

func (t operationTracing) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	opCtx := graphql.GetOperationContext(ctx)
	if opCtx == nil || opCtx.Operation == nil {
		return next(ctx)
	}
	typ := string(opCtx.Operation.Operation)
	name, attrs := typ, []attribute.KeyValue{semconv.GraphQLOperationTypeKey.String(typ)}
	if n := opCtx.Operation.Name; n != "" {
		name += " " + n
		attrs = append(attrs, semconv.GraphQLOperationName(n))
	}
	ctx, span := t.tracer.Start(ctx, name, trace.WithAttributes(attrs...))
	defer span.End()
	resp := next(ctx)
	if resp != nil && len(resp.Errors) > 0 {
		codeList := errorCodes(resp.Errors)
		span.SetAttributes(attrErrorCodes.StringSlice(codeList))
		span.SetStatus(codes.Error, codeList[0])
	}
	return resp
}
