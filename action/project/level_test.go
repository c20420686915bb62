package project_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/srerr"
)

func TestAtLeastAsStrict(t *testing.T) {
	t.Parallel()
	// strict[reg] lists the levels at least as strict as reg.
	strict := map[compat.Level]string{
		compat.None:               "NONE BACKWARD BACKWARD_TRANSITIVE FORWARD FORWARD_TRANSITIVE FULL FULL_TRANSITIVE",
		compat.Backward:           "BACKWARD BACKWARD_TRANSITIVE FULL FULL_TRANSITIVE",
		compat.BackwardTransitive: "BACKWARD_TRANSITIVE FULL_TRANSITIVE",
		compat.Forward:            "FORWARD FORWARD_TRANSITIVE FULL FULL_TRANSITIVE",
		compat.ForwardTransitive:  "FORWARD_TRANSITIVE FULL_TRANSITIVE",
		compat.Full:               "FULL FULL_TRANSITIVE",
		compat.FullTransitive:     "FULL_TRANSITIVE",
	}
	for _, reg := range compat.Levels {
		var got []string
		for _, l := range compat.Levels {
			if project.AtLeastAsStrict(l, reg) {
				got = append(got, string(l))
			}
		}
		if g := strings.Join(got, " "); g != strict[reg] {
			t.Errorf("at least as strict as %s: %s, want %s", reg, g, strict[reg])
		}
	}
}

// TestCheckRegistryLevelDecides is the tester's case: charter.yaml sets
// NONE for plain-value, the registry BACKWARD (its default); v1 has
// n:string and the working tree n:long. Registration refuses it (409
// AVRO_TYPE_MISMATCH), so check against the registry fails with it and
// says charter.yaml's level is ignored; offline charter.yaml's NONE
// stands.
func TestCheckRegistryLevelDecides(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	quietPolicy(t, c)
	schema := func(typ string) string {
		return `{"type":"record","name":"P","fields":[{"name":"n","type":"` + typ + `"}]}`
	}
	register(t, c, "plain-value", client.NewSchema{Text: schema("string")})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"charter.yaml":    "version: 1\nschemas: [{files: \"plain.avsc\", subject: plain-value}]\noverrides: [{subject: plain-value, level: NONE}]\n",
		"plain.avsc":      schema("long"),
		"base/plain.avsc": schema("string"),
	})
	_, err := c.Register(t.Context(), "plain-value", client.NewSchema{Text: schema("long")})
	var se *srerr.Error
	if !errors.As(err, &se) || se.Status != 409 {
		t.Fatalf("registration: %v, want 409", err)
	}
	res, err := project.Check(context.Background(), mustFind(t, dir), project.Options{Baseline: project.RegistryBaseline(c, url)})
	if err != nil {
		t.Fatal(err)
	}
	const want = "error AVRO_TYPE_MISMATCH plain-value plain.avsc:1 .n BACKWARD\nnotice CONFIG_LEVEL_IGNORED plain-value charter.yaml:0\n"
	if got := briefs(res.Findings); got != want || res.Passed() {
		t.Errorf("against the registry: findings:\n%s\nwant:\n%s", got, want)
	}
	if res.Subjects[0].Level != compat.Backward {
		t.Errorf("level %s, want the registry's BACKWARD", res.Subjects[0].Level)
	}
	for _, f := range res.Findings {
		switch f.RuleID {
		case project.RuleLevelIgnored:
			if !strings.Contains(f.Message, "sets level NONE") || !strings.Contains(f.Message, "registry applies BACKWARD") ||
				!strings.Contains(f.Hint, "charter config set plain-value --level NONE") {
				t.Errorf("notice: %q, hint %q", f.Message, f.Hint)
			}
		case "AVRO_TYPE_MISMATCH":
			if strings.Contains(f.Hint, "charter.yaml") {
				t.Errorf("hint %q: charter.yaml cannot lower the registry's level", f.Hint)
			}
		}
	}
	// Offline, charter.yaml's level is the level.
	res, err = project.Check(context.Background(), mustFind(t, dir), project.Options{Baseline: project.DirBaseline(filepath.Join(dir, "base"))})
	if err != nil {
		t.Fatal(err)
	}
	if got := briefs(res.Findings); got != "" || res.Subjects[0].Level != compat.None {
		t.Errorf("offline: level %s, findings:\n%s", res.Subjects[0].Level, got)
	}
}

// TestSeverityIgnoredHints: CONFIG_SEVERITY_IGNORED's hint says what
// actually loosens the rule in the registry: for a compatibility rule
// (AVRO_TYPE_MISMATCH) the subject's level (charter config set), which
// the registry's policy cannot set (it answers 42283 saying so); for a
// policy rule (OWNER_MISSING, an error in the registry's policy) the
// policy, which accepts it.
func TestSeverityIgnoredHints(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	schema := func(typ string) string {
		return `{"type":"record","name":"P","fields":[{"name":"n","type":"` + typ + `"}]}`
	}
	register(t, c, "plain-value", client.NewSchema{Text: schema("string")})
	if _, err := c.SetPolicy(t.Context(), "", client.PolicyConfig{Rules: map[string]string{"OWNER_MISSING": "error", "SEMVER_MAJOR": "off"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"charter.yaml": "version: 1\ndefaults: {severity: {AVRO_TYPE_MISMATCH: warning, OWNER_MISSING: warning}}\nschemas: [{files: \"plain.avsc\", subject: plain-value}]\n",
		"plain.avsc":   schema("long"),
	})
	res, err := project.Check(context.Background(), mustFind(t, dir), project.Options{Baseline: project.RegistryBaseline(c, url)})
	if err != nil {
		t.Fatal(err)
	}
	hints := map[string]string{}
	for _, f := range res.Findings {
		if f.RuleID == project.RuleSeverityIgnored {
			rule, _, _ := strings.Cut(strings.TrimPrefix(f.Message, "charter.yaml sets "), " ")
			hints[rule] = f.Hint
		}
	}
	if h := hints["AVRO_TYPE_MISMATCH"]; !strings.Contains(h, "charter config set plain-value --level") || strings.Contains(h, "/policy") {
		t.Errorf("AVRO_TYPE_MISMATCH: hint %q, want the subject's level", h)
	}
	if h := hints["OWNER_MISSING"]; !strings.Contains(h, "PUT /governance/subjects/plain-value/policy") {
		t.Errorf("OWNER_MISSING: hint %q, want the registry's policy", h)
	}
	// What each hint says works, and what the old hint said does not.
	_, err = c.SetPolicy(t.Context(), "plain-value", client.PolicyConfig{Rules: map[string]string{"AVRO_TYPE_MISMATCH": "warning"}})
	var se *srerr.Error
	if !errors.As(err, &se) || se.Code != 42283 || !strings.Contains(err.Error(), "compatibility rules are set by the subject's compatibility level") {
		t.Errorf("policy with AVRO_TYPE_MISMATCH: %v", err)
	}
	if _, err := c.SetPolicy(t.Context(), "plain-value", client.PolicyConfig{Rules: map[string]string{"OWNER_MISSING": "warning"}}); err != nil {
		t.Errorf("policy with OWNER_MISSING: %v", err)
	}
	none := compat.None
	if _, err := c.SetConfig(t.Context(), "plain-value", client.ConfigUpdate{Compatibility: &none}); err != nil {
		t.Fatal(err)
	}
	if res, err = project.Check(context.Background(), mustFind(t, dir), project.Options{Baseline: project.RegistryBaseline(c, url)}); err != nil {
		t.Fatal(err)
	}
	if !res.Passed() {
		t.Errorf("after loosening the level and the policy, check fails:\n%s", briefs(res.Findings))
	}
}
