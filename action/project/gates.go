package project

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/pii"
)

// ContractSource supplies the consumer contracts published for a subject.
// A Baseline that implements it (the registry, once it stores contracts)
// adds them to the pacts charter.yaml lists; ContractsEvaluator finds it
// with a type assertion on Input.Baseline.
type ContractSource interface {
	// Contracts returns the contracts published for subject, none when
	// it has none. Errors are I/O errors.
	Contracts(ctx context.Context, subject string) ([]*contracts.Contract, error)
}

// contractSet is the contracts of one subject, by Protobuf message.
type contractSet struct {
	message   string
	contracts []*contracts.Contract
	files     []string // the pact file of each contract, "" for published ones
}

// loadContracts reads the pacts charter.yaml lists, by subject. An entry
// whose globs match no file, or a pact that cannot be read, is an error.
func loadContracts(ctx context.Context, p *Project) (map[string][]*contractSet, error) {
	if len(p.Config.Contracts) == 0 {
		return nil, nil
	}
	files, err := dirTree{root: p.Root}.list(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]*contractSet{}
	for i, e := range p.Config.Contracts {
		var set *contractSet
		for _, s := range out[e.Subject] {
			if s.message == e.Message {
				set = s
			}
		}
		if set == nil {
			set = &contractSet{message: e.Message}
			out[e.Subject] = append(out[e.Subject], set)
		}
		n := 0
		for _, f := range files {
			if !e.pact.match(f) {
				continue
			}
			n++
			c, err := contracts.ReadContract(filepath.Join(p.Root, filepath.FromSlash(f)))
			if err != nil {
				return nil, fmt.Errorf("%s: contracts[%d]: %w", p.ConfigPath, i, err)
			}
			c.Subject = e.Subject
			if e.Consumer != "" {
				c.Consumer = e.Consumer
			}
			set.contracts = append(set.contracts, c)
			set.files = append(set.files, f)
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: contracts[%d]: no file matches %s", p.ConfigPath, i, strings.Join(e.Pact, ", "))
		}
	}
	return out, nil
}

// latestPrior returns the baseline's latest parsed version of s when it
// has the working tree's format, nil otherwise.
func latestPrior(s *Subject) *PriorVersion {
	if s.Prior == nil || s.Current == nil || s.Prior.Format != s.Current.Format || len(s.Prior.Versions) == 0 {
		return nil
	}
	pv := &s.Prior.Versions[len(s.Prior.Versions)-1]
	if pv.Schema == nil {
		return nil
	}
	return pv
}

// ContractsEvaluator verifies consumer contracts: the pacts charter.yaml
// lists (`contracts:`), and those the baseline publishes when it is a
// ContractSource, against each subject's working-tree schema, with the
// baseline's latest version as what consumers read today
// (contracts.Options.Baseline). Each finding of package contracts becomes
// a rule.Finding of the same rule ID at its path, naming the consumer
// and the interaction; a pending interaction's errors are warnings. now is
// the clock for deprecation TTLs (nil: time.Now).
//
// A contract of a subject that no schema file of the working tree
// defines is an error (exit 2), as is a pact that cannot be read; a
// subject whose file does not parse is left to SCHEMA_INVALID.
func ContractsEvaluator(now func() time.Time) Evaluator {
	if now == nil {
		now = time.Now
	}
	return func(ctx context.Context, in *Input) ([]rule.Finding, error) {
		sets, err := loadContracts(ctx, in.Project)
		if err != nil {
			return nil, err
		}
		if sets == nil {
			sets = map[string][]*contractSet{}
		}
		bySubject := map[string]*Subject{}
		for _, s := range in.Subjects {
			bySubject[s.Name] = s
		}
		for _, name := range sortedKeys(sets) {
			if s := bySubject[name]; s == nil || (s.Current == nil && s.Prior == nil) {
				return nil, fmt.Errorf("%s: contracts name subject %q, which no schema file defines", in.Project.ConfigPath, name)
			}
		}
		if src, ok := in.Baseline.(ContractSource); ok {
			for _, s := range in.Subjects {
				if s.Current == nil {
					continue
				}
				published, err := src.Contracts(ctx, s.Name)
				if err != nil {
					return nil, fmt.Errorf("contracts of %q: %w", s.Name, err)
				}
				if len(published) > 0 {
					sets[s.Name] = append(sets[s.Name], &contractSet{contracts: published, files: make([]string, len(published))})
				}
			}
		}
		var out []rule.Finding
		for _, name := range sortedKeys(sets) {
			s := bySubject[name]
			if s.Current == nil || s.Current.Parsed == nil {
				continue
			}
			for _, set := range sets[name] {
				opts := contracts.Options{Message: set.message, References: s.Current.Deps, Now: now()}
				if pv := latestPrior(s); pv != nil {
					opts.Baseline = pv.Schema
				}
				vf, err := contracts.NewVerifier(s.Current.Parsed, opts)
				if err != nil {
					return nil, fmt.Errorf("verify the contracts of %q: %w", name, err)
				}
				for i, c := range set.contracts {
					res := vf.Verify(c)
					for _, f := range res.Findings {
						out = append(out, contractFinding(name, set.files[i], f))
					}
				}
			}
		}
		return out, nil
	}
}

// contractHints are the fixes of contract findings whose message gives
// none.
var contractHints = map[string]string{
	contracts.RuleFieldMissing:       "keep the field (deprecate it first and give consumers time), or agree with the consumer that it stops reading it and update its pact",
	contracts.RuleTypeMismatch:       "keep a type the consumer's matcher accepts, or change the consumer and its pact first",
	contracts.RuleRequiredDropped:    "keep the field required, or change the consumer to cope without it and update its pact first",
	contracts.RuleFieldOptional:      "make the field required, or let the consumer's pact accept null",
	contracts.RuleEnumValueRemoved:   "keep the enum value the consumer's examples use",
	contracts.RuleEnumValueUnmatched: "make the consumer's matcher accept the schema's enum values, or narrow the enum",
	contracts.RuleExampleUndecodable: "make the schema accept the consumer's example message, or fix the example in its pact",
	contracts.RuleFieldDeprecated:    "move the consumer to the replacement before the field's deprecation ends",
	contracts.RuleFieldExpired:       "the field's deprecation has ended: the consumer must stop reading it, or needs an extension",
	contracts.RuleFieldExtended:      "the consumer's extension ends soon: move it to the replacement",
}

// pendingSeverity is f's severity, at most a warning for a pending
// interaction.
func pendingSeverity(f contracts.Finding) rule.Severity {
	if f.Pending {
		return min(f.Severity, rule.Warning)
	}
	return f.Severity
}

func contractFinding(subject, file string, f contracts.Finding) rule.Finding {
	msg, hint := splitHint(f.Message)
	if hint == "" {
		hint = contractHints[f.RuleID]
	}
	msg += " — interaction " + strconv.Quote(f.Interaction)
	if file != "" {
		msg += ", " + file
	}
	consumer := f.Consumer
	if f.ConsumerVersion != "" {
		consumer += "@" + f.ConsumerVersion
	}
	return rule.Finding{RuleID: f.RuleID, Severity: pendingSeverity(f), Subject: subject,
		Path: f.Path, Message: msg, Hint: hint, Consumer: consumer}
}

// PIIEvaluator applies the PII policy (package pii) to every subject that
// is new or changed against the baseline: new fields that look like
// personal data without a PII tag, fields that lost their tag, tagged
// fields without masking when pii.mask_tags asks for it, and new personal
// data on subjects with consumers (those of charter.yaml's contracts).
// Tags come from the schema itself and from charter.yaml's metadata (the
// registry's stored metadata for the baseline's version). Severities are
// the rules' own (warnings) unless charter.yaml's severity maps change
// them. A pii section that does not validate is an error.
func PIIEvaluator() Evaluator {
	return func(ctx context.Context, in *Input) ([]rule.Finding, error) {
		cfg, err := in.Project.Config.PII.policy()
		if err != nil {
			return nil, fmt.Errorf("%s: pii: %w", in.Project.ConfigPath, err)
		}
		consumers := consumerNames(ctx, in.Project)
		var out []rule.Finding
		for _, s := range in.Subjects {
			if s.Current == nil || s.Current.Parsed == nil {
				continue
			}
			pin := pii.Input{Current: compat.Fields(s.Current.Parsed), Consumers: consumers[s.Name]}
			md := in.Project.Config.MetadataFor(s.Name, s.Mapping)
			pin.Metadata = md.pii()
			if pv := latestPrior(s); pv != nil {
				if pv.Schema.Canonical() == s.Current.Parsed.Canonical() {
					continue // unchanged
				}
				pin.Previous = compat.Fields(pv.Schema)
				pin.PreviousMetadata = pin.Metadata
				if pv.Metadata != nil {
					if pin.PreviousMetadata, err = pii.ParseMetadata(pv.Metadata); err != nil {
						pin.PreviousMetadata = pii.Metadata{}
					}
				}
			}
			for _, f := range pii.Evaluate(pin, cfg) {
				f.Subject = s.Name
				out = append(out, f)
			}
		}
		return out, nil
	}
}

// policy turns charter.yaml's pii section into a pii.Config. Every rule
// runs: charter.yaml's severity maps decide what is reported.
func (c PIIConfig) policy() (pii.Config, error) {
	cfg := pii.Config{PIITags: c.PIITags, MaskTags: c.MaskTags}
	if c.MinConfidence != "" {
		if err := cfg.MinConfidence.UnmarshalText([]byte(c.MinConfidence)); err != nil {
			return cfg, err
		}
	}
	if len(c.Allow) > 0 {
		d, err := pii.NewDetector(pii.WithAllowList(c.Allow...))
		if err != nil {
			return cfg, err
		}
		cfg.Detector = d
	}
	return cfg, cfg.Validate()
}

func (m *MetadataConfig) pii() pii.Metadata {
	if m == nil {
		return pii.Metadata{}
	}
	return pii.Metadata{Tags: m.Tags, Properties: m.Properties, Sensitive: m.Sensitive}
}

// consumerNames returns the consumers of each subject that charter.yaml's
// contracts name (a pact that cannot be read is left to
// ContractsEvaluator to report).
func consumerNames(ctx context.Context, p *Project) map[string][]string {
	out := map[string][]string{}
	if len(p.Config.Contracts) == 0 {
		return out
	}
	files, err := dirTree{root: p.Root}.list(ctx)
	if err != nil {
		return out
	}
	for _, e := range p.Config.Contracts {
		for _, f := range files {
			if !e.pact.match(f) {
				continue
			}
			name := e.Consumer
			if name == "" {
				c, err := contracts.ReadContract(filepath.Join(p.Root, filepath.FromSlash(f)))
				if err != nil {
					continue
				}
				name = c.Consumer
			}
			if name != "" && !slices.Contains(out[e.Subject], name) {
				out[e.Subject] = append(out[e.Subject], name)
			}
		}
	}
	for _, names := range out {
		sort.Strings(names)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// metadataJSON encodes registry metadata for PriorVersion.Metadata.
func metadataJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}
