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
