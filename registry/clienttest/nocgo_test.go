//go:build !cgo

package clienttest

import "testing"

// TestConfluentGoClientNeedsCgo stands in for confluent_test.go, whose serde
// packages link librdkafka through cgo: in CI a build without cgo fails here
// instead of dropping the Confluent client tests silently.
func TestConfluentGoClientNeedsCgo(t *testing.T) {
	msg := "the confluent-kafka-go client tests need cgo (CGO_ENABLED=1 and gcc)"
	if inCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
