package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// Governance on the Service: ownership, policies, deprecations and their
// extensions, tags, PII dismissals, the changelog and the audit log
// (Charter issue 4). The rules themselves are package
// registry/governance's pure functions; the Service loads a subject's
// state from the store (GovernanceTx), reads the time from its clock,
// evaluates every registration and records what changed, each write in
// one transaction with its audit entry.

// ConsumerSource names the consumers of a subject (teams or
// applications that read it), for the rules that warn them. Lineage will
// provide one; until then the Service knows none.
type ConsumerSource interface {
	// Consumers returns the consumers of subject; none is an empty
	// slice. An error fails the registration being evaluated.
	Consumers(ctx context.Context, subject string) ([]string, error)
}

// WithClock sets the clock of governance TTLs, records and audit entries
// (default time.Now). Tests stand on chosen days with it.
func WithClock(now func() time.Time) Option {
	return func(s *Service) {
		if now != nil {
			s.clock = now
		}
	}
}

// WithConsumers sets where the Service learns a subject's consumers
// (default: none known).
func WithConsumers(c ConsumerSource) Option {
	return func(s *Service) { s.consumers = c }
}

func (s *Service) now() time.Time { return s.clock().UTC() }

type actorKey struct{}

// Anonymous is the actor of changes whose request names nobody.
const Anonymous = "anonymous"

// WithActor returns ctx carrying the name of who makes the changes done
// with it (the API takes it from the X-Charter-Actor header or the basic
// auth user). Audit entries record it.
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// ActorFrom returns the actor of ctx, Anonymous when none.
func ActorFrom(ctx context.Context) string {
	if a, ok := ctx.Value(actorKey{}).(string); ok && strings.TrimSpace(a) != "" {
		return a
	}
	return Anonymous
}

// errInvalidGovernance is 42283 with a message.
func errInvalidGovernance(format string, args ...any) error {
	return srerr.New(srerr.ErrInvalidGovernance, format, args...)
}

// gview runs fn with tx's governance part in a read transaction.
func (s *Service) gview(ctx context.Context, op string, fn func(Tx, GovernanceTx) error) error {
	return s.view(ctx, op, func(tx Tx) error {
		g, err := govTx(tx)
		if err != nil {
			return err
		}
		return fn(tx, g)
	})
}

// gupdate runs fn with tx's governance part in a write transaction.
func (s *Service) gupdate(ctx context.Context, op string, fn func(Tx, GovernanceTx) error) error {
	return s.update(ctx, op, func(tx Tx) error {
		g, err := govTx(tx)
		if err != nil {
			return err
		}
		return fn(tx, g)
	})
}

// audit appends an entry for a change made with ctx. before and after are
// encoded as JSON (nil: absent).
func (s *Service) audit(ctx context.Context, g GovernanceTx, action, subject, target string, before, after any) error {
	e := governance.AuditEntry{Time: s.now(), Actor: ActorFrom(ctx), Action: action, Subject: subject, Target: target}
	var err error
	if e.Before, err = auditJSON(before); err != nil {
		return err
	}
	if e.After, err = auditJSON(after); err != nil {
		return err
	}
	if _, err := g.AppendAudit(ctx, e); err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	return nil
}

// auditTx is audit for callers holding a plain Tx: a store without
// governance records gets no audit entry.
func (s *Service) auditTx(ctx context.Context, tx Tx, action, subject, target string, before, after any) error {
	g, ok := tx.(GovernanceTx)
	if !ok {
		return nil
	}
	return s.audit(ctx, g, action, subject, target, before, after)
}

func auditJSON(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	switch x := v.(type) {
	case json.RawMessage:
		if len(x) == 0 {
			return nil, nil
		}
		return x, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode audit entry: %w", err)
	}
	return b, nil
}

// --- Ownership -----------------------------------------------------------

// Owner returns the ownership record of subject (GET
// /governance/subjects/{s}/owner). Errors: 40480 no owner recorded.
func (gov *Governance) Owner(ctx context.Context, subject string) (governance.Owner, error) {
	s := gov.s
	var out governance.Owner
	err := s.gview(ctx, "get owner", func(_ Tx, g GovernanceTx) error {
		ok, err := getRecord(ctx, g, kindOwner, subject, "", &out)
		if err == nil && !ok {
			err = srerr.New(srerr.ErrGovernanceNotFound, "Subject '%s' has no owner", subject)
		}
		return err
	})
	return out, err
}

// Owners returns every ownership record, by subject (GET
// /governance/owners); with team set, only that team's.
func (gov *Governance) Owners(ctx context.Context, team string) ([]governance.Owner, error) {
	s := gov.s
	var out []governance.Owner
	err := s.gview(ctx, "list owners", func(_ Tx, g GovernanceTx) error {
		all, err := listRecords[governance.Owner](ctx, g, kindOwner, "", true)
		if err != nil {
			return err
		}
		out = []governance.Owner{}
		for _, o := range all {
			if team == "" || strings.EqualFold(o.Team, team) {
				out = append(out, o)
			}
		}
		return nil
	})
	return out, err
}

// SetOwner records o as the owner of subject, replacing any earlier owner
// (its description too, when o has none); the subject need not have
// versions yet. Errors: 42208 invalid subject; 42283 no team or contact.
func (gov *Governance) SetOwner(ctx context.Context, subject string, o governance.Owner) (governance.Owner, error) {
	return gov.UpdateOwner(ctx, subject, OwnerUpdate{Team: &o.Team, Contact: &o.Contact, Description: &o.Description})
}

// OwnerUpdate changes an owner: a nil member keeps the stored value, a
// non-nil one replaces it ("" clears the description; team and contact
// cannot be cleared).
type OwnerUpdate struct {
	Team, Contact, Description *string
}

// UpdateOwner applies u to the owner of subject, or records a new owner
// (PUT /governance/subjects/{s}/owner, where absent members keep their
// stored value); the subject need not have versions yet. Errors: 42208
// invalid subject; 42283 no team or contact once u is applied.
func (gov *Governance) UpdateOwner(ctx context.Context, subject string, u OwnerUpdate) (governance.Owner, error) {
	s := gov.s
	if err := ValidateSubject(subject); err != nil {
		return governance.Owner{}, err
	}
	var o governance.Owner
	err := s.gupdate(ctx, "set owner", func(_ Tx, g GovernanceTx) error {
		var before governance.Owner
		had, err := getRecord(ctx, g, kindOwner, subject, "", &before)
		if err != nil {
			return err
		}
		if err := checkExpectedOwner(ctx, subject, had, before); err != nil {
			return err
		}
		o = before
		for _, m := range []struct {
			dst *string
			src *string
		}{{&o.Team, u.Team}, {&o.Contact, u.Contact}, {&o.Description, u.Description}} {
			if m.src != nil {
				*m.dst = strings.TrimSpace(*m.src)
			}
		}
		if err := o.Validate(); err != nil {
			return errInvalidGovernance("Invalid owner of subject '%s': %v", subject, err)
		}
		o.Subject, o.UpdatedAt, o.UpdatedBy = subject, s.now(), ActorFrom(ctx)
		if err := putRecord(ctx, g, kindOwner, subject, "", o); err != nil {
			return err
		}
		return s.audit(ctx, g, governance.ActionOwnerSet, subject, "", nilIf(!had, before), o)
	})
	if err != nil {
		return governance.Owner{}, err
	}
	return o, nil
}

// DeleteOwner removes the owner of subject and returns it. Errors: 40480
// no owner recorded.
func (gov *Governance) DeleteOwner(ctx context.Context, subject string) (governance.Owner, error) {
	s := gov.s
	var out governance.Owner
	err := s.gupdate(ctx, "delete owner", func(_ Tx, g GovernanceTx) error {
		ok, err := getRecord(ctx, g, kindOwner, subject, "", &out)
		if err != nil {
			return err
		}
		if !ok {
			return srerr.New(srerr.ErrGovernanceNotFound, "Subject '%s' has no owner", subject)
		}
		if err := checkExpectedOwner(ctx, subject, ok, out); err != nil {
			return err
		}
		if err := g.DeleteGovernanceRecord(ctx, kindOwner, subject, ""); err != nil {
			return fmt.Errorf("delete owner of %q: %w", subject, err)
		}
		return s.audit(ctx, g, governance.ActionOwnerDelete, subject, "", out, nil)
	})
	return out, err
}

// nilIf returns nil when cond, else v (for audit "before" values).
func nilIf(cond bool, v any) any {
	if cond {
		return nil
	}
	return v
}

// --- Policy --------------------------------------------------------------

// Policy returns the policy stored for subject ("" for the global policy):
// the subject's own settings only (zero when none). GET
// /governance/policy and /governance/subjects/{s}/policy.
func (gov *Governance) Policy(ctx context.Context, subject string) (governance.PolicyConfig, error) {
	s := gov.s
	var out governance.PolicyConfig
	err := s.gview(ctx, "get policy", func(_ Tx, g GovernanceTx) error {
		_, err := getRecord(ctx, g, kindPolicy, subject, "", &out)
		return err
	})
	return out, err
}

// EffectivePolicy returns the policy that applies to subject: the global
// policy with the subject's settings over it.
func (gov *Governance) EffectivePolicy(ctx context.Context, subject string) (governance.PolicyConfig, error) {
	s := gov.s
	var out governance.PolicyConfig
	err := s.gview(ctx, "get effective policy", func(_ Tx, g GovernanceTx) error {
		var err error
		out, err = effectivePolicy(ctx, g, subject)
		return err
	})
	return out, err
}

func effectivePolicy(ctx context.Context, g GovernanceTx, subject string) (governance.PolicyConfig, error) {
	var global, own governance.PolicyConfig
	if _, err := getRecord(ctx, g, kindPolicy, "", "", &global); err != nil {
		return governance.PolicyConfig{}, err
	}
	if subject == "" {
		return global, nil
	}
	if _, err := getRecord(ctx, g, kindPolicy, subject, "", &own); err != nil {
		return governance.PolicyConfig{}, err
	}
	return governance.MergePolicy(global, own), nil
}

// SetPolicy replaces the policy of subject ("" global) with p (PUT
// /governance/policy, /governance/subjects/{s}/policy). Errors: 42283 an
// unknown rule, a bad severity, a TTL out of range.
func (gov *Governance) SetPolicy(ctx context.Context, subject string, p governance.PolicyConfig) (governance.PolicyConfig, error) {
	s := gov.s
	if subject != "" {
		if err := ValidateSubject(subject); err != nil {
			return governance.PolicyConfig{}, err
		}
	}
	if err := p.Validate(); err != nil {
		return governance.PolicyConfig{}, errInvalidGovernance("%v", err)
	}
	p = p.Normalize()
	err := s.gupdate(ctx, "set policy", func(_ Tx, g GovernanceTx) error {
		var before governance.PolicyConfig
		had, err := getRecord(ctx, g, kindPolicy, subject, "", &before)
		if err != nil {
			return err
		}
		if err := putRecord(ctx, g, kindPolicy, subject, "", p); err != nil {
			return err
		}
		return s.audit(ctx, g, governance.ActionPolicySet, subject, "", nilIf(!had, before), p)
	})
	return p, err
}

// DeletePolicy removes the policy of subject ("" global: back to the
// defaults) and returns it. Errors: 40480 none stored.
func (gov *Governance) DeletePolicy(ctx context.Context, subject string) (governance.PolicyConfig, error) {
	s := gov.s
	var out governance.PolicyConfig
	err := s.gupdate(ctx, "delete policy", func(_ Tx, g GovernanceTx) error {
		ok, err := getRecord(ctx, g, kindPolicy, subject, "", &out)
		if err != nil {
			return err
		}
		if !ok {
			return srerr.New(srerr.ErrGovernanceNotFound, "No policy is stored for %s", policyScope(subject))
		}
		if err := g.DeleteGovernanceRecord(ctx, kindPolicy, subject, ""); err != nil {
			return fmt.Errorf("delete policy: %w", err)
		}
		return s.audit(ctx, g, governance.ActionPolicyDelete, subject, "", out, nil)
	})
	return out, err
}

func policyScope(subject string) string {
	if subject == "" {
		return "the registry"
	}
	return fmt.Sprintf("subject '%s'", subject)
}

// --- Deprecations --------------------------------------------------------

// DeprecateRequest deprecates a field or a version of a subject. When the
// item is deprecated already, an empty Reason or Replacement and a zero
// TTLDays keep the stored value; Clear empties Reason or Replacement
// instead.
type DeprecateRequest struct {
	Item        governance.Item
	Reason      string
	Replacement string
	// TTLDays is the countdown; 0 takes the subject's policy TTL
	// (default governance.DefaultTTLDays), or keeps the stored one.
	TTLDays int
	// Clear names the members a repeated deprecation empties:
	// ClearReason, ClearReplacement.
	Clear []string
}

// Members of DeprecateRequest.Clear.
const (
	ClearReason      = "reason"
	ClearReplacement = "replacement"
)

// latestFields returns the latest live version of subject, parsed, and
// whether there is one.
func (s *Service) latestParsed(ctx context.Context, tx Tx, subject string) (SubjectVersion, Schema, compat.Schema, bool, error) {
	vs, err := subjectVersions(ctx, tx, subject)
	if err != nil {
		return SubjectVersion{}, Schema{}, nil, false, err
	}
	lv := live(vs)
	if len(lv) == 0 {
		return SubjectVersion{}, Schema{}, nil, false, nil
	}
	v := lv[len(lv)-1]
	st, err := storedSchema(ctx, tx, v.Key())
	if err != nil {
		return SubjectVersion{}, Schema{}, nil, false, err
	}
	p, err := s.parseStored(ctx, tx, st)
	if err != nil {
		return SubjectVersion{}, Schema{}, nil, false, err
	}
	return v, st, p, true, nil
}

// Deprecate deprecates a field path of the subject's latest version, or a
// version, from now on with a TTL (POST
// /governance/subjects/{s}/deprecations). Deprecating an item again keeps
// its start and extensions and changes only the reason, replacement and
// TTL the request gives (see DeprecateRequest). Errors: 40401 the subject
// has no live version; 40402 no such version; 42283 no such field in the
// latest version, or a TTL out of range.
func (gov *Governance) Deprecate(ctx context.Context, subject string, req DeprecateRequest) (governance.DeprecationStatus, error) {
	s := gov.s
	if req.TTLDays < 0 || req.TTLDays > governance.MaxTTLDays {
		return governance.DeprecationStatus{}, errInvalidGovernance("Invalid TTL %d days: want 1 to %d (0 takes the policy's TTL)", req.TTLDays, governance.MaxTTLDays)
	}
	var out governance.Deprecation
	err := s.gupdate(ctx, "deprecate", func(tx Tx, g GovernanceTx) error {
		latest, _, parsed, ok, err := s.latestParsed(ctx, tx, subject)
		if err != nil {
			return err
		}
		if !ok {
			return errSubjectNotFound(subject)
		}
		switch req.Item.Kind {
		case governance.ItemVersion:
			if _, err := lookupVersion(ctx, tx, subject, req.Item.Version, false); err != nil {
				return err
			}
		case governance.ItemField:
			if err := hasField(parsed, req.Item.Path, latest.Version); err != nil {
				return err
			}
		default:
			return errInvalidGovernance("Invalid item: want a field path or a version")
		}
		pol, err := effectivePolicy(ctx, g, subject)
		if err != nil {
			return err
		}
		key := req.Item.Key()
		var before governance.Deprecation
		had, err := getRecord(ctx, g, kindDeprecation, subject, key, &before)
		if err != nil {
			return err
		}
		reason, replacement, ttl := strings.TrimSpace(req.Reason), strings.TrimSpace(req.Replacement), req.TTLDays
		if had {
			// Deprecating again changes only what the request gives.
			if reason == "" && !slices.Contains(req.Clear, ClearReason) {
				reason = before.Reason
			}
			if replacement == "" && !slices.Contains(req.Clear, ClearReplacement) {
				replacement = before.Replacement
			}
			if ttl == 0 {
				ttl = before.TTLDays
			}
		}
		if ttl == 0 {
			ttl = pol.TTLDays()
		}
		d := governance.NewDeprecation(subject, req.Item, s.now(), ttl, governance.SourceAPI)
		d.SinceVersion = latest.Version
		if had {
			d.DeprecatedAt, d.SinceVersion, d.Extensions = before.DeprecatedAt, before.SinceVersion, before.Extensions
			d.ExpiresAt = d.DeprecatedAt.Add(time.Duration(ttl) * governance.Day)
		}
		d.Reason, d.Replacement, d.By = reason, replacement, ActorFrom(ctx)
		if err := putRecord(ctx, g, kindDeprecation, subject, key, d); err != nil {
			return err
		}
		out = d
		return s.audit(ctx, g, governance.ActionDeprecationCreate, subject, key, nilIf(!had, before), d)
	})
	if err != nil {
		return governance.DeprecationStatus{}, err
	}
	return out.Status(s.now()), nil
}

// hasField returns 42283 unless the schema has a field at path.
func hasField(p compat.Schema, path string, version int) error {
	fields := compat.Fields(p)
	var names []string
	for _, f := range fields {
		if f.Path == path {
			return nil
		}
		if len(names) < 20 {
			names = append(names, f.Path)
		}
	}
	return errInvalidGovernance("Version %d has no field at path %q; its fields include: %s", version, path, strings.Join(names, ", "))
}

// Deprecations returns the deprecations of subject with their state now
// (GET /governance/subjects/{s}/deprecations), by item key; with all, the
// fields of the latest version that are not deprecated are listed too, as
// active.
func (gov *Governance) Deprecations(ctx context.Context, subject string, all bool) ([]governance.DeprecationStatus, error) {
	s := gov.s
	var out []governance.DeprecationStatus
	err := s.gview(ctx, "list deprecations", func(tx Tx, g GovernanceTx) error {
		ds, err := listRecords[governance.Deprecation](ctx, g, kindDeprecation, subject, false)
		if err != nil {
			return err
		}
		now := s.now()
		out = make([]governance.DeprecationStatus, 0, len(ds))
		deprecated := map[string]bool{}
		for _, d := range ds {
			out = append(out, d.Status(now))
			deprecated[d.Key()] = true
		}
		if !all {
			return nil
		}
		_, _, parsed, ok, err := s.latestParsed(ctx, tx, subject)
		if err != nil || !ok {
			return err
		}
		for _, f := range compat.Fields(parsed) {
			it := governance.FieldItem(f.Path)
			if deprecated[it.Key()] {
				continue
			}
			deprecated[it.Key()] = true
			out = append(out, governance.DeprecationStatus{Deprecation: governance.Deprecation{Subject: subject, Item: it}, State: governance.StateActive})
		}
		return nil
	})
	return out, err
}

// AllDeprecations returns the deprecations of every subject with their
// state now (GET /governance/deprecations), by subject and item key.
func (gov *Governance) AllDeprecations(ctx context.Context) ([]governance.DeprecationStatus, error) {
	s := gov.s
	var out []governance.DeprecationStatus
	err := s.gview(ctx, "list deprecations", func(_ Tx, g GovernanceTx) error {
		ds, err := listRecords[governance.Deprecation](ctx, g, kindDeprecation, "", true)
		if err != nil {
			return err
		}
		now := s.now()
		out = make([]governance.DeprecationStatus, 0, len(ds))
		for _, d := range ds {
			out = append(out, d.Status(now))
		}
		return nil
	})
	return out, err
}

// Deprecation returns one deprecation with its state now. Errors: 40480
// the item is not deprecated.
func (gov *Governance) Deprecation(ctx context.Context, subject string, item governance.Item) (governance.DeprecationStatus, error) {
	s := gov.s
	var d governance.Deprecation
	err := s.gview(ctx, "get deprecation", func(_ Tx, g GovernanceTx) error {
		return getDeprecation(ctx, g, subject, item, &d)
	})
	if err != nil {
		return governance.DeprecationStatus{}, err
	}
	return d.Status(s.now()), nil
}

func getDeprecation(ctx context.Context, g GovernanceTx, subject string, item governance.Item, d *governance.Deprecation) error {
	ok, err := getRecord(ctx, g, kindDeprecation, subject, item.Key(), d)
	if err == nil && !ok {
		err = srerr.New(srerr.ErrGovernanceNotFound, "%s of subject '%s' is not deprecated", upperFirst(item.String()), subject)
	}
	return err
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Undeprecate removes the deprecation of item (DELETE
// /governance/subjects/{s}/deprecations/{item}), extensions included, and
// returns it. Errors: 40480 not deprecated.
func (gov *Governance) Undeprecate(ctx context.Context, subject string, item governance.Item) (governance.Deprecation, error) {
	s := gov.s
	var d governance.Deprecation
	err := s.gupdate(ctx, "undeprecate", func(_ Tx, g GovernanceTx) error {
		if err := getDeprecation(ctx, g, subject, item, &d); err != nil {
			return err
		}
		if err := g.DeleteGovernanceRecord(ctx, kindDeprecation, subject, item.Key()); err != nil {
			return fmt.Errorf("delete deprecation: %w", err)
		}
		return s.audit(ctx, g, governance.ActionDeprecationDelete, subject, item.Key(), d, nil)
	})
	return d, err
}

// ExtensionRequest grants a consumer more time with a deprecated item.
type ExtensionRequest struct {
	Consumer string
	// Until is the end of the extension; zero takes Days from now.
	Until    time.Time
	Days     int
	Reason   string
	Approver string
}

// GrantExtension lets req.Consumer keep using item until req.Until (POST
// /governance/subjects/{s}/deprecations/{item}/extensions). A consumer's
// earlier extension of the same item is replaced. Errors: 40480 not
// deprecated; 42283 no consumer, reason or approver, or an end that is
// not in the future or more than ten years away.
func (gov *Governance) GrantExtension(ctx context.Context, subject string, item governance.Item, req ExtensionRequest) (governance.DeprecationStatus, error) {
	s := gov.s
	now := s.now()
	until := req.Until
	if until.IsZero() {
		if req.Days <= 0 || req.Days > governance.MaxTTLDays {
			return governance.DeprecationStatus{}, errInvalidGovernance("Invalid extension: days %d is out of range: want 1 to %d, or an end (until)", req.Days, governance.MaxTTLDays)
		}
		until = now.AddDate(0, 0, req.Days)
	}
	x := governance.Extension{Consumer: strings.TrimSpace(req.Consumer), Until: until.UTC(), Reason: strings.TrimSpace(req.Reason),
		Approver: strings.TrimSpace(req.Approver), GrantedAt: now, GrantedBy: ActorFrom(ctx)}
	if err := x.Validate(now); err != nil {
		return governance.DeprecationStatus{}, errInvalidGovernance("Invalid extension of %s of subject '%s': %v", item, subject, err)
	}
	var d governance.Deprecation
	err := s.gupdate(ctx, "grant extension", func(_ Tx, g GovernanceTx) error {
		if err := getDeprecation(ctx, g, subject, item, &d); err != nil {
			return err
		}
		var before *governance.Extension
		d.Extensions = slices.DeleteFunc(d.Extensions, func(e governance.Extension) bool {
			if e.Consumer == x.Consumer {
				e := e
				before = &e
				return true
			}
			return false
		})
		d.Extensions = append(d.Extensions, x)
		if err := putRecord(ctx, g, kindDeprecation, subject, item.Key(), d); err != nil {
			return err
		}
		return s.audit(ctx, g, governance.ActionExtensionGrant, subject, item.Key()+"/"+x.Consumer, nilIf(before == nil, before), x)
	})
	if err != nil {
		return governance.DeprecationStatus{}, err
	}
	return d.Status(now), nil
}

// RevokeExtension removes the extension of consumer on item. Errors:
// 40480 not deprecated, or no extension for consumer.
func (gov *Governance) RevokeExtension(ctx context.Context, subject string, item governance.Item, consumer string) (governance.DeprecationStatus, error) {
	s := gov.s
	var d governance.Deprecation
	err := s.gupdate(ctx, "revoke extension", func(_ Tx, g GovernanceTx) error {
		if err := getDeprecation(ctx, g, subject, item, &d); err != nil {
			return err
		}
		i := slices.IndexFunc(d.Extensions, func(e governance.Extension) bool { return e.Consumer == consumer })
		if i < 0 {
			return srerr.New(srerr.ErrGovernanceNotFound, "%s of subject '%s' has no extension for %s", upperFirst(item.String()), subject, consumer)
		}
		before := d.Extensions[i]
		d.Extensions = slices.Delete(d.Extensions, i, i+1)
		if err := putRecord(ctx, g, kindDeprecation, subject, item.Key(), d); err != nil {
			return err
		}
		return s.audit(ctx, g, governance.ActionExtensionRevoke, subject, item.Key()+"/"+consumer, before, nil)
	})
	if err != nil {
		return governance.DeprecationStatus{}, err
	}
	return d.Status(s.now()), nil
}

// --- Removed fields, dismissals, tags -----------------------------------

// RemovedFields returns the fields removed from subject that stay
// reserved (GET /governance/subjects/{s}/removed), by path.
func (gov *Governance) RemovedFields(ctx context.Context, subject string) ([]governance.RemovedField, error) {
	s := gov.s
	var out []governance.RemovedField
	err := s.gview(ctx, "list removed fields", func(_ Tx, g GovernanceTx) error {
		var err error
		out, err = listRecords[governance.RemovedField](ctx, g, kindRemoved, subject, false)
		return err
	})
	return out, err
}

// Dismissals returns the PII dismissals of subject (GET
// /governance/subjects/{s}/dismissals).
func (gov *Governance) Dismissals(ctx context.Context, subject string) ([]governance.Dismissal, error) {
	s := gov.s
	var out []governance.Dismissal
	err := s.gview(ctx, "list dismissals", func(_ Tx, g GovernanceTx) error {
		var err error
		out, err = listRecords[governance.Dismissal](ctx, g, kindDismissal, subject, false)
		return err
	})
	return out, err
}

// Dismiss records a reviewed PII false positive (POST
// /governance/subjects/{s}/dismissals): who (the actor, unless d.By is
// set) and why. The same field and pattern again replaces the earlier
// dismissal. Errors: 40401 the subject has no live version; 42283 no field
// or no reason, a field (path or full name) that no live version has
// (unless d.Proposed), or an unknown pattern ID.
func (gov *Governance) Dismiss(ctx context.Context, subject string, d governance.Dismissal) (governance.Dismissal, error) {
	s := gov.s
	if err := ValidateSubject(subject); err != nil {
		return governance.Dismissal{}, err
	}
	d.Field, d.PatternID, d.Reason = strings.TrimSpace(d.Field), strings.TrimSpace(d.PatternID), strings.TrimSpace(d.Reason)
	if err := d.Validate(); err != nil {
		return governance.Dismissal{}, errInvalidGovernance("Invalid dismissal: %v", err)
	}
	if strings.TrimSpace(d.By) == "" {
		d.By = ActorFrom(ctx)
	}
	if d.PatternID != "" && !knownPattern(d.PatternID) {
		return governance.Dismissal{}, errInvalidGovernance("Invalid dismissal: unknown patternId %q (charter rules lists the PII pattern IDs)", d.PatternID)
	}
	d.Subject, d.At = subject, s.now()
	err := s.gupdate(ctx, "dismiss", func(tx Tx, g GovernanceTx) error {
		if !d.Proposed {
			if err := s.dismissedField(ctx, tx, subject, d.Field); err != nil {
				return err
			}
		}
		var before governance.Dismissal
		had, err := getRecord(ctx, g, kindDismissal, subject, d.Key(), &before)
		if err != nil {
			return err
		}
		if err := putRecord(ctx, g, kindDismissal, subject, d.Key(), d); err != nil {
			return err
		}
		return s.audit(ctx, g, governance.ActionDismissalCreate, subject, d.Key(), nilIf(!had, before), d)
	})
	return d, err
}

// DeleteDismissal removes the dismissal of field (and pattern, "" for
// all patterns). Errors: 40480 none.
func (gov *Governance) DeleteDismissal(ctx context.Context, subject, field, pattern string) (governance.Dismissal, error) {
	s := gov.s
	var d governance.Dismissal
	key := governance.Dismissal{Field: field, PatternID: pattern}.Key()
	err := s.gupdate(ctx, "delete dismissal", func(_ Tx, g GovernanceTx) error {
		ok, err := getRecord(ctx, g, kindDismissal, subject, key, &d)
		if err != nil {
			return err
		}
		if !ok {
			return srerr.New(srerr.ErrGovernanceNotFound, "Subject '%s' has no dismissal for %s", subject, key)
		}
		if err := g.DeleteGovernanceRecord(ctx, kindDismissal, subject, key); err != nil {
			return fmt.Errorf("delete dismissal: %w", err)
		}
		return s.audit(ctx, g, governance.ActionDismissalDelete, subject, key, d, nil)
	})
	return d, err
}

// --- The audit log -------------------------------------------------------

// Audit returns the audit entries q selects, oldest first (GET
// /governance/audit).
func (gov *Governance) Audit(ctx context.Context, q AuditQuery) ([]governance.AuditEntry, error) {
	s := gov.s
	var out []governance.AuditEntry
	err := s.gview(ctx, "read audit log", func(_ Tx, g GovernanceTx) error {
		var err error
		out, err = g.AuditEntries(ctx, q)
		return err
	})
	return out, err
}

// --- State and evaluation -----------------------------------------------

// loadState reads the state the gate judges subject with, in tx as of
// now: what every registration hook adds (governance records, lineage
// readers, published contracts).
func (s *Service) loadState(ctx context.Context, tx Tx, g GovernanceTx, subject string, now time.Time) (governance.SubjectState, error) {
	st := governance.SubjectState{Subject: subject}
	for _, h := range s.hooks() {
		if err := h.AddState(ctx, tx, g, subject, now, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// AddState adds the subject's governance records to st: owner,
// deprecations, removed fields, dismissals, tags, effective policy and
// level, and the latest semantic version.
func (gov *Governance) AddState(ctx context.Context, tx Tx, g GovernanceTx, subject string, now time.Time, st *governance.SubjectState) error {
	s := gov.s
	var o governance.Owner
	ok, err := getRecord(ctx, g, kindOwner, subject, "", &o)
	if err != nil {
		return err
	}
	if ok {
		st.Owner = &o
	} else if team := claimFrom(ctx); team != "" {
		// The registration claims the subject (claim.go): it is judged as
		// owned by the claiming team, so OWNER_MISSING does not fire.
		st.Owner = &governance.Owner{Subject: subject, Team: team, Contact: ActorFrom(ctx)}
	}
	if st.Deprecations, err = listRecords[governance.Deprecation](ctx, g, kindDeprecation, subject, false); err != nil {
		return err
	}
	if st.Removed, err = listRecords[governance.RemovedField](ctx, g, kindRemoved, subject, false); err != nil {
		return err
	}
	if st.Dismissals, err = listRecords[governance.Dismissal](ctx, g, kindDismissal, subject, false); err != nil {
		return err
	}
	if _, err := getRecord(ctx, g, kindTags, subject, "", &st.Tags); err != nil {
		return err
	}
	asOf(st, now)
	if st.Policy, err = effectivePolicy(ctx, g, subject); err != nil {
		return err
	}
	cfg, err := effectiveConfig(ctx, tx, subject)
	if err != nil {
		return err
	}
	st.Compatibility = cfg.Compatibility
	st.ValidateFields = cfg.ValidateFields != nil && *cfg.ValidateFields
	st.Normalize = cfg.Normalize != nil && *cfg.Normalize
	st.CompatibilityGroup = cfg.CompatibilityGroup
	vs, err := subjectVersions(ctx, tx, subject)
	if err != nil {
		return err
	}
	if len(vs) > 0 {
		st.NextVersion = vs[len(vs)-1].Version + 1
	}
	if lv := live(vs); len(lv) > 0 {
		var rec governance.VersionRecord
		ok, err := getRecord(ctx, g, kindVersion, subject, versionKey(lv[len(lv)-1].Version), &rec)
		if err != nil {
			return err
		}
		if !ok {
			// Versions registered before governance: number them now.
			recs, err := s.versionRecords(ctx, tx, g, subject)
			if err != nil {
				return err
			}
			rec = recs[len(recs)-1]
		}
		st.LatestSemVer = rec.SemVer
	}
	return nil
}

// asOf drops from st the deprecations, extensions and dismissals made
// after now, so that a state read "as of" an earlier moment (?at=) is the
// state then. Ownership, policy and tags have no history: they are today's.
func asOf(st *governance.SubjectState, now time.Time) {
	ds := st.Deprecations[:0]
	for _, d := range st.Deprecations {
		if !d.DeprecatedAt.IsZero() && d.DeprecatedAt.After(now) {
			continue
		}
		xs := d.Extensions[:0:0]
		for _, x := range d.Extensions {
			if x.GrantedAt.IsZero() || !x.GrantedAt.After(now) {
				xs = append(xs, x)
			}
		}
		d.Extensions = xs
		ds = append(ds, d)
	}
	st.Deprecations = ds
	dm := st.Dismissals[:0]
	for _, d := range st.Dismissals {
		if d.At.IsZero() || !d.At.After(now) {
			dm = append(dm, d)
		}
	}
	st.Dismissals = dm
}

// Registered records what a registration changed (recordRegistration).
func (gov *Governance) Registered(ctx context.Context, g GovernanceTx, r Registered) error {
	if err := gov.claim(ctx, g, r.Subject); err != nil {
		return err
	}
	return gov.s.recordRegistration(ctx, g, r.Subject, r.Version, r.ID, r.Result)
}

// State returns the governance state of subject as of at (zero: the
// registry's clock) (GET /governance/subjects/{s}/state?at=): everything
// the gate reads besides the schemas, so that `charter check --against
// registry` judges with the same input as registration.
func (gov *Governance) State(ctx context.Context, subject string, at time.Time) (governance.SubjectState, error) {
	s := gov.s
	if at.IsZero() {
		at = s.now()
	}
	var out governance.SubjectState
	err := s.gview(ctx, "get governance state", func(tx Tx, g GovernanceTx) error {
		subject, err := resolveAlias(ctx, tx, subject)
		if err != nil {
			return err
		}
		out, err = s.loadState(ctx, tx, g, subject, at.UTC())
		return err
	})
	return out, err
}

// Check evaluates req against subject as Register would, without
// registering, as of at (zero: the registry's clock): the gate's every
// finding (compatibility at the subject's level as errors with their
// compat rule IDs, reserved fields, governance and contract rules).
// Errors: as Register's for invalid input (42201, 42208, 42209); a
// refusal is a result, not an error.
func (gov *Governance) Check(ctx context.Context, subject string, req RegisterRequest, at time.Time) (governance.CheckResult, error) {
	s := gov.s
	if err := ValidateSubject(subject); err != nil {
		return governance.CheckResult{}, err
	}
	if err := validateRuleSet(req.RuleSet, "ruleSet"); err != nil {
		return governance.CheckResult{}, err
	}
	if at.IsZero() {
		at = s.now()
	}
	r, err := s.newRegistration(subject, req)
	if err != nil {
		return governance.CheckResult{}, err
	}
	out := governance.CheckResult{Subject: subject}
	var vd *Verdict // for the Observers
	err = s.gview(ctx, "check governance", func(tx Tx, g GovernanceTx) error {
		vd = nil
		// The steps of registration up to its judgement (no mode check:
		// a dry run writes nothing).
		if err := r.prepare(ctx, tx); err != nil {
			return err
		}
		subject, versions, cfg, f, cand := r.subject, r.versions, r.cfg, r.format, r.cand
		lv := live(versions)
		out.Subject = subject
		out.Version = 1
		if len(versions) > 0 {
			out.Version = versions[len(versions)-1].Version + 1
		}
		existing, found, err := r.existingSchema(ctx, tx)
		if err != nil {
			return err
		}
		v, _, ok, err := r.existingVersion(ctx, tx, existing, found)
		if err != nil {
			return err
		}
		if ok {
			out.Version, out.Existing = v.Version, true
		}
		jr := judgeRequest{subject: subject, format: f, level: cfg.Compatibility, cand: cand,
			version: out.Version, existing: out.Existing, now: at.UTC()}
		if jr.against, err = compatibilityGroup(ctx, tx, cfg, cand.schema.Metadata, lv); err != nil {
			return err
		}
		if !out.Existing && len(lv) > 0 {
			jr.latest = &lv[len(lv)-1]
		}
		j, err := s.judge(ctx, tx, jr)
		if err != nil {
			return err
		}
		if !out.Existing {
			vd = &Verdict{Source: VerdictDryRun, Subject: subject, Type: f.Type(), Level: jr.level,
				Compared: compared(jr.level, len(jr.against)), Findings: j.Compat.Findings}
		}
		out.Findings = j.Findings
		out.SemVer = j.Governance.SemVer
		if c := j.Governance.Classification; c != nil {
			out.Bump, out.Changes = c.Bump, c.Changes
		}
		out.Allowed = !rule.Report{Findings: out.Findings}.Failed()
		if out.Findings == nil {
			out.Findings = []rule.Finding{}
		}
		return nil
	})
	if vd != nil {
		s.verdict(*vd)
	}
	return out, err
}

// policyError is the refusal of a registration whose governance findings
// include errors: 42281 when the first error is an expired deprecation,
// 42282 a reused removed field, else 42280. The message lists every error.
func policyError(subject string, fs []rule.Finding) error {
	var (
		sentinel *srerr.Error
		msgs     []string
		hint     string
	)
	for _, f := range fs {
		if f.Severity != rule.Error {
			continue
		}
		if sentinel == nil {
			switch f.RuleID {
			case governance.RuleDeprecationExpired, governance.RuleDeprecationInlineExpired:
				sentinel = srerr.ErrDeprecationExpired
			case governance.RuleRemovedFieldReused, governance.RuleRemovedNumberReused:
				sentinel = srerr.ErrRemovedFieldReused
			default:
				sentinel = srerr.ErrPolicyViolation
			}
			hint = f.Hint
		}
		msg := fmt.Sprintf("%s: %s", f.RuleID, f.Message)
		if f.Hint != "" {
			msg += " (fix: " + f.Hint + ")"
		}
		msgs = append(msgs, msg)
	}
	if sentinel == nil {
		return nil
	}
	e := srerr.New(sentinel, "Schema being registered for subject '%s' is refused by governance policy: %s", subject, strings.Join(msgs, "; "))
	e.Hint = hint
	return e
}

// recordRegistration stores what a registration changed, in its
// transaction: the version record (semantic version and changes), the
// deprecations the schema declares, the fields it removed or brought
// back, and the audit entry.
func (s *Service) recordRegistration(ctx context.Context, g GovernanceTx, subject string, version int, id int64, res governance.Result) error {
	now, actor := s.now(), ActorFrom(ctx)
	rec := governance.VersionRecord{Subject: subject, Version: version, SchemaID: id, SemVer: res.SemVer,
		RegisteredAt: now, By: actor}
	if res.Classification != nil {
		rec.Bump, rec.Changes = res.Classification.Bump, res.Classification.Changes
	} else {
		rec.Bump = governance.BumpNone
		rec.Changes = []governance.Change{{Kind: governance.KindSchemaAdded, Text: "first version", Bump: governance.BumpNone}}
	}
	if err := putRecord(ctx, g, kindVersion, subject, versionKey(version), rec); err != nil {
		return err
	}
	for _, d := range res.NewDeprecations {
		d.By = actor
		if err := putRecord(ctx, g, kindDeprecation, subject, d.Key(), d); err != nil {
			return err
		}
		if err := s.audit(ctx, g, governance.ActionDeprecationCreate, subject, d.Key(), nil, d); err != nil {
			return err
		}
	}
	for _, r := range res.Removed {
		if err := putRecord(ctx, g, kindRemoved, subject, r.Path, r); err != nil {
			return err
		}
		if err := s.audit(ctx, g, governance.ActionFieldRemoved, subject, r.Path, nil, r); err != nil {
			return err
		}
	}
	for _, p := range res.Restored {
		if err := g.DeleteGovernanceRecord(ctx, kindRemoved, subject, p); err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("forget removed field %s of %q: %w", p, subject, err)
		}
	}
	return s.audit(ctx, g, governance.ActionSchemaRegister, subject, "version:"+fmt.Sprint(version), nil, struct {
		ID       int64           `json:"id"`
		Version  int             `json:"version"`
		SemVer   string          `json:"semver,omitempty"`
		Bump     governance.Bump `json:"bump,omitempty"`
		Findings int             `json:"findings"`
	}{id, version, res.SemVer, rec.Bump, len(res.Findings)})
}

// dropSubjectGovernance forgets the history records of a subject whose
// versions are all permanently deleted: its version records, removed
// fields and deprecations. Ownership, policy, tags and dismissals stay:
// an operator set them, and a subject registered again under the name
// keeps them.
func dropSubjectGovernance(ctx context.Context, tx Tx, subject string) error {
	g, ok := tx.(GovernanceTx)
	if !ok {
		return nil
	}
	for _, kind := range []string{kindVersion, kindRemoved, kindDeprecation} {
		rs, err := g.GovernanceRecords(ctx, RecordQuery{Kind: kind, Subject: subject})
		if err != nil {
			return fmt.Errorf("list %s records of %q: %w", kind, subject, err)
		}
		for _, r := range rs {
			if err := g.DeleteGovernanceRecord(ctx, kind, subject, r.Key); err != nil {
				return fmt.Errorf("delete %s record of %q: %w", kind, subject, err)
			}
		}
	}
	return nil
}
