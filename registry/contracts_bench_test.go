package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// benchPact is a V3 message pact of consumer with n interactions, each
// reading id, carrier_code and the carrier record.
func benchPact(consumer string, n int) json.RawMessage {
	msgs := make([]any, n)
	for i := range msgs {
		msgs[i] = map[string]any{
			"description": fmt.Sprintf("shipment event %d", i),
			"contents": map[string]any{"id": fmt.Sprintf("s-%d", i), "carrier_code": "DHL",
				"carrier": map[string]any{"acme.Carrier": map[string]any{"code": "DHL"}}},
			"matchingRules": map[string]any{"body": map[string]any{"$.id": map[string]any{"matchers": []any{map[string]any{"match": "regex", "regex": "s-\\d+"}}}}},
		}
	}
	b, _ := json.Marshal(map[string]any{"consumer": map[string]any{"name": consumer}, "provider": map[string]any{"name": "fulfillment"},
		"messages": msgs, "metadata": map[string]any{"pactSpecification": map[string]any{"version": "3.0.0"}}})
	return b
}

// BenchmarkVerifyContracts verifies 200 published contracts of 10
// interactions each against one proposed schema through the Service
// (POST …/contracts/verify without HTTP): store reads, pact parsing,
// verification and policy mapping. Reports ns per contract and per
// interaction.
func BenchmarkVerifyContracts(b *testing.B) {
	ctx := context.Background()
	svc, _ := newContractService(b)
	if _, err := svc.Register(ctx, "shipments", registry.RegisterRequest{Schema: shipV3}); err != nil {
		b.Fatal(err)
	}
	const contracts, interactions = 200, 10
	for i := range contracts {
		if _, err := svc.ContractRegistry().PublishContract(ctx, registry.PublishContractRequest{Subject: "shipments", ConsumerVersion: "1",
			Pact: benchPact(fmt.Sprintf("team-%03d", i), interactions)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		v, err := svc.ContractRegistry().VerifyContracts(ctx, "shipments", registry.RegisterRequest{Schema: shipNoCode})
		if err != nil {
			b.Fatal(err)
		}
		if len(v.Contracts) != contracts || !v.Broken || len(v.Findings) < contracts {
			b.Fatalf("%d contracts, %d findings", len(v.Contracts), len(v.Findings))
		}
	}
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(per/1e6, "ms/verify")
	b.ReportMetric(per/contracts, "ns/contract")
	b.ReportMetric(per/(contracts*interactions), "ns/interaction")
}
