package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/charter-dev/charter/registry/srerr"
)

// ContentType is the media type of every response.
const ContentType = "application/vnd.schemaregistry.v1+json"

// acceptedBodyTypes are the request media types read as JSON: Confluent's
// three, octet-stream (read as generic JSON, as Confluent does), and —
// unlike Confluent, which answers 415 — curl's default for -d,
// application/x-www-form-urlencoded, so that `curl -d '{...}'` works
// without a header.
var acceptedBodyTypes = map[string]bool{
	"application/vnd.schemaregistry.v1+json": true,
	"application/vnd.schemaregistry+json":    true,
	"application/json":                       true,
	"application/octet-stream":               true,
	"application/x-www-form-urlencoded":      true,
}

// acceptUnknownHeader makes the server ignore unknown JSON properties, as
// Confluent does for newer clients; without it they are 422.
const acceptUnknownHeader = "Confluent-Accept-Unknown-Properties"

var (
	errNotFound         = srerr.ErrNotFound
	errMethodNotAllowed = srerr.ErrMethodNotAllowed
)

// StatusClientClosed is the status logged for a request whose client
// disconnected before the answer was ready (nginx's 499), so that such
// requests do not count as server errors.
const StatusClientClosed = 499

// errorBody is Confluent's error entity.
type errorBody struct {
	ErrorCode int    `json:"error_code"`
	Message   string `json:"message"`
}

// writeError answers err as `{"error_code": N, "message": "..."}` with the
// status of its srerr code. Errors outside the table are bugs or store
// failures: they are logged and answered 50001 without their details.
//
// A request whose client has gone (its context cancelled) is not a server
// failure: it is logged at debug level and answered StatusClientClosed
// with an empty body, which nobody reads.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	code, status, msg := srerr.Code(err)
	var api *srerr.APIError
	var sentinel *srerr.Error
	if !errors.As(err, &api) && !errors.As(err, &sentinel) {
		if errors.Is(r.Context().Err(), context.Canceled) {
			log.DebugContext(r.Context(), "client closed the request", "method", r.Method, "path", r.URL.Path, "error", err.Error())
			w.WriteHeader(StatusClientClosed)
			return
		}
		log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "error", err.Error(),
			"request_id", requestIDOf(w))
		msg = "Error in the backend data store; the server log has the details"
	}
	writeJSON(w, status, errorBody{ErrorCode: code, Message: msg})
}

// writeJSON encodes v as the response body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := marshalJSON(v)
	if err != nil {
		body = []byte(`{"error_code":50001,"message":"encode response"}`)
		status = http.StatusInternalServerError
	}
	writeRaw(w, status, body)
}

// marshalJSON is json.Marshal without HTML escaping: `<`, `>` and `&`
// stay as they are (as Confluent's Jackson writes them), since messages
// such as "want >= 1" or ".b<B>.z" are read by people in curl output and
// CI logs.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// noCache is the Cache-Control of every answer that sets none itself.
const noCache = "no-cache, no-store, must-revalidate"

// writeRaw sends body as it is, with the response headers Confluent's
// server sets on every answer (RestApiTest.testHttpResponseHeaders): no
// caching, and X-XSS-Protection; no Strict-Transport-Security.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = []string{ContentType}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	if _, ok := h["Cache-Control"]; !ok {
		h["Cache-Control"] = []string{noCache}
	}
	h["X-Xss-Protection"] = []string{"1; mode=block"}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// decodeBody reads a JSON request body into dst, within the body limit.
// An empty body leaves dst unchanged. Malformed JSON is 400, as Jackson's
// parse errors are in Confluent; a wrong type or an unknown property
// (without Confluent-Accept-Unknown-Properties: true) is 422, except in
// schema requests, where a member of the wrong type is 42201 (42202 for
// "version"), as Confluent answers after Jackson's scalar coercion; a body
// over the limit is 413; a body that is not UTF-8 is 422 (42201 in schema
// requests), never read with its bytes replaced. Messages name JSON
// members and JSON kinds, never Go types.
func (s *server) decodeBody(w http.ResponseWriter, r *http.Request, dst any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return srerr.New(srerr.ErrPayloadTooLarge, "Request body too large: the limit is %d bytes", tooBig.Limit)
		}
		return srerr.New(srerr.ErrBadRequest, "Could not read the request body: %v", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	_, schemaReq := dst.(*schemaRequest)
	if err := checkUTF8(body, schemaReq); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if !strings.EqualFold(r.Header.Get(acceptUnknownHeader), "true") {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(dst); err != nil {
		return decodeError(err, schemaReq)
	}
	if _, err := dec.Token(); err != io.EOF {
		return srerr.New(srerr.ErrBadRequest, "Malformed JSON: unexpected data after the request object")
	}
	return nil
}

// decodeError maps a json decoding error to Confluent's answer; schemaReq
// says the body is a register, lookup or compatibility request.
func decodeError(err error, schemaReq bool) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return srerr.New(srerr.ErrBadRequest, "Malformed JSON at byte %d: %s", syntax.Offset, syntax.Error())
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return srerr.New(srerr.ErrBadRequest, "Malformed JSON: unexpected end of input")
	case errors.As(err, &typ):
		want := jsonKind(typ.Type)
		if typ.Field == "" {
			if schemaReq {
				want += ` such as {"schema": "..."}`
			}
			return srerr.New(srerr.ErrUnprocessableEntity, "Cannot read the request body: got JSON %s, want %s", typ.Value, want)
		}
		switch {
		case schemaReq && typ.Field == "version":
			return srerr.New(srerr.ErrInvalidVersion,
				"The specified version is not a valid version id: got JSON %s, want an integer between 1 and 2147483647", typ.Value)
		case schemaReq && typ.Field == "id":
			return srerr.New(srerr.ErrInvalidSchema,
				"Invalid schema: field \"id\" must be an integer between 1 and 2147483647, got JSON %s", typ.Value)
		case schemaReq:
			return srerr.New(srerr.ErrInvalidSchema, "Invalid schema: field %q must be %s, got JSON %s", typ.Field, want, typ.Value)
		}
		return srerr.New(srerr.ErrUnprocessableEntity, "Cannot read field %q: got JSON %s, want %s", typ.Field, typ.Value, want)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return srerr.New(srerr.ErrUnprocessableEntity, "Unrecognized field: %s", name)
	}
	return srerr.New(srerr.ErrBadRequest, "Malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonKind names the JSON value that decodes into t, for messages that
// must not show Go type names.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a JSON value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a JSON string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a JSON number"
	case reflect.Slice, reflect.Array:
		return "a JSON array"
	case reflect.Map, reflect.Struct:
		return "a JSON object"
	}
	return "a JSON value"
}

// checkContentType refuses request bodies of other media types (415).
func (s *server) checkContentType(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost || r.Method == http.MethodPut {
			if ct := r.Header.Get("Content-Type"); ct != "" {
				mt, _, err := mime.ParseMediaType(ct)
				if err != nil || !acceptedBodyTypes[mt] {
					writeError(w, r, s.log, srerr.New(srerr.ErrUnsupportedMediaType,
						"Unsupported media type %q: send application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json or application/json", ct))
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// noPathRedirects answers paths that net/http's ServeMux would redirect
// to their cleaned form (an empty segment as in /subjects//versions, "."
// or ".." segments) with an error instead: a redirected POST would turn
// into a request on another resource (/subjects//versions → a lookup on
// subject "versions"). An empty subject, config or mode segment is 42208,
// as an empty subject name is; any other such path is Confluent's 404.
func (s *server) noPathRedirects(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.EscapedPath()
		if p == "" || !strings.HasPrefix(p, "/") || path.Clean(p) == strings.TrimSuffix(p, "/") || p == "/" {
			next.ServeHTTP(w, r)
			return
		}
		for _, prefix := range []string{"/subjects/", "/config/", "/mode/", "/compatibility/subjects/"} {
			if rest, ok := strings.CutPrefix(p, prefix); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
				writeError(w, r, s.log, srerr.New(srerr.ErrInvalidSubject, "Invalid subject: the subject name must not be empty"))
				return
			}
		}
		writeError(w, r, s.log, errNotFound)
	})
}

// statusRecorder is the ResponseWriter every handler gets: it remembers
// the status answered, the Confluent error_code of an error answer, the
// request's ID and the route that took the request (set by the router), for
// the request log and the metrics.
type statusRecorder struct {
	http.ResponseWriter
	status    int
	errorCode int
	id        string
	route     *routeMetrics
}

func (sr *statusRecorder) WriteHeader(code int) {
	if sr.status == 0 {
		sr.status = code
	}
	sr.ResponseWriter.WriteHeader(code)
}

// errorCodePrefix begins every Confluent error body writeError sends.
var errorCodePrefix = []byte(`{"error_code":`)

func (sr *statusRecorder) Write(b []byte) (int, error) {
	if sr.status == 0 {
		sr.status = http.StatusOK
	}
	if sr.status >= 400 && sr.errorCode == 0 && bytes.HasPrefix(b, errorCodePrefix) {
		rest := b[len(errorCodePrefix):]
		n := 0
		for n < len(rest) && n < 9 && rest[n] >= '0' && rest[n] <= '9' {
			sr.errorCode = sr.errorCode*10 + int(rest[n]-'0')
			n++
		}
	}
	return sr.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (sr *statusRecorder) Unwrap() http.ResponseWriter { return sr.ResponseWriter }

// RequestIDHeader carries the request's ID: a client's own, when it sends
// a sane one (requestID), else one the server makes; the answer echoes it
// and the request's log line names it.
const RequestIDHeader = "X-Request-Id"

// maxRequestIDLen is the longest request ID accepted from a client.
const maxRequestIDLen = 64

// requestID returns the client's ID when it is 1 to maxRequestIDLen
// letters, digits or any of "-_.:/+=@", else "".
func requestID(h http.Header) string {
	v := h[RequestIDHeader]
	if len(v) != 1 || len(v[0]) == 0 || len(v[0]) > maxRequestIDLen {
		return ""
	}
	for i := 0; i < len(v[0]); i++ {
		c := v[0][i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.:/+=@", c) >= 0) {
			return ""
		}
	}
	return v[0]
}

// requestIDs makes request IDs: a random prefix per process and a
// sequence number, unique without a random read per request.
type requestIDs struct {
	prefix string
	seq    atomic.Uint64
}

func newRequestIDs() *requestIDs {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &requestIDs{prefix: hex.EncodeToString(b[:]) + "-"}
}

func (g *requestIDs) next() string {
	var buf [32]byte
	out := append(buf[:0], g.prefix...)
	return string(strconv.AppendUint(out, g.seq.Add(1), 10))
}

// requestIDOf returns the ID of the request w answers ("" outside
// logRequests).
func requestIDOf(w http.ResponseWriter) string {
	for {
		if rec, ok := w.(*statusRecorder); ok {
			return rec.id
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return ""
		}
		w = u.Unwrap()
	}
}

// logRequests gives each request its ID (echoed in X-Request-Id), counts
// it in the metrics and logs one line: method, route, path, query, status,
// the error_code of an error answer, duration_ms, remote address and
// request ID.
func (s *server) logRequests(next http.Handler) http.Handler {
	ids, m := s.ids, s.metrics
	if ids == nil {
		ids = newRequestIDs()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := requestID(r.Header)
		if id == "" {
			id = ids.next()
		}
		w.Header()[RequestIDHeader] = []string{id}
		rec := &statusRecorder{ResponseWriter: w, id: id}
		if m != nil {
			m.inFlight.Inc()
		}
		next.ServeHTTP(rec, r)
		d := time.Since(start)
		if rec.status == 0 {
			rec.status = http.StatusOK // nothing written: net/http answers 200
		}
		route := ""
		if m != nil {
			m.inFlight.Dec()
			rm := rec.route
			if rm == nil {
				rm = s.routeOf(r)
			}
			rm.observe(rec.status, d)
			route = rm.route
		}
		attrs := make([]slog.Attr, 0, 10)
		attrs = append(attrs,
			slog.String("method", r.Method),
			slog.String("route", route),
			slog.String("path", r.URL.EscapedPath()),
			slog.String("query", r.URL.RawQuery),
			slog.Int("status", rec.status))
		if rec.errorCode != 0 {
			attrs = append(attrs, slog.Int("error_code", rec.errorCode))
		}
		attrs = append(attrs,
			slog.Float64("duration_ms", float64(d.Microseconds())/1000),
			slog.String("remote", r.RemoteAddr),
			slog.String("request_id", id))
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
	})
}

// routeOf returns the metrics of the route r would take, for a request
// answered before routing (a 401, 415 or 429) or by the fallback.
func (s *server) routeOf(r *http.Request) *routeMetrics {
	if _, pattern := s.mux.Handler(r); pattern != "" {
		if rm, ok := s.routeMetrics[pattern]; ok {
			return rm
		}
	}
	return s.metrics.unmatchedRoute(r.Method)
}

// recoverPanics turns a handler panic into a logged 50001 answer.
func (s *server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.ErrorContext(r.Context(), "handler panic", "method", r.Method, "path", r.URL.Path,
				"request_id", requestIDOf(w), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if rec, ok := w.(*statusRecorder); ok && rec.status != 0 {
				return // the answer has begun; nothing sane to add
			}
			writeJSON(w, http.StatusInternalServerError, errorBody{
				ErrorCode: srerr.ErrStore.Code,
				Message:   "Internal server error; the server log has the details",
			})
		}()
		next.ServeHTTP(w, r)
	})
}

// boolParam reads a boolean query parameter: "true" in any case is true,
// anything else false (as Jersey parses booleans).
func boolParam(r *http.Request, name string) bool {
	return strings.EqualFold(r.URL.Query().Get(name), "true")
}

// page is an offset/limit window over a list.
type page struct{ offset, limit int }

// pageParams reads offset (default 0) and limit (default -1: all; 0 also
// means all, as in Confluent). Non-numbers are 400.
func pageParams(r *http.Request) (page, error) {
	q := r.URL.Query()
	p := page{limit: -1}
	for _, f := range []struct {
		name string
		dst  *int
	}{{"offset", &p.offset}, {"limit", &p.limit}} {
		v := q.Get(f.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return page{}, srerr.New(srerr.ErrBadRequest, "Invalid %s %q: want an integer", f.name, v)
		}
		*f.dst = n
	}
	if p.offset < 0 {
		p.offset = 0
	}
	return p, nil
}

// paginate returns the window p of items.
func paginate[T any](items []T, p page) []T {
	if p.offset >= len(items) {
		return items[:0]
	}
	items = items[p.offset:]
	if p.limit > 0 && p.limit < len(items) {
		items = items[:p.limit]
	}
	return items
}
