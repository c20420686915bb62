package clienttest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// kafkajsDir holds package.json, the committed package-lock.json and
// roundtrip.mjs; node_modules comes from `npm ci` there (see .ci/run).
const kafkajsDir = "testdata/kafkajs"

// TestKafkaJSClient runs the npm client @kafkajs/confluent-schema-registry
// against charter serve through testdata/kafkajs/roundtrip.mjs: register,
// look up, Avro encode/decode, compatibility, Protobuf (.proto text) and
// JSON Schema serde, and the 404/40408 it expects from
// GET /config/{subject} before a subject's first registration. Outside CI
// it skips when `npm ci` has not been run; with CI=true it fails instead.
func TestKafkaJSClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(kafkajsDir, "node_modules", "@kafkajs", "confluent-schema-registry")); err != nil {
		missing(t, "testdata/kafkajs/node_modules is absent: run `npm ci` in registry/clienttest/testdata/kafkajs")
	}
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "roundtrip.mjs", s.URL)
	cmd.Dir = kafkajsDir
	out, err := cmd.CombinedOutput()
	t.Logf("node roundtrip.mjs %s:\n%s", s.URL, out)
	if err != nil {
		t.Fatalf("kafkajs round trip failed: %v", err)
	}
}

// missing skips the test, or fails it in CI, where every client must run.
func missing(t *testing.T, why string) {
	t.Helper()
	if inCI() {
		t.Fatalf("%s (CI=true: the kafkajs client test must run)", why)
	}
	t.Skip(why)
}
