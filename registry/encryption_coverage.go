package registry

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry/srerr"
)

// The PII map (GET /governance/lineage/pii) says which tagged fields
// Confluent's client-side field encryption covers: a field is encrypted
// when the rule set of its subject's latest version has an enabled
// ENCRYPT domain rule whose tags include one of the field's tags in the
// schema or its metadata.tags (the rule executor encrypts exactly the
// fields so tagged; it never sees Charter's governance tags), or an
// ENCRYPT_PAYLOAD rule (the whole payload). Its keys live in the DEK registry
// (registry/dek).

// encryptRule is one ENCRYPT or ENCRYPT_PAYLOAD rule of a rule set.
type encryptRule struct {
	Name     string            `json:"name"`
	Type     string            `json:"type"`
	Mode     string            `json:"mode"`
	Tags     []string          `json:"tags"`
	Params   map[string]string `json:"params"`
	Disabled bool              `json:"disabled"`
}

// covers reports whether r encrypts a field tagged tags.
func (r encryptRule) covers(tags []string) bool {
	if r.Type == "ENCRYPT_PAYLOAD" {
		return true
	}
	return slices.ContainsFunc(r.Tags, func(rt string) bool {
		return slices.ContainsFunc(tags, func(t string) bool { return strings.EqualFold(t, rt) })
	})
}

// encryptRules returns the enabled encryption rules of ruleSet, writing
// ones first (a READ-only rule encrypts nothing).
func encryptRules(ruleSet json.RawMessage) []encryptRule {
	if len(ruleSet) == 0 {
		return nil
	}
	var rs struct {
		DomainRules   []encryptRule `json:"domainRules"`
		EncodingRules []encryptRule `json:"encodingRules"`
	}
	if json.Unmarshal(ruleSet, &rs) != nil {
		return nil
	}
	var out []encryptRule
	for _, r := range append(rs.DomainRules, rs.EncodingRules...) {
		if r.Disabled || (r.Type != "ENCRYPT" && r.Type != "ENCRYPT_PAYLOAD") || strings.EqualFold(r.Mode, "READ") {
			continue
		}
		out = append(out, r)
	}
	return out
}

// AnnotateEncryption sets the Encryption of every exposure an encryption
// rule of its subject's latest version covers (and clears the others'):
// for exposures made outside Exposure, as the web UI's PII map adds the
// tagged fields of subjects lineage does not name.
func (lin *Lineage) AnnotateEncryption(ctx context.Context, out []lineage.Exposure) error {
	for i := range out {
		out[i].Encryption = nil
	}
	return lin.s.annotateEncryption(ctx, out)
}

// annotateEncryption sets the Encryption of every exposure an encryption
// rule of its subject's latest version covers.
func (s *Service) annotateEncryption(ctx context.Context, out []lineage.Exposure) error {
	type latest struct {
		version int
		rules   []encryptRule
		// tags are each field's tags as a client's rule executor sees
		// them: in the schema and in its metadata.tags, not Charter's
		// governance tags, which no client reads.
		tags map[string][]string
	}
	bySubject := map[string]latest{}
	for i := range out {
		e := &out[i]
		l, ok := bySubject[e.Subject]
		if !ok {
			ss, err := s.Version(ctx, e.Subject, Latest, false)
			switch {
			case errors.Is(err, srerr.ErrSubjectNotFound) || errors.Is(err, srerr.ErrVersionNotFound):
			case err != nil:
				return err
			default:
				l = latest{version: ss.Version, rules: encryptRules(ss.Schema.RuleSet)}
			}
			if len(l.rules) > 0 {
				tv, err := s.Governance().Tags(ctx, e.Subject)
				if err != nil {
					return err
				}
				l.tags = map[string][]string{}
				for _, f := range tv.Fields {
					l.tags[f.Path] = append(append([]string(nil), f.Inline...), f.Metadata...)
				}
			}
			bySubject[e.Subject] = l
		}
		for _, r := range l.rules {
			if r.covers(l.tags[e.Path]) {
				e.Encryption = &lineage.Encryption{Rule: r.Name, Type: r.Type, Version: l.version,
					Kek: r.Params["encrypt.kek.name"], KmsType: r.Params["encrypt.kms.type"]}
				break
			}
		}
	}
	return nil
}
