package contracts

import (
	"fmt"
	"sort"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
)

// Finding is one rule a contract's interaction breaks, or a warning or
// notice about it, at one field path. It embeds the compat.Violation shape
// (ruleId, path, message) and names the consumer and the interaction.
//
// It stays beside rule.Finding because it carries what the gate's finding
// cannot: the interaction, the consumer's version and branch (a contract
// is verified per interaction and per published version), whether the
// interaction is pending (its errors never break the verdict) and the
// end of a TTL or extension as a time. The gate groups these findings per
// rule, consumer and path into rule.Findings (action/gate).
type Finding struct {
	compat.Violation
	Severity        rule.Severity `json:"severity"`
	Consumer        string        `json:"consumer"`
	ConsumerVersion string        `json:"consumerVersion,omitempty"`
	Branch          string        `json:"branch,omitempty"`
	Subject         string        `json:"subject,omitempty"`
	Interaction     string        `json:"interaction"`
	// Pending is true for a V4 pending interaction, whose errors never
	// break the verdict.
	Pending bool `json:"pending,omitempty"`
	// Expires is the end of the field's TTL (deprecation findings) or of
	// the consumer's extension (CONTRACT_FIELD_EXTENDED).
	Expires *time.Time `json:"expires,omitempty"`
}

// Breaks reports whether the finding breaks the contract: an error of an
// interaction that is not pending.
func (f Finding) Breaks() bool { return f.Severity == rule.Error && !f.Pending }

// ContractResult is the verdict for one contract.
type ContractResult struct {
	Consumer        string `json:"consumer"`
	ConsumerVersion string `json:"consumerVersion,omitempty"`
	Branch          string `json:"branch,omitempty"`
	Subject         string `json:"subject,omitempty"`
	Provider        string `json:"provider"`
	// Interactions counts the message interactions verified.
	Interactions int `json:"interactions"`
	// Reads are the fields the contract reads, as paths of the proposed
	// schema (Protobuf JSON names mapped to field names, map keys to
	// "{}"); fields the schema lacks keep the contract's path. Lineage
	// records these.
	Reads []string `json:"reads"`
	// Findings are in interaction order, then in the order the walk met
	// the fields (properties sorted by name).
	Findings []Finding `json:"findings"`
}

// Broken reports whether any finding breaks the contract.
func (r ContractResult) Broken() bool {
	for _, f := range r.Findings {
		if f.Breaks() {
			return true
		}
	}
	return false
}

// Report is the verdict of Verify for every contract, in input order.
type Report struct {
	Contracts []ContractResult `json:"contracts"`
}

// Broken reports whether any contract is broken.
func (r *Report) Broken() bool {
	for _, c := range r.Contracts {
		if c.Broken() {
			return true
		}
	}
	return false
}

// Findings returns every finding of every contract.
func (r *Report) Findings() []Finding {
	var out []Finding
	for _, c := range r.Contracts {
		out = append(out, c.Findings...)
	}
	return out
}

// Options tune verification.
type Options struct {
	// Message is the Protobuf message the subject carries ("pkg.Order"
	// or "Order"); "" means the file's first message (Confluent's
	// default message index [0]). Ignored by the other formats.
	Message string
	// References are the schema's resolved references, needed to
	// validate JSON Schema examples whose "$ref"s name other schemas.
	References []compat.Dependency
	// Deprecations are governance's deprecation records for the schema's
	// fields; nil means only the schema's own deprecation marks count.
	Deprecations Deprecations
	// Now is the clock for TTLs and extensions. Zero means time.Now() at
	// NewVerifier.
	Now time.Time
	// Baseline is the schema consumers read today (the subject's latest
	// version), of the same format. With it, a field the baseline
	// guaranteed and the proposed schema does not is an error
	// (CONTRACT_REQUIRED_DROPPED); without it, or when the baseline did
	// not guarantee it either, a warning (CONTRACT_FIELD_OPTIONAL).
	Baseline compat.Schema
}

// Verifier checks contracts against one proposed schema. Build it once
// with NewVerifier and call Verify for each contract; it is safe for
// concurrent use.
type Verifier struct {
	view, baseline *view
	opts           Options
}

// UnverifiableError is NewVerifier's error for a schema (or baseline)
// that no contract can be verified against, though its format accepts it:
// a .proto file that declares no message, a JSON Schema whose references
// are missing or that the example validator cannot compile. The schema is
// the caller's input, so a server answers it as a client error.
type UnverifiableError struct {
	// Baseline says that the baseline, not the proposed schema, is the one.
	Baseline bool
	Err      error
}

func (e *UnverifiableError) Error() string {
	if e.Baseline {
		return "baseline: " + e.Err.Error()
	}
	return e.Err.Error()
}

func (e *UnverifiableError) Unwrap() error { return e.Err }

// NewVerifier prepares schema (from compat/avro, compat/protobuf or
// compat/jsonschema) for verification. It fails when the format is not one
// of those, when the Protobuf message does not exist, or when a JSON
// Schema's references are missing; the error is an *UnverifiableError
// when schema or the baseline cannot be read.
func NewVerifier(schema compat.Schema, opts Options) (*Verifier, error) {
	if schema == nil {
		return nil, fmt.Errorf("contracts: no schema to verify against")
	}
	v, err := newView(schema, opts.References, opts.Message)
	if err != nil {
		return nil, &UnverifiableError{Err: err}
	}
	vf := &Verifier{view: v, opts: opts}
	if opts.Baseline != nil {
		if opts.Baseline.Type() != schema.Type() {
			return nil, fmt.Errorf("contracts: the baseline is %s, the proposed schema %s", opts.Baseline.Type(), schema.Type())
		}
		if vf.baseline, err = newView(opts.Baseline, opts.References, opts.Message); err != nil {
			return nil, &UnverifiableError{Baseline: true, Err: err}
		}
	}
	if vf.opts.Now.IsZero() {
		vf.opts.Now = time.Now()
	}
	return vf, nil
}

// Verify checks contracts against schema: see Verifier.Verify.
func Verify(contracts []*Contract, schema compat.Schema, opts Options) (*Report, error) {
	vf, err := NewVerifier(schema, opts)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	for _, c := range contracts {
		rep.Contracts = append(rep.Contracts, vf.Verify(c))
	}
	return rep, nil
}

// Verify checks one contract: for each message interaction, it walks the
// example message with the proposed schema and runs every field rule on
// each property the consumer reads (its matching rule found by Pact's
// weighting, cascading from parents), then decodes the example, with the
// properties already reported removed, by the schema's format. A finding
// is reported once per interaction, rule and path.
func (vf *Verifier) Verify(c *Contract) ContractResult {
	res := ContractResult{
		Consumer:        c.consumer(),
		ConsumerVersion: c.ConsumerVersion,
		Branch:          c.Branch,
		Subject:         c.Subject,
		Findings:        []Finding{},
	}
	if c.Pact == nil {
		return res
	}
	res.Provider = c.Pact.Provider
	res.Interactions = len(c.Pact.Interactions)
	reads := map[string]bool{}
	for i := range c.Pact.Interactions {
		in := &c.Pact.Interactions[i]
		w := &walker{vf: vf, c: c, in: in, res: &res, reads: reads, seen: map[[2]string]bool{}}
		w.interaction()
	}
	res.Reads = setList(reads)
	return res
}

// walker verifies one interaction.
type walker struct {
	vf    *Verifier
	c     *Contract
	in    *Interaction
	res   *ContractResult
	reads map[string]bool
	seen  map[[2]string]bool
}

func (w *walker) add(id, path, msg string, expires *time.Time) {
	key := [2]string{id, path}
	if w.seen[key] {
		return
	}
	w.seen[key] = true
	w.res.Findings = append(w.res.Findings, Finding{
		Violation:       asViolation(id, path, msg),
		Severity:        severityOf(id),
		Consumer:        w.res.Consumer,
		ConsumerVersion: w.res.ConsumerVersion,
		Branch:          w.res.Branch,
		Subject:         w.res.Subject,
		Interaction:     w.in.Description,
		Pending:         w.in.Pending,
		Expires:         expires,
	})
}

func (w *walker) interaction() {
	if w.in.Binary {
		w.add(RuleContentsUnchecked, "", fmt.Sprintf("the message contents are %s, not JSON: no field was checked", orUnknown(w.in.ContentType)), nil)
		return
	}
	if w.in.Contents == nil {
		return // "the body contents are not important" (Pact V3)
	}
	root := w.vf.view.root
	// The root is a site of its own: its kind must fit.
	rs := &site{consumer: w.res.Consumer, now: w.vf.opts.Now, path: "", value: w.in.Contents,
		rule: ruleFor(w.in.Rules, nil), f: &field{node: root}, element: true, present: true}
	if msg := checkTypeMismatch(rs); msg != "" {
		w.add(RuleTypeMismatch, "", msg, nil)
		return
	}
	pruned, ok := w.walk(w.in.Contents, root, "", nil)
	if !ok {
		return
	}
	for _, p := range checkExampleUndecodable(w.vf.view, pruned) {
		w.add(RuleExampleUndecodable, p.path, p.msg, nil)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "of an unknown type"
	}
	return s
}

// walk checks the fields of value (at a position of node n) and returns
// value without the properties a field rule already reported, for
// decoding; ok false when nothing is left to decode.
func (w *walker) walk(value any, n *node, path string, item []itemStep) (any, bool) {
	if b, seg, ok := n.pick(value); ok {
		n, path = b, path+seg
	}
	switch t := value.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		free := !hasFields(n) && n.valueNode() == nil && n.isOpen()
		for _, k := range sortedKeys(t) {
			childItem := appendStep(item, itemStep{name: k, index: -1})
			s := &site{consumer: w.res.Consumer, now: w.vf.opts.Now, value: t[k], rule: ruleFor(w.in.Rules, childItem)}
			if f := n.lookup(k); f != nil {
				s.f, s.path = f, n.childPath(path, f.name)
				s.present = f.present || n.requires(k)
				s.schemaDeprecated = f.deprecated || w.vf.view.fields[s.path].Deprecated
			} else if vn := n.valueNode(); vn != nil {
				s.f, s.path, s.present, s.element = &field{name: "{}", node: vn}, n.valuePath(path), true, true
			} else if free {
				out[k] = t[k] // free-form object: nothing to check
				continue
			} else {
				s.path = n.childPath(path, k)
			}
			if !s.element {
				w.reads[s.path] = true
				if d := w.vf.opts.Deprecations; d != nil {
					if dep, ok := d.Deprecation(s.path); ok {
						s.dep = &dep
					}
				}
			}
			wrapKey := ""
			if s.f != nil {
				if inner, key, ok := s.f.node.unwrap(s.value); ok {
					s.value, wrapKey = inner, key
					childItem = appendStep(childItem, itemStep{name: key, index: -1})
				}
			}
			if !w.runSite(s) {
				continue // reported: do not decode it again
			}
			if cv, ok := w.walk(s.value, s.f.node, s.path, childItem); ok {
				if wrapKey != "" {
					cv = map[string]any{wrapKey: cv}
				}
				out[k] = cv
			}
		}
		return out, true
	case []any:
		items := n.itemNode()
		if items == nil {
			return value, true
		}
		out := make([]any, 0, len(t))
		for i, e := range t {
			childItem := appendStep(item, itemStep{index: i})
			s := &site{consumer: w.res.Consumer, now: w.vf.opts.Now, value: e, rule: ruleFor(w.in.Rules, childItem),
				f: &field{name: "[]", node: items}, path: n.itemPath(path), present: true, element: true}
			if !w.runSite(s) {
				continue
			}
			if cv, ok := w.walk(e, items, s.path, childItem); ok {
				out = append(out, cv)
			}
		}
		return out, true
	}
	return value, true
}

// hasFields reports whether an object node declares fields anywhere in its
// branches or parts.
func hasFields(n *node) bool {
	if n.fields != nil {
		return true
	}
	for _, bs := range [][]*node{n.union, n.all} {
		for _, b := range bs {
			if b.fields != nil {
				return true
			}
		}
	}
	return false
}

// runSite runs the field rules on s; it returns false when a finding makes
// the value unfit to decode (missing field, wrong type, unknown enum value).
func (w *walker) runSite(s *site) bool {
	if b := w.vf.baseline; b != nil && s.f != nil {
		s.baseline = true
		if bf, present := b.resolve(s.path); bf != nil {
			s.guaranteedBefore = present && bf.node.kinds&kNull == 0
		}
	}
	ok := true
	for _, r := range rules {
		if r.site == nil {
			continue
		}
		msg := r.site(s)
		if msg == "" {
			continue
		}
		var exp *time.Time
		if s.dep != nil {
			switch r.ID {
			case RuleFieldDeprecated, RuleFieldExpired:
				if !s.dep.Expires.IsZero() {
					e := s.dep.Expires.UTC()
					exp = &e
				}
			case RuleFieldExtended:
				if end, ok := s.dep.Extension(s.consumer, s.now); ok {
					e := end.UTC()
					exp = &e
				}
			}
		}
		w.add(r.ID, s.path, msg, exp)
		switch r.ID {
		case RuleFieldMissing, RuleTypeMismatch, RuleEnumValueRemoved:
			ok = false
		}
	}
	return ok
}

// SortFindings orders findings by consumer, interaction, path and rule ID,
// for output that does not depend on input order.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		switch {
		case a.Consumer != b.Consumer:
			return a.Consumer < b.Consumer
		case a.Interaction != b.Interaction:
			return a.Interaction < b.Interaction
		case a.Path != b.Path:
			return a.Path < b.Path
		}
		return a.RuleID < b.RuleID
	})
}
