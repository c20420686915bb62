package project_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/client"
)

// registryCheck runs check on dir against the registry c at url.
func registryCheck(t *testing.T, c *client.Client, url, dir string) *project.Result {
	t.Helper()
	res, err := project.Check(context.Background(), mustFind(t, dir), project.Options{Baseline: project.RegistryBaseline(c, url)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// gateFindings are check's findings about subject that registration has
// a counterpart for (no project rule), as "severity RULE path", sorted.
func gateFindings(res *project.Result, subject string) []string {
	own := map[string]bool{}
	for _, r := range project.Rules() {
		own[r.ID] = true
	}
	var out []string
	for _, f := range res.Findings {
		if f.Subject == subject && !own[f.RuleID] {
			out = append(out, strings.TrimSpace(f.Severity.String()+" "+f.RuleID+" "+f.Path))
		}
	}
	slices.Sort(out)
	return out
}

// dryRunFindings are the registry's dry run's findings for ns under
// subject, as gateFindings gives check's, and whether it is an existing
// version.
func dryRunFindings(t *testing.T, c *client.Client, subject string, ns client.NewSchema) ([]string, client.CheckResult) {
	t.Helper()
	r, err := c.CheckGovernance(t.Context(), subject, ns)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range r.Findings {
		out = append(out, strings.TrimSpace(f.Severity+" "+f.RuleID+" "+f.Path))
	}
	slices.Sort(out)
	return out, r
}

func statusOf(res *project.Result, subject string) project.Status {
	for _, s := range res.Subjects {
		if s.Subject == subject {
			return s.Status
		}
	}
	return ""
}

// TestCheckExistingWithChangedReference: order.proto is the registered
// text, but the common.proto it imports changed in the working tree.
// Registration of order-value with the new common version is a new
// version (judged for compatibility, refused here), so check judges it as
// one, not as "unchanged".
func TestCheckExistingWithChangedReference(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	quietPolicy(t, c)
	ctx := t.Context()
	none := compat.None
	if _, err := c.SetConfig(ctx, "common", client.ConfigUpdate{Compatibility: &none}); err != nil {
		t.Fatal(err)
	}
	common := func(typ string) string {
		return "syntax = \"proto3\";\npackage acme;\nmessage Money {\n  " + typ + " amount = 1;\n}\n"
	}
	const order = "syntax = \"proto3\";\npackage acme;\nimport \"common.proto\";\nmessage Order {\n  Money total = 1;\n}\n"
	register(t, c, "common", client.NewSchema{Type: compat.Protobuf, Text: common("string")})
	ref := func(v int) []client.Reference {
		return []client.Reference{{Name: "common.proto", Subject: "common", Version: v}}
	}
	register(t, c, "order-value", client.NewSchema{Type: compat.Protobuf, Text: order, References: ref(1)})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"charter.yaml": "version: 1\nschemas:\n  - files: \"common.proto\"\n    subject: common\n  - files: \"order.proto\"\n    subject: order-value\n",
		"common.proto": common("int64"),
		"order.proto":  order,
	})
	res := registryCheck(t, c, url, dir)
	if st := statusOf(res, "order-value"); st != project.StatusChanged {
		t.Errorf("order-value: status %s, want changed (its reference changed)", st)
	}
	// What registration says once common has the new version.
	register(t, c, "common", client.NewSchema{Type: compat.Protobuf, Text: common("int64")})
	reg, dr := dryRunFindings(t, c, "order-value", client.NewSchema{Type: compat.Protobuf, Text: order, References: ref(2)})
	if dr.Existing {
		t.Fatalf("dry run: existing version %d, want a new version", dr.Version)
	}
	if got := gateFindings(res, "order-value"); !slices.Equal(got, reg) {
		t.Errorf("check: %v\ndry run: %v", got, reg)
	}
}

// TestCheckExistingWithChangedMetadata: the registered schema with other
// metadata in charter.yaml is a new version, judged as one: with
// validateFields, a reserved name that is a field is RESERVED_FIELD, as
// registration refuses it (409).
func TestCheckExistingWithChangedMetadata(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	quietPolicy(t, c)
	ctx := t.Context()
	on := true
	if _, err := c.SetConfig(ctx, "meta-value", client.ConfigUpdate{ValidateFields: &on}); err != nil {
		t.Fatal(err)
	}
	const schema = `{"type":"record","name":"M","fields":[{"name":"id","type":"string"}]}`
	register(t, c, "meta-value", client.NewSchema{Text: schema, Metadata: &client.Metadata{Properties: map[string]string{"confluent:reserved": "x"}}})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"charter.yaml": "version: 1\nschemas:\n  - files: \"m.avsc\"\n    subject: meta-value\n    metadata: {properties: {\"confluent:reserved\": \"x,id\"}}\n",
		"m.avsc":       schema,
	})
	res := registryCheck(t, c, url, dir)
	reg, dr := dryRunFindings(t, c, "meta-value", client.NewSchema{Text: schema, Metadata: &client.Metadata{Properties: map[string]string{"confluent:reserved": "x,id"}}})
	got := gateFindings(res, "meta-value")
	if dr.Existing || !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "error RESERVED_FIELD") }) {
		t.Errorf("check: %v (status %s), want RESERVED_FIELD; dry run existing %v", got, statusOf(res, "meta-value"), dr.Existing)
	}
	if !slices.Equal(got, reg) {
		t.Errorf("check: %v\ndry run: %v", got, reg)
	}
	if _, err := c.Register(ctx, "meta-value", client.NewSchema{Text: schema, Metadata: &client.Metadata{Properties: map[string]string{"confluent:reserved": "x,id"}}}); err == nil {
		t.Error("registration accepted a reserved field")
	}
	// The same metadata is the registered version: unchanged.
	writeFiles(t, dir, map[string]string{
		"charter.yaml": "version: 1\nschemas:\n  - files: \"m.avsc\"\n    subject: meta-value\n    metadata: {properties: {\"confluent:reserved\": \"x\"}}\n",
	})
	if res := registryCheck(t, c, url, dir); statusOf(res, "meta-value") != project.StatusUnchanged || !res.Passed() {
		t.Errorf("same metadata: status %s, findings:\n%s", statusOf(res, "meta-value"), briefs(res.Findings))
	}
}

// TestCheckExistingNormalized: with the subject's config normalize, a
// reordered JSON schema is the registered version, for the registry
// (registration and dry run) and for check.
func TestCheckExistingNormalized(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	quietPolicy(t, c)
	ctx := t.Context()
	on := true
	if _, err := c.SetConfig(ctx, "norm-value", client.ConfigUpdate{Normalize: &on}); err != nil {
		t.Fatal(err)
	}
	const (
		ab = `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`
		ba = `{"properties":{"b":{"type":"integer"},"a":{"type":"string"}},"type":"object"}`
	)
	register(t, c, "norm-value", client.NewSchema{Type: compat.JSON, Text: ab})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"charter.yaml": "version: 1\nschemas:\n  - files: \"n.json\"\n    subject: norm-value\n",
		"n.json":       ba,
	})
	res := registryCheck(t, c, url, dir)
	if _, dr := dryRunFindings(t, c, "norm-value", client.NewSchema{Type: compat.JSON, Text: ba}); !dr.Existing || dr.Version != 1 {
		t.Errorf("dry run: existing %v version %d, want version 1", dr.Existing, dr.Version)
	}
	if st := statusOf(res, "norm-value"); st != project.StatusUnchanged {
		t.Errorf("check: status %s, want unchanged; findings:\n%s", st, briefs(res.Findings))
	}
}

// TestCheckCompatibilityGroup: with compatibilityGroup major, a candidate
// (inheriting the latest version's major=2) is compared with the versions
// of group 2 only, as registration compares it.
func TestCheckCompatibilityGroup(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	quietPolicy(t, c)
	ctx := t.Context()
	level, group := compat.BackwardTransitive, "major"
	if _, err := c.SetConfig(ctx, "grp-value", client.ConfigUpdate{Compatibility: &level, CompatibilityGroup: &group}); err != nil {
		t.Fatal(err)
	}
	schema := func(typ, extra string) string {
		return `{"type":"record","name":"G","fields":[{"name":"n","type":"` + typ + `"}` + extra + `]}`
	}
	major := func(v string) *client.Metadata { return &client.Metadata{Properties: map[string]string{"major": v}} }
	register(t, c, "grp-value", client.NewSchema{Text: schema("string", ""), Metadata: major("1")})
	register(t, c, "grp-value", client.NewSchema{Text: schema("long", ""), Metadata: major("2")})
	cand := schema("long", `,{"name":"m","type":"string","default":""}`)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"charter.yaml": "version: 1\nschemas:\n  - files: \"g.avsc\"\n    subject: grp-value\n",
		"g.avsc":       cand,
	})
	res := registryCheck(t, c, url, dir)
	reg, _ := dryRunFindings(t, c, "grp-value", client.NewSchema{Text: cand})
	if got := gateFindings(res, "grp-value"); !slices.Equal(got, reg) || !res.Passed() {
		t.Errorf("check: %v\ndry run: %v", got, reg)
	}
	if res.Subjects[0].Compared != 1 {
		t.Errorf("compared with %d versions, want 1 (group 2)", res.Subjects[0].Compared)
	}
	register(t, c, "grp-value", client.NewSchema{Text: cand})
}

// TestCheckFormatChangeAgainstRegistry: a JSON subject whose file becomes
// Avro is accepted at level NONE, as the registry accepts it, and refused
// with SCHEMA_TYPE_CHANGED at BACKWARD, as registration refuses it.
func TestCheckFormatChangeAgainstRegistry(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	quietPolicy(t, c)
	ctx := t.Context()
	none := compat.None
	if _, err := c.SetConfig(ctx, "none-value", client.ConfigUpdate{Compatibility: &none}); err != nil {
		t.Fatal(err)
	}
	const (
		js   = `{"type":"object","properties":{"n":{"type":"string"}}}`
		avsc = `{"type":"record","name":"F","fields":[{"name":"n","type":"string"}]}`
	)
	for _, s := range []string{"none-value", "back-value"} {
		register(t, c, s, client.NewSchema{Type: compat.JSON, Text: js})
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"charter.yaml": "version: 1\nschemas:\n  - files: \"none.avsc\"\n    subject: none-value\n  - files: \"back.avsc\"\n    subject: back-value\n",
		"none.avsc":    avsc,
		"back.avsc":    avsc,
	})
	res := registryCheck(t, c, url, dir)
	for _, s := range []string{"none-value", "back-value"} {
		reg, _ := dryRunFindings(t, c, s, client.NewSchema{Text: avsc})
		if got := gateFindings(res, s); !slices.Equal(got, reg) {
			t.Errorf("%s: check: %v\ndry run: %v", s, got, reg)
		}
		for _, f := range res.Findings {
			if f.Subject == s && f.RuleID == project.RuleSubjectFormatChanged && f.Severity != rule.Notice {
				t.Errorf("%s: %s is %v", s, f.RuleID, f.Severity)
			}
		}
	}
	if got := gateFindings(res, "back-value"); !slices.Contains(got, "error SCHEMA_TYPE_CHANGED .") {
		t.Errorf("back-value: %v, want SCHEMA_TYPE_CHANGED", got)
	}
	if _, err := c.Register(ctx, "none-value", client.NewSchema{Text: avsc}); err != nil {
		t.Errorf("registration at NONE: %v", err)
	}
}

// TestCheckNumbersAfterSoftDelete: after version 2 is soft-deleted, the
// next version is 3 (the highest ever + 1), in check's messages as in the
// registry's.
func TestCheckNumbersAfterSoftDelete(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	ctx := t.Context()
	none := compat.None
	if _, err := c.SetConfig(ctx, "del-value", client.ConfigUpdate{Compatibility: &none}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetPolicy(ctx, "", client.PolicyConfig{Rules: map[string]string{"OWNER_MISSING": "off", "SEMVER_MAJOR": "warning"}}); err != nil {
		t.Fatal(err)
	}
	schema := func(typ string) string {
		return `{"type":"record","name":"D","fields":[{"name":"n","type":"` + typ + `"}]}`
	}
	register(t, c, "del-value", client.NewSchema{Text: schema("string")})
	register(t, c, "del-value", client.NewSchema{Text: schema("int")})
	if _, err := c.DeleteVersion(ctx, "del-value", 2, false); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"charter.yaml": "version: 1\nschemas:\n  - files: \"d.avsc\"\n    subject: del-value\n",
		"d.avsc":       schema("long"),
	})
	res := registryCheck(t, c, url, dir)
	dr, err := c.CheckGovernance(ctx, "del-value", client.NewSchema{Text: schema("long")})
	if err != nil {
		t.Fatal(err)
	}
	if dr.Version != 3 {
		t.Fatalf("dry run: version %d, want 3", dr.Version)
	}
	var msgs []string
	for _, f := range dr.Findings {
		if f.RuleID == "SEMVER_MAJOR" {
			msgs = append(msgs, f.Message)
		}
	}
	var got []string
	for _, f := range res.Findings {
		if f.RuleID == "SEMVER_MAJOR" {
			got = append(got, f.Message)
		}
	}
	if len(msgs) == 0 || !slices.Equal(got, msgs) || !strings.HasPrefix(got[0], "version 3 ") {
		t.Errorf("SEMVER_MAJOR: check %q, registry %q", got, msgs)
	}
}
