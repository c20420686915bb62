package gate

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
)

// Evaluate judges in: compatibility (unless Existing), then the
// governance rules, then the published contracts; a comparison that
// could not be decided (compat.Violation.Undecided) ends it there. The error is never a
// verdict: it says that the state itself is unusable (a stored contract
// that no longer parses, a schema the contract verifier cannot read).
func Evaluate(in Input) (Result, error) {
	var res Result
	if in.Candidate.Schema == nil {
		return res, fmt.Errorf("gate: no candidate schema for subject %q", in.Subject)
	}
	if !in.Existing {
		var err error
		if res.Compat, err = CheckCompatibilityContext(in); err != nil {
			return Result{}, err
		}
		res.Findings = append(res.Findings, CompatFindings(in.Subject, res.Compat)...)
		if undecided(res.Compat) {
			// The governance rules (the semantic version's FULL
			// comparison) would compare the same versions again, past
			// the same bound: the judgement ends refused.
			Sort(res.Findings)
			return res, nil
		}
		res.Findings = append(res.Findings, ReservedFindings(in)...)
	} else {
		res.Compat = compat.Result{Level: in.Level}
	}
	against := make([]compat.Schema, 0, len(in.Against))
	for _, p := range in.Against {
		if p.Schema != nil && p.Schema.Type() == in.Candidate.Schema.Type() {
			against = append(against, p.Schema)
		}
	}
	res.Governance = governance.Evaluate(governance.Input{
		Context: in.Context, Now: in.Now, Format: in.Format, Level: in.Level, State: in.State,
		Previous: in.Latest, Against: against, Candidate: in.Candidate, Existing: in.Existing,
	})
	res.Findings = append(res.Findings, res.Governance.Findings...)
	if !in.Existing {
		fs, err := contractFindings(in)
		if err != nil {
			return Result{}, err
		}
		res.Findings = append(res.Findings, fs...)
	}
	Sort(res.Findings)
	if res.Findings == nil {
		res.Findings = []rule.Finding{}
	}
	return res, nil
}

// undecided reports whether a finding of res says its format could not
// decide (compat.Violation.Undecided).
func undecided(res compat.Result) bool {
	for _, f := range res.Findings {
		if f.Undecided {
			return true
		}
	}
	return false
}

// CheckCompatibility is compat.Check at the level, with earlier versions
// of another schema type reported instead of compared. It ignores
// in.Context (see CheckCompatibilityContext).
func CheckCompatibility(in Input) compat.Result {
	in.Context = nil
	res, _ := CheckCompatibilityContext(in)
	return res
}

// CheckCompatibilityContext is CheckCompatibility that stops when
// in.Context ends, with its error and no verdict.
func CheckCompatibilityContext(in Input) (compat.Result, error) {
	if in.Compat != nil {
		return *in.Compat, nil
	}
	level := in.Level
	if level == "" {
		level = compat.DefaultLevel
	}
	against := in.Against
	if len(against) > 0 && !level.Transitive() {
		against = against[len(against)-1:]
	}
	if level == compat.None || len(against) == 0 {
		return compat.Result{Level: level}, nil
	}
	same := make([]compat.Previous, 0, len(against))
	var foreign []compat.Finding
	for _, p := range against {
		if p.Schema != nil && p.Schema.Type() != in.Format.Type() {
			foreign = append(foreign, compat.Finding{
				Violation: compat.Violation{RuleID: RuleSchemaTypeChanged, Path: ".",
					Message: fmt.Sprintf("version %d is a %s schema and the new schema is %s; only compatibility NONE allows changing the schema type",
						p.Version, p.Schema.Type(), in.Format.Type())},
				Direction: compat.DirBackward, Version: p.Version})
			continue
		}
		same = append(same, p)
	}
	ctx := in.Context
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := compat.CheckContext(ctx, in.Format, level, in.Candidate.Schema, same)
	if err != nil {
		return compat.Result{Level: level}, fmt.Errorf("check compatibility of %s: %w", in.Subject, err)
	}
	res.Findings = append(res.Findings, foreign...)
	return res, nil
}

// CompatFindings turns compatibility findings into errors of the rule
// model, the message's "; fix" part as the hint.
func CompatFindings(subject string, res compat.Result) []rule.Finding {
	out := make([]rule.Finding, 0, len(res.Findings))
	for _, f := range res.Findings {
		msg, hint := splitHint(f.Message)
		out = append(out, rule.Finding{RuleID: f.RuleID, Severity: rule.Error, Subject: subject, Path: f.Path,
			Message: msg, Hint: hint, Version: f.Version, Direction: string(f.Direction)})
	}
	return out
}

// splitHint splits a message of the form "what is wrong; how to fix it"
// (the style of every Charter format) into message and hint.
func splitHint(msg string) (string, string) {
	what, fix, ok := strings.Cut(msg, "; ")
	if !ok || fix == "" {
		return msg, ""
	}
	return what, fix
}

// Sort orders findings by severity (errors first), rule ID, path,
// consumer and earlier version: the order every surface shows them in.
func Sort(fs []rule.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.RuleID != b.RuleID {
			return a.RuleID < b.RuleID
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Consumer != b.Consumer {
			return a.Consumer < b.Consumer
		}
		return a.Version > b.Version
	})
}
