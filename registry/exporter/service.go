package exporter

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/charter-dev/charter/registry/qualified"
	"github.com/charter-dev/charter/registry/srerr"
)

// Service is the exporter API over a Store. Its errors are srerr errors
// with Confluent's exporter codes (40450, 40950-40952, 40960-40962,
// 40964) or 422 for a field no code covers (contextType, context,
// subjectRenameFormat); anything else is a store failure.
type Service struct {
	store  Store
	now    func() time.Time
	sealer *Sealer // seals credentials at rest; nil refuses them
	// max is MaxExporters; tests lower it.
	max int
}

// New returns the exporter API over store; now is its clock (nil:
// time.Now); sealer encrypts the credentials of configs before they are
// stored (nil: a config with a credential is refused, 40951).
func New(store Store, now func() time.Time, sealer *Sealer) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: now, sealer: sealer, max: MaxExporters}
}

func notFound(name string) error {
	return srerr.New(srerr.ErrExporterNotFound, "Exporter '%s' not found", clip(name))
}

// invalid is a refusal of the definition with code sentinel.
func invalid(sentinel *srerr.Error, format string, args ...any) error {
	return srerr.New(sentinel, sentinel.Message+": "+format, args...)
}

// clip shortens echoed input to 200 bytes.
func clip(s string) string {
	if len(s) <= 200 {
		return s
	}
	return s[:200] + "…"
}

// Request is the body of POST /exporters and PUT /exporters/{name}
// (Confluent's ExporterCreateRequest and ExporterUpdateRequest): a nil
// field is absent (on update: kept as stored). Config merges into the
// stored config on update.
type Request struct {
	Name                *string           `json:"name"`
	ContextType         *ContextType      `json:"contextType"`
	Context             *string           `json:"context"`
	Subjects            *[]string         `json:"subjects"`
	SubjectRenameFormat *string           `json:"subjectRenameFormat"`
	Config              map[string]string `json:"config"`
}

// Redacted is what the API answers in place of a credential's value.
// A config update that sends it keeps the stored value, so that a
// definition read and sent back keeps its credentials.
const Redacted = "[hidden]"

// publicKeys are the config keys known to hold no secret (Confluent's
// schema registry client settings that name a URL, a credentials source,
// an identity or a file location): their values are answered, and
// stored as they are. Every other value is taken for a credential.
var publicKeys = map[string]bool{
	ConfigURL:                                               true,
	ConfigCredentialSource:                                  true,
	ConfigBearerSource:                                      true,
	"bearer.auth.logical.cluster":                           true,
	"bearer.auth.identity.pool.id":                          true,
	"bearer.auth.issuer.endpoint.url":                       true,
	"bearer.auth.client.id":                                 true,
	"bearer.auth.scope":                                     true,
	"bearer.auth.scope.claim.name":                          true,
	"bearer.auth.sub.claim.name":                            true,
	"schema.registry.ssl.truststore.location":               true,
	"schema.registry.ssl.truststore.type":                   true,
	"schema.registry.ssl.keystore.location":                 true,
	"schema.registry.ssl.keystore.type":                     true,
	"schema.registry.ssl.endpoint.identification.algorithm": true,
}

// secretKey reports whether config key k may hold a credential: every
// key but publicKeys and durations (*.ms) (an allow-list, so that sasl.jaas.config, an
// apikey or any key Charter does not know is never answered, audited
// or stored in clear).
func secretKey(k string) bool {
	l := strings.ToLower(k)
	// A duration in milliseconds (timeout.ms, request.timeout.ms) is
	// no secret.
	return !publicKeys[l] && !strings.HasSuffix(l, ".ms")
}

// RedactConfig returns a copy of c with every credential's value
// replaced by Redacted.
func RedactConfig(c map[string]string) map[string]string {
	out := make(map[string]string, len(c))
	for k, v := range c {
		if secretKey(k) {
			v = Redacted
		}
		out[k] = v
	}
	return out
}

// Redacted returns a copy of e whose config holds no credential.
func (e Exporter) Redacted() Exporter {
	e.Subjects = slices.Clone(e.Subjects)
	e.Config = RedactConfig(e.Config)
	return e
}

// checkName validates an exporter name: 1 to MaxNameLength characters,
// letters, digits, '_', '-' and '.'.
func checkName(name string) error {
	if name == "" || len([]rune(name)) > MaxNameLength {
		return invalid(srerr.ErrInvalidExporterName, "the name must have 1 to %d characters", MaxNameLength)
	}
	for _, c := range name {
		if !(unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || c == '-' || c == '.') {
			return invalid(srerr.ErrInvalidExporterName, "the name '%s' may hold letters, digits, '_', '-' and '.' only", clip(name))
		}
	}
	return nil
}

// checkText validates a free-form field: at most MaxSubjectLength bytes,
// no control characters.
func checkText(sentinel *srerr.Error, field, s string) error {
	if len(s) > MaxSubjectLength || strings.ContainsFunc(s, unicode.IsControl) {
		return invalid(sentinel, "%s must be at most %d bytes without control characters", field, MaxSubjectLength)
	}
	return nil
}

// CheckURL validates the destination URL list of schema.registry.url
// (comma-separated, as Confluent's client takes it): each an absolute
// http or https URL with a host, without user info (credentials go in
// basic.auth.user.info), query or fragment. It returns the URLs. Its
// errors never echo user info.
func CheckURL(raw string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(raw, ",") {
		part = strings.TrimSpace(part)
		u, err := url.Parse(part)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, invalid(srerr.ErrInvalidExporterConfig, "%s must be http or https URLs, got '%s'", ConfigURL, clip(redactUserInfo(part)))
		}
		if u.User != nil {
			return nil, invalid(srerr.ErrInvalidExporterConfig, "%s must not hold credentials: put them in %s", ConfigURL, ConfigUserInfo)
		}
		if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(part, "#") {
			return nil, invalid(srerr.ErrInvalidExporterConfig, "%s must not have a query or a fragment, got '%s'", ConfigURL, clip(part))
		}
		out = append(out, part)
	}
	return out, nil
}

// redactUserInfo replaces what stands before the last '@' of s's
// authority (after "://", or from the start) with Redacted.
func redactUserInfo(s string) string {
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + 3
	}
	end := len(s)
	if i := strings.IndexAny(s[start:], "/?#"); i >= 0 {
		end = start + i
	}
	if at := strings.LastIndex(s[start:end], "@"); at >= 0 {
		return s[:start] + Redacted + s[start+at:]
	}
	return s
}

// checkContextName is the registry's rule for a context name
// (qualified.CheckContext, as registry.ValidateContextName), with .__GLOBAL
// refused too: it holds configs and modes only. c has its leading dot.
func checkContextName(c string) error {
	if strings.TrimPrefix(c, ".") == "__GLOBAL" {
		return invalid(srerr.ErrUnprocessableEntity, "the .__GLOBAL context holds configs and modes only, not subjects")
	}
	if err := qualified.CheckContext(c); err != nil {
		return invalid(srerr.ErrUnprocessableEntity, "%s", err.Error())
	}
	return nil
}

// oneLiteralSubject reports whether subjects name exactly one subject:
// one entry without '*'.
func oneLiteralSubject(subjects []string) bool {
	return len(subjects) == 1 && !strings.Contains(subjects[0], "*")
}

// validate checks a whole definition.
func validate(e Exporter) error {
	if err := checkName(e.Name); err != nil {
		return err
	}
	switch e.ContextType {
	case ContextAuto, ContextNone:
	case ContextCustom:
		if normalizeContext(e.Context) == "" {
			return invalid(srerr.ErrUnprocessableEntity, "contextType CUSTOM needs a context")
		}
		if err := checkText(srerr.ErrUnprocessableEntity, "context", e.Context); err != nil {
			return err
		}
		if err := checkContextName(normalizeContext(e.Context)); err != nil {
			return err
		}
	default:
		return invalid(srerr.ErrUnprocessableEntity, "contextType must be AUTO, CUSTOM or NONE, got '%s'", clip(string(e.ContextType)))
	}
	if err := checkText(srerr.ErrUnprocessableEntity, "context", e.Context); err != nil {
		return err
	}
	if strings.Contains(strings.TrimPrefix(e.Context, "."), ":") {
		return invalid(srerr.ErrUnprocessableEntity, "context must not contain ':'")
	}
	if len(e.Subjects) > MaxSubjects {
		return invalid(srerr.ErrInvalidExporterSubjects, "at most %d subjects", MaxSubjects)
	}
	for _, s := range e.Subjects {
		if s == "" {
			return invalid(srerr.ErrInvalidExporterSubjects, "a subject is empty")
		}
		if err := checkText(srerr.ErrInvalidExporterSubjects, "a subject", s); err != nil {
			return err
		}
	}
	if err := checkText(srerr.ErrUnprocessableEntity, "subjectRenameFormat", e.SubjectRenameFormat); err != nil {
		return err
	}
	if strings.Contains(e.SubjectRenameFormat, ":") {
		return invalid(srerr.ErrUnprocessableEntity, "subjectRenameFormat must not contain ':' (a context goes in contextType and context)")
	}
	if e.SubjectRenameFormat != "" && !strings.Contains(e.SubjectRenameFormat, "${subject}") && !oneLiteralSubject(e.Subjects) {
		return invalid(srerr.ErrUnprocessableEntity, "subjectRenameFormat must contain ${subject}, or every subject would be copied onto one (a format without it needs subjects to name a single subject)")
	}
	if len(e.Config) > MaxConfigEntries {
		return invalid(srerr.ErrInvalidExporterConfig, "config has at most %d entries", MaxConfigEntries)
	}
	for k, v := range e.Config {
		limit := MaxConfigValue
		if strings.HasPrefix(v, sealedPrefix) {
			limit = maxSealedValue // a stored credential, sealed
		}
		if k == "" || len(k) > MaxConfigValue || len(v) > limit {
			return invalid(srerr.ErrInvalidExporterConfig, "config keys must have 1 to %d bytes and values at most %d", MaxConfigValue, MaxConfigValue)
		}
	}
	// As Confluent's, an exporter may be created without a destination
	// yet: it waits in ERROR, its trace naming the missing URL, until a
	// config update gives one.
	if u, ok := e.Config[ConfigURL]; ok {
		if _, err := CheckURL(u); err != nil {
			return err
		}
	}
	return nil
}

// apply sets the fields req has on e; Config merges (a Redacted value
// keeps the stored one).
func (r Request) apply(e *Exporter) {
	if r.ContextType != nil {
		e.ContextType = ContextType(strings.ToUpper(string(*r.ContextType)))
	}
	if r.Context != nil {
		e.Context = *r.Context
	}
	if r.Subjects != nil {
		e.Subjects = slices.Clone(*r.Subjects)
	}
	if r.SubjectRenameFormat != nil {
		e.SubjectRenameFormat = *r.SubjectRenameFormat
	}
	e.Config = mergeConfig(e.Config, r.Config)
}

// mergeConfig returns stored with upd's entries set; a value Redacted
// keeps the stored one, an empty value removes the key. When the
// destination URL changes, the stored credentials (every secretKey) are
// dropped unless upd sends them again: they were given for the old
// destination, and must not be sent to one an administrator who never
// knew them names.
func mergeConfig(stored, upd map[string]string) map[string]string {
	out := maps.Clone(stored)
	if out == nil {
		out = map[string]string{}
	}
	if u, ok := upd[ConfigURL]; ok && u != Redacted && u != stored[ConfigURL] {
		for k := range out {
			if secretKey(k) {
				if v, sent := upd[k]; !sent || v == Redacted {
					delete(out, k)
				}
			}
		}
	}
	for k, v := range upd {
		switch {
		case v == "":
			delete(out, k)
		case v == Redacted:
			// keeps the stored value; stores none when there is none
		default:
			out[k] = v
		}
	}
	return out
}

// Names returns the exporters' names, sorted (GET /exporters).
func (s *Service) Names(ctx context.Context) ([]string, error) {
	out := []string{}
	err := s.store.View(ctx, func(tx Tx) error {
		es, err := tx.Exporters(ctx)
		if err != nil {
			return err
		}
		out = out[:0]
		for _, e := range es {
			out = append(out, e.Name)
		}
		return nil
	})
	return out, err
}

// get reads exporter name, or 40450.
func get(ctx context.Context, tx Tx, name string) (Stored, error) {
	e, ok, err := tx.Exporter(ctx, name)
	if err != nil {
		return Stored{}, err
	}
	if !ok {
		return Stored{}, notFound(name)
	}
	return e, nil
}

// read returns exporter name. Errors: 40450.
func (s *Service) read(ctx context.Context, name string) (Stored, error) {
	var e Stored
	err := s.store.View(ctx, func(tx Tx) error {
		var err error
		e, err = get(ctx, tx, name)
		return err
	})
	return e, err
}

// Get returns exporter name's definition, credentials redacted (GET
// /exporters/{name}). Errors: 40450.
func (s *Service) Get(ctx context.Context, name string) (Exporter, error) {
	e, err := s.read(ctx, name)
	if err != nil {
		return Exporter{}, err
	}
	return e.Exporter.Redacted(), nil
}

// Config returns exporter name's config, credentials redacted (GET
// /exporters/{name}/config). Errors: 40450.
func (s *Service) Config(ctx context.Context, name string) (map[string]string, error) {
	e, err := s.read(ctx, name)
	if err != nil {
		return nil, err
	}
	return RedactConfig(e.Config), nil
}

// Status returns exporter name's status (GET /exporters/{name}/status).
// Errors: 40450.
func (s *Service) Status(ctx context.Context, name string) (Status, error) {
	e, err := s.read(ctx, name)
	if err != nil {
		return Status{}, err
	}
	return e.Status(), nil
}

// Create stores a new exporter, STARTING (POST /exporters). Absent
// fields default as Confluent's: contextType AUTO, subjects ["*"],
// subjectRenameFormat "${subject}". Errors: 40950 (name), 40951
// (config), 40952 (subjects), 422 (contextType, context,
// subjectRenameFormat), 40960 (the name is taken), 40964 (MaxExporters
// reached).
func (s *Service) Create(ctx context.Context, req Request) (string, error) {
	e := Exporter{ContextType: ContextAuto, Subjects: slices.Clone(AllSubjects), SubjectRenameFormat: "${subject}"}
	if req.Name != nil {
		e.Name = *req.Name
	}
	req.apply(&e)
	if err := validate(e); err != nil {
		return "", err
	}
	if err := sealUpdate(s.sealer, e.Config, req.Config); err != nil {
		return "", err
	}
	err := s.store.Update(ctx, func(tx Tx, audit Audit) error {
		all, err := tx.Exporters(ctx)
		if err != nil {
			return err
		}
		for _, o := range all {
			if o.Name == e.Name {
				return srerr.New(srerr.ErrExporterAlreadyExists, "Exporter '%s' already exists", e.Name)
			}
		}
		if len(all) >= s.max {
			return srerr.New(srerr.ErrTooManyExporters, "A registry holds at most %d exporters", s.max)
		}
		st := Stored{Exporter: e, State: StateStarting, Ts: s.now().UnixMilli()}
		if err := tx.PutExporter(ctx, st); err != nil {
			return err
		}
		return audit(ActionCreate, e.Name, nil, e.Redacted())
	})
	return e.Name, err
}

// change runs fn on exporter name in a write transaction, stores what fn
// leaves and audits action with the definition before and after.
// Errors: 40450, and fn's.
func (s *Service) change(ctx context.Context, name, action string, fn func(tx Tx, e *Stored) error) error {
	return s.store.Update(ctx, func(tx Tx, audit Audit) error {
		e, err := get(ctx, tx, name)
		if err != nil {
			return err
		}
		before := e.Status()
		beforeDef := e.Exporter.Redacted()
		if err := fn(tx, &e); err != nil {
			return err
		}
		if err := tx.PutExporter(ctx, e); err != nil {
			return err
		}
		if action == ActionPause || action == ActionResume || action == ActionReset {
			return audit(action, name, before, e.Status())
		}
		return audit(action, name, beforeDef, e.Exporter.Redacted())
	})
}

// Update changes exporter name's definition with the fields req has (PUT
// /exporters/{name}); the name cannot change. Errors: 40450, and
// Create's for an invalid field.
func (s *Service) Update(ctx context.Context, name string, req Request) error {
	if req.Name != nil && *req.Name != "" && *req.Name != name {
		return invalid(srerr.ErrInvalidExporterName, "the name cannot change (from '%s' to '%s')", clip(name), clip(*req.Name))
	}
	return s.change(ctx, name, ActionUpdate, func(tx Tx, e *Stored) error {
		before := e.Exporter
		req.apply(&e.Exporter)
		if err := validate(e.Exporter); err != nil {
			return err
		}
		if err := sealUpdate(s.sealer, e.Config, req.Config); err != nil {
			return err
		}
		return s.redirected(ctx, tx, before, e)
	})
}

// redirected forgets e's progress when its destination changed (the
// registry, the context or the renaming), so that the next cycle copies
// everything to the new one.
func (s *Service) redirected(ctx context.Context, tx Tx, before Exporter, e *Stored) error {
	if !redirected(before, e.Exporter) {
		return nil
	}
	e.Offset, e.Ts = 0, s.now().UnixMilli()
	return tx.ClearExporterProgress(ctx, e.Name)
}

// UpdateConfig merges cfg into exporter name's config (PUT
// /exporters/{name}/config). Errors: 40450, 40951.
func (s *Service) UpdateConfig(ctx context.Context, name string, cfg map[string]string) error {
	return s.change(ctx, name, ActionConfig, func(tx Tx, e *Stored) error {
		before := e.Exporter
		e.Config = mergeConfig(e.Config, cfg)
		if err := validate(e.Exporter); err != nil {
			return err
		}
		if err := sealUpdate(s.sealer, e.Config, cfg); err != nil {
			return err
		}
		return s.redirected(ctx, tx, before, e)
	})
}

// Pause stops exporter name's copying until Resume (PUT
// /exporters/{name}/pause); pausing a paused exporter changes nothing.
// Errors: 40450.
func (s *Service) Pause(ctx context.Context, name string) error {
	return s.change(ctx, name, ActionPause, func(_ Tx, e *Stored) error {
		if e.State != StatePaused {
			e.State, e.Ts = StatePaused, s.now().UnixMilli()
		}
		return nil
	})
}

// Resume restarts a paused exporter, or one in ERROR at once (PUT
// /exporters/{name}/resume), as STARTING. Errors: 40450, 40961 (it is
// RUNNING), 40962 (it is STARTING), as Confluent's.
func (s *Service) Resume(ctx context.Context, name string) error {
	return s.change(ctx, name, ActionResume, func(_ Tx, e *Stored) error {
		switch e.State {
		case StateRunning:
			return srerr.New(srerr.ErrExporterAlreadyRunning, "Exporter '%s' is already running", clip(name))
		case StateStarting:
			return srerr.New(srerr.ErrExporterAlreadyStarting, "Exporter '%s' is already starting", clip(name))
		}
		e.State, e.Ts = StateStarting, s.now().UnixMilli()
		return nil
	})
}

// Reset forgets exporter name's progress (PUT /exporters/{name}/reset):
// its next cycle copies every matching version again (harmless for those
// the destination holds), and the offset restarts at 0. A paused
// exporter stays paused. Errors: 40450.
func (s *Service) Reset(ctx context.Context, name string) error {
	return s.change(ctx, name, ActionReset, func(tx Tx, e *Stored) error {
		if e.State != StatePaused {
			e.State = StateStarting
		}
		e.Offset, e.Trace, e.Ts = 0, "", s.now().UnixMilli()
		return tx.ClearExporterProgress(ctx, name)
	})
}

// Delete removes exporter name and its progress (DELETE
// /exporters/{name}); what it copied stays in the destination. Errors:
// 40450.
func (s *Service) Delete(ctx context.Context, name string) error {
	return s.store.Update(ctx, func(tx Tx, audit Audit) error {
		e, err := get(ctx, tx, name)
		if err != nil {
			return err
		}
		if err := tx.DeleteExporter(ctx, name); err != nil {
			return fmt.Errorf("delete exporter %q: %w", name, err)
		}
		return audit(ActionDelete, name, e.Exporter.Redacted(), nil)
	})
}
