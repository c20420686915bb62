package project_test

import (
	"context"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/registry/client"
)

// pactOf writes a V3 message pact whose one message reads the given JSON
// contents, every property matched by type.
func pactOf(consumer, contents string, paths ...string) string {
	var rules []string
	for _, p := range paths {
		rules = append(rules, `"$.`+p+`": {"matchers": [{"match": "type"}]}`)
	}
	return `{"consumer": {"name": "` + consumer + `"}, "provider": {"name": "orders"},
  "messages": [{"description": "an order", "contents": ` + contents + `,
    "matchingRules": {"body": {` + strings.Join(rules, ", ") + `}}}],
  "metadata": {"pactSpecification": {"version": "3.0.0"}}}`
}

const (
	orderBase = `{"type":"record","name":"Order","namespace":"acme","fields":[
  {"name":"id","type":"string"},
  {"name":"note","type":"string"},
  {"name":"email","type":"string"}]}`
	// orderHead drops email and makes note optional.
	orderHead = `{"type":"record","name":"Order","namespace":"acme","fields":[
  {"name":"id","type":"string"},
  {"name":"note","type":["null","string"],"default":null}]}`
)

// gateCheck runs Check of dir against the baseline b.
func gateCheck(t *testing.T, dir string, b project.Baseline) (*project.Result, error) {
	t.Helper()
	return project.Check(context.Background(), mustFind(t, dir), project.Options{Baseline: b})
}

func onlyRules(fs []rule.Finding, prefix string) []rule.Finding {
	var out []rule.Finding
	for _, f := range fs {
		if strings.HasPrefix(f.RuleID, prefix) {
			out = append(out, f)
		}
	}
	return out
}

func TestContractsEvaluator(t *testing.T) {
	t.Parallel()
	base, head := t.TempDir(), t.TempDir()
	const cfg = "version: 1\nschemas: [{files: \"*.avsc\"}]\ncontracts:\n  - pact: \"pacts/*.json\"\n    subject: order-value\n  - pact: pacts/crm.json\n    subject: order-value\n    consumer: crm-team\n"
	pacts := map[string]string{
		"pacts/billing.json": pactOf("billing", `{"id": "o-1", "email": "a@b.c"}`, "id", "email"),
		"pacts/crm.json":     pactOf("crm", `{"id": "o-1", "note": "hi"}`, "id", "note"),
	}
	writeFiles(t, base, map[string]string{"charter.yaml": cfg, "order.avsc": orderBase})
	writeFiles(t, head, map[string]string{"charter.yaml": cfg, "order.avsc": orderHead})
	writeFiles(t, head, pacts)

	res, err := gateCheck(t, head, project.DirBaseline(base))
	if err != nil {
		t.Fatal(err)
	}
	// billing reads email (gone); crm reads note, required in the
	// baseline and optional now: an error because the baseline
	// guaranteed it. crm.json matches both entries; the second names
	// its consumer crm-team.
	got := ""
	for _, f := range onlyRules(res.Findings, "CONTRACT_") {
		got += brief(f) + " " + f.Consumer + "\n"
	}
	want := "error CONTRACT_FIELD_MISSING order-value order.avsc:0 .email billing\n" +
		"error CONTRACT_REQUIRED_DROPPED order-value order.avsc:3 .note crm\n" +
		"error CONTRACT_REQUIRED_DROPPED order-value order.avsc:3 .note crm-team\n"
	if got != want {
		t.Errorf("contract findings:\n%s\nwant:\n%s", got, want)
	}
	for _, f := range onlyRules(res.Findings, "CONTRACT_") {
		if !strings.Contains(f.Message, `, interaction "an order": `) || f.Hint == "" {
			t.Errorf("finding %s: message %q, hint %q", f.RuleID, f.Message, f.Hint)
		}
	}

	// Without a baseline version (a new subject), dropping the
	// guarantee is only a warning.
	empty := t.TempDir()
	writeFiles(t, empty, map[string]string{"charter.yaml": cfg})
	res, err = gateCheck(t, head, project.DirBaseline(empty))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range onlyRules(res.Findings, "CONTRACT_") {
		if f.RuleID == contracts.RuleRequiredDropped || (f.RuleID == contracts.RuleFieldOptional && f.Severity != rule.Warning) {
			t.Errorf("without a baseline: %s", brief(f))
		}
	}

	// Severity overrides apply to contract findings.
	writeFiles(t, head, map[string]string{"charter.yaml": cfg + "defaults: {severity: {CONTRACT_*: warning}}\n"})
	res, err = gateCheck(t, head, project.DirBaseline(base))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(onlyRules(res.Findings, "CONTRACT_")); n != 3 || res.Failed() && res.Count(rule.Error) != 2 {
		t.Errorf("with CONTRACT_*: warning: %d contract findings, %d errors", n, res.Count(rule.Error))
	}
}

func TestContractsEvaluatorErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no pact file", map[string]string{
			"charter.yaml": "version: 1\nschemas: [{files: \"*.avsc\"}]\ncontracts: [{pact: \"pacts/*.json\", subject: order-value}]\n",
		}, "contracts[0]: no file matches pacts/*.json"},
		{"unknown subject", map[string]string{
			"charter.yaml": "version: 1\nschemas: [{files: \"*.avsc\"}]\ncontracts: [{pact: p.json, subject: nope-value}]\n",
			"p.json":       pactOf("billing", `{"id": "o"}`, "id"),
		}, `contracts name subject "nope-value", which no schema file defines`},
		{"not a pact", map[string]string{
			"charter.yaml": "version: 1\nschemas: [{files: \"*.avsc\"}]\ncontracts: [{pact: p.json, subject: order-value}]\n",
			"p.json":       `{"hello": 1}`,
		}, "contracts[0]: pact "},
		{"missing subject key", map[string]string{
			"charter.yaml": "version: 1\nschemas: [{files: \"*.avsc\"}]\ncontracts: [{pact: p.json}]\n",
		}, "at /contracts/0: missing property 'subject'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.files["order.avsc"] = orderBase
			writeFiles(t, dir, tc.files)
			p, err := project.Find(dir)
			if err == nil {
				_, err = project.Check(context.Background(), p, project.Options{Baseline: project.DirBaseline(dir)})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestPIIEvaluator(t *testing.T) {
	t.Parallel()
	const record = `{"type":"record","name":"Customer","namespace":"acme","fields":[{"name":"id","type":"string"}%s]}`
	withEmail := strings.Replace(record, "%s", `,{"name":"email","type":"string"}`, 1)
	plain := strings.Replace(record, "%s", "", 1)
	for _, tc := range []struct {
		name, config, before, after, want string
	}{
		{"new untagged field", "", plain, withEmail,
			"warning PII_UNTAGGED customer-value customer.avsc:1 .email\n"},
		{"tagged in charter.yaml", "overrides: [{subject: \"customer-*\", metadata: {tags: {\"**.email\": [PII]}}}]\n", plain, withEmail, ""},
		{"raised to error", "defaults: {severity: {PII_UNTAGGED: error}}\n", plain, withEmail,
			"error PII_UNTAGGED customer-value customer.avsc:1 .email\n"},
		{"switched off", "defaults: {severity: {PII_*: off}}\n", plain, withEmail, ""},
		{"allow-listed", "pii: {allow: [email]}\n", plain, withEmail, ""},
		{"unchanged subject", "", withEmail, withEmail, ""},
		{"new subject", "", "", withEmail,
			"warning PII_UNTAGGED customer-value customer.avsc:1 .email\n"},
		{"bad confidence", "pii: {min_confidence: extreme}\n", plain, withEmail, "config error"},
		{"masking required", "pii: {mask_tags: [PII]}\noverrides: [{subject: \"*\", metadata: {tags: {\"**.email\": [PII]}}}]\n", plain, withEmail,
			"warning PII_UNMASKED customer-value customer.avsc:1 .email\n"},
		{"consumers read it", "contracts: [{pact: p.json, subject: customer-value}]\n", plain, withEmail,
			"warning PII_NEW_FIELD_WITH_CONSUMERS customer-value customer.avsc:1 .email\nwarning PII_UNTAGGED customer-value customer.avsc:1 .email\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, head := t.TempDir(), t.TempDir()
			cfg := "version: 1\nschemas: [{files: \"*.avsc\"}]\n" + tc.config
			files := map[string]string{"charter.yaml": cfg}
			if tc.before != "" {
				files["customer.avsc"] = tc.before
			}
			writeFiles(t, base, files)
			writeFiles(t, head, map[string]string{"charter.yaml": cfg, "customer.avsc": tc.after, "p.json": pactOf("crm", `{"id": "c"}`, "id")})
			p, err := project.Find(head)
			if err != nil {
				if tc.want == "config error" {
					return
				}
				t.Fatal(err)
			}
			res, err := project.Check(context.Background(), p, project.Options{Baseline: project.DirBaseline(base)})
			if err != nil {
				t.Fatal(err)
			}
			if got := briefs(onlyRules(res.Findings, "PII_")); got != tc.want {
				t.Errorf("findings:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestPIILostTagAgainstRegistry: the registry's stored metadata tags the
// field PII; a working tree whose charter.yaml gives metadata without
// the tag loses it (as registering with that metadata would: without
// any, a registration inherits the latest version's).
func TestPIILostTagAgainstRegistry(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	const v1 = `{"type":"record","name":"Customer","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"email","type":"string"}]}`
	register(t, c, "customer-value", client.NewSchema{Text: v1, Metadata: &client.Metadata{Tags: map[string][]string{"**.email": {"PII"}}}})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"charter.yaml":  "version: 1\nschemas: [{files: \"*.avsc\", metadata: {properties: {owner: crm}}}]\n",
		"customer.avsc": strings.Replace(v1, `"string"}]}`, `"string"},{"name":"note","type":"string","default":""}]}`, 1),
	})
	res, err := gateCheck(t, dir, project.RegistryBaseline(c, url))
	if err != nil {
		t.Fatal(err)
	}
	fs := onlyRules(res.Findings, "PII_")
	if len(fs) != 1 || fs[0].Path != ".email" || !strings.Contains(fs[0].Message, "PII") {
		t.Errorf("findings: %+v", fs)
	}
}
