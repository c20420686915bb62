package registry_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// TestContractsAvroDefaultAddedAfterTwin is the tester's reproduction
// through the registry: U{a, b} registered, a pact whose example is
// {"a":"s"} published (which verifies it against U{a, b}), then U{a, b
// with a default} proposed. The two schemas have one Avro fingerprint;
// with hamba's shared codec cache the proposal was refused with
// CONTRACT_EXAMPLE_UNDECODABLE ("avro: missing required field b": the
// encoder of U{a, b}) until the server restarted. The dry run must allow
// it, and so must the registration, and both orders must agree.
func TestContractsAvroDefaultAddedAfterTwin(t *testing.T) {
	const (
		plain     = `{"type":"record","name":"U","fields":[{"name":"a","type":"string"},{"name":"b","type":"string"}]}`
		defaulted = `{"type":"record","name":"U","fields":[{"name":"a","type":"string"},{"name":"b","type":"string","default":"x"}]}`
	)
	pact := json.RawMessage(`{"consumer":{"name":"reader"},"provider":{"name":"writer"},` +
		`"messages":[{"description":"a U","contents":{"a":"s"}}],"metadata":{"pactSpecification":{"version":"3.0.0"}}}`)
	for _, order := range [][2]string{{plain, defaulted}, {defaulted, plain}} {
		ctx := context.Background()
		svc, _ := newContractService(t)
		if _, err := svc.Register(ctx, "u", registry.RegisterRequest{Schema: order[0]}); err != nil {
			t.Fatal(err)
		}
		rec, err := svc.ContractRegistry().PublishContract(ctx, registry.PublishContractRequest{Subject: "u", ConsumerVersion: "1", Pact: pact})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Verification.Findings) != 0 {
			t.Fatalf("publish against %s: findings %+v", order[0], rec.Verification.Findings)
		}
		v, err := svc.ContractRegistry().VerifyContracts(ctx, "u", registry.RegisterRequest{Schema: order[1]})
		if err != nil {
			t.Fatal(err)
		}
		if !v.Allowed || v.Broken || len(v.Findings) != 0 {
			t.Fatalf("dry run of %s after %s: allowed %v broken %v findings %+v", order[1], order[0], v.Allowed, v.Broken, v.Findings)
		}
		if _, err := svc.Register(ctx, "u", registry.RegisterRequest{Schema: order[1]}); err != nil {
			t.Fatalf("register %s after %s: %v", order[1], order[0], err)
		}
	}
}
