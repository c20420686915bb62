// Package api is Charter's Confluent-compatible REST API: one http.Handler
// over a registry.Service.
//
// It is a thin adapter: each handler decodes the request, calls one
// Service method and encodes the answer; every error goes through
// writeError, which maps it to Confluent's `{"error_code": N, "message":
// "..."}` with the status of its srerr code. Requests may carry
// `application/vnd.schemaregistry.v1+json`, `application/vnd.schemaregistry+json`,
// `application/json` or `application/octet-stream` bodies; responses are
// `application/vnd.schemaregistry.v1+json`. The endpoints and their
// answers follow the Confluent Schema Registry API reference
// (docs.confluent.io, "Schema Registry API Reference").
package api

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/auth"
	"github.com/charter-dev/charter/registry/srerr"
)

// DefaultMaxBodyBytes is the default limit of a request body, in bytes
// (4 MiB); larger bodies answer 413.
const DefaultMaxBodyBytes = 4 << 20

// Options configures the handler. The zero value is usable.
type Options struct {
	// Logger receives one line per request (method, path, status,
	// duration) and every unexpected error. Default: slog.Default().
	Logger *slog.Logger
	// MaxBodyBytes limits request bodies (default DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// Version and Commit are reported by GET /v1/metadata/version
	// (defaults "dev" and "unknown").
	Version, Commit string
	// ClusterID is reported by GET /v1/metadata/id (default "charter").
	ClusterID string
	// Auth, when set, authenticates every request and authorizes each
	// endpoint as access.go says; nil leaves every endpoint open (a
	// registry on a loopback address).
	Auth *auth.Authenticator
	// Metrics configures GET /metrics (metrics.go).
	Metrics MetricsOptions
	// CORSOrigins are the browser origins (scheme://host[:port]) allowed
	// to call the API with credentials; "*" lets any other origin call it
	// without (cors.go). None: no CORS headers at all.
	CORSOrigins []string
	// LoopbackOnly says the registry has no authentication and serves a
	// loopback address only: requests whose Host is not a loopback name
	// are refused (DNS rebinding; see guardOrigin).
	LoopbackOnly bool
	// CacheBytes is the byte budget of the view of encoded read answers
	// (view.go); 0 means DefaultCacheBytes, a negative value turns the
	// view off.
	CacheBytes int
}

// maxCachedResponses bounds the per-ID response cache.
const maxCachedResponses = 100_000

type server struct {
	svc  *registry.Service
	log  *slog.Logger
	opts Options

	// byID caches the encoded body of GET /schemas/ids/{id} by context and
	// ID: schemas are
	// immutable, and the Service tells when one is forgotten (its last
	// version permanently deleted). byIDGen counts those evictions, so a
	// read that raced with one does not cache a stale answer.
	byIDMu  sync.RWMutex
	byID    map[registry.SchemaKey][]byte
	byIDGen uint64

	// view keeps encoded answers of the read paths (view.go); nil when
	// Options.CacheBytes < 0.
	view *view

	// mux is the router's ServeMux; routeMetrics the metrics of each
	// route pattern registered on it.
	mux          *http.ServeMux
	routeMetrics map[string]*routeMetrics
	metrics      *metrics
	ids          *requestIDs
}

// New returns the REST API over svc.
func New(svc *registry.Service, opts Options) http.Handler {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Commit == "" {
		opts.Commit = "unknown"
	}
	if opts.ClusterID == "" {
		opts.ClusterID = "charter"
	}
	s := &server{svc: svc, log: opts.Logger, opts: opts, byID: map[registry.SchemaKey][]byte{},
		routeMetrics: map[string]*routeMetrics{}, ids: newRequestIDs()}
	s.metrics = newMetrics(s)
	switch {
	case opts.CacheBytes == 0:
		s.view = newView(DefaultCacheBytes)
	case opts.CacheBytes > 0:
		s.view = newView(opts.CacheBytes)
	}
	svc.OnSchemaForgotten(s.evictByID)
	svc.OnCachesDropped(s.evictAllByID)
	svc.Observe(s.metrics)
	mux := &router{mux: http.NewServeMux(), s: s}
	s.mux = mux.mux
	s.routes(mux)
	return s.logRequests(s.cors(s.recoverPanics(s.guardOrigin(s.checkContentType(s.contextPaths(s.noPathRedirects(s.identify(mux.mux))))))))
}

// routes registers every endpoint. Subjects are single path segments;
// URL-encoded characters, %2F included, arrive decoded in PathValue.
func (s *server) routes(mux *router) {
	mux.HandleFunc("GET /{$}", s.root)
	mux.HandleFunc("GET /health", s.health)
	mux.HandleFunc("GET /health/live", s.health)
	mux.HandleFunc("GET /health/ready", s.ready)
	mux.HandleFunc("GET /health/startup", s.ready)
	mux.HandleFunc("GET /livez", s.health)
	mux.HandleFunc("GET /readyz", s.ready)
	mux.HandleFunc("GET /metrics", s.serveMetrics)
	mux.HandleFunc("GET /v1/metadata/id", s.clusterID)
	mux.HandleFunc("GET /v1/metadata/version", s.serverVersion)
	mux.HandleFunc("GET /contexts", s.contexts)
	mux.HandleFunc("DELETE /contexts/{context}", s.deleteContext) // contexts.go

	mux.HandleFunc("GET /subjects", s.viewed(s.listSubjects))
	mux.HandleFunc("POST /subjects/{subject}", s.viewed(s.lookupSchema))
	mux.HandleFunc("DELETE /subjects/{subject}", s.deleteSubject)
	mux.HandleFunc("GET /subjects/{subject}/versions", s.viewed(s.listVersions))
	mux.HandleFunc("POST /subjects/{subject}/versions", s.register)
	mux.HandleFunc("GET /subjects/{subject}/versions/{version}", s.viewed(s.getVersion))
	mux.HandleFunc("DELETE /subjects/{subject}/versions/{version}", s.deleteVersion)
	mux.HandleFunc("GET /subjects/{subject}/versions/{version}/schema", s.viewed(s.getVersionSchema))
	mux.HandleFunc("GET /subjects/{subject}/versions/{version}/referencedby", s.referencedBy)
	mux.HandleFunc("POST /subjects/{subject}/versions/{version}/tags", s.modifySchemaTags)

	mux.HandleFunc("GET /schemas", s.listSchemas)
	mux.HandleFunc("GET /schemas/types", s.schemaTypes)
	mux.HandleFunc("GET /schemas/ids/{id}", s.schemaByID)
	mux.HandleFunc("GET /schemas/ids/{id}/schema", s.schemaTextByID)
	mux.HandleFunc("GET /schemas/ids/{id}/subjects", s.subjectsByID)
	mux.HandleFunc("GET /schemas/ids/{id}/versions", s.versionsByID)

	mux.HandleFunc("GET /config", s.viewed(s.getConfig))
	mux.HandleFunc("PUT /config", s.putConfig)
	mux.HandleFunc("DELETE /config", s.deleteConfig)
	mux.HandleFunc("GET /config/{subject}", s.viewed(s.getConfig))
	mux.HandleFunc("PUT /config/{subject}", s.putConfig)
	mux.HandleFunc("DELETE /config/{subject}", s.deleteConfig)

	mux.HandleFunc("GET /mode", s.viewed(s.getMode))
	mux.HandleFunc("PUT /mode", s.putMode)
	mux.HandleFunc("DELETE /mode", s.deleteMode)
	mux.HandleFunc("GET /mode/{subject}", s.viewed(s.getMode))
	mux.HandleFunc("PUT /mode/{subject}", s.putMode)
	mux.HandleFunc("DELETE /mode/{subject}", s.deleteMode)

	mux.HandleFunc("POST /compatibility/subjects/{subject}/versions", s.checkCompatibility)
	mux.HandleFunc("POST /compatibility/subjects/{subject}/versions/{version}", s.checkCompatibility)

	s.governanceRoutes(mux)
	s.contractRoutes(mux)   // contracts.go
	s.pactBrokerRoutes(mux) // pactbroker.go
	s.backupRoutes(mux)     // backup.go
	s.keyRoutes(mux)        // keys.go: the DEK registry
	s.exporterRoutes(mux)   // exporters.go: schema linking

	// Everything else: 405 when another method would match, else 404,
	// both as Confluent error bodies.
	mux.mux.Handle("/", s.fallback(mux.mux))
}

// fallback answers requests no endpoint takes.
func (s *server) fallback(mux *http.ServeMux) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
			if m == r.Method {
				continue
			}
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "" && pattern != "/" {
				writeError(w, r, s.log, errMethodNotAllowed)
				return
			}
		}
		writeError(w, r, s.log, errNotFound)
	}
}

func (s *server) root(w http.ResponseWriter, r *http.Request) {
	writeRaw(w, http.StatusOK, []byte("{}"))
}

func (s *server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "UP"})
}

// readyTimeout bounds the store read of GET /health/ready.
const readyTimeout = 5 * time.Second

// ready answers UP when the store answers a read within readyTimeout,
// else 503 DOWN (the cause is logged, not answered: the endpoint is
// public).
func (s *server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if _, err := s.svc.MaxSchemaID(ctx, ""); err != nil {
		s.log.WarnContext(r.Context(), "not ready: the store does not answer", "error", err.Error())
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "DOWN"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "UP"})
}

func (s *server) clusterID(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"scope": map[string]any{
			"path":     []string{},
			"clusters": map[string]string{"schema-registry-cluster": s.opts.ClusterID},
		},
		"id": s.opts.ClusterID,
	})
}

func (s *server) serverVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"version": s.opts.Version, "commitId": s.opts.Commit})
}

// cachedByID returns the cached body of GET /schemas/ids/{id} for schema
// id (its context and ID), or the eviction generation to pass to
// cacheByID.
func (s *server) cachedByID(id registry.SchemaKey) ([]byte, uint64, bool) {
	s.byIDMu.RLock()
	b, ok := s.byID[id]
	gen := s.byIDGen
	s.byIDMu.RUnlock()
	return b, gen, ok
}

// cacheByID stores body unless an eviction happened since gen.
func (s *server) cacheByID(id registry.SchemaKey, body []byte, gen uint64) {
	s.byIDMu.Lock()
	defer s.byIDMu.Unlock()
	if gen != s.byIDGen {
		return
	}
	if len(s.byID) >= maxCachedResponses {
		clear(s.byID)
	}
	s.byID[id] = body
}

// evictAllByID forgets every cached answer.
func (s *server) evictAllByID() {
	s.byIDMu.Lock()
	s.byIDGen++
	clear(s.byID)
	s.byIDMu.Unlock()
}

// evictByID forgets the cached answer for id.
func (s *server) evictByID(id registry.SchemaKey) {
	s.byIDMu.Lock()
	s.byIDGen++
	delete(s.byID, id)
	s.byIDMu.Unlock()
}

// parseID parses a schema ID path segment. Confluent's router answers a
// non-numeric ID with a plain 404; a numeric one that no schema has
// (negative, zero or out of range included) is 40403.
func parseID(r *http.Request) (int64, error) {
	raw := r.PathValue("id")
	digits := strings.TrimPrefix(raw, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, errNotFound
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, srerr.New(srerr.ErrSchemaNotFound, "Schema %s not found", raw)
	}
	return id, nil
}
