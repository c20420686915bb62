package project

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/registry/governance"
)

// RuleSeverityIgnored is the notice Check gives, against a registry, for
// a charter.yaml severity that lowers a rule the registry refuses with
// (an error there): the registry's policy decides, so the finding stays
// an error; charter.yaml may only make a rule stricter.
const RuleSeverityIgnored = "CONFIG_SEVERITY_IGNORED"

// RuleLevelIgnored is the notice Check gives, against a registry, for a
// compatibility level charter.yaml's schemas entry or overrides set that
// is weaker than the registry's for the subject (not AtLeastAsStrict):
// the registry's level decides, as registration would judge the change;
// charter.yaml may only make it stricter.
const RuleLevelIgnored = "CONFIG_LEVEL_IGNORED"

// judgeRules are the project rules of the judge (listed by Rules).
var judgeRules = []rule.Rule{
	{ID: RuleSeverityIgnored, Category: rule.CategoryProject, Severity: rule.Notice,
		Purpose: "Against a registry, charter.yaml's severities may raise a rule but not lower one that the registry's policy makes an error: registration would refuse the change all the same, so check reports the error and this notice."},
	{ID: RuleLevelIgnored, Category: rule.CategoryProject, Severity: rule.Notice,
		Purpose: "Against a registry, a level charter.yaml sets for a subject may make the registry's level stricter (its directions include the registry's, transitive if the registry's is) but not weaker: registration judges at the registry's level, so check does too and reports this notice."},
	{ID: RuleProfileIgnored, Category: rule.CategoryProject, Severity: rule.Notice,
		Purpose: "Against a registry, the Protobuf rule profile of its governance policy (protobufProfile) decides: charter.yaml's protobuf_profile may make it stricter (WIRE_JSON over WIRE) but not replace it with another (CONFLUENT and the WIRE profiles are not comparable): registration judges with the registry's profile, so check does too and reports this notice."},
}

// localPact is a pact file charter.yaml's contracts list.
type localPact struct {
	consumer string
	// message is the Protobuf message the entry names ("" for the
	// first).
	message string
	file    string
	raw     json.RawMessage
	c       *contracts.Contract
}

// loadPacts reads the pacts charter.yaml lists, by subject. An entry whose
// globs match no file, or a pact that cannot be read, is an error.
func loadPacts(ctx context.Context, p *Project) (map[string][]localPact, error) {
	if len(p.Config.Contracts) == 0 {
		return nil, nil
	}
	files, err := dirTree{root: p.Root}.list(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]localPact{}
	for i, e := range p.Config.Contracts {
		n := 0
		for _, f := range files {
			if !e.pact.match(f) {
				continue
			}
			n++
			raw, err := os.ReadFile(filepath.Join(p.Root, filepath.FromSlash(f)))
			if err != nil {
				return nil, fmt.Errorf("%s: contracts[%d]: read pact: %w", p.ConfigPath, i, err)
			}
			pact, err := contracts.ParsePact(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: contracts[%d]: pact %s: %w", p.ConfigPath, i, f, err)
			}
			c := &contracts.Contract{Consumer: pact.Consumer, Subject: e.Subject, Pact: pact}
			if e.Consumer != "" {
				c.Consumer = e.Consumer
			}
			out[e.Subject] = append(out[e.Subject], localPact{consumer: c.Consumer, message: e.Message, file: f, raw: raw, c: c})
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: contracts[%d]: no file matches %s", p.ConfigPath, i, strings.Join(e.Pact, ", "))
		}
	}
	return out, nil
}

// judge runs the gate (action/gate.Evaluate) on s's working-tree schema
// with the governance state s is judged with: the registry's (policy
// merged with charter.yaml's severities, see statePolicy), or the one
// charter.yaml gives offline. previous are the baseline versions that
// parse, oldest first.
// The findings come back located (File, Line) at their final severity.
func (c *checker) judge(s *Subject, f compat.Format, previous []compat.Previous) ([]rule.Finding, error) {
	cur := s.Current
	st, fromRegistry := c.stateFor(s)
	in := gate.Input{Subject: s.Name, Now: c.now, Format: f, Level: s.Level, References: cur.Deps,
		Against: previous, Candidate: governance.Version{Version: 1, Schema: cur.Parsed}}
	// The latest live version, of whatever format, as registration
	// takes it.
	latest := s.latest()
	if latest != nil {
		in.Latest = &governance.Version{Version: latest.Version, Schema: latest.Schema, Metadata: latest.Metadata, RuleSet: latest.RuleSet}
		in.Candidate.Version = latest.Version + 1
	}
	if fromRegistry && st.NextVersion > 0 {
		// The registry numbers a new version after the highest it ever
		// used, soft-deleted ones included, which the live versions
		// read here do not show.
		in.Candidate.Version = st.NextVersion
	}
	if ev := c.existingVersion(s); ev != nil {
		in.Existing, in.Candidate.Version = true, ev.Version
	}
	// The candidate's data contract: charter.yaml's metadata, else the
	// latest version's, as a registration without one inherits it.
	var err error
	if in.Candidate.Metadata, in.Candidate.RuleSet, _, err = c.candidateContract(s); err != nil {
		return nil, err
	}
	if c.compatOnly {
		var out []rule.Finding
		if !in.Existing {
			for _, fd := range gate.CompatFindings(s.Name, gate.CheckCompatibility(in)) {
				if fd, ok := c.normalize(fd, s); ok {
					out = append(out, fd)
				}
			}
		}
		return out, nil
	}
	pacts := c.pacts[s.Name]
	var special []localPact // pacts naming a Protobuf message: verified beside the gate
	for _, lp := range pacts {
		if lp.message != "" && cur.Format == compat.Protobuf {
			special = append(special, lp)
		}
	}
	st = withLocalPacts(st, pacts, in)
	in.State = st
	// The pacts charter.yaml lists are the repository's own consumer
	// contracts: this check is their consumers' own verification, so
	// their findings about their own use of deprecated fields count
	// (CONTRACT_FIELD_EXPIRED...), which a producer's registration never
	// gets.
	for _, lp := range pacts {
		if !slices.Contains(in.Verifying, lp.consumer) {
			in.Verifying = append(in.Verifying, lp.consumer)
		}
	}
	res, err := gate.Evaluate(in)
	if err != nil {
		return nil, fmt.Errorf("judge %s: %w", s.Name, err)
	}
	fs := res.Findings
	if in.Existing && len(in.Verifying) > 0 {
		// The registered schema itself (a consumer's repository holds
		// the producer's schema as it is): the gate judges no contract
		// of a re-registration, but the local pacts must still pass.
		more, err := gate.ConsumerVerification(in)
		if err != nil {
			return nil, fmt.Errorf("judge %s: %w", s.Name, err)
		}
		fs = append(fs, more...)
	}
	if len(special) > 0 {
		more, err := messageContracts(in, special)
		if err != nil {
			return nil, err
		}
		fs = append(fs, more...)
	}
	files := map[string]string{} // the local pact file of each consumer
	for _, lp := range pacts {
		files[lp.consumer] = lp.file
	}
	var out []rule.Finding
	ignored := map[string]bool{}
	for _, fd := range fs {
		if file := files[fd.Consumer]; file != "" && strings.HasPrefix(fd.RuleID, "CONTRACT_") {
			fd.Message += " (pact " + file + ")"
		}
		if fd.Subject == "" {
			fd.Subject = s.Name
		}
		if !fromRegistry {
			// Offline, charter.yaml is the policy.
			if fd, ok := c.normalize(fd, s); ok {
				out = append(out, fd)
			}
			continue
		}
		// Against the registry, its policy decided the severity
		// (charter.yaml's stricter ones merged into it).
		if sev, on, set := c.p.Config.severitySet(s.Name, s.Mapping, fd.RuleID); set && fd.Severity == rule.Error && (!on || sev < rule.Error) && !ignored[fd.RuleID] {
			ignored[fd.RuleID] = true
			want := "off"
			if on {
				want = sev.String()
			}
			out = append(out, severityIgnored(fd, s, want))
		}
		c.locate(&fd, s)
		out = append(out, fd)
	}
	return out, nil
}

// severityIgnored is the RuleSeverityIgnored notice for charter.yaml's
// severity want of fd's rule, an error against the registry. Its hint
// says where the registry decides that rule: a policy rule in the
// subject's policy; a compatibility rule (which no policy sets: PUT
// /governance/subjects/S/policy answers 42283) by the subject's level;
// RESERVED_FIELD by its validateFields config.
func severityIgnored(fd rule.Finding, s *Subject, want string) rule.Finding {
	f := rule.Finding{RuleID: RuleSeverityIgnored, Severity: rule.Notice, Subject: s.Name, File: s.Current.File}
	_, policy := governance.LookupPolicyRule(fd.RuleID)
	switch {
	case policy:
		f.Message = fmt.Sprintf("charter.yaml sets %s to %s for subject %s, but the registry's policy makes it an error: registration would refuse this change, so it stays an error", fd.RuleID, want, s.Name)
		f.Hint = fmt.Sprintf("lower it in the registry's policy (PUT /governance/subjects/%s/policy) if every producer may, or fix the finding", s.Name)
	case fd.RuleID == gate.RuleReservedField:
		f.Message = fmt.Sprintf("charter.yaml sets %s to %s for subject %s, but the registry refuses reserved fields while the subject's validateFields is on: registration would refuse this change, so it stays an error", fd.RuleID, want, s.Name)
		f.Hint = fmt.Sprintf("%s is not a policy rule: keep the reserved names out of the schema, or turn validateFields off in the registry (charter config set %s --validate-fields=false)", fd.RuleID, s.Name)
	default:
		f.Message = fmt.Sprintf("charter.yaml sets %s to %s for subject %s, but it is a compatibility rule and the subject's level in the registry (%s) makes it an error: registration would refuse this change, so it stays an error", fd.RuleID, want, s.Name, s.Level)
		f.Hint = fmt.Sprintf("compatibility rules are set by the subject's level, not by a policy: make the change compatible, or loosen the level in the registry (charter config set %s --level ...) if every consumer may", s.Name)
	}
	return f
}

// stateFor returns the governance state s is judged with, and whether it
// is the registry's: the registry's state with its policy merged with
// charter.yaml's severities, or, offline (and against a registry without
// Charter's governance API), the state charter.yaml gives.
func (c *checker) stateFor(s *Subject) (governance.SubjectState, bool) {
	if st := c.states[s.Name]; st != nil {
		out := *st
		out.Policy = c.p.Config.registryPolicy(s.Name, s.Mapping, st.Policy)
		return out, true
	}
	return governance.SubjectState{Subject: s.Name, Policy: c.p.Config.offlinePolicy(s.Name, s.Mapping)}, false
}

// offlinePolicy is the governance policy charter.yaml gives subject: its
// severities (every layer that applies) and its pii section. Rules it
// does not name keep their defaults, except the two that need the
// registry's records (offlineOff), which are off unless charter.yaml
// names them.
func (c *Config) offlinePolicy(subject string, m *Mapping) governance.PolicyConfig {
	pol := governance.PolicyConfig{Rules: map[string]string{}, PII: c.PII.governance()}
	for _, r := range governance.PolicyRules() {
		sev, on, set := c.severitySet(subject, m, r.ID)
		switch {
		case set && on:
			pol.Rules[r.ID] = sev.String()
		case set:
			pol.Rules[r.ID] = "off"
		case offlineOff[r.ID]:
			pol.Rules[r.ID] = "off"
		}
	}
	return pol
}

// registryPolicy is the registry's policy reg for subject with
// charter.yaml's severities over it where they are stricter (a higher
// severity, or on where the registry has the rule off) or lower a rule
// that is not an error in the registry. A rule the registry makes an
// error stays one (judge reports RuleSeverityIgnored). charter.yaml's pii
// section is ignored: the registry's PII policy decides.
func (c *Config) registryPolicy(subject string, m *Mapping, reg governance.PolicyConfig) governance.PolicyConfig {
	out := reg
	out.Rules = map[string]string{}
	for k, v := range reg.Rules {
		out.Rules[k] = v
	}
	for _, r := range governance.PolicyRules() {
		sev, on, set := c.severitySet(subject, m, r.ID)
		if !set {
			continue
		}
		rsev, ron := reg.Severity(r.ID)
		switch {
		case on && (!ron || sev > rsev):
			out.Rules[r.ID] = sev.String()
		case ron && rsev == rule.Error:
			// lowering an error: ignored
		case !on:
			out.Rules[r.ID] = "off"
		case sev < rsev:
			out.Rules[r.ID] = sev.String()
		}
	}
	return out
}

// offlineOff are the rules off offline unless charter.yaml names them:
// OWNER_MISSING (there is no ownership record offline, so it would fire
// on every subject; named, it asks for the owner metadata property,
// charter.yaml's metadata.properties.owner) and SEMVER_MAJOR (semantic
// versions number the registry's versions, which a tree does not have).
var offlineOff = map[string]bool{governance.RuleOwnerMissing: true, governance.RuleSemverMajor: true}

// severitySet is SeverityFor that also says whether charter.yaml sets a
// severity for ruleID on subject at all.
func (c *Config) severitySet(subject string, m *Mapping, ruleID string) (rule.Severity, bool, bool) {
	a, aon := c.SeverityFor(subject, m, ruleID, rule.Notice)
	b, bon := c.SeverityFor(subject, m, ruleID, rule.Error)
	if a == b && aon == bon {
		return a, aon, true
	}
	return rule.Notice, true, false
}

// governance is charter.yaml's pii section as a governance PII policy.
func (c PIIConfig) governance() *governance.PIIPolicy {
	if len(c.PIITags)+len(c.MaskTags)+len(c.Allow) == 0 && c.MinConfidence == "" {
		return nil
	}
	return &governance.PIIPolicy{PIITags: c.PIITags, MaskTags: c.MaskTags, MinConfidence: c.MinConfidence, AllowList: c.Allow}
}

// withLocalPacts adds the pacts charter.yaml lists for the subject to
// st: each replaces the published contract of its consumer, and the fields
// it reads replace that consumer's readers (read off the latest version,
// as publishing it would record them, else off the candidate). Pacts that
// name a Protobuf message are verified by messageContracts instead, but
// count as readers and consumers all the same.
func withLocalPacts(st governance.SubjectState, pacts []localPact, in gate.Input) governance.SubjectState {
	if len(pacts) == 0 {
		return st
	}
	local := map[string]bool{}
	for _, lp := range pacts {
		local[lp.consumer] = true
	}
	var cs []governance.PublishedContract
	for _, pc := range st.Contracts {
		if !local[pc.Consumer] {
			cs = append(cs, pc)
		}
	}
	readers := map[string][]string{}
	for k, v := range st.Readers {
		if !local[k] {
			readers[k] = v
		}
	}
	consumers := slices.Clone(st.Consumers)
	schema, deps := in.Candidate.Schema, in.References
	if in.Latest != nil {
		schema, deps = in.Latest.Schema, nil
	}
	vf, vfErr := contracts.NewVerifier(schema, contracts.Options{References: deps, Now: in.Now})
	for _, lp := range pacts {
		if lp.message == "" || in.Format.Type() != compat.Protobuf {
			cs = append(cs, governance.PublishedContract{Consumer: lp.consumer, Pact: lp.raw})
		}
		if vfErr == nil && lp.message == "" {
			if reads := vf.Verify(lp.c).Reads; len(reads) > 0 {
				readers[lp.consumer] = append(readers[lp.consumer], reads...)
			}
		}
		if !slices.Contains(consumers, lp.consumer) {
			consumers = append(consumers, lp.consumer)
		}
	}
	sort.Strings(consumers)
	st.Contracts, st.Readers, st.Consumers = cs, readers, consumers
	if len(st.Readers) == 0 {
		st.Readers = nil
	}
	return st
}

// messageContracts verifies the local pacts that name the Protobuf
// message they read (charter.yaml's contracts message), which the gate's
// published contracts cannot say, with the gate's severities and
// grouping. They are the repository's own pacts, so their consumer-only
// findings count too, as for gate.Input.Verifying.
func messageContracts(in gate.Input, pacts []localPact) ([]rule.Finding, error) {
	rep := &contracts.Report{}
	for _, lp := range pacts {
		opts := contracts.Options{Message: lp.message, References: in.References, Deprecations: gate.Deprecations(in.State.Deprecations), Now: in.Now}
		if in.Latest != nil {
			opts.Baseline = in.Latest.Schema
		}
		vf, err := contracts.NewVerifier(in.Candidate.Schema, opts)
		if err != nil {
			return nil, fmt.Errorf("verify the contracts of %q: %w", in.Subject, err)
		}
		rep.Contracts = append(rep.Contracts, vf.Verify(lp.c))
	}
	// Every finding, the consumer-only ones included: these are the
	// repository's own pacts (gate.Input.Verifying).
	return gate.ContractPolicyFindings(in.Subject, in.State.Policy, rep), nil
}

// latest is the subject's latest baseline version when it parses, nil
// otherwise (and for a new subject).
func (s *Subject) latest() *PriorVersion {
	if s.Prior == nil || len(s.Prior.Versions) == 0 {
		return nil
	}
	if pv := &s.Prior.Versions[len(s.Prior.Versions)-1]; pv.Schema != nil {
		return pv
	}
	return nil
}

// candidateContract is the data contract s's working-tree schema would
// be registered with: charter.yaml's metadata (set true), else the
// latest version's, which a registration without metadata inherits; the
// rule set is always the latest version's (charter.yaml sets none).
func (c *checker) candidateContract(s *Subject) (meta, rules json.RawMessage, set bool, err error) {
	latest := s.latest()
	if md := c.p.Config.MetadataFor(s.Name, s.Mapping); md != nil {
		b, err := json.Marshal(md.pii())
		if err != nil {
			return nil, nil, false, fmt.Errorf("metadata of %q: %w", s.Name, err)
		}
		meta, set = b, true
	} else if latest != nil {
		meta = latest.Metadata
	}
	if latest != nil {
		rules = latest.RuleSet
	}
	return meta, rules, set, nil
}

// existingVersion is the baseline version that the working-tree schema
// of s is, nil when registering it would make a new version. Against a
// registry it is decided as registration's lookup does (findInSubject):
// the same canonical schema (normalized on both sides when the subject's
// config says normalize), the same resolved references (compared by their
// canonical texts: a changed referenced schema makes a new version), and,
// when charter.yaml gives the schema metadata, the same metadata and a
// rule set that is the inherited one or none. A candidate without
// metadata matches a version whatever its contract. A tree baseline
// compares the schema alone.
func (c *checker) existingVersion(s *Subject) *PriorVersion {
	cur := s.Current
	if cur == nil || cur.Parsed == nil || s.Prior == nil {
		return nil
	}
	registry := s.Prior.File == ""
	var (
		meta, rules json.RawMessage
		set         bool
		curDeps     []string
		normalize   bool
	)
	if registry {
		var err error
		if meta, rules, set, err = c.candidateContract(s); err != nil {
			return nil
		}
		curDeps = c.depKeys(cur.Format, cur.Deps)
		if st := c.states[s.Name]; st != nil {
			normalize = st.Normalize
		}
	}
	canon := cur.Parsed.Canonical()
	var norm string
	if normalize {
		norm = cur.Parsed.Normalized()
	}
	for i := len(s.Prior.Versions) - 1; i >= 0; i-- {
		pv := &s.Prior.Versions[i]
		if pv.Schema == nil || pv.Schema.Type() != cur.Parsed.Type() {
			continue
		}
		if pv.Schema.Canonical() != canon && (!normalize || pv.Schema.Normalized() != norm) {
			continue
		}
		if !registry {
			return pv
		}
		if !slices.Equal(c.depKeys(cur.Format, pv.Deps), curDeps) {
			continue
		}
		if set && (!sameJSON(meta, pv.Metadata) || len(pv.RuleSet) > 0 && !sameJSON(rules, pv.RuleSet)) {
			continue
		}
		return pv
	}
	return nil
}

// depKeys are the canonical texts of resolved references deps (each
// parsed with the ones before it; its text when it does not parse),
// sorted: what two versions' references are compared by, whatever the
// names they are referred to by. Protobuf's built-in imports
// (google/protobuf/..., confluent/...) do not count.
func (c *checker) depKeys(typ compat.SchemaType, deps []compat.Dependency) []string {
	if len(deps) == 0 {
		return nil
	}
	f := c.p.Formats[typ]
	out := make([]string, 0, len(deps))
	for i, d := range deps {
		if typ == compat.Protobuf && (strings.HasPrefix(d.Name, "google/protobuf/") || strings.HasPrefix(d.Name, "confluent/")) {
			// Built into the parser: a working tree never resolves
			// them to a file, a registered version may reference them.
			continue
		}
		key := d.Text
		if f != nil {
			if p, err := parseSafely(f, d.Text, deps[:i]); err == nil {
				key = p.Canonical()
			}
		}
		out = append(out, key)
	}
	sort.Strings(out)
	return out
}

// sameJSON reports whether two data-contract objects are equal as JSON
// values, members that are null or empty counting as absent.
func sameJSON(a, b json.RawMessage) bool {
	return reflect.DeepEqual(contractValue(a), contractValue(b))
}

func contractValue(raw json.RawMessage) any {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var prune func(v any) any
	prune = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if e = prune(e); e == nil {
					delete(x, k)
				} else {
					x[k] = e
				}
			}
			if len(x) == 0 {
				return nil
			}
		case []any:
			if len(x) == 0 {
				return nil
			}
		}
		return v
	}
	return prune(v)
}

// inGroup keeps the earlier versions in the candidate's compatibility
// group, as registration does (the subject's config compatibilityGroup,
// from the registry's state): those whose metadata property of that name
// equals the candidate's, meta (absent equals absent).
func (c *checker) inGroup(s *Subject, previous []compat.Previous, meta json.RawMessage) []compat.Previous {
	st := c.states[s.Name]
	if st == nil || st.CompatibilityGroup == "" || s.Prior == nil {
		return previous
	}
	want, wantOK := metadataProperty(meta, st.CompatibilityGroup)
	md := map[int]json.RawMessage{}
	for _, pv := range s.Prior.Versions {
		md[pv.Version] = pv.Metadata
	}
	var out []compat.Previous
	for _, p := range previous {
		if got, ok := metadataProperty(md[p.Version], st.CompatibilityGroup); ok == wantOK && got == want {
			out = append(out, p)
		}
	}
	return out
}

// metadataProperty is the value of metadata property name (Confluent
// metadata's properties), and whether it is set.
func metadataProperty(raw json.RawMessage, name string) (string, bool) {
	var m struct {
		Properties map[string]any `json:"properties"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return "", false
	}
	v, ok := m.Properties[name]
	if !ok {
		return "", false
	}
	str, _ := v.(string)
	return str, true
}
