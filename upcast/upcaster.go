package upcast

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry/client"
)

// Validation says when outputs are checked against their schema.
type Validation int

// Validation modes. Whatever the mode, a value that leaves a migration
// rule is conformed to its version (JSONata numbers to Avro ints, unknown
// fields dropped), as Confluent's serde does when it re-encodes it.
const (
	// ValidateTarget checks the final value of every upcast against the
	// target schema (the default). A failure names the last step that was
	// not implicit.
	ValidateTarget Validation = iota
	// ValidateSteps also checks the output of every hand-written step
	// against the schema of its to version, so a failure names the step
	// at fault (used by Verify).
	ValidateSteps
	// ValidateOff checks nothing; Payload may then fail to encode.
	ValidateOff
)

type target struct {
	version    int    // 0: latest, unless key is set
	key, value string // latest version whose metadata property key == value
}

type options struct {
	src           Source
	steps         *Steps
	targets       map[string]target
	subject       string
	envelope      Envelope
	validation    Validation
	formats       map[compat.SchemaType]compat.Format
	protoMessages map[string]string
	log           *slog.Logger
	refreshEvery  time.Duration
	now           func() time.Time
}

// Option configures an Upcaster.
type Option func(*options)

// WithSource sets where schemas are read (required, or WithRegistry).
func WithSource(src Source) Option { return func(o *options) { o.src = src } }

// WithRegistry reads schemas from a registry through c (RegistrySource).
func WithRegistry(c *client.Client) Option {
	return func(o *options) { o.src = RegistrySource(c) }
}

// WithSteps sets the hand-written steps (default: none, so only implicit
// steps and migration rules are used).
func WithSteps(s *Steps) Option { return func(o *options) { o.steps = s } }

// WithTarget makes version the target of subject (default: its latest
// version). A target older than some versions makes the chain downcast
// newer events, for bridge jobs.
func WithTarget(subject string, version int) Option {
	return func(o *options) { o.targets[subject] = target{version: version} }
}

// WithTargetMetadata makes the latest version of subject whose metadata
// property key equals value the target, e.g. ("application.major.version",
// "2"): the version a Confluent consumer configured with
// use.latest.with.metadata reads.
func WithTargetMetadata(subject, key, value string) Option {
	return func(o *options) { o.targets[subject] = target{key: key, value: value} }
}

// WithSubject sets the subject of events that do not name one (default:
// found from the schema ID in the registry).
func WithSubject(subject string) Option { return func(o *options) { o.subject = subject } }

// WithEnvelope sets how events carry their type and version (default:
// none: Event fields or the wire-format header).
func WithEnvelope(e Envelope) Option { return func(o *options) { o.envelope = e } }

// WithValidation sets when outputs are validated (default ValidateTarget).
func WithValidation(v Validation) Option { return func(o *options) { o.validation = v } }

// WithFormat replaces the compat.Format used for a schema type (default:
// those of compat/formats, with their default profiles), e.g.
// jsonschema.Format{Policy: jsonschema.Lenient}.
func WithFormat(f compat.Format) Option {
	return func(o *options) { o.formats[f.Type()] = f }
}

// WithProtoMessage names the message of a Protobuf subject by full name
// (default: the first message of each version's file).
func WithProtoMessage(subject, fullName string) Option {
	return func(o *options) { o.protoMessages[subject] = fullName }
}

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithRefreshInterval sets how often at most a chain re-reads its
// subject's versions when an event names a version or schema ID it does
// not know (default 1s; 0 re-reads every time).
func WithRefreshInterval(d time.Duration) Option {
	return func(o *options) { o.refreshEvery = d }
}

// WithClock sets the clock used for the refresh interval (default
// time.Now).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// Upcaster reads events of any version of their subject as the target
// version. Create one with New, call Build at start-up to find gaps, then
// Upcast from as many goroutines as needed.
type Upcaster struct {
	opts   options
	chains flight[string, *Chain]
	ids    flight[int64, []client.SubjectVersion]
	// built holds the chains built so far, copied on write, so that the
	// per-event lookup takes no lock.
	built   atomic.Pointer[map[string]*Chain]
	builtMu sync.Mutex
}

// New returns an Upcaster. It does no I/O; Build or the first Upcast reads
// the registry. Error: no source.
func New(opts ...Option) (*Upcaster, error) {
	o := options{
		targets:       map[string]target{},
		protoMessages: map[string]string{},
		formats:       map[compat.SchemaType]compat.Format{},
		refreshEvery:  time.Second,
		now:           time.Now,
	}
	for _, e := range formats.All() {
		o.formats[e.Type] = e.Format
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.src == nil {
		return nil, errors.New("upcast: no schema source: use WithRegistry or WithSource")
	}
	if o.log == nil {
		o.log = slog.Default()
	}
	if o.steps == nil {
		o.steps = NewSteps()
	}
	return &Upcaster{opts: o}, nil
}

// Build builds the chains of subjects now (reading every version of each
// from the source) so that a version with no path to its target is found
// at start-up or in CI rather than mid-replay. The error joins one error
// per failing subject; a *GapError (errors.Is ErrMissingStep) lists the
// versions without a path.
func (u *Upcaster) Build(ctx context.Context, subjects ...string) error {
	var errs []error
	for _, s := range subjects {
		if _, err := u.Chain(ctx, s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Chain returns the chain of subject, building it on first use (once,
// however many goroutines ask). A failed build is retried by the next
// call.
func (u *Upcaster) Chain(ctx context.Context, subject string) (*Chain, error) {
	if m := u.built.Load(); m != nil {
		if c := (*m)[subject]; c != nil {
			return c, nil
		}
	}
	c, err := u.chains.get(ctx, subject, func() (*Chain, error) {
		return newChain(ctx, u, subject)
	})
	if err != nil {
		return nil, err
	}
	u.builtMu.Lock()
	defer u.builtMu.Unlock()
	old := u.built.Load()
	if old == nil || (*old)[subject] == nil {
		m := make(map[string]*Chain, 1)
		if old != nil {
			maps.Copy(m, *old)
		}
		m[subject] = c
		u.built.Store(&m)
	}
	return c, nil
}

// Upcast reads ev as its subject's target version. The error is always
// an *Error (errors.Is with ErrUnknownVersion, ErrMissingStep, ErrDecode,
// ErrStep or ErrInvalidOutput); ev is left as it was, for re-drive.
func (u *Upcaster) Upcast(ctx context.Context, ev Event) (*Result, error) {
	r := new(Result)
	if err := u.UpcastInto(ctx, ev, r); err != nil {
		return nil, err
	}
	return r, nil
}

// UpcastInto is Upcast writing the result into r (overwritten whole),
// for loops that keep one Result per goroutine rather than allocate one
// per event: the Result is then reused, while the map Value returns is
// still the caller's to keep. On error r is left zeroed.
func (u *Upcaster) UpcastInto(ctx context.Context, ev Event, r *Result) error {
	if u.opts.envelope != nil {
		opened := ev // only this copy escapes, and only with an envelope
		if err := u.opts.envelope.Open(&opened); err != nil {
			*r = Result{}
			return &Error{Kind: ErrDecode, EventID: ev.ID, Subject: ev.Subject, Err: err}
		}
		ev = opened
	}
	if ev.Subject == "" {
		ev.Subject = u.opts.subject
	}
	payload, framed := ev.Payload, false
	if ev.Version == 0 && ev.SchemaID == 0 {
		id, rest, err := ParseWire(ev.Payload)
		if err != nil {
			*r = Result{}
			return &Error{Kind: ErrUnknownVersion, EventID: ev.ID, Subject: ev.Subject,
				Err: fmt.Errorf("the event names no version or schema ID, and %w", err)}
		}
		ev.SchemaID, payload, framed = id, rest, true
	}
	subject := ev.Subject
	if subject == "" {
		s, err := u.subjectOfID(ctx, ev.SchemaID)
		if err != nil {
			*r = Result{}
			return &Error{Kind: ErrUnknownVersion, EventID: ev.ID, SchemaID: ev.SchemaID, Err: err}
		}
		subject = s
	}
	ev.Subject = subject
	c, err := u.Chain(ctx, subject)
	if err != nil {
		kind := ErrUnknownVersion
		if errors.Is(err, ErrMissingStep) {
			kind = ErrMissingStep
		}
		*r = Result{}
		return &Error{Kind: kind, EventID: ev.ID, Subject: subject, Version: ev.Version, SchemaID: ev.SchemaID, Err: err}
	}
	if err := c.upcast(ctx, &ev, payload, framed, r); err != nil {
		*r = Result{}
		return err
	}
	return nil
}

// UpcastValue upcasts an already decoded value of version from of
// subject (for stores that keep events as JSON documents; the value must
// have the decoded form of the subject's format). id names the event in
// errors.
func (u *Upcaster) UpcastValue(ctx context.Context, subject string, from int, id string, v map[string]any) (*Result, error) {
	c, err := u.Chain(ctx, subject)
	if err != nil {
		return nil, &Error{Kind: ErrUnknownVersion, EventID: id, Subject: subject, Version: from, Err: err}
	}
	return c.UpcastValue(ctx, from, id, v)
}

// subjectOfID finds the one subject that uses schema id, through the ID
// cache: concurrent events with the same ID cause one registry call.
func (u *Upcaster) subjectOfID(ctx context.Context, id int64) (string, error) {
	if id <= 0 {
		return "", errors.New("the event names no subject, and no schema ID either")
	}
	svs, err := u.ids.get(ctx, id, func() ([]client.SubjectVersion, error) {
		return u.opts.src.VersionsOfID(ctx, id)
	})
	if err != nil {
		return "", fmt.Errorf("find the subject of schema ID %d: %w", id, err)
	}
	var subject string
	for _, sv := range svs {
		if subject != "" && sv.Subject != subject {
			return "", fmt.Errorf("schema ID %d is used by several subjects (%s, %s …): set Event.Subject or WithSubject", id, subject, sv.Subject)
		}
		subject = sv.Subject
	}
	if subject == "" {
		return "", fmt.Errorf("schema ID %d belongs to no subject", id)
	}
	return subject, nil
}
