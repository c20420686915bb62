package gate_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/registry/governance"
)

// pactReadingCarrierCode is consumer's message pact reading .id and
// .carrier_code.
func pactReadingCarrierCode(consumer string) json.RawMessage {
	return json.RawMessage(`{"consumer": {"name": "` + consumer + `"}, "provider": {"name": "s"},
  "messages": [{"description": "a shipment", "contents": {"id": "s-1", "carrier_code": "DHL"},
    "matchingRules": {"body": {"$.id": {"matchers": [{"match": "type"}]}, "$.carrier_code": {"matchers": [{"match": "type"}]}}}}],
  "metadata": {"pactSpecification": {"version": "3.0.0"}}}`)
}

// TestConsumerOnlyFindingsForVerifyingConsumers: the contract findings
// about a consumer's own use of deprecated fields never come with a
// producer's registration (Verifying empty), nor for a published
// contract of another consumer; they come for the consumers Verifying
// names (charter check of the consumer's own repository): an expired
// field read without an extension is an error, with one a notice.
func TestConsumerOnlyFindingsForVerifyingConsumers(t *testing.T) {
	f, err := formats.Lookup(compat.Avro, "")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := f.Parse(`{"type":"record","name":"S","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string","default":""}]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	day0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := day0.AddDate(0, 0, 100)
	dep := governance.NewDeprecation("s-value", governance.FieldItem(".carrier_code"), day0, 90, governance.SourceAPI)
	dep.Extensions = []governance.Extension{{Consumer: "billing", Until: now.AddDate(0, 0, 30), Reason: "migrating", Approver: "lead", GrantedAt: day0}}
	in := gate.Input{Subject: "s-value", Now: now, Format: f, Level: compat.Backward,
		Candidate: governance.Version{Version: 2, Schema: schema},
		Latest:    &governance.Version{Version: 1, Schema: schema},
		Against:   []compat.Previous{{Version: 1, Schema: schema}},
		State: governance.SubjectState{Subject: "s-value", Deprecations: []governance.Deprecation{dep},
			Policy: governance.PolicyConfig{Rules: map[string]string{governance.RuleOwnerMissing: "off"}},
			Contracts: []governance.PublishedContract{
				{Consumer: "returns", Pact: pactReadingCarrierCode("returns")},
				{Consumer: "billing", Pact: pactReadingCarrierCode("billing")},
			}}}
	consumerOnly := func(in gate.Input) []string {
		t.Helper()
		res, err := gate.Evaluate(in)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, fd := range res.Findings {
			switch fd.RuleID {
			case contracts.RuleFieldDeprecated, contracts.RuleFieldExpired, contracts.RuleFieldExtended:
				out = append(out, fd.Severity.String()+" "+fd.RuleID+" "+fd.Path+" "+fd.Consumer)
			}
		}
		return out
	}
	for _, tc := range []struct {
		verifying []string
		want      []string
	}{
		{nil, nil}, // a producer's registration
		{[]string{"returns"}, []string{"error CONTRACT_FIELD_EXPIRED .carrier_code returns"}},
		{[]string{"billing"}, []string{"notice CONTRACT_FIELD_EXTENDED .carrier_code billing"}},
		{[]string{"someone-else"}, nil},
	} {
		in.Verifying = tc.verifying
		if got := consumerOnly(in); !slices.Equal(got, tc.want) {
			t.Errorf("verifying %v: consumer-only findings %q, want %q", tc.verifying, got, tc.want)
		}
	}
}
