package clienttest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// confluentJSDir holds package.json, the committed package-lock.json and
// roundtrip.mjs; node_modules comes from `npm ci` there (see .ci/run).
const confluentJSDir = "testdata/confluentjs"

// TestConfluentJSClient runs Confluent's official JavaScript client,
// @confluentinc/schemaregistry, unmodified, through
// testdata/confluentjs/roundtrip.mjs: client calls (register, lookup,
// fetch, versions, subjects, compatibility, subject level, a 409), then
// Avro, JSON Schema and Protobuf serde (the Protobuf serializer registers
// a base64 FileDescriptorProto, the deserializer reads it back with
// ?format=serialized) — without authentication, with basic credentials
// and with a static bearer token. Outside CI it skips when `npm ci` has
// not been run; with CI=true it fails instead.
func TestConfluentJSClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(confluentJSDir, "node_modules", "@confluentinc", "schemaregistry")); err != nil {
		missing(t, "testdata/confluentjs/node_modules is absent: run `npm ci` in registry/clienttest/testdata/confluentjs")
	}
	for _, mode := range []string{"no auth", "basic", "bearer"} {
		t.Run(mode, func(t *testing.T) {
			env := withoutCharterEnv(os.Environ())
			var url string
			switch mode {
			case "no auth":
				url = startServer(t).URL
			case "basic":
				s := startAuthServer(t)
				url = s.URL
				env = append(env, "REGISTRY_USER="+s.basic.user, "REGISTRY_PASSWORD="+s.basic.password)
			case "bearer":
				s := startAuthServer(t)
				url = s.URL
				env = append(env, "REGISTRY_TOKEN="+s.bearer.token)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "roundtrip.mjs", url)
			cmd.Dir = confluentJSDir
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			t.Logf("node roundtrip.mjs (%s):\n%s", mode, out)
			if err != nil {
				t.Fatalf("official JS client round trip (%s) failed: %v", mode, err)
			}
		})
	}
}
