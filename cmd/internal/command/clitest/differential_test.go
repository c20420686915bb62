package clitest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
)

// scenario is one row of testdata/differential.yaml: a diffSubject's history
// in the registry (versions and governance steps, each on a day of the
// registry's clock), a candidate, and the findings the gate must give.
type scenario struct {
	Name string `yaml:"name"`
	// Type is AVRO (default), PROTOBUF or JSON; schemas are field lists
	// "name:type[=number]" (types string, int, long) built per format.
	Type  string `yaml:"type"`
	Steps []step `yaml:"steps"`
	// Day is the day judged (the dry run's and check's --at).
	Day       int    `yaml:"day"`
	Candidate string `yaml:"candidate"`
	// Config is added to charter.yaml (severities).
	Config string `yaml:"config"`
	// Want are findings "severity RULE path" that must be among both
	// sides' (which must be equal); Not are rules neither may report.
	Want []string `yaml:"want"`
	Not  []string `yaml:"not"`
}

type step struct {
	Day       int                 `yaml:"day"`
	Register  string              `yaml:"register"`
	Owner     string              `yaml:"owner"`
	Deprecate string              `yaml:"deprecate"`
	TTL       int                 `yaml:"ttl"`
	Extend    string              `yaml:"extend"` // consumer
	Days      int                 `yaml:"days"`
	Pact      string              `yaml:"pact"` // consumer
	Declare   string              `yaml:"declare"`
	Remove    string              `yaml:"remove"` // consumer withdrawn and removed
	Reads     []string            `yaml:"reads"`
	Policy    map[string]string   `yaml:"policy"`
	Dismiss   string              `yaml:"dismiss"`
	Pattern   string              `yaml:"pattern"`
	Tags      map[string][]string `yaml:"tags"`
	Level     compat.Level        `yaml:"level"` // the subject's compatibility level
}

const diffSubject = "s-value"

func loadScenarios(t *testing.T) []scenario {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "differential.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []scenario
	if err := yaml.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// schemaOf builds a schema of type typ with the fields spec lists.
func schemaOf(typ, spec string) string {
	type field struct {
		name, typ string
		num       int
	}
	var fs []field
	for i, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		name, rest, _ := strings.Cut(f, ":")
		ft, num, ok := strings.Cut(rest, "=")
		n := i + 1
		if ok {
			n, _ = strconv.Atoi(num)
		}
		fs = append(fs, field{name, ft, n})
	}
	var parts []string
	switch typ {
	case "PROTOBUF":
		for _, f := range fs {
			pt := map[string]string{"string": "string", "int": "int32", "long": "int64"}[f.typ]
			parts = append(parts, fmt.Sprintf("  %s %s = %d;\n", pt, f.name, f.num))
		}
		return "syntax = \"proto3\";\npackage acme;\nmessage S {\n" + strings.Join(parts, "") + "}\n"
	case "JSON":
		for _, f := range fs {
			jt := map[string]string{"string": "string", "int": "integer", "long": "integer"}[f.typ]
			parts = append(parts, fmt.Sprintf("%q:{\"type\":%q}", f.name, jt))
		}
		return `{"type":"object","properties":{` + strings.Join(parts, ",") + `}}`
	}
	for _, f := range fs {
		def := `""`
		if f.typ != "string" {
			def = "0"
		}
		parts = append(parts, fmt.Sprintf(`{"name":%q,"type":%q,"default":%s}`, f.name, f.typ, def))
	}
	return `{"type":"record","name":"S","namespace":"acme","fields":[` + strings.Join(parts, ",") + `]}`
}

// pactReading is a V3 message pact of consumer whose message reads the
// fields (every one a string, matched by type).
func pactReading(consumer string, fields []string) json.RawMessage {
	var contents, rules []string
	for _, f := range fields {
		f = strings.TrimPrefix(f, ".")
		contents = append(contents, fmt.Sprintf("%q: \"v\"", f))
		rules = append(rules, fmt.Sprintf(`"$.%s": {"matchers": [{"match": "type"}]}`, f))
	}
	return json.RawMessage(`{"consumer": {"name": "` + consumer + `"}, "provider": {"name": "s"},
  "messages": [{"description": "an event", "contents": {` + strings.Join(contents, ", ") + `},
    "matchingRules": {"body": {` + strings.Join(rules, ", ") + `}}}],
  "metadata": {"pactSpecification": {"version": "3.0.0"}}}`)
}

// play runs sc's steps against the registry at url on clk.
func play(t *testing.T, c *client.Client, clk *clitest.Clock, typ compat.SchemaType, steps []step) {
	t.Helper()
	ctx := t.Context()
	for i, st := range steps {
		clk.Day(st.Day)
		var err error
		switch {
		case st.Register != "":
			_, err = c.Register(ctx, diffSubject, client.NewSchema{Type: typ, Text: schemaOf(string(typ), st.Register)})
		case st.Owner != "":
			_, err = c.SetOwner(ctx, diffSubject, st.Owner, "#"+st.Owner, "test diffSubject")
		case st.Deprecate != "":
			_, err = c.Deprecate(ctx, diffSubject, client.DeprecateRequest{Path: st.Deprecate, TTLDays: st.TTL, Replacement: ".carrier"})
		case st.Extend != "":
			_, err = c.GrantExtension(ctx, diffSubject, st.Reads[0], client.ExtensionRequest{Consumer: st.Extend, Days: st.Days, Reason: "migrating", Approver: "lead"})
		case st.Pact != "":
			_, err = c.PublishContract(ctx, diffSubject, client.PublishContract{Consumer: st.Pact, ConsumerVersion: "1.0.0", Pact: pactReading(st.Pact, st.Reads)})
		case st.Declare != "":
			_, err = c.DeclareConsumer(ctx, diffSubject, st.Declare, st.Reads, nil)
		case st.Remove != "":
			// A pact's consumer goes with its contract, a declared one
			// from the lineage.
			if _, err = c.WithdrawContract(ctx, diffSubject, st.Remove); err != nil {
				_, err = c.RemoveConsumer(ctx, diffSubject, st.Remove)
			}
		case st.Policy != nil:
			_, err = c.SetPolicy(ctx, diffSubject, client.PolicyConfig{Rules: st.Policy})
		case st.Dismiss != "":
			_, err = c.Dismiss(ctx, diffSubject, st.Dismiss, st.Pattern, "reviewed: not personal data", true) // the field is in the schema about to be checked
		case st.Tags != nil:
			_, err = c.SetTags(ctx, diffSubject, st.Tags)
		case st.Level != "":
			_, err = c.SetConfig(ctx, diffSubject, client.ConfigUpdate{Compatibility: &st.Level})
		default:
			t.Fatalf("step %d: nothing to do", i)
		}
		if err != nil {
			t.Fatalf("step %d (day %d): %v", i, st.Day, err)
		}
	}
}

// finding is what the differential test compares: rule, severity, path.
type finding struct{ Severity, RuleID, Path string }

func (f finding) String() string {
	return strings.TrimSpace(f.Severity + " " + f.RuleID + " " + f.Path)
}

// projectRules are check's own rules, about the working tree: the dry run
// has no counterpart.
var projectRules = []string{"SUBJECT_ADDED", "SUBJECT_REMOVED", "SUBJECT_FORMAT_CHANGED", "CONFIG_SEVERITY_IGNORED", "CONFIG_LEVEL_IGNORED", "CONFIG_PROFILE_IGNORED", "CONFIG_PATTERN_UNMATCHED"}

func sorted(fs []finding) []string {
	var out []string
	for _, f := range fs {
		if !slices.Contains(projectRules, f.RuleID) {
			out = append(out, f.String())
		}
	}
	slices.Sort(out)
	return out
}

// checkJSON runs `charter check --against registry:URL --at AT -o json`
// in dir and returns its findings.
func checkJSON(t *testing.T, dir, url string, at time.Time, extra ...string) []finding {
	t.Helper()
	args := append([]string{"check", "-C", dir, "--against", "registry:" + url, "--format", "json"}, extra...)
	if !at.IsZero() {
		args = append(args, "--at", at.Format(time.RFC3339Nano))
	}
	r := clitest.Run(t, args...)
	if r.Code > 1 {
		t.Fatalf("charter check: exit %d: %s", r.Code, r.Stderr)
	}
	var res struct {
		Findings []struct {
			RuleID   string `json:"ruleId"`
			Severity string `json:"severity"`
			Path     string `json:"path"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
		t.Fatalf("charter check output: %v\n%s", err, r.Stdout)
	}
	var out []finding
	for _, f := range res.Findings {
		out = append(out, finding{f.Severity, f.RuleID, f.Path})
	}
	return out
}

func dryRun(t *testing.T, c *client.Client, typ compat.SchemaType, text string, at time.Time) []finding {
	t.Helper()
	res, err := c.CheckGovernanceAt(t.Context(), diffSubject, client.NewSchema{Type: typ, Text: text}, at)
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	var out []finding
	for _, f := range res.Findings {
		out = append(out, finding{f.Severity, f.RuleID, f.Path})
	}
	return out
}

// writeProject writes charter.yaml (with extra) and the candidate file.
func writeProject(t *testing.T, typ compat.SchemaType, text, extra string) string {
	t.Helper()
	dir := t.TempDir()
	ext := map[compat.SchemaType]string{compat.Avro: "s.avsc", compat.Protobuf: "s.proto", compat.JSON: "s.json"}[typ]
	cfg := "version: 1\nschemas:\n  - files: \"" + ext + "\"\n    subject: " + diffSubject + "\n" + extra
	for name, body := range map[string]string{"charter.yaml": cfg, ext: text} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDifferential runs every scenario of testdata/differential.yaml
// through the registry's dry run (POST /governance/subjects/{s}/check?at=)
// and through `charter check --against registry --at`, in-process against
// the real handler: both give the same findings (rule, severity, path),
// and those include the scenario's key findings.
func TestDifferential(t *testing.T) {
	t.Parallel()
	scs := loadScenarios(t)
	if len(scs) < 40 {
		t.Fatalf("%d scenarios, want at least 40", len(scs))
	}
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			if len(sc.Want) == 0 && len(sc.Not) == 0 {
				t.Fatal("a scenario says what it must (or must not) find")
			}
			if strings.Contains(sc.Config, "contracts") {
				// Local pacts make check the consumer's own
				// verification (CONTRACT_FIELD_EXPIRED...), which
				// a producer's dry run never is: no counterpart.
				t.Fatal("a scenario's charter.yaml lists no local pacts: consumers publish theirs (pact steps)")
			}
			typ := compat.SchemaType(sc.Type)
			if typ == "" {
				typ = compat.Avro
			}
			_, url, clk := clitest.NewRegistry(t)
			c, err := client.New(url)
			if err != nil {
				t.Fatal(err)
			}
			play(t, c, clk, typ, sc.Steps)
			at := clitest.Day0.Add(time.Duration(sc.Day) * 24 * time.Hour)
			text := schemaOf(string(typ), sc.Candidate)
			reg := sorted(dryRun(t, c, typ, text, at))
			ci := sorted(checkJSON(t, writeProject(t, typ, text, sc.Config), url, at))
			if !slices.Equal(reg, ci) {
				t.Errorf("dry run and check differ:\nregistry:\n  %s\ncheck:\n  %s", strings.Join(reg, "\n  "), strings.Join(ci, "\n  "))
			}
			for _, w := range sc.Want {
				if !slices.Contains(reg, w) {
					t.Errorf("want %q; registry gave:\n  %s", w, strings.Join(reg, "\n  "))
				}
			}
			for _, n := range sc.Not {
				for _, f := range reg {
					if strings.Contains(" "+f+" ", " "+n+" ") {
						t.Errorf("%s must not be reported: %s", n, f)
					}
				}
			}
		})
	}
}
