package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/debtql/debtql/internal/apierr"
	"github.com/debtql/debtql/internal/collection"
)

// Media types of GraphQL over HTTP.
const (
	mediaJSON            = "application/json"
	mediaGraphQLResponse = "application/graphql-response+json"
)

// idempotencyHeader names the header that makes a mutation safe to retry.
const idempotencyHeader = "Idempotency-Key"

// maxIdempotencyKeyLength bounds the Idempotency-Key header (api.md §5).
const maxIdempotencyKeyLength = 255

// exchange is one GraphQL request's state shared between the HTTP handler
// and the transaction extension: the idempotency key and request hash going
// in, and the exact response (status and body) coming out when the
// extension had to fix it before commit, or replays a stored one.
type exchange struct {
	contentType    string
	idempotencyKey string
	requestHash    string
	rendered       *rendered
	// replayed says that rendered is the stored response of an earlier
	// request with the same key.
	replayed bool
}

type exchangeKey struct{}

func exchangeFrom(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	return ex
}

// rendered is a GraphQL response as it goes on the wire.
type rendered struct {
	status      int
	contentType string
	body        []byte
}

// graphqlHandler serves /graphql with the contract's HTTP semantics
// (api.md §1, §9): request errors are 400 whatever the Accept header, a
// refused single-root operation answers its code's status with no data
// entry, mutations are POST only.
type graphqlHandler struct {
	exec *executor.Executor
	s    *Server
}

func (h *graphqlHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The request's deadline (withDeadline) is already on the context.
	ctx := graphql.StartOperationTrace(r.Context())
	ex := &exchange{contentType: negotiate(r.Header.Get("Accept"))}
	params, err := readParams(w, r)
	if err != nil {
		h.writeRefusal(w, r, ex, err)
		return
	}
	if max := h.s.limits.MaxDocumentBytes; max > 0 && len(params.Query) > max {
		h.writeRefusal(w, r, ex, apierr.New(codeTooLarge, "the query document has %d bytes; at most %d are allowed", len(params.Query), max))
		return
	}
	if keys := r.Header.Values(idempotencyHeader); len(keys) > 0 {
		if len(keys) > 1 || keys[0] == "" || utf8.RuneCountInString(keys[0]) > maxIdempotencyKeyLength {
			h.writeRefusal(w, r, ex, apierr.New(apierr.BadUserInput, "the %s header must hold one key of 1 to %d characters", idempotencyHeader, maxIdempotencyKeyLength))
			return
		}
		if err := collection.CheckText(keys[0], false); err != nil {
			h.writeRefusal(w, r, ex, apierr.New(apierr.BadUserInput, "the %s header %s", idempotencyHeader, err))
			return
		}
		ex.idempotencyKey = keys[0]
	}
	ctx = context.WithValue(ctx, exchangeKey{}, ex)
	ctx = withBudget(ctx, h.s.limits)
	params.Headers = r.Header

	opCtx, errs := h.exec.CreateOperationContext(ctx, params)
	if ex.idempotencyKey != "" {
		// After CreateOperationContext, so that a persisted query is hashed
		// by its document, not by its absence.
		params.Query = opCtx.RawQuery
		ex.requestHash = requestHash(params)
	}
	if errs != nil {
		list := operationErrors(opCtx, params, errs)
		setCodes(ctx, errorCodes(list))
		h.write(w, rendered{status: http.StatusBadRequest, contentType: ex.contentType, body: encodeResponse(nil, list, nil)})
		return
	}
	if l := requestLogFrom(ctx); l != nil {
		l.operation = operationLabel(opCtx)
		l.metricOperation = opCtx.Operation.Name
		if l.metricOperation == "" {
			l.metricOperation = l.operation
		}
	}
	if r.Method == http.MethodGet && opCtx.Operation.Operation != ast.Query {
		w.Header().Set("Allow", http.MethodPost)
		list := gqlerror.List{gqlError(apierr.New(apierr.BadUserInput, "a %s must be sent with POST", opCtx.Operation.Operation), nil)}
		setCodes(ctx, errorCodes(list))
		h.write(w, rendered{status: http.StatusMethodNotAllowed, contentType: ex.contentType, body: encodeResponse(nil, list, nil)})
		return
	}
	if opCtx.Operation.Operation == ast.Subscription {
		// A stream needs the WebSocket (websocket.go); over HTTP it would
		// wait for its first event until the request's deadline.
		list := gqlerror.List{gqlError(apierr.New(apierr.BadUserInput, "a subscription runs over a WebSocket at this URL (graphql-transport-ws), not over HTTP"), nil)}
		setCodes(ctx, errorCodes(list))
		h.write(w, rendered{status: http.StatusBadRequest, contentType: ex.contentType, body: encodeResponse(nil, list, nil)})
		return
	}
	responses, ctx := h.exec.DispatchOperation(ctx, opCtx)
	resp := responses(ctx)
	if resp == nil {
		// The executor gives up without a response when the request's
		// deadline has passed.
		err := ctx.Err()
		if err == nil {
			err = errors.New("executor returned no response")
		}
		resp = &graphql.Response{Errors: gqlerror.List{h.s.presenter(ctx, err)}}
	}
	setCodes(ctx, errorCodes(resp.Errors))
	if ex.rendered != nil {
		if ex.replayed {
			// The stored response, whose errors are in its body.
			setCodes(ctx, bodyCodes(ex.rendered.body))
		}
		h.write(w, *ex.rendered)
		return
	}
	if len(resp.Errors) == 0 && len(resp.Extensions) == 0 && len(resp.Data) > 0 {
		// The common answer, framed as it is written (encodeResponse's
		// frame), without a copy of the data: a page is 20 KB and more.
		w.Header().Set("Content-Type", ex.contentType+"; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(dataPrefix)+len(resp.Data)+len(dataSuffix)))
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, dataPrefix)
		_, _ = w.Write(resp.Data)
		_, _ = io.WriteString(w, dataSuffix)
		return
	}
	h.write(w, renderResponse(opCtx, resp, ex.contentType))
}

// writeRefusal answers a request refused before execution.
func (h *graphqlHandler) writeRefusal(w http.ResponseWriter, r *http.Request, ex *exchange, err error) {
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		ae = apierr.New(apierr.Internal, "internal error")
	}
	status := statusOf(ae.Code)
	var se *statusError
	if errors.As(err, &se) {
		status = se.status
	}
	setCodes(r.Context(), []string{string(ae.Code)})
	h.write(w, rendered{status: status, contentType: ex.contentType, body: encodeResponse(nil, gqlerror.List{gqlError(ae, nil)}, nil)})
}

// bodyCodes reads the error codes of a response body.
func bodyCodes(body []byte) []string {
	var b struct {
		Errors gqlerror.List `json:"errors"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil
	}
	return errorCodes(b.Errors)
}

func (h *graphqlHandler) write(w http.ResponseWriter, out rendered) {
	w.Header().Set("Content-Type", out.contentType+"; charset=utf-8")
	w.WriteHeader(out.status)
	_, _ = w.Write(out.body)
}

// renderResponse decides the status and body of an executed operation.
// Without errors: 200 with data. With errors: when the operation has one
// root field, or no data survived (a mutation that failed is rolled back
// whole), the first error's status and no data entry; else 200 with data
// and errors, since some root fields succeeded.
func renderResponse(opCtx *graphql.OperationContext, resp *graphql.Response, contentType string) rendered {
	if len(resp.Errors) == 0 {
		return rendered{status: http.StatusOK, contentType: contentType, body: encodeResponse(resp.Data, nil, resp.Extensions)}
	}
	noData := len(resp.Data) == 0 || bytes.Equal(resp.Data, []byte("null"))
	if noData || rootFieldCount(opCtx) <= 1 {
		return rendered{status: statusOf(codeOfGQL(resp.Errors[0])), contentType: contentType, body: encodeResponse(nil, resp.Errors, resp.Extensions)}
	}
	return rendered{status: http.StatusOK, contentType: contentType, body: encodeResponse(resp.Data, resp.Errors, resp.Extensions)}
}

// operationLabel names an operation for the log: its type and name, or its
// root fields when it has no name.
func operationLabel(opCtx *graphql.OperationContext) string {
	op := opCtx.Operation
	if op.Name != "" {
		return string(op.Operation) + " " + op.Name
	}
	var fields []string
	for _, f := range graphql.CollectFields(opCtx, op.SelectionSet, nil) {
		fields = append(fields, f.Name)
	}
	return string(op.Operation) + " {" + strings.Join(fields, ",") + "}"
}

func rootFieldCount(opCtx *graphql.OperationContext) int {
	if opCtx == nil || opCtx.Operation == nil {
		return 0
	}
	return len(graphql.CollectFields(opCtx, opCtx.Operation.SelectionSet, nil))
}

// wireResponse is the response body; unlike gqlgen's, it omits data when
// there is none, as api.md §9 wants for a refused operation.
type wireResponse struct {
	Errors     gqlerror.List   `json:"errors,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
	Extensions map[string]any  `json:"extensions,omitempty"`
}

// The frame of an answer with data alone.
const (
	dataPrefix = `{"data":`
	dataSuffix = `}`
)

func encodeResponse(data json.RawMessage, errs gqlerror.List, extensions map[string]any) []byte {
	if len(errs) == 0 && len(extensions) == 0 && len(data) > 0 {
		// The common answer: gqlgen's data is compact JSON already, so it is
		// framed as it is instead of being re-validated and copied by
		// json.Marshal (a few % of the CPU time of a list).
		b := make([]byte, 0, len(dataPrefix)+len(data)+len(dataSuffix))
		b = append(b, dataPrefix...)
		b = append(b, data...)
		return append(b, dataSuffix...)
	}
	b, err := marshalJSON(wireResponse{Errors: errs, Data: data, Extensions: extensions})
	if err != nil {
		// Only an extension value could fail to encode; answer without it.
		b, _ = marshalJSON(wireResponse{Errors: errs, Data: data})
	}
	return b
}

// marshalJSON is json.Marshal without its HTML escaping: a message that
// quotes the caller's input says `<` and `&`, not \u003c and \u0026,
// which a developer reading the answer with curl would have to decode.
// The answers are application/json, never HTML, so nothing needs the
// escaping; gqlgen writes its data the same way.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// keptCodes are the codes of request errors that say more than
// BAD_USER_INPUT: the limits', and the persisted-query protocol's, which
// clients act on.
var keptCodes = map[apierr.Code]bool{
	codeTooDeep: true, codeTooComplex: true, codeTooWide: true, codeTooLarge: true,
	"PERSISTED_QUERY_NOT_FOUND": true, "PERSISTED_QUERY_NOT_SUPPORTED": true,
}

// operationErrors are the errors of an operation that does not parse or
// validate, as the API answers them. gqlgen stops at the first broken
// variable value, and its validation names no argument path for a literal:
// both are completed, so that a form gets every broken field at once
// (variables.go).
func operationErrors(opCtx *graphql.OperationContext, params *graphql.RawParams, errs gqlerror.List) gqlerror.List {
	errs = allVariableErrors(opCtx, params.Variables, errs)
	annotateLiteralErrors(opCtx.RawQuery, errs)
	return requestErrors(suggestFields(opCtx, errs))
}

// requestErrors gives errors found before execution (syntax, validation,
// variables, limits) the contract's code and, for variables, the path.
// Every one of them is a request error: HTTP 400.
func requestErrors(errs gqlerror.List) gqlerror.List {
	out := make(gqlerror.List, len(errs))
	for i, e := range errs {
		field := ""
		if len(e.Path) > 1 && e.Path[0] == ast.PathName("variable") {
			field = pathString(e.Path[1:])
		} else if f, ok := e.Extensions["field"].(string); ok {
			// A literal's path, from annotateLiteralErrors.
			field = f
		}
		code := apierr.BadUserInput
		if c := codeOfGQL(e); keptCodes[c] {
			code = c
		}
		ae := &apierr.Error{Code: code, Message: e.Message, Field: field}
		out[i] = &gqlerror.Error{Message: e.Message, Locations: e.Locations, Extensions: map[string]any{"code": string(ae.Code)}, Err: ae}
		if field != "" {
			out[i].Extensions["field"] = field
		}
	}
	return out
}

// negotiate picks the response media type: the GraphQL response type when
// the client asks for it, else JSON.
func negotiate(accept string) string {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && mt == mediaGraphQLResponse {
			return mediaGraphQLResponse
		}
	}
	return mediaJSON
}

// statusError is a refusal whose HTTP status is not its code's: 405, 413
// and 415 are about the HTTP request itself.
type statusError struct {
	err    *apierr.Error
	status int
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// invalidUTF8At is the offset of the first byte of b that is not valid
// UTF-8.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// readParams reads a GraphQL request from a POST JSON body or a GET query
// string.
func readParams(w http.ResponseWriter, r *http.Request) (*graphql.RawParams, error) {
	params := &graphql.RawParams{}
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		params.Query = q.Get("query")
		params.OperationName = q.Get("operationName")
		if v := q.Get("variables"); v != "" {
			if err := decodeObject("variables", "a JSON object", []byte(v), &params.Variables); err != nil {
				return nil, err
			}
		}
		if v := q.Get("extensions"); v != "" {
			if err := decodeObject("extensions", "a JSON object", []byte(v), &params.Extensions); err != nil {
				return nil, err
			}
		}
	case http.MethodPost:
		if ct := r.Header.Get("Content-Type"); ct != "" {
			mt, _, err := mime.ParseMediaType(ct)
			if err != nil || (mt != mediaJSON && mt != mediaGraphQLResponse) {
				return nil, &statusError{apierr.New(apierr.BadUserInput, "the request body must be application/json"), http.StatusUnsupportedMediaType}
			}
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return nil, &statusError{apierr.New(apierr.BadUserInput, "the request body is larger than %d bytes", tooLarge.Limit), http.StatusRequestEntityTooLarge}
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return nil, apierr.New(codeRequestTimeout, "the request body did not arrive within the request deadline")
			}
			return nil, apierr.New(apierr.BadUserInput, "the request body could not be read")
		}
		if !utf8.Valid(body) {
			return nil, apierr.New(apierr.BadUserInput, "the request body is not valid UTF-8 (at byte %d)", invalidUTF8At(body))
		}
		trimmed := bytes.TrimSpace(body)
		if len(trimmed) > 0 && trimmed[0] == '[' {
			return nil, apierr.New(apierr.BadUserInput, "batched requests are not supported: send one operation per request")
		}
		if err := decodeObject("the request body", requestShape, body, params); err != nil {
			return nil, err
		}
	default:
		w.Header().Set("Allow", "GET, POST")
		return nil, &statusError{apierr.New(apierr.BadUserInput, "use POST (or GET for queries)"), http.StatusMethodNotAllowed}
	}
	if _, persisted := params.Extensions["persistedQuery"]; !persisted && strings.TrimSpace(params.Query) == "" {
		return nil, apierr.New(apierr.BadUserInput, "the request has no query")
	}
	return params, nil
}

// requestHash identifies a request for idempotency: the same document,
// operation name and variables. Variables are hashed in their canonical
// JSON form (encoding/json sorts map keys).
func requestHash(p *graphql.RawParams) string {
	h := sha256.New()
	vars, _ := json.Marshal(p.Variables)
	for _, part := range [][]byte{[]byte(p.Query), []byte(p.OperationName), vars} {
		var n [8]byte
		l := len(part)
		for i := range n {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil))
}
