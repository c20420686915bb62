package project_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/client"
)

// TestCheckVerifiesTheRepositorysOwnPacts: in a consumer's repository
// (charter.yaml lists its pact), check is the consumer's own
// verification: its pact reading a field whose deprecation has expired at
// --at fails with CONTRACT_FIELD_EXPIRED naming the consumer, and with a
// running extension it is a CONTRACT_FIELD_EXTENDED notice. The
// producer's dry run of the same schema, with the same pact published,
// never reports either.
func TestCheckVerifiesTheRepositorysOwnPacts(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	quietPolicy(t, c)
	ctx := t.Context()
	const schema = `{"type":"record","name":"S","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string","default":""}]}`
	const pact = `{"consumer": {"name": "returns"}, "provider": {"name": "s"},
  "messages": [{"description": "a shipment", "contents": {"id": "s-1", "carrier_code": "DHL"},
    "matchingRules": {"body": {"$.id": {"matchers": [{"match": "type"}]}, "$.carrier_code": {"matchers": [{"match": "type"}]}}}}],
  "metadata": {"pactSpecification": {"version": "3.0.0"}}}`
	register(t, c, "s-value", client.NewSchema{Text: schema})
	// Both consumers publish their pacts (before the TTL is over);
	// billing's is another consumer's: never judged as this repository's.
	for _, consumer := range []string{"returns", "billing"} {
		if _, err := c.PublishContract(ctx, "s-value", client.PublishContract{Consumer: consumer, ConsumerVersion: "1.0.0",
			Pact: json.RawMessage(strings.ReplaceAll(pact, "returns", consumer))}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Deprecate(ctx, "s-value", client.DeprecateRequest{Path: ".carrier_code", TTLDays: 30, Replacement: ".carrier"}); err != nil {
		t.Fatal(err)
	}
	at := time.Now().AddDate(0, 0, 40)
	// The consumer's repository: the producer's schema as registered, and
	// its own pact, or the same with a field added (a new version).
	for _, candidate := range []string{schema, strings.Replace(schema, `]}`, `,{"name":"carrier","type":"string","default":""}]}`, 1)} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"charter.yaml":       "version: 1\nschemas: [{files: \"s.avsc\", subject: s-value}]\ncontracts: [{pact: pacts/returns.json, subject: s-value}]\n",
			"s.avsc":             candidate,
			"pacts/returns.json": pact,
		})
		check := func() []rule.Finding {
			t.Helper()
			res, err := project.Check(context.Background(), mustFind(t, dir), project.Options{Baseline: project.RegistryBaseline(c, url), At: at})
			if err != nil {
				t.Fatal(err)
			}
			var out []rule.Finding
			for _, f := range res.Findings {
				if strings.HasPrefix(f.RuleID, "CONTRACT_FIELD_") {
					out = append(out, f)
				}
			}
			return out
		}
		fs := check()
		if len(fs) != 1 || fs[0].RuleID != "CONTRACT_FIELD_EXPIRED" || fs[0].Severity != rule.Error || fs[0].Consumer != "returns" ||
			!strings.Contains(fs[0].Message, "consumer returns") || !strings.Contains(fs[0].Message, "pacts/returns.json") || fs[0].Path != ".carrier_code" {
			t.Errorf("no extension: contract findings %q, want one error CONTRACT_FIELD_EXPIRED .carrier_code of consumer returns", briefs(fs))
		}
		dry, err := c.CheckGovernanceAt(ctx, "s-value", client.NewSchema{Text: candidate}, at)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range dry.Findings {
			if strings.HasPrefix(f.RuleID, "CONTRACT_FIELD_") {
				t.Errorf("the producer's dry run reports %s", f.RuleID)
			}
		}
	}
	if _, err := c.GrantExtension(ctx, "s-value", ".carrier_code", client.ExtensionRequest{Consumer: "returns", Days: 60, Reason: "migrating", Approver: "lead"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"charter.yaml":       "version: 1\nschemas: [{files: \"s.avsc\", subject: s-value}]\ncontracts: [{pact: pacts/returns.json, subject: s-value}]\n",
		"s.avsc":             schema,
		"pacts/returns.json": pact,
	})
	res, err := project.Check(context.Background(), mustFind(t, dir), project.Options{Baseline: project.RegistryBaseline(c, url), At: at})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		if strings.HasPrefix(f.RuleID, "CONTRACT_FIELD_") {
			got = append(got, f.Severity.String()+" "+f.RuleID+" "+f.Path+" "+f.Consumer)
		}
	}
	if want := "notice CONTRACT_FIELD_EXTENDED .carrier_code returns"; len(got) != 1 || got[0] != want {
		t.Errorf("with an extension: contract findings %q, want %q", got, want)
	}
	if !res.Passed() {
		t.Errorf("with an extension, check fails: %s", briefs(res.Findings))
	}
}
