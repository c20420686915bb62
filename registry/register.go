package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/charter-dev/charter/action/gate"
	"slices"
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// RegisterRequest is a schema sent to register, look up or check
// (Confluent RegisterSchemaRequest).
type RegisterRequest struct {
	// Schema is the schema text. Required.
	Schema string
	// Type is the schema language; "" means AVRO.
	Type compat.SchemaType
	// References name the registered schemas this one uses. Version -1
	// means the referenced subject's latest version.
	References []Reference
	// Metadata and RuleSet are Confluent data-contract objects, stored as
	// sent (compacted) and part of the schema's identity.
	Metadata json.RawMessage
	RuleSet  json.RawMessage
	// ID is honoured in IMPORT mode only (42205 otherwise); 0 means none.
	// It must be at most MaxID (42201).
	ID int64
	// Version, when > 0, asks for that version number: in IMPORT mode it is
	// used as is; otherwise it must be the subject's next version. It must
	// be at most MaxVersion (42202). Latest (-1) asks for a new version
	// unless the latest one is this schema. Outside IMPORT, either records
	// the new version's number in the metadata property
	// ConfluentVersionProperty, as Confluent does.
	Version int
	// Normalize stores and compares the normalized form of the schema
	// (also on when the subject's effective config says normalize).
	Normalize bool
	// TagsToAdd and TagsToRemove edit the tags of the schema's elements
	// in its text before anything else (Confluent's schemaTagsToAdd and
	// schemaTagsToRemove; formats that are a compat.Tagger). A
	// registration with them and no Version asks for Latest.
	TagsToAdd, TagsToRemove []compat.SchemaTags
	// versionAsSent keeps Version 0 with tags (ModifySchemaTags).
	versionAsSent bool
}

// SubjectSchema is one version of a subject with its schema (Confluent
// `Schema` entity: subject, version, id, schemaType, references, schema).
type SubjectSchema struct {
	Subject string
	Version int
	Deleted bool
	Schema  Schema
	// Findings are the governance warnings and notices of the Register
	// call that returned this version (errors refuse it instead); SemVer
	// is the semantic version it got. Both are empty on reads.
	Findings []rule.Finding
	SemVer   string
}

// candidate is a schema sent by a client, parsed and fingerprinted.
type candidate struct {
	parsed compat.Schema
	schema Schema
	// altFingerprint is the fingerprint of the other form (normalized
	// when schema uses the canonical one, and the reverse), for lookups.
	altFingerprint string
}

// checkRequest validates the parts of req that need no store.
func (s *Service) checkRequest(req *RegisterRequest) (compat.Format, error) {
	if req.Type == "" {
		req.Type = compat.Avro
	}
	if strings.TrimSpace(req.Schema) == "" {
		return nil, srerr.New(srerr.ErrInvalidSchema, "Invalid schema: the schema text is empty")
	}
	if len(req.Schema) > s.maxSchemaSize {
		return nil, srerr.New(srerr.ErrSchemaTooLarge,
			"Schema too large: %d bytes, the limit is %d bytes", len(req.Schema), s.maxSchemaSize)
	}
	if err := checkContract(req.Metadata, srerr.ErrInvalidSchema, "metadata", srerr.ErrInvalidSchema); err != nil {
		return nil, err
	}
	if err := checkContract(req.RuleSet, srerr.ErrInvalidRuleSet, "ruleSet", srerr.ErrInvalidSchema); err != nil {
		return nil, err
	}
	for i, r := range req.References {
		if r.Name == "" || r.Subject == "" {
			return nil, srerr.New(srerr.ErrInvalidSchema,
				"Invalid schema: reference %d needs a name and a subject", i)
		}
		if r.Version == 0 || r.Version < Latest {
			return nil, srerr.New(srerr.ErrInvalidSchema,
				"Invalid schema: reference %q has invalid version %d (want >= 1, or -1 for latest)", r.Name, r.Version)
		}
	}
	return s.format(req.Type)
}

// newCandidate resolves req's references in tx, parses the schema and
// computes its stored text and fingerprint, for subject (whose context
// the references resolve in and the schema's identity is in).
func (s *Service) newCandidate(ctx context.Context, tx Tx, f compat.Format, subject string, req RegisterRequest, normalize bool) (candidate, error) {
	return s.newCandidateFrom(ctx, tx, f, subject, req, normalize, nil)
}

// newCandidateFrom is newCandidate with the schema already parsed (pre,
// when not nil: parsed by f from req.Schema without references).
func (s *Service) newCandidateFrom(ctx context.Context, tx Tx, f compat.Format, subject string, req RegisterRequest, normalize bool, pre compat.Schema) (candidate, error) {
	p := pre
	sc := ContextOf(subject)
	var deps []compat.Dependency
	if p == nil || len(req.References) > 0 {
		var err error
		if deps, err = s.resolveReferences(ctx, tx, sc, req.References); err != nil {
			return candidate{}, err
		}
		if p, err = f.Parse(req.Schema, deps); err != nil {
			return candidate{}, srerr.New(srerr.ErrInvalidSchema, "Invalid schema: %v", err)
		}
	}
	p, err := withSchemaTags(p, req, deps)
	if err != nil {
		return candidate{}, err
	}
	refs := req.References
	// Pin "latest" references to the version they resolved to, so that
	// identity and referencedby stay stable.
	if hasLatestRef(refs) {
		refs = append([]Reference(nil), refs...)
		for i, r := range refs {
			if r.Version == Latest {
				v, err := resolveRefVersion(ctx, tx, sc, r, false)
				if err != nil {
					return candidate{}, err
				}
				refs[i].Version = v.Version
			}
		}
	}
	text, alt := p.Canonical(), p.Normalized()
	if normalize {
		text, alt = alt, text
		refs = normalizedReferences(refs)
	}
	meta, rules := compactJSON(req.Metadata), compactJSON(req.RuleSet)
	st := Schema{
		Context:    sc,
		Type:       f.Type(),
		Text:       text,
		References: refs,
		Metadata:   meta,
		RuleSet:    rules,
	}
	st.Fingerprint = Fingerprint(st.Type, st.Text, refs, meta, rules)
	return candidate{
		parsed:         p,
		schema:         st,
		altFingerprint: Fingerprint(st.Type, alt, refs, meta, rules),
	}, nil
}

// normalizedReferences returns refs sorted by subject, then version (the
// order kept among equals), without repeats, as Confluent's
// AvroSchema.normalize sorts them (RestApiTest.testSchemaNormalization).
func normalizedReferences(refs []Reference) []Reference {
	if len(refs) < 2 {
		return refs
	}
	out := make([]Reference, 0, len(refs))
	seen := make(map[Reference]bool, len(refs))
	for _, r := range refs {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Subject != out[j].Subject {
			return out[i].Subject < out[j].Subject
		}
		return out[i].Version < out[j].Version
	})
	return out
}

// withContract returns cand with metadata and ruleSet replaced (compacted)
// and its fingerprints recomputed; the schema text is cand's.
func withContract(cand candidate, meta, rules json.RawMessage) candidate {
	meta, rules = compactJSON(meta), compactJSON(rules)
	alt := cand.parsed.Normalized()
	if cand.schema.Text == alt {
		alt = cand.parsed.Canonical()
	}
	st := cand.schema
	st.Metadata, st.RuleSet = meta, rules
	st.Fingerprint = Fingerprint(st.Type, st.Text, st.References, meta, rules)
	return candidate{parsed: cand.parsed, schema: st, altFingerprint: Fingerprint(st.Type, alt, st.References, meta, rules)}
}

// hasDefaultsOrOverrides reports whether cfg sets default or override
// metadata or rule sets (Confluent's Config.hasDefaultsOrOverrides).
func hasDefaultsOrOverrides(cfg Config) bool {
	return cfg.DefaultMetadata != nil || cfg.OverrideMetadata != nil || cfg.DefaultRuleSet != nil || cfg.OverrideRuleSet != nil
}

func hasLatestRef(refs []Reference) bool {
	for _, r := range refs {
		if r.Version == Latest {
			return true
		}
	}
	return false
}

// Register registers req under subject (POST /subjects/{s}/versions) in
// one transaction and returns the version it created or found.
//
// Semantics follow Confluent: a schema equal to a live version of the
// subject returns that version (even when it is not the latest); the same
// content under any subject of the context reuses its ID; a new version is the
// highest version ever used by the subject (soft-deleted included) + 1;
// compatibility is checked at the subject's effective level against live
// versions only, and every finding is reported (409).
//
// Errors: 42208 invalid subject; 42201 invalid schema, unknown type,
// missing reference or an id above MaxID; 42202 a version above
// MaxVersion; 42209 schema too large; 42205 mode forbids the write
// (READONLY, an explicit id outside IMPORT, IMPORT without an id for a
// schema the subject does not hold, an imported id that holds other
// content, a subject past MaxVersion); 409
// incompatible; 42285 compatibility not decided within the comparison's
// bounds; 50001 every id up to MaxID is used or was used.
func (s *Service) Register(ctx context.Context, subject string, req RegisterRequest) (SubjectSchema, error) {
	if err := ValidateSubject(subject); err != nil {
		return SubjectSchema{}, err
	}
	if err := s.checkEmptySubject(subject); err != nil {
		return SubjectSchema{}, err
	}
	// An empty schema with a data contract takes the latest version's
	// schema, read in the transaction.
	if err := checkContract(req.RuleSet, srerr.ErrInvalidRuleSet, "ruleSet", srerr.ErrInvalidSchema); err != nil {
		return SubjectSchema{}, err
	}
	if err := validateRuleSet(req.RuleSet, "ruleSet"); err != nil {
		return SubjectSchema{}, err
	}
	if err := checkIDAndVersion(req); err != nil {
		return SubjectSchema{}, err
	}
	if hasSchemaTags(req) && req.Version == 0 && !req.versionAsSent {
		req.Version = Latest // Confluent's toSchemaWithTags
	}
	r, err := s.newRegistration(subject, req)
	if err != nil {
		return SubjectSchema{}, err
	}
	var created compat.Schema
	first := withWarmOutside(ctx)
	err = s.update(first, "register schema", func(tx Tx) error {
		var err error
		created, err = r.run(first, tx)
		return err
	})
	if cold, ok := errors.AsType[*coldSummary](err); ok {
		// The subject's summary was not cached (a restart, an
		// eviction): built outside the write transaction, then judged
		// again in a new one (summary.go, warmSummary).
		s.warmSummary(ctx, cold)
		err = s.update(ctx, "register schema", func(tx Tx) error {
			var err error
			created, err = r.run(ctx, tx)
			return err
		})
	}
	if r.verdict != nil {
		s.verdict(*r.verdict)
	}
	if err != nil {
		return SubjectSchema{}, err
	}
	s.forgotten(r.forgot)
	if created != nil {
		s.parsed.put(r.out.Schema.Key(), created)
	}
	s.log.DebugContext(ctx, "schema registered", "subject", r.out.Subject, "version", r.out.Version, "id", r.out.Schema.ID)
	return r.out, nil
}

// registration is one Register call inside its transaction, in named
// steps: checkMode, prepare (config, versions, candidate), reuse an
// existing version, or number, judge and store a new one. The dry run
// (Governance.Check) runs the same steps up to the judgement. run may be
// called again when the store retries the transaction: every step starts
// from the subject and request as sent, which nothing changes.
type registration struct {
	s *Service
	// As sent: the subject named, the request (validated by
	// checkRequest unless contractOnly) and its format.
	asked        string
	sent         RegisterRequest
	sentFormat   compat.Format
	contractOnly bool
	// parsed is the schema sent, parsed before the transaction when it
	// has no references (a pure function of its text, then): the write
	// transaction, which registrations take in turn, does not parse.
	parsed compat.Schema

	// Set by checkMode and prepare: the subject (alias resolved), the
	// request with the config's metadata and rule set merged in, and
	// its format.
	mode     Mode
	subject  string
	req      RegisterRequest
	format   compat.Format
	cfg      Config
	versions []SubjectVersion
	raw      RegisterRequest // the request before the config's contract merge
	cand     candidate
	norm     bool
	// copy is set by existingSchema when an IMPORT takes content that
	// holds another ID under the asked one (see copyFingerprint).
	copy bool
	// forgot lists the schema IDs an IMPORT overwrite left without any
	// version, which store deleted.
	forgot []SchemaKey
	// out is the answer; verdict is the judgement of a new version, for
	// the Observers.
	out     SubjectSchema
	verdict *Verdict
	// readOnly is the 42205 of a READONLY or READONLY_OVERRIDE mode,
	// kept by checkMode and returned by run unless the subject already
	// holds the schema (Confluent's registerOrForward answers the
	// existing ID before register's checkRegisterMode).
	readOnly error
}

// newRegistration validates what needs no store: a request with a schema
// must name a known type and pass checkRequest (42201, 42209); one with
// only a data contract takes the latest version's schema in prepare.
func (s *Service) newRegistration(subject string, req RegisterRequest) (*registration, error) {
	r := &registration{s: s, asked: subject, sent: req,
		contractOnly: strings.TrimSpace(req.Schema) == "" && hasContract(req)}
	if !r.contractOnly {
		var err error
		if r.sentFormat, err = s.checkRequest(&r.sent); err != nil {
			return nil, err
		}
		if len(r.sent.References) == 0 {
			// A schema that does not parse is parsed again, and refused,
			// in the transaction, after the checks that come first.
			r.parsed, _ = r.sentFormat.Parse(r.sent.Schema, nil)
		}
	}
	return r, nil
}

// run registers in tx and returns the parsed schema when it created a
// new schema ID.
func (r *registration) run(ctx context.Context, tx Tx) (compat.Schema, error) {
	r.out, r.verdict, r.copy, r.forgot, r.readOnly = SubjectSchema{}, nil, false, nil, nil
	if err := r.checkMode(ctx, tx); err != nil {
		return nil, err
	}
	if err := r.prepare(ctx, tx); err != nil {
		return nil, err
	}
	if r.readOnly != nil && (hasSchemaTags(r.sent) || hasDefaultsOrOverrides(r.cfg)) {
		// Confluent's registerOrForward looks the schema up only without
		// tag edits and without config defaults or overrides.
		return nil, r.readOnly
	}
	existing, found, err := r.existingSchema(ctx, tx)
	if err != nil {
		return nil, err
	}
	if done, err := r.reuseVersion(ctx, tx, existing, found); done || err != nil {
		return nil, err
	}
	if r.readOnly != nil {
		return nil, r.readOnly
	}
	if r.mode == ModeImport && r.sent.ID <= 0 {
		// Without an id, IMPORT answers a schema the subject holds (as
		// Confluent, so that auto-registering clients keep working) and
		// refuses a new one.
		return nil, srerr.New(srerr.ErrOperationNotPermitted,
			"Subject %s is in import mode: a schema id must be given", r.asked)
	}
	version, err := r.nextVersion()
	if err != nil {
		return nil, err
	}
	var j *judgement
	if r.mode != ModeImport {
		if j, err = r.judgeNew(ctx, tx, version); err != nil {
			return nil, err
		}
	}
	return r.store(ctx, tx, existing, found, version, j)
}

// checkMode refuses a write the subject's effective mode forbids (42205):
// an explicit id outside IMPORT; READONLY and READONLY_OVERRIDE, and
// IMPORT without an id, are refused in run unless the subject already
// holds the schema, as in Confluent (registerOrForward looks the schema up
// before register's checkRegisterMode), so that auto-registering
// serializers keep working against a read-only registry.
func (r *registration) checkMode(ctx context.Context, tx Tx) error {
	mode, err := effectiveMode(ctx, tx, r.asked)
	if err != nil {
		return err
	}
	if err := writable(r.asked, mode); err != nil {
		if r.sent.ID > 0 {
			return err
		}
		r.readOnly = err
	}
	if r.sent.ID > 0 && mode != ModeImport {
		return srerr.New(srerr.ErrOperationNotPermitted,
			"Subject %s is not in import mode: an explicit schema id is only accepted in IMPORT mode", r.asked)
	}
	r.mode = mode
	return nil
}

// prepare reads the subject's config and versions and builds the
// candidate (the config's metadata and rule set merged in).
func (r *registration) prepare(ctx context.Context, tx Tx) error {
	s, req := r.s, r.sent
	subject, err := resolveAlias(ctx, tx, r.asked)
	if err != nil {
		return err
	}
	cfg, err := effectiveConfig(ctx, tx, subject)
	if err != nil {
		return err
	}
	versions, err := subjectVersions(ctx, tx, subject)
	if err != nil {
		return err
	}
	f := r.sentFormat
	if r.contractOnly {
		if err := s.fillEmptySchema(ctx, tx, &req, live(versions)); err != nil {
			return err
		}
		if f, err = s.checkRequest(&req); err != nil {
			return err
		}
	}
	raw := req
	// IMPORT stores metadata and ruleSet as sent: neither inherited from
	// the latest version nor merged with the config's, as in Confluent
	// (KafkaSchemaRegistry.register skips maybePopulateFromPrevious in
	// IMPORT mode), so that a version copied again under its ID is the
	// same schema even when a later version has metadata.
	if r.mode == ModeImport {
		req.Metadata, req.RuleSet = mergeMetadata(compactJSON(req.Metadata)), mergeRuleSets(compactJSON(req.RuleSet))
	} else if req.Metadata, req.RuleSet, err = contract(ctx, tx, cfg, req, live(versions)); err != nil {
		return err
	}
	req.Metadata = r.markConfluentVersion(req.Metadata, versions)
	// IMPORT stores a schema as sent: neither normalize=true nor the
	// config's normalize applies, as in Confluent
	// (RestApiTest.testNormalizeConfigFallbackNotAppliedInImportMode,
	// testExplicitNormalizeIgnoredInImportMode).
	normalize := r.mode != ModeImport && (req.Normalize || (cfg.Normalize != nil && *cfg.Normalize))
	var pre compat.Schema
	if !r.contractOnly {
		pre = r.parsed
	}
	cand, err := s.newCandidateFrom(ctx, tx, f, subject, req, normalize, pre)
	if err != nil {
		return err
	}
	r.cfg, r.versions, r.raw, r.cand, r.norm = cfg, versions, raw, cand, normalize
	r.subject, r.format, r.req = subject, f, req
	return nil
}

// existingSchema finds the candidate's schema ID if its content is
// registered under any subject.
//
// A Protobuf schema sent as text also finds the ID of the same schema sent
// serialized under another subject (stored as the descriptor printed as
// text, see matchSerialized), as Confluent, whose stored Protobuf text is
// always the printed descriptor, does. The converse needs the printed form
// of every stored text and is not looked for: a descriptor sent under
// another subject than the text gets an ID of its own.
func (r *registration) existingSchema(ctx context.Context, tx Tx) (Schema, bool, error) {
	sc := r.cand.schema.Context
	existing, err := tx.SchemaByFingerprint(ctx, sc, r.cand.schema.Fingerprint)
	if cs, ok := r.cand.parsed.(serializedForm); ok && errors.Is(err, ErrNotFound) && !r.norm && !cs.FromDescriptor() {
		if pc := cs.PrintedCanonical(); pc != "" && pc != r.cand.schema.Text {
			st := r.cand.schema
			existing, err = tx.SchemaByFingerprint(ctx, sc, Fingerprint(st.Type, pc, st.References, st.Metadata, st.RuleSet))
		}
	}
	if errors.Is(err, ErrNotFound) {
		return Schema{}, false, nil
	}
	if err != nil {
		return Schema{}, false, fmt.Errorf("look up schema by fingerprint: %w", err)
	}
	if r.mode == ModeImport && r.req.ID > 0 && existing.ID != r.req.ID {
		// The content holds another ID: as Confluent since 7.0.4, IMPORT
		// takes it under the asked ID too, unless that ID already holds
		// this content (a copy imported before) or another one (42205,
		// in store).
		other, err := tx.SchemaByID(ctx, sc, r.req.ID)
		if err == nil && contentFingerprint(other) == r.cand.schema.Fingerprint {
			return other, true, nil
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return Schema{}, false, fmt.Errorf("look up schema %d: %w", r.req.ID, err)
		}
		r.copy = true
		return Schema{}, false, nil
	}
	return existing, true, nil
}

// reuseVersion answers with the live version that already holds the
// candidate, as Confluent does (done true), after judging its
// re-registration (the deprecation rules).
func (r *registration) reuseVersion(ctx context.Context, tx Tx, existing Schema, found bool) (bool, error) {
	v, st, ok, err := r.existingVersion(ctx, tx, existing, found)
	if err != nil || !ok {
		return false, err
	}
	r.out = SubjectSchema{Subject: r.subject, Version: v.Version, Schema: st}
	return true, r.judgeExisting(ctx, tx, v.Version)
}

// existingVersion returns the live version that holds the candidate: the
// one whose schema ID is existing's (found), else, outside IMPORT mode,
// the one the lookup endpoint reports for this request.
func (r *registration) existingVersion(ctx context.Context, tx Tx, existing Schema, found bool) (SubjectVersion, Schema, bool, error) {
	if r.mode != ModeImport && r.req.Version != 0 {
		return r.namedVersion(ctx, tx)
	}
	if found {
		for i := len(r.versions) - 1; i >= 0; i-- {
			v := r.versions[i]
			if v.Deleted || v.SchemaID != existing.ID || (r.req.Version > 0 && r.req.Version != v.Version) {
				continue
			}
			return v, existing, true, nil
		}
	}
	if r.mode == ModeImport && r.req.ID > 0 {
		return SubjectVersion{}, Schema{}, false, nil
	}
	// A live version that the lookup endpoint reports for this request
	// is this schema: Confluent's register runs the same lookup first
	// (registerOrForward → lookUpSchemaUnderSubject), with the request's
	// own metadata and ruleSet unless the config has defaults or
	// overrides.
	look := r.cand
	if !hasDefaultsOrOverrides(r.cfg) {
		look = withContract(r.cand, r.raw.Metadata, r.raw.RuleSet)
	}
	v, st, ok, err := r.s.findInSubject(ctx, tx, look, live(r.versions), r.norm)
	if err != nil || !ok || (r.req.Version > 0 && r.req.Version != v.Version) {
		return SubjectVersion{}, Schema{}, false, err
	}
	return v, st, true, nil
}

// judgeExisting runs the gate on the re-registration of version v: only
// the deprecation rules apply (a deprecated version, kept deprecated
// fields). Nothing to judge in IMPORT mode or without deprecations.
func (r *registration) judgeExisting(ctx context.Context, tx Tx, v int) error {
	if r.mode == ModeImport {
		return nil
	}
	g, ok := tx.(GovernanceTx)
	if !ok {
		return nil
	}
	deps, err := g.GovernanceRecords(ctx, RecordQuery{Kind: kindDeprecation, Subject: r.subject})
	if err != nil || len(deps) == 0 {
		return err
	}
	against, err := compatibilityGroup(ctx, tx, r.cfg, r.cand.schema.Metadata, live(r.versions))
	if err != nil {
		return err
	}
	j, err := r.s.judge(ctx, tx, judgeRequest{subject: r.subject, format: r.format, level: r.cfg.Compatibility,
		cand: r.cand, version: v, existing: true, against: against, now: r.s.now()})
	if err != nil {
		return err
	}
	if j.Failed() {
		return policyError(r.subject, j.Findings)
	}
	r.out.Findings = j.Findings
	return nil
}

// nextVersion is the version number a new version gets: the highest the
// subject ever used (soft-deleted included) + 1, or the one asked for.
func (r *registration) nextVersion() (int, error) {
	next := 1
	if len(r.versions) > 0 {
		next = r.versions[len(r.versions)-1].Version + 1
	}
	if r.req.Version <= 0 && next > MaxVersion {
		return 0, srerr.New(srerr.ErrOperationNotPermitted,
			"Subject %s has used the largest version number, %d: no version can be added", r.subject, MaxVersion)
	}
	if r.req.Version <= 0 {
		return next, nil
	}
	if r.mode != ModeImport && r.req.Version != next {
		return 0, srerr.New(srerr.ErrInvalidSchema,
			"Invalid schema: version %d was asked for, but the next version of subject %s is %d", r.req.Version, r.subject, next)
	}
	return r.req.Version, nil
}

// judgeNew runs the gate on a new version: 409 when it is incompatible
// (in Confluent's message format), 409 for a reserved field, 422 when a
// governance or contract rule refuses it.
func (r *registration) judgeNew(ctx context.Context, tx Tx, version int) (*judgement, error) {
	lv := live(r.versions)
	against, err := compatibilityGroup(ctx, tx, r.cfg, r.cand.schema.Metadata, lv)
	if err != nil {
		return nil, err
	}
	jr := judgeRequest{subject: r.subject, format: r.format, level: r.cfg.Compatibility, cand: r.cand,
		version: version, against: against, now: r.s.now()}
	if len(lv) > 0 {
		jr.latest = &lv[len(lv)-1]
	}
	j, err := r.s.judge(ctx, tx, jr)
	if err != nil {
		return nil, err
	}
	r.verdict = &Verdict{Source: VerdictRegister, Subject: r.subject, Type: r.format.Type(), Level: jr.level,
		Compared: compared(jr.level, len(against)), Findings: j.Compat.Findings}
	if err := undecided(r.subject, j.Compat); err != nil {
		return nil, err
	}
	if j.Incompatible() {
		return nil, srerr.New(srerr.ErrIncompatibleSchema,
			"Schema being registered is incompatible with an earlier schema for subject %q, details: [%s]",
			r.subject, strings.Join(compatibilityMessages(j.Compat, j.olds, r.cfg), ", "))
	}
	if msgs := gate.ReservedMessages(j.Findings); len(msgs) > 0 {
		return nil, errReservedFields(r.subject, msgs)
	}
	if j.Failed() {
		return nil, policyError(r.subject, j.Findings)
	}
	return &j, nil
}

// store allocates the schema ID (unless the content has one), writes the
// version and records the registration (governance records and audit).
func (r *registration) store(ctx context.Context, tx Tx, existing Schema, found bool, version int, j *judgement) (compat.Schema, error) {
	var created compat.Schema
	id := existing.ID
	if !found {
		cand := r.cand
		if r.mode == ModeImport {
			if other, err := tx.SchemaByID(ctx, cand.schema.Context, r.req.ID); err == nil {
				if contentFingerprint(other) != cand.schema.Fingerprint {
					return nil, srerr.New(srerr.ErrOperationNotPermitted,
						"Overwrite new schema with id %d is not permitted: that id holds a different schema", r.req.ID)
				}
			} else if !errors.Is(err, ErrNotFound) {
				return nil, fmt.Errorf("look up schema %d: %w", r.req.ID, err)
			}
			cand.schema.ID = r.req.ID
			if r.copy {
				cand.schema.Fingerprint = copyFingerprint(cand.schema.Fingerprint, r.req.ID)
			}
		}
		var err error
		id, err = tx.CreateSchema(ctx, cand.schema)
		if err != nil {
			if errors.Is(err, ErrConflict) {
				return nil, srerr.New(srerr.ErrOperationNotPermitted,
					"Overwrite new schema with id %d is not permitted: that id holds a different schema", r.req.ID)
			}
			if errors.Is(err, ErrIDsExhausted) {
				return nil, srerr.New(srerr.ErrStore,
					"Schema ids are exhausted: every id up to %d, the largest the wire format carries, is used or was used", MaxID)
			}
			return nil, fmt.Errorf("create schema: %w", err)
		}
		if id > MaxID {
			// Returning an error rolls the schema back.
			return nil, srerr.New(srerr.ErrStore,
				"Schema ids are exhausted: the next id, %d, is above the largest id the wire format carries, %d", id, MaxID)
		}
		existing = cand.schema
		existing.ID = id
		created = cand.parsed
	}
	var replaced []SubjectVersion
	for _, v := range r.versions {
		if v.Version == version && v.SchemaID != id {
			replaced = append(replaced, v)
		}
	}
	if err := tx.PutVersion(ctx, SubjectVersion{Subject: r.subject, Version: version, SchemaID: id}); err != nil {
		return nil, fmt.Errorf("put version %d of %q: %w", version, r.subject, err)
	}
	if r.mode != ModeImport {
		if err := r.tombstoneSameID(ctx, tx, id, version); err != nil {
			return nil, err
		}
	}
	// An IMPORT overwrite of an existing version may leave the ID it
	// replaced without any version: forgotten, as a permanent delete
	// forgets one, so that its content can be imported under another ID.
	forgot, err := forgetOrphans(ctx, tx, replaced)
	if err != nil {
		return nil, err
	}
	r.forgot = forgot
	r.out = SubjectSchema{Subject: r.subject, Version: version, Schema: existing}
	if g, ok := tx.(GovernanceTx); ok && j != nil {
		r.out.Findings, r.out.SemVer = j.Findings, j.Governance.SemVer
		return created, r.s.registered(ctx, g, Registered{Subject: r.subject, Version: version, ID: id, Result: j.Governance})
	}
	return created, r.s.auditTx(ctx, tx, governance.ActionSchemaRegister, r.subject, fmt.Sprintf("version:%d", version), nil,
		map[string]any{"id": id, "version": version, "mode": string(r.mode)})
}

// tombstoneSameID removes, permanently, the soft-deleted versions of the
// subject that hold id, the schema just registered again as version, and
// that nothing references (a soft-deleted referrer included), as
// Confluent's register does
// (RestApiTest.testSameIdTombstoneStillRunsWhenNoReferences,
// testSameIdTombstonePreservesReferencedSoftDeletedVersion).
func (r *registration) tombstoneSameID(ctx context.Context, tx Tx, id int64, version int) error {
	for _, v := range r.versions {
		if !v.Deleted || v.SchemaID != id || v.Version == version {
			continue
		}
		refs, err := referrers(ctx, tx, r.subject, v.Version, true)
		if err != nil {
			return err
		}
		if len(refs) > 0 {
			continue
		}
		if err := tx.DeleteVersion(ctx, r.subject, v.Version); err != nil {
			return fmt.Errorf("delete %q version %d: %w", r.subject, v.Version, err)
		}
		if err := r.s.auditTx(ctx, tx, governance.ActionVersionDelete, r.subject, fmt.Sprintf("version:%d", v.Version), nil,
			map[string]any{"permanent": true, "reregistered": version}); err != nil {
			return err
		}
	}
	return nil
}

// checkIDAndVersion refuses an explicit id or version above 2^31-1
// (Confluent's REST API reads both as Java Integers, and its wire format
// carries the id in 4 bytes): 42201 for the id, 42202 for the version.
// Zero or negative values mean "none" and are left to the mode checks.
func checkIDAndVersion(req RegisterRequest) error {
	if req.ID > MaxID {
		return srerr.New(srerr.ErrInvalidSchema,
			"Invalid schema: id %d is out of range; a schema id is between 1 and %d", req.ID, MaxID)
	}
	if req.Version > MaxVersion {
		return srerr.New(srerr.ErrInvalidVersion,
			"The specified version '%d' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"", req.Version)
	}
	return nil
}

// Lookup finds req among the versions of subject (POST /subjects/{s}):
// the newest version whose schema has the same content, in canonical or
// normalized form. With includeDeleted, soft-deleted versions count too.
//
// Errors: 40401 the subject has no (live) versions; 40403 no version
// holds this schema (an empty schema text included); 42201 the schema
// does not parse.
func (s *Service) Lookup(ctx context.Context, subject string, req RegisterRequest, includeDeleted bool) (SubjectSchema, error) {
	var out SubjectSchema
	err := s.view(ctx, "look up schema", func(tx Tx) error {
		if err := s.lookup(ctx, tx, subject, req, includeDeleted, &out); err != nil {
			return err
		}
		return withOwnerView(ctx, tx, &out)
	})
	return out, err
}

// lookup is Lookup in tx.
func (s *Service) lookup(ctx context.Context, tx Tx, subject string, req RegisterRequest, includeDeleted bool, out *SubjectSchema) error {
	subject, err := resolveAlias(ctx, tx, subject)
	if err != nil {
		return err
	}
	versions, err := subjectVersions(ctx, tx, subject)
	if err != nil {
		return err
	}
	if !includeDeleted {
		versions = live(versions)
	}
	if len(versions) == 0 {
		return errSubjectNotFound(subject)
	}
	if strings.TrimSpace(req.Schema) == "" {
		return srerr.New(srerr.ErrSchemaNotFound, "Schema not found: the schema text is empty")
	}
	f, err := s.checkRequest(&req)
	if err != nil {
		return err
	}
	cfg, err := effectiveConfig(ctx, tx, subject)
	if err != nil {
		return err
	}
	normalize := req.Normalize || (cfg.Normalize != nil && *cfg.Normalize)
	cand, err := s.newCandidate(ctx, tx, f, subject, req, normalize)
	if err != nil {
		return err
	}
	v, st, ok, err := s.findInSubject(ctx, tx, cand, versions, normalize)
	if err != nil {
		return err
	}
	if !ok {
		return srerr.New(srerr.ErrSchemaNotFound, "Schema not found under subject '%s'", subject)
	}
	*out = SubjectSchema{Subject: subject, Version: v.Version, Deleted: v.Deleted, Schema: st}
	return nil
}

// findInSubject returns the newest of versions that holds cand's schema,
// as Confluent's lookUpSchemaUnderSubject decides it, which both lookup
// and register use: the same stored schema in canonical or normalized
// form (by fingerprint); with normalize, a stored schema equal once both
// are normalized; and, for a candidate without metadata and ruleSet, a
// stored schema that differs only in those (defaults from the config, or
// inherited).
func (s *Service) findInSubject(ctx context.Context, tx Tx, cand candidate, versions []SubjectVersion, normalize bool) (SubjectVersion, Schema, bool, error) {
	for _, fp := range []string{cand.schema.Fingerprint, cand.altFingerprint} {
		st, err := tx.SchemaByFingerprint(ctx, cand.schema.Context, fp)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return SubjectVersion{}, Schema{}, false, fmt.Errorf("look up schema by fingerprint: %w", err)
		}
		for i := len(versions) - 1; i >= 0; i-- {
			if versions[i].SchemaID == st.ID {
				return versions[i], st, true, nil
			}
		}
	}
	if v, st, ok, err := s.matchConfluentVersion(ctx, tx, cand, versions); err != nil || ok {
		return v, st, ok, err
	}
	noContract := len(cand.schema.Metadata) == 0 && len(cand.schema.RuleSet) == 0
	if normalize {
		// Normalized on both sides, as Confluent's lookup does.
		v, st, ok, err := s.matchNormalized(ctx, tx, cand, versions, !noContract)
		if err != nil || ok {
			return v, st, ok, err
		}
	}
	if v, st, ok, err := s.matchSerialized(ctx, tx, cand, versions, !noContract); err != nil || ok {
		return v, st, ok, err
	}
	// A stored schema that differs only in its contract (noContract), or
	// an imported copy of the content under another ID (copyFingerprint),
	// which the fingerprint index does not find.
	want := map[string]bool{cand.schema.Fingerprint: true, cand.altFingerprint: true}
	// The facts of each version's schema (kept by ID) answer without
	// loading its text.
	for i := len(versions) - 1; i >= 0; i-- {
		fs, err := s.lookupFact(ctx, tx, versions[i].Key())
		if err != nil {
			return SubjectVersion{}, Schema{}, false, err
		}
		if (noContract && want[fs.bare]) || (fs.content != "" && want[fs.content]) {
			st, err := storedSchema(ctx, tx, versions[i].Key())
			if err != nil {
				return SubjectVersion{}, Schema{}, false, err
			}
			// Decided on the text itself, as without the facts.
			if (noContract && want[Fingerprint(st.Type, st.Text, st.References, nil, nil)]) ||
				(strings.Contains(st.Fingerprint, "#") && want[contentFingerprint(st)]) {
				return versions[i], st, true, nil
			}
		}
	}
	return s.matchInlined(ctx, tx, cand, versions, noContract, normalize)
}

// matchInlined finds the version whose stored schema has references and,
// with its referenced types written inline (Resolved), is cand, which has
// none: an Avro schema generated from a class, which Confluent's
// serializers look up with no references, is the version registered with
// them, as Confluent's lookUpSchemaUnderSubject compares the two deeply
// (RestApiTest.testSchemaReferences). Unless noContract, the metadata and
// ruleSet must be cand's too; with normalize both are compared normalized.
func (s *Service) matchInlined(ctx context.Context, tx Tx, cand candidate, versions []SubjectVersion, noContract, normalize bool) (SubjectVersion, Schema, bool, error) {
	if len(cand.schema.References) != 0 {
		return SubjectVersion{}, Schema{}, false, nil
	}
	f, err := s.format(cand.schema.Type)
	if err != nil {
		return SubjectVersion{}, Schema{}, false, nil
	}
	form := compat.Schema.Canonical
	if normalize {
		form = compat.Schema.Normalized
	}
	want := form(cand.parsed)
	for i := len(versions) - 1; i >= 0; i-- {
		if fs, err := s.lookupFact(ctx, tx, versions[i].Key()); err != nil {
			return SubjectVersion{}, Schema{}, false, err
		} else if fs.typ != cand.schema.Type || !fs.refs {
			continue // no text to load
		}
		st, err := storedSchema(ctx, tx, versions[i].Key())
		if err != nil {
			return SubjectVersion{}, Schema{}, false, err
		}
		if st.Type != cand.schema.Type || len(st.References) == 0 ||
			(!noContract && (!bytes.Equal(st.Metadata, cand.schema.Metadata) || !bytes.Equal(st.RuleSet, cand.schema.RuleSet))) {
			continue
		}
		p, err := s.parseStored(ctx, tx, st)
		if err != nil {
			return SubjectVersion{}, Schema{}, false, err
		}
		res, ok := p.(resolver)
		if !ok {
			continue
		}
		rp, err := f.Parse(res.Resolved(), nil)
		if err == nil && form(rp) == want {
			return versions[i], st, true, nil
		}
	}
	return SubjectVersion{}, Schema{}, false, nil
}

// serializedForm is a schema that can be sent in a serialized form (a
// Protobuf FileDescriptorProto) whose stored text is the descriptor printed
// as text.
type serializedForm interface {
	FromDescriptor() bool
	InPrintedForm() bool
	PrintedCanonical() string
}

// matchSerialized finds the version a schema sent serialized is, or that
// was sent serialized: the same schema as text and as a descriptor is one
// version (and ID), as in Confluent, whose stored Protobuf text is always
// printed from the descriptor. Either cand came as a descriptor or the
// stored version's text is a printed descriptor; both then compare by
// their descriptors printed as text (field and element order kept, as
// Confluent's canonical text keeps them), with the same type and
// references (and, with contract, metadata and ruleSet).
func (s *Service) matchSerialized(ctx context.Context, tx Tx, cand candidate, versions []SubjectVersion, contract bool) (SubjectVersion, Schema, bool, error) {
	cs, ok := cand.parsed.(serializedForm)
	if !ok {
		return SubjectVersion{}, Schema{}, false, nil
	}
	want := cs.PrintedCanonical()
	if want == "" {
		return SubjectVersion{}, Schema{}, false, nil
	}
	return s.matchParsed(ctx, tx, cand, versions, contract, func(p compat.Schema) bool {
		ps, ok := p.(serializedForm)
		return ok && ps.PrintedCanonical() == want && (cs.FromDescriptor() || ps.InPrintedForm())
	})
}

// matchNormalized returns the newest of versions whose stored schema has
// cand's type and references and the same Normalized text as cand; with
// contract, its metadata and ruleSet must be cand's too.
func (s *Service) matchNormalized(ctx context.Context, tx Tx, cand candidate, versions []SubjectVersion, contract bool) (SubjectVersion, Schema, bool, error) {
	want := cand.parsed.Normalized()
	return s.matchParsed(ctx, tx, cand, versions, contract, func(p compat.Schema) bool { return p.Normalized() == want })
}

// matchParsed returns the newest of versions whose stored schema has
// cand's type and references (with contract, its metadata and ruleSet
// too) and whose parsed form (through the parsed cache) satisfies same.
func (s *Service) matchParsed(ctx context.Context, tx Tx, cand candidate, versions []SubjectVersion, contract bool,
	same func(compat.Schema) bool) (SubjectVersion, Schema, bool, error) {
	for i := len(versions) - 1; i >= 0; i-- {
		st, err := storedSchema(ctx, tx, versions[i].Key())
		if err != nil {
			return SubjectVersion{}, Schema{}, false, err
		}
		if st.Type != cand.schema.Type || !slices.Equal(st.References, cand.schema.References) {
			continue
		}
		if contract && (!bytes.Equal(st.Metadata, cand.schema.Metadata) || !bytes.Equal(st.RuleSet, cand.schema.RuleSet)) {
			continue
		}
		p, err := s.parseStored(ctx, tx, st)
		if err != nil {
			return SubjectVersion{}, Schema{}, false, err
		}
		if same(p) {
			return versions[i], st, true, nil
		}
	}
	return SubjectVersion{}, Schema{}, false, nil
}

// contract returns the metadata and ruleSet a registration stores:
// override ∘ (specific ∘ default) from the subject's effective config,
// where specific is the request's, or the latest live version's when the
// request has none (Confluent's inheritance).
func contract(ctx context.Context, tx Tx, cfg Config, req RegisterRequest, liveVersions []SubjectVersion) (json.RawMessage, json.RawMessage, error) {
	meta, rules := compactJSON(req.Metadata), compactJSON(req.RuleSet)
	if (meta == nil || rules == nil) && len(liveVersions) > 0 {
		prev, err := storedSchema(ctx, tx, liveVersions[len(liveVersions)-1].Key())
		if err != nil {
			return nil, nil, err
		}
		if meta == nil {
			meta = prev.Metadata
		}
		if rules == nil {
			rules = prev.RuleSet
		}
	}
	return mergeMetadata(cfg.DefaultMetadata, meta, cfg.OverrideMetadata),
		mergeRuleSets(cfg.DefaultRuleSet, rules, cfg.OverrideRuleSet), nil
}

// compatibilityGroup keeps the versions in the same compatibility group as
// a schema with metadata meta: with the config's compatibilityGroup set to
// a metadata property name, only versions whose value of that property
// equals the new schema's (absent equals absent) are checked, as in
// Confluent.
func compatibilityGroup(ctx context.Context, tx Tx, cfg Config, meta json.RawMessage, versions []SubjectVersion) ([]SubjectVersion, error) {
	if cfg.CompatibilityGroup == "" {
		return versions, nil
	}
	want, wantOK := metadataProperty(meta, cfg.CompatibilityGroup)
	var out []SubjectVersion
	for _, v := range versions {
		st, err := storedSchema(ctx, tx, v.Key())
		if err != nil {
			return nil, err
		}
		if got, ok := metadataProperty(st.Metadata, cfg.CompatibilityGroup); ok == wantOK && got == want {
			out = append(out, v)
		}
	}
	return out, nil
}

// maxReferenceDepth bounds reference chains, so a cycle written by a
// buggy import cannot recurse forever.
const maxReferenceDepth = 64

// resolveReferences returns the texts of refs and, transitively, of their
// own references, in dependency order (a dependency before its users),
// each name once. A reference to a missing subject or version is 42201.
func (s *Service) resolveReferences(ctx context.Context, tx Tx, schemaCtx string, refs []Reference) ([]compat.Dependency, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	var (
		out  []compat.Dependency
		seen = map[string]SubjectVersion{} // by name, the version met first
	)
	var walk func(sc string, refs []Reference, depth int, stored bool) error
	walk = func(sc string, refs []Reference, depth int, stored bool) error {
		if depth > maxReferenceDepth {
			return srerr.New(srerr.ErrInvalidSchema, "Invalid schema: references nest deeper than %d levels", maxReferenceDepth)
		}
		for _, r := range refs {
			if first, ok := seen[r.Name]; ok {
				if err := s.checkReferenceVersion(ctx, tx, sc, first, r, stored); err != nil {
					return err
				}
				continue
			}
			v, err := resolveRefVersion(ctx, tx, sc, r, stored)
			if err != nil {
				return err
			}
			st, err := tx.SchemaByID(ctx, v.Context(), v.SchemaID)
			if err != nil {
				return fmt.Errorf("load referenced schema %d: %w", v.SchemaID, err)
			}
			seen[r.Name] = v
			if err := walk(v.Context(), st.References, depth+1, true); err != nil {
				return err
			}
			out = append(out, compat.Dependency{Name: r.Name, Text: st.Text})
		}
		return nil
	}
	if err := walk(schemaCtx, refs, 0, false); err != nil {
		return nil, err
	}
	return out, nil
}

// resolveRefVersion finds the subject version a reference names. New
// references must point at live versions; references already stored may
// point at soft-deleted ones.
func resolveRefVersion(ctx context.Context, tx Tx, schemaCtx string, r Reference, includeDeleted bool) (SubjectVersion, error) {
	vs, err := subjectVersions(ctx, tx, QualifyIn(schemaCtx, r.Subject))
	if err != nil {
		return SubjectVersion{}, err
	}
	if !includeDeleted {
		vs = live(vs)
	}
	v, ok := findVersion(vs, r.Version, includeDeleted)
	if !ok {
		ver := fmt.Sprint(r.Version)
		if r.Version == Latest {
			ver = "latest"
		}
		return SubjectVersion{}, srerr.New(srerr.ErrInvalidSchema,
			"Invalid schema: reference %q names subject %q version %s, which does not exist", r.Name, r.Subject, ver)
	}
	return v, nil
}
