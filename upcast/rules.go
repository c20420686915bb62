package upcast

import (
	"errors"
	"fmt"
	"strings"

	jsonata "github.com/xiatechs/jsonata-go"

	"github.com/charter-dev/charter/registry/client"
)

// Rule modes and kinds of Confluent data contracts (RuleMode, RuleKind).
const (
	modeUpgrade   = "UPGRADE"
	modeDowngrade = "DOWNGRADE"
	modeUpDown    = "UPDOWN"
	kindCondition = "CONDITION"
	kindTransform = "TRANSFORM"
	ruleJSONata   = "JSONATA"
)

// ruleStep runs the migration rules of one version for one mode, as
// Confluent's serde does (AbstractKafkaSchemaSerDe / confluent-kafka-go
// serde.ExecuteRulesWithPhase): rules whose mode is the step's mode or
// UPDOWN, in order for UPGRADE and in reverse order for DOWNGRADE,
// skipping disabled ones; a TRANSFORM replaces the value with the
// expression's result, a CONDITION must evaluate to true. A failure
// (error, no result, false condition) fails the step unless the rule's
// onFailure action for this mode is NONE, which keeps the value as it was.
type ruleStep struct {
	rules []compiledRule
}

type compiledRule struct {
	name      string
	kind      string
	expr      *jsonata.Expr
	onFailure string // the action for this mode: NONE, ERROR, DLQ
}

// compileRules compiles rs's migration rules that apply to mode (UPGRADE
// or DOWNGRADE). It returns nil when none applies. Rules of a type other
// than JSONATA and expressions that do not compile are errors, found at
// Build rather than on the first event.
func compileRules(rs *client.RuleSet, mode string) (*ruleStep, error) {
	if rs == nil {
		return nil, nil
	}
	var out []compiledRule
	for _, r := range rs.MigrationRules {
		m := strings.ToUpper(r.Mode)
		if r.Disabled || (m != mode && m != modeUpDown) {
			continue
		}
		name := r.Name
		if name == "" {
			name = "unnamed"
		}
		if !strings.EqualFold(r.Type, ruleJSONata) {
			return nil, fmt.Errorf("migration rule %q: type %q is not supported (upcast runs JSONATA rules)", name, r.Type)
		}
		k := strings.ToUpper(r.Kind)
		if k == "" {
			k = kindTransform
		}
		if k != kindTransform && k != kindCondition {
			return nil, fmt.Errorf("migration rule %q: kind %q is not TRANSFORM or CONDITION", name, r.Kind)
		}
		expr, err := jsonata.Compile(r.Expr)
		if err != nil {
			return nil, fmt.Errorf("migration rule %q: compile JSONata: %w", name, err)
		}
		out = append(out, compiledRule{name: name, kind: k, expr: expr, onFailure: action(r.OnFailure, m, mode)})
	}
	if len(out) == 0 {
		return nil, nil
	}
	if mode == modeDowngrade {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return &ruleStep{rules: out}, nil
}

// action picks a rule's action for mode: "UP,DOWN" pairs on UPDOWN rules
// give the first for UPGRADE and the second for DOWNGRADE. Empty means
// ERROR.
func action(spec, ruleMode, mode string) string {
	spec = strings.ToUpper(strings.TrimSpace(spec))
	if first, second, ok := strings.Cut(spec, ","); ok && ruleMode == modeUpDown {
		if mode == modeUpgrade {
			spec = first
		} else {
			spec = second
		}
	}
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return "ERROR"
	}
	return spec
}

// names returns the rule names joined by "+".
func (s *ruleStep) names() string {
	names := make([]string, len(s.rules))
	for i, r := range s.rules {
		names[i] = r.name
	}
	return strings.Join(names, "+")
}

// run applies the rules to v.
func (s *ruleStep) run(v map[string]any) (map[string]any, error) {
	for _, r := range s.rules {
		res, err := r.expr.Eval(v)
		if err == nil && res == nil {
			err = errors.New("the expression has no result")
		}
		if err == nil {
			switch r.kind {
			case kindCondition:
				if b, ok := res.(bool); !ok || !b {
					err = fmt.Errorf("condition is %v, want true", res)
				}
			case kindTransform:
				m, ok := res.(map[string]any)
				if !ok {
					err = fmt.Errorf("the expression returned %s, want an object", kind(res))
				} else {
					v = m
				}
			}
		}
		if err != nil {
			if r.onFailure == "NONE" {
				continue
			}
			return nil, fmt.Errorf("migration rule %q: %w", r.name, err)
		}
	}
	return v, nil
}
