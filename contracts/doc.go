// Package contracts verifies consumer-driven contracts for events: Pact
// message pacts, as the Pact ecosystem writes them, checked against a
// proposed schema with no broker and no running provider.
//
// ParsePact reads V3 message pacts ("messages") and V4 pacts
// ("interactions" of type "Asynchronous/Messages"): descriptions, provider
// states, contents (JSON, JSON in a string, base64), metadata and body
// matching rules (type with min/max, regex, include, integer, decimal,
// number, boolean, null, date/time/timestamp with format, equality,
// values, contentType, and the V4 notEmpty, semver, eachKey, eachValue,
// arrayContains). A Contract ties a pact to the consumer, its version and
// branch, and the subject it reads; Contract.Reads lists the fields it
// reads in compat.Field path syntax (".order.id", ".items[].sku").
//
// Verify (or a Verifier built once per schema) walks every example message
// with the proposed schema: each property the consumer reads is a site,
// matched with its Pact matching rule (weights and cascade as in the Pact
// V3 specification), and every rule of Rules runs on it: the field exists,
// its type is one the matchers accept, required-ness the consumer relies
// on survives (against an optional baseline schema), enum values the
// examples use survive, deprecated and expired fields are reported with
// their TTL state from a Deprecations source and an injected clock. Then
// the example, without what was already reported, is decoded with the
// schema's own semantics: Avro by converting the JSON form and encoding it
// with hamba/avro, Protobuf through its JSON mapping (protojson into a
// dynamicpb message of the descriptor), JSON Schema by validation with
// santhosh-tekuri/jsonschema/v6 (missing required properties forgiven: an
// example lists only what the consumer reads).
//
// Every finding names the consumer, the interaction, the field path, the
// rule ID and a message; errors break the contract, warnings and notices
// do not. The package knows nothing of storage: the registry stores
// contracts and feeds Verify with the subject's consumers (issue 5).
package contracts
