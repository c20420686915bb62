// Package clienttest proves that real Confluent Schema Registry clients work
// against Charter, black-box: its tests build ./cmd/charter once, start
// `charter serve` on a free loopback port with a fresh SQLite file, and drive
// it over HTTP with
//
//   - the Go client github.com/confluentinc/confluent-kafka-go/v2/schemaregistry
//     and its serde/avrov2 package (needs cgo; confluent_test.go);
//   - the npm client @kafkajs/confluent-schema-registry, through
//     testdata/kafkajs/roundtrip.mjs (needs `npm ci` there; kafkajs_test.go);
//   - plain HTTP, killing the server with SIGKILL mid-stream to prove that
//     every answered registration is durable (kill_test.go).
//
// The package holds no code of its own outside tests.
package clienttest
