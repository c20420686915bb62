package registry_test

import (
	"strings"
	"testing"

	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry"
)

// TestPIIMapEncryption: the PII map (Lineage.Exposure) says which tagged
// fields a client-side encryption rule of the subject's latest version
// covers (an ENCRYPT rule on the PII tag, as Confluent's field encryption
// applies it) and which travel in the clear; a disabled or READ-only rule
// covers nothing, and a later version without the rule uncovers them.
func TestPIIMapEncryption(t *testing.T) {
	svc, _ := newGovService(t)
	const schema = `{"type":"record","name":"Customer","fields":[` +
		`{"name":"id","type":"long"},` +
		`{"name":"email","type":"string","confluent:tags":["PII"]},` +
		`{"name":"phone","type":"string","confluent:tags":["PII","CONTACT"]},` +
		`{"name":"note","type":"string","default":"","confluent:tags":["PII"]}]}`
	rules := func(extra string) []byte {
		return []byte(`{"domainRules":[{"name":"encrypt-contact","kind":"TRANSFORM","mode":"WRITEREAD","type":"ENCRYPT","tags":["CONTACT"],` +
			`"params":{"encrypt.kek.name":"kek1","encrypt.kms.type":"local-kms","encrypt.kms.key.id":"mykey"}}` + extra + `]}`)
	}
	mustRegister(t, svc, "customers-value", registry.RegisterRequest{Schema: schema, RuleSet: rules(
		`,{"name":"off","kind":"TRANSFORM","mode":"WRITEREAD","type":"ENCRYPT","tags":["PII"],"disabled":true}` +
			`,{"name":"read-only","kind":"TRANSFORM","mode":"READ","type":"ENCRYPT","tags":["PII"]}`)})
	mustRegister(t, svc, "orders-value", registry.RegisterRequest{Schema: `{"type":"record","name":"Order","fields":[{"name":"buyer_email","type":"string","confluent:tags":["PII"]}]}`,
		RuleSet: []byte(`{"encodingRules":[{"name":"whole","kind":"TRANSFORM","mode":"WRITEREAD","type":"ENCRYPT_PAYLOAD","params":{"encrypt.kek.name":"kek2"}}]}`)})

	got := map[string]*lineage.Encryption{}
	for _, subject := range []string{"customers-value", "orders-value"} {
		for _, e := range must[[]lineage.Exposure](t, "exposure")(svc.Lineage().Exposure(t.Context(), subject, "PII")) {
			got[e.Subject+" "+e.Path] = e.Encryption
		}
	}
	if len(got) != 4 {
		t.Fatalf("PII map %v, want the 4 PII fields", got)
	}
	if e := got["customers-value .phone"]; e == nil || e.Rule != "encrypt-contact" || e.Type != "ENCRYPT" || e.Kek != "kek1" || e.KmsType != "local-kms" || e.Version != 1 {
		t.Errorf(".phone: %+v, want covered by encrypt-contact (kek1, local-kms) of version 1", e)
	}
	for _, p := range []string{"customers-value .email", "customers-value .note"} {
		if e := got[p]; e != nil {
			t.Errorf("%s: %+v, want not covered (the PII rules are disabled or READ-only)", p, e)
		}
	}
	if e := got["orders-value .buyer_email"]; e == nil || e.Type != "ENCRYPT_PAYLOAD" || e.Kek != "kek2" {
		t.Errorf(".buyer_email: %+v, want covered by the ENCRYPT_PAYLOAD rule", e)
	}

	// A field tagged PII by Charter's governance tags only: no client
	// sees that tag, so the ENCRYPT rule on PII does not cover it.
	mustRegister(t, svc, "profiles-value", registry.RegisterRequest{Schema: `{"type":"record","name":"Profile","fields":[{"name":"nickname","type":"string"}]}`,
		RuleSet: []byte(`{"domainRules":[{"name":"encrypt-pii","kind":"TRANSFORM","mode":"WRITEREAD","type":"ENCRYPT","tags":["PII"]}]}`)})
	if _, err := svc.Governance().SetTags(t.Context(), "profiles-value", map[string][]string{".nickname": {"PII"}}); err != nil {
		t.Fatal(err)
	}
	// AnnotateEncryption (the web UI's PII map, whose exposures carry only
	// the tags asked for) reads the field's own tags: .phone is covered by
	// its CONTACT tag, .nickname not by its governance PII tag.
	ex := []lineage.Exposure{{Subject: "profiles-value", Path: ".nickname", Tags: []string{"PII"}},
		{Subject: "customers-value", Path: ".phone", Tags: []string{"PII"}}}
	if err := svc.Lineage().AnnotateEncryption(t.Context(), ex); err != nil {
		t.Fatal(err)
	}
	if ex[0].Encryption != nil || ex[1].Encryption == nil || ex[1].Encryption.Rule != "encrypt-contact" {
		t.Errorf("AnnotateEncryption: .nickname %+v, .phone %+v; want .nickname in the clear, .phone by encrypt-contact", ex[0].Encryption, ex[1].Encryption)
	}

	// A later version whose rule set has no rule (a registration without
	// a ruleSet would inherit the previous one, as in Confluent): the map
	// follows the latest.
	v2 := strings.Replace(schema, `]}`, `,{"name":"vip","type":"boolean","default":false}]}`, 1)
	if ss := mustRegister(t, svc, "customers-value", registry.RegisterRequest{Schema: v2, RuleSet: []byte(`{"domainRules":[]}`)}); ss.Version != 2 {
		t.Fatalf("version %d, want 2", ss.Version)
	}
	for _, e := range must[[]lineage.Exposure](t, "exposure")(svc.Lineage().Exposure(t.Context(), "customers-value", "PII")) {
		if e.Encryption != nil {
			t.Errorf("%s after a version without rules: %+v, want not covered", e.Path, e.Encryption)
		}
	}
}
