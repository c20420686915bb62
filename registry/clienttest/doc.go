// Package clienttest proves that real Confluent Schema Registry clients work
// against Charter, black-box: its tests build ./cmd/charter once, start
// `charter serve` on a free loopback port with a fresh SQLite file, and drive
// it over HTTP with
//
//   - the Go client github.com/confluentinc/confluent-kafka-go/v2/schemaregistry
//     (needs cgo; confluent_test.go) and its serde packages: serde/avrov2
//     (confluent_test.go), serde/protobuf with messages of a .proto file
//     compiled at test time and an import registered as a reference
//     (confluent_protobuf_test.go), serde/jsonschema with a "$ref" resolved
//     through a reference (confluent_jsonschema_test.go), and data
//     contracts: metadata and rule sets, config layers, major versions with
//     GET /subjects/{s}/metadata and JSONata migration rules run by the
//     client (confluent_contract_test.go);
//   - the npm client @kafkajs/confluent-schema-registry, through
//     testdata/kafkajs/roundtrip.mjs (needs `npm ci` there; kafkajs_test.go);
//   - plain HTTP, killing the server with SIGKILL mid-stream to prove that
//     every answered registration is durable (kill_test.go);
//   - two servers on one PostgreSQL schema, as replicas: 64 concurrent
//     writers split across them, SIGKILL of one mid-storm, and how soon a
//     write through one is seen through the other (replicas_test.go; they
//     need REGISTRY_TEST_POSTGRES_DSN, see registry/postgres/pgtest).
//
// The package holds no code of its own outside tests.
package clienttest
