package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Labels of the GraphQL metrics that are not an operation's own name.
const (
	// operationOther stands for every operation name beyond the first
	// maxOperationLabels, and for names longer than maxOperationLabelLength.
	operationOther = "other"
	// operationUnknown is the operation of a request refused before its
	// operation was known: no or a bad API key, a body that is not a
	// GraphQL request, a document that does not parse or validate.
	operationUnknown = "unknown"
	// codeOK is the outcome of a response without errors.
	codeOK = "OK"
)

// Bounds of the operation label. Operation names are chosen by callers, so
// without a bound every new name would add series for as long as the
// process lives. The first maxOperationLabels names keep their own series;
// later ones are counted as "other". A frontend has a few dozen operations.
const (
	maxOperationLabels      = 100
	maxOperationLabelLength = 64
	maxCodeLabelLength      = 40
)

// maxConcurrentScrapes bounds the /metrics requests gathered at once; more
// are answered 503. /metrics needs no API key, so this keeps a flood of
// scrapes from costing more than a few gatherings.
const maxConcurrentScrapes = 4

// durationBuckets are the latency buckets of GraphQL requests, in seconds:
// from a cached sub-millisecond answer to the default request timeout (10 s).
var durationBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// metrics are a server's Prometheus metrics, in a registry of the server's
// own (never the global default registry), so that servers in one process,
// as in the tests, count apart.
type metrics struct {
	registry     *prometheus.Registry
	handler      http.Handler
	gqlRequests  *prometheus.CounterVec
	gqlDuration  *prometheus.HistogramVec
	httpRequests *prometheus.CounterVec
	// planned counts root list fields by the path that answered them.
	planned    *prometheus.CounterVec
	operations operationLabels
}

func newMetrics(s *Server, pool prometheus.Collector) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		gqlRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "debtql_graphql_requests_total",
			Help: `GraphQL requests by operation (its name, or "query {fields}" when unnamed; "other" beyond the first 100 names; "unknown" when refused before the operation was known) and outcome (OK, or the first error's extensions.code).`,
		}, []string{"operation", "code"}),
		gqlDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "debtql_graphql_request_duration_seconds",
			Help:    "Time from receiving a GraphQL request to having answered it, by operation.",
			Buckets: durationBuckets,
		}, []string{"operation"}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "debtql_http_requests_total",
			Help: `HTTP requests by route ("other" for paths that are not a route) and status.`,
		}, []string{"path", "status"}),
		planned: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "debtql_graphql_query_paths_total",
			Help: `Root list fields (debts, debtors, invoices) by the path that answered them: "planned" (the planned path) or "executor" (gqlgen's executor).`,
		}, []string{"path"}),
		operations: operationLabels{seen: map[string]struct{}{}},
	}
	m.registry.MustRegister(
		m.gqlRequests,
		m.gqlDuration,
		m.httpRequests,
		m.planned,
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "debtql_idempotent_replays_total",
			Help: "Mutations answered with the stored response of an earlier request with the same Idempotency-Key.",
		}, func() float64 { return float64(s.replays.Load()) }),
		// The pool's statistics (store.DB.PoolCollector), read at each
		// scrape.
		pool,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	m.handler = promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		ErrorLog:            errorLog{s.log},
		ErrorHandling:       promhttp.ContinueOnError,
		Registry:            m.registry,
		MaxRequestsInFlight: maxConcurrentScrapes,
	})
	return m
}

// observePlanned counts a root list field by the path that answered it.
func (m *metrics) observePlanned(planned bool) {
	path := "executor"
	if planned {
		path = "planned"
	}
	m.planned.WithLabelValues(path).Inc()
}

// observe counts a finished request. status 0 means the handler wrote
// nothing, which net/http answers as 200.
func (m *metrics) observe(r *http.Request, status int, gql *requestLog, elapsed time.Duration) {
	if status == 0 {
		status = http.StatusOK
	}
	m.httpRequests.WithLabelValues(routeLabel(r.URL.Path), strconv.Itoa(status)).Inc()
	if !gql.graphql {
		return
	}
	op := m.operations.label(gql.metricOperation)
	code := codeOK
	if len(gql.codes) > 0 {
		code = codeLabel(gql.codes[0])
	}
	m.gqlRequests.WithLabelValues(op, code).Inc()
	m.gqlDuration.WithLabelValues(op).Observe(elapsed.Seconds())
}

// routeLabel is the path label of a request: its route, or "other", so that
// requests for arbitrary paths add no series.
func routeLabel(path string) string {
	switch {
	case path == "/graphql", path == "/graphql/schema.graphql", path == "/healthz", path == "/readyz", path == "/metrics", path == "/":
		return path
	case strings.HasPrefix(path, "/graphiql/"):
		return "/graphiql/"
	default:
		return "other"
	}
}

// codeLabel bounds an error code label. Codes are the server's own, so this
// is a guard rather than a filter.
func codeLabel(code string) string {
	if code == "" || len(code) > maxCodeLabelLength || !utf8.ValidString(code) {
		return operationOther
	}
	return code
}

// operationLabels hands out the operation label of requests, admitting at
// most maxOperationLabels distinct names.
type operationLabels struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

func (o *operationLabels) label(name string) string {
	switch {
	case name == "":
		return operationUnknown
	case len(name) > maxOperationLabelLength || !utf8.ValidString(name):
		return operationOther
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.seen[name]; ok {
		return name
	}
	if len(o.seen) >= maxOperationLabels {
		return operationOther
	}
	o.seen[name] = struct{}{}
	return name
}

// MetricsHandler serves GET /metrics (and answers 404 for any other path),
// with the request id and log line of every request. serve runs it on its
// own listener when --metrics-addr is set (Options.SeparateMetrics); it
// works whether or not the main handler also serves /metrics.
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metrics.handler)
	return s.withRequestID(s.logRequests(s.recoverPanics(apiHeaders(mux))))
}

// errorLog sends promhttp's errors (a collector that failed) to the log.
type errorLog struct{ log *slog.Logger }

func (l errorLog) Println(v ...any) {
	l.log.Error("gathering metrics", "error", strings.TrimSuffix(fmt.Sprintln(v...), "\n"))
}
