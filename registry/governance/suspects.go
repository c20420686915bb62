package governance

import (
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/pii"
)

// PIISuspects returns the PII_UNTAGGED findings of every field of v (not
// only the fields a new version adds) under st's PII policy, governance
// tags and dismissals: the fields that look like personal data and carry
// no PII tag, which a reviewer either tags or dismisses. The other PII
// rules are left out; the findings are warnings whatever the policy says.
func PIISuspects(st SubjectState, v Version) []rule.Finding {
	if v.Schema == nil {
		return nil
	}
	cfg := pii.Config{Severity: map[string]string{}, AllFields: true}
	for _, r := range pii.Rules() {
		cfg.Severity[r.ID] = "off"
	}
	cfg.Severity[pii.RuleUntagged] = rule.Warning.String()
	if p := st.Policy.PII; p != nil {
		cfg.PIITags = p.PIITags
		if p.MinConfidence != "" {
			_ = cfg.MinConfidence.UnmarshalText([]byte(p.MinConfidence))
		}
		cfg.Detector = detector(p.AllowList)
	}
	in := pii.Input{Current: compat.Fields(v.Schema), Metadata: withTags(v.Metadata, st.Tags)}
	for _, d := range st.Dismissals {
		in.Dismissals = append(in.Dismissals, pii.Dismissal{Field: d.Field, PatternID: d.PatternID, By: d.By, Reason: d.Reason})
	}
	return pii.Evaluate(in, cfg)
}
