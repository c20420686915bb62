package clienttest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/avrov2"

	"github.com/charter-dev/charter/registry/auth"
)

// credentials are what a client sends: HTTP basic or a bearer token.
type credentials struct {
	name           string // basic or bearer, for subtest names
	user, password string
	token          string
}

// authServer is a `charter serve --auth-config` whose one principal,
// ci-client (team clients), has both a password and a token.
type authServer struct {
	*server
	basic, bearer credentials
}

func startAuthServer(t *testing.T) *authServer {
	t.Helper()
	token, digest, err := auth.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	const password = "correct horse battery staple"
	hash, err := auth.HashPassword(password)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "auth.yaml")
	body := fmt.Sprintf("anonymous: none\nprincipals:\n  - name: ci-client\n    teams: [clients]\n    tokens_sha256: [%s]\n    password_bcrypt: '%s'\n", digest, hash)
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServerDB(t, filepath.Join(dir, "charter.db"), "--auth-config", file)
	return &authServer{server: s,
		basic:  credentials{name: "basic", user: "ci-client", password: password},
		bearer: credentials{name: "bearer", token: token},
	}
}

// newAuthSRClient is a confluent-kafka-go client sending c.
func newAuthSRClient(t *testing.T, url string, c credentials) schemaregistry.Client {
	t.Helper()
	conf := schemaregistry.NewConfig(url)
	if c.token != "" {
		// STATIC_TOKEN also sends the Confluent Cloud cluster and pool
		// headers, which Charter ignores.
		conf.BearerAuthCredentialsSource = "STATIC_TOKEN"
		conf.BearerAuthToken = c.token
		conf.BearerAuthLogicalCluster = "lsrc-charter"
		conf.BearerAuthIdentityPoolID = "pool-charter"
	} else {
		conf.BasicAuthCredentialsSource = "USER_INFO"
		conf.BasicAuthUserInfo = c.user + ":" + c.password
	}
	sr, err := schemaregistry.NewClient(conf)
	if err != nil {
		t.Fatalf("new schema registry client: %v", err)
	}
	t.Cleanup(func() { _ = sr.Close() })
	return sr
}

// TestConfluentGoClientAuth: confluent-kafka-go, unmodified, with basic
// auth and with a static bearer token: register (claiming the subject for
// the principal's team), look up, fetch, check compatibility, change the
// subject's level and round-trip a record through the Avro serde; a wrong
// password and a wrong token get 40101.
func TestConfluentGoClientAuth(t *testing.T) {
	s := startAuthServer(t)
	for _, c := range []credentials{s.basic, s.bearer} {
		t.Run(c.name, func(t *testing.T) {
			subject := "auth-" + c.name + "-orders-value"
			sr := newAuthSRClient(t, s.URL, c)
			id, err := sr.Register(subject, schemaregistry.SchemaInfo{Schema: orderV1}, false)
			if err != nil || id <= 0 {
				t.Fatalf("Register: %d %v", id, err)
			}
			fresh := newAuthSRClient(t, s.URL, c)
			if got, err := fresh.GetID(subject, schemaregistry.SchemaInfo{Schema: orderV1}, false); err != nil || got != id {
				t.Errorf("GetID: %d %v; want %d", got, err, id)
			}
			info, err := newAuthSRClient(t, s.URL, c).GetBySubjectAndID("", id)
			if err != nil {
				t.Fatalf("GetBySubjectAndID: %v", err)
			}
			wantSameSchema(t, "GetBySubjectAndID", info.Schema, orderV1)
			ok, err := sr.TestCompatibility(subject, -1, schemaregistry.SchemaInfo{Schema: orderV2})
			if err != nil || !ok {
				t.Errorf("TestCompatibility v2: %v %v; want compatible", ok, err)
			}
			if _, err := sr.UpdateCompatibility(subject, schemaregistry.Full); err != nil {
				t.Errorf("UpdateCompatibility of its own subject: %v", err)
			}

			ser, err := avrov2.NewSerializer(newAuthSRClient(t, s.URL, c), serde.ValueSerde, avrov2.NewSerializerConfig())
			if err != nil {
				t.Fatal(err)
			}
			topic := "auth-" + c.name + "-payments"
			in := Payment{ID: 7, Amount: 3.5, Note: "ok"}
			msg, err := ser.Serialize(topic, &in)
			if err != nil {
				t.Fatalf("Serialize (auto-register): %v", err)
			}
			de, err := avrov2.NewDeserializer(newAuthSRClient(t, s.URL, c), serde.ValueSerde, avrov2.NewDeserializerConfig())
			if err != nil {
				t.Fatal(err)
			}
			var out Payment
			if err := de.DeserializeInto(topic, msg, &out); err != nil || out != in {
				t.Errorf("DeserializeInto: %+v %v; want %+v", out, err, in)
			}
		})
	}
	wrong := []credentials{
		{name: "wrong password", user: "ci-client", password: "tr0ub4dor"},
		{name: "wrong token", token: "charter_not-a-token"},
	}
	for _, c := range wrong {
		_, err := newAuthSRClient(t, s.URL, c).Register("auth-refused-value", schemaregistry.SchemaInfo{Schema: orderV1}, false)
		wantRESTError(t, c.name, err, 40101)
	}
	_, err := newSRClient(t, s.URL).GetAllSubjects()
	wantRESTError(t, "no credentials", err, 40101)
}

// TestKafkaJSClientAuth runs the kafkajs round trip (roundtrip.mjs) with
// basic auth (the client's auth option) and with a bearer token (its
// middlewares option).
func TestKafkaJSClientAuth(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(kafkajsDir, "node_modules", "@kafkajs", "confluent-schema-registry")); err != nil {
		missing(t, "testdata/kafkajs/node_modules is absent: run `npm ci` in registry/clienttest/testdata/kafkajs")
	}
	for _, mode := range []string{"basic", "bearer"} {
		t.Run(mode, func(t *testing.T) {
			s := startAuthServer(t) // roundtrip.mjs uses fixed subjects
			env := withoutCharterEnv(os.Environ())
			if mode == "basic" {
				env = append(env, "REGISTRY_USER="+s.basic.user, "REGISTRY_PASSWORD="+s.basic.password)
			} else {
				env = append(env, "REGISTRY_TOKEN="+s.bearer.token)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "roundtrip.mjs", s.URL)
			cmd.Dir = kafkajsDir
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			t.Logf("node roundtrip.mjs (%s):\n%s", mode, out)
			if err != nil {
				t.Fatalf("kafkajs round trip with %s auth failed: %v", mode, err)
			}
		})
	}
}

// TestPythonClientAuth: Confluent's Python client (Debian's
// python3-confluent-kafka, whose registry client has basic auth only)
// registers and reads back with basic.auth.user.info, and a wrong
// password is refused with 40101.
func TestPythonClientAuth(t *testing.T) {
	py := pythonWithConfluent(t)
	s := startAuthServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "auth_roundtrip.py", s.URL, s.basic.user, s.basic.password)
	cmd.Dir = pythonDir
	out, err := cmd.CombinedOutput()
	t.Logf("python3 auth_roundtrip.py:\n%s", out)
	if err != nil {
		t.Fatalf("Python client with basic auth failed: %v", err)
	}
}
