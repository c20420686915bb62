package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry/exporter"
	"github.com/charter-dev/charter/registry/qualified"
	"github.com/charter-dev/charter/registry/srerr"
)

// Defaults of the Service options.
const (
	// DefaultMaxSchemaSize is the largest schema text accepted, in bytes
	// (1 MiB). Larger texts answer 42209 SCHEMA_TOO_LARGE.
	DefaultMaxSchemaSize = 1 << 20
	// DefaultParsedCacheSize is how many parsed schemas the Service keeps
	// in memory, keyed by schema ID.
	DefaultParsedCacheSize = 10_000
	// DefaultParsedCacheBytes is the estimated byte budget of the parsed
	// schemas the Service keeps in memory (64 MiB: about 64 records of
	// 1,000 fields, or 8,000 of a few fields). A transitive check
	// of Avro records compares through the subject's summary and needs
	// no parsed earlier version; one compared in full (JSON Schema,
	// Protobuf, recursive Avro records) over more versions than the
	// budget holds keeps hitting those that fit and parses the others
	// (parsedCache.putIfRoom).
	DefaultParsedCacheBytes = 64 << 20
	// MaxSubjectLength is the longest subject name accepted, in bytes.
	MaxSubjectLength = 4096
)

// Service is Charter's registry domain: it implements Confluent Schema
// Registry semantics (global stable IDs, versions per subject, soft and
// permanent deletes, references, compatibility config and modes) over a
// Store. Every write is one Store.Update. Errors returned by its methods
// wrap srerr sentinels (match with errors.Is); anything else is a store
// failure that the API layer reports as 50001.
//
// A Service is safe for concurrent use.
type Service struct {
	store   Store
	formats map[compat.SchemaType]compat.Format
	types   []compat.SchemaType
	log     *slog.Logger

	maxSchemaSize int
	settings      serverSettings // confluent_options.go
	parsed        *parsedCache
	summaries     *summaryCache // the transitive levels' (summary.go)
	lookups       *lookupCache  // findInSubject's (lookupfacts.go)

	// clock is the time of governance records, TTLs and audit entries
	// (WithClock); consumers names a subject's consumers (WithConsumers).
	clock     func() time.Time
	consumers ConsumerSource

	forgetMu sync.RWMutex
	onForget []func(id SchemaKey)
	onDrop   []func() // OnCachesDropped

	obs observers      // Observe (observe.go)
	inv inventoryCache // Inventory (inventory.go)

	// gen is the write generation and shared says the store is shared
	// with other processes (ViewGeneration, view.go).
	gen    atomic.Uint64
	shared bool

	// exporterSealer seals exporters' credentials (WithExporterSealer).
	exporterSealer *exporter.Sealer
}

// OnSchemaForgotten registers fn to be called, after the commit, with
// every schema ID whose last version was permanently deleted (GET
// /schemas/ids/{id} answers 40403 from then on). Callers that cache
// answers by schema ID evict them here.
func (s *Service) OnSchemaForgotten(fn func(id SchemaKey)) {
	s.forgetMu.Lock()
	s.onForget = append(s.onForget, fn)
	s.forgetMu.Unlock()
}

// forgotten evicts ids from the caches and tells the subscribers.
func (s *Service) forgotten(ids []SchemaKey) {
	if len(ids) == 0 {
		return
	}
	s.forgetMu.RLock()
	defer s.forgetMu.RUnlock()
	for _, id := range ids {
		s.parsed.remove(id)
		s.lookups.remove(id)
		s.summaries.clear()
		for _, fn := range s.onForget {
			fn(id)
		}
	}
}

// Option configures a Service.
type Option func(*Service)

// WithLogger sets the logger (default: slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(s *Service) {
		if l != nil {
			s.log = l
		}
	}
}

// WithMaxSchemaSize sets the largest schema text accepted, in bytes
// (default DefaultMaxSchemaSize). n <= 0 keeps the default.
func WithMaxSchemaSize(n int) Option {
	return func(s *Service) {
		if n > 0 {
			s.maxSchemaSize = n
		}
	}
}

// WithParsedCacheSize sets how many parsed schemas are kept in memory
// (default DefaultParsedCacheSize). n <= 0 keeps the default.
func WithParsedCacheSize(n int) Option {
	return func(s *Service) {
		if n > 0 {
			s.parsed = newParsedCache(n, s.parsed.budget)
		}
	}
}

// WithParsedCacheBytes sets the estimated byte budget of the parsed
// schemas kept in memory (default DefaultParsedCacheBytes), least recently
// used evicted first. n < 0 keeps none; n == 0 keeps the default.
func WithParsedCacheBytes(n int) Option {
	return func(s *Service) {
		switch {
		case n < 0:
			s.parsed = newParsedCache(s.parsed.max, 0)
		case n > 0:
			s.parsed = newParsedCache(s.parsed.max, n)
		}
	}
}

// NewService returns a Service over store that accepts the schema types of
// formats (a later format of the same type replaces an earlier one).
func NewService(store Store, formats []compat.Format, opts ...Option) *Service {
	s := &Service{
		store:         store,
		formats:       make(map[compat.SchemaType]compat.Format, len(formats)),
		log:           slog.Default(),
		maxSchemaSize: DefaultMaxSchemaSize,
		parsed:        newParsedCache(DefaultParsedCacheSize, DefaultParsedCacheBytes),
		summaries:     newSummaryCache(DefaultSummaryBytes),
		lookups:       newLookupCache(defaultLookupEntries),
		clock:         time.Now,
	}
	for _, f := range formats {
		s.formats[f.Type()] = f
	}
	for t := range s.formats {
		s.types = append(s.types, t)
	}
	sort.Slice(s.types, func(i, j int) bool {
		ri, rj := typeRank(s.types[i]), typeRank(s.types[j])
		if ri != rj {
			return ri < rj
		}
		return s.types[i] < s.types[j]
	})
	for _, o := range opts {
		o(s)
	}
	// A store shared with other processes tells which cached schemas
	// they made stale (invalidate.go).
	if inv, ok := store.(Invalidator); ok {
		s.shared = true
		inv.OnInvalidate(s.invalidate)
	}
	return s
}

// typeRank orders schema types as Confluent's GET /schemas/types lists
// them: JSON, PROTOBUF, AVRO, then any other type by name.
func typeRank(t compat.SchemaType) int {
	switch t {
	case compat.JSON:
		return 0
	case compat.Protobuf:
		return 1
	case compat.Avro:
		return 2
	}
	return 3
}

// Types returns the schema types this Service can parse in Confluent's
// order, JSON, PROTOBUF, AVRO (GET /schemas/types).
func (s *Service) Types() []compat.SchemaType {
	return append([]compat.SchemaType(nil), s.types...)
}

// Store returns the Service's store.
func (s *Service) Store() Store { return s.store }

// format returns the Format of t, or 42201 naming the types this server
// parses.
func (s *Service) format(t compat.SchemaType) (compat.Format, error) {
	if f, ok := s.formats[t]; ok {
		return f, nil
	}
	names := make([]string, len(s.types))
	for i, t := range s.types {
		names[i] = string(t)
	}
	if _, known := formats.ByType(t); known {
		return nil, srerr.New(srerr.ErrInvalidSchema,
			"Invalid schema: schema type %s is not supported by this server yet; supported types: %s", t, strings.Join(names, ", "))
	}
	return nil, srerr.New(srerr.ErrInvalidSchema,
		"Invalid schema: unknown schema type %q; supported types: %s", string(t), strings.Join(names, ", "))
}

// ValidateSubject checks a subject name: non-empty, valid UTF-8, no
// control characters, at most MaxSubjectLength bytes. It returns 42208
// INVALID_SUBJECT otherwise.
func ValidateSubject(subject string) error {
	switch {
	case strings.TrimSpace(subject) == "":
		return srerr.New(srerr.ErrInvalidSubject, "Invalid subject: the subject name must not be empty")
	case len(subject) > MaxSubjectLength:
		return srerr.New(srerr.ErrInvalidSubject, "Invalid subject: the subject name is longer than %d bytes", MaxSubjectLength)
	case !utf8.ValidString(subject):
		return srerr.New(srerr.ErrInvalidSubject, "Invalid subject: the subject name is not valid UTF-8")
	}
	for _, r := range subject {
		if unicode.IsControl(r) {
			return srerr.New(srerr.ErrInvalidSubject, "Invalid subject %q: control characters are not allowed", subject)
		}
	}
	if strings.HasPrefix(subject, AllContexts) {
		return srerr.New(srerr.ErrInvalidSubject,
			"Invalid subject %q: %s names every context (in a subject prefix); a subject is in one context", subject, AllContexts)
	}
	if strings.HasPrefix(subject, ":.") {
		if c := ContextOf(subject); c != "" {
			if err := ValidateContextName(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// ValidateContextName checks the name of a context (".ctx") as both a
// qualified subject (":.ctx:name") and the /contexts/{ctx}/ URL prefix
// name it, by qualified.CheckContext's rule (Confluent's, but for "*", at most
// 255 bytes, valid UTF-8, no bidirectional control character). It
// returns 42208 INVALID_SUBJECT otherwise.
func ValidateContextName(c string) error {
	if err := qualified.CheckContext(c); err != nil {
		return srerr.New(srerr.ErrInvalidSubject, "Invalid context %q: %s", c, err.Error())
	}
	return nil
}

// Latest is the version number that selects a subject's latest version
// ("latest" or -1 in the Confluent API).
const Latest = -1

// MaxID is the largest schema ID and MaxVersion the largest version
// number: 2^31-1, because Confluent's wire format carries the ID as a
// 4-byte big-endian int32 and its REST API reads both as Java Integers.
const (
	MaxID      int64 = 1<<31 - 1
	MaxVersion       = 1<<31 - 1
)

// ParseVersion parses a version path segment: an integer in [1, 2^31-1],
// "latest" or "-1" (both return Latest). Anything else is 42202
// INVALID_VERSION, as in Confluent's VersionId.
func ParseVersion(s string) (int, error) {
	if s == "latest" || s == "-1" {
		return Latest, nil
	}
	n := 0
	ok := s != "" && len(s) <= 10
	for _, c := range s {
		if c < '0' || c > '9' {
			ok = false
			break
		}
		n = n*10 + int(c-'0')
	}
	if !ok || n < 1 || n > MaxVersion {
		return 0, srerr.New(srerr.ErrInvalidVersion,
			"The specified version '%s' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"", s)
	}
	return n, nil
}

// errSubjectNotFound is the Confluent 40401 error for subject.
func errSubjectNotFound(subject string) error {
	return srerr.New(srerr.ErrSubjectNotFound, "Subject '%s' not found.", subject)
}

func errVersionNotFound(subject string, version int) error {
	if version == Latest {
		return srerr.New(srerr.ErrVersionNotFound, "Version latest not found in subject '%s'.", subject)
	}
	return srerr.New(srerr.ErrVersionNotFound, "Version %d not found in subject '%s'.", version, subject)
}

func errSchemaNotFound(id int64) error {
	return srerr.New(srerr.ErrSchemaNotFound, "Schema %d not found", id)
}

// storeErr wraps a store failure with the operation that hit it. Errors
// that already carry a Confluent code pass through unchanged.
func storeErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var api *srerr.APIError
	if errors.As(err, &api) {
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}

// view runs fn in a read transaction.
func (s *Service) view(ctx context.Context, op string, fn func(Tx) error) error {
	return storeErr(op, s.timed(op, false, func() error { return s.store.View(ctx, fn) }))
}

// update runs fn in a write transaction.
func (s *Service) update(ctx context.Context, op string, fn func(Tx) error) error {
	// The generation moves before the transaction and again after its
	// commit, before the caller answers (ViewGeneration).
	s.bumpGeneration()
	defer s.bumpGeneration()
	err := storeErr(op, s.timed(op, true, func() error { return s.store.Update(ctx, fn) }))
	var api *srerr.APIError
	var cold *coldSummary
	if err != nil && !errors.As(err, &api) && !errors.As(err, &cold) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		// Not the answer of fn, nor its client gone, nor a registration
		// leaving to build its summary outside (coldSummary), but a
		// failure of the store (a commit, say): what the caches learned in the
		// transaction, schema IDs of writes that may be rolled back, is
		// dropped with the rest.
		s.parsed.clear()
		s.summaries.clear()
		s.lookups.clear()
	}
	return err
}

// subjectVersions returns every version of subject, soft-deleted included,
// ascending.
func subjectVersions(ctx context.Context, tx Tx, subject string) ([]SubjectVersion, error) {
	vs, err := tx.Versions(ctx, VersionQuery{Subject: subject, IncludeDeleted: true})
	if err != nil {
		return nil, fmt.Errorf("list versions of %q: %w", subject, err)
	}
	return vs, nil
}

// live filters out soft-deleted versions.
func live(vs []SubjectVersion) []SubjectVersion {
	out := make([]SubjectVersion, 0, len(vs))
	for _, v := range vs {
		if !v.Deleted {
			out = append(out, v)
		}
	}
	return out
}

// findVersion returns the version numbered n (Latest: the highest live
// one; with includeDeleted, the highest of all) from vs.
func findVersion(vs []SubjectVersion, n int, includeDeleted bool) (SubjectVersion, bool) {
	if n == Latest {
		for i := len(vs) - 1; i >= 0; i-- {
			if includeDeleted || !vs[i].Deleted {
				return vs[i], true
			}
		}
		return SubjectVersion{}, false
	}
	for _, v := range vs {
		if v.Version == n {
			return v, true
		}
	}
	return SubjectVersion{}, false
}
