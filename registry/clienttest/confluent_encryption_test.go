//go:build cgo

package clienttest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/rules/encryption"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/rules/encryption/localkms"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/avrov2"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/jsonschema"
	"github.com/hamba/avro/v2"
	tinkregistry "github.com/tink-crypto/tink-go/v2/core/registry"
)

// customerSchema tags email PII (Confluent's confluent:tags on an Avro
// field).
const customerSchema = `{"type":"record","name":"Customer","namespace":"com.example","fields":[` +
	`{"name":"id","type":"long"},` +
	`{"name":"email","type":"string","confluent:tags":["PII"]}]}`

// PIICustomer is a customerSchema record.
type PIICustomer struct {
	ID    int64  `avro:"id"`
	Email string `avro:"email"`
}

// encryptionRules is Confluent's field-level encryption rule set: an
// ENCRYPT domain rule on the fields tagged PII, with a KEK in the local
// KMS (a key derived from a secret the clients hold).
func encryptionRules(kek string) *schemaregistry.RuleSet {
	return &schemaregistry.RuleSet{DomainRules: []schemaregistry.Rule{{
		Name: "encrypt-pii",
		Kind: "TRANSFORM",
		Mode: "WRITEREAD",
		Type: "ENCRYPT",
		Tags: []string{"PII"},
		Params: map[string]string{
			"encrypt.kek.name":   kek,
			"encrypt.kms.type":   "local-kms",
			"encrypt.kms.key.id": "mykey",
		},
		OnFailure: "ERROR,NONE",
	}}}
}

// Importing the encryption package registers its ENCRYPT and
// ENCRYPT_PAYLOAD executors in the global rule registry, and each executor
// there is configured, once per process, with the registry URL of the
// first serde made: every later serde of another server (each test
// starts its own) would fail with "executor already configured". This
// package's serdes therefore get those types from a placeholder that
// accepts any configuration and refuses to run; the encryption test gives
// its serdes registries of their own (withEncryption).
func init() {
	for _, typ := range []string{"ENCRYPT", "ENCRYPT_PAYLOAD"} {
		serde.GlobalRuleRegistry().RegisterExecutor(unconfiguredExecutor(typ))
	}
}

type unconfiguredExecutor string

func (u unconfiguredExecutor) Configure(*schemaregistry.Config, map[string]string) error { return nil }
func (u unconfiguredExecutor) Type() string                                              { return string(u) }
func (u unconfiguredExecutor) Close() error                                              { return nil }
func (u unconfiguredExecutor) Transform(serde.RuleContext, interface{}) (interface{}, error) {
	return nil, fmt.Errorf("clienttest: no %s executor in the global rule registry; give the serde its own (withEncryption)", string(u))
}

// ruleRegistrySetter is a serializer or deserializer.
type ruleRegistrySetter interface {
	SetRuleRegistry(r *serde.RuleRegistry, ruleConfig map[string]string) error
}

// withEncryption gives s a rule registry of its own with a fresh field
// encryption executor (its own DEK registry client, so nothing is cached
// from another serde) configured with the local KMS secret.
func withEncryption(t *testing.T, s ruleRegistrySetter, secret string) {
	t.Helper()
	reg := serde.NewRuleRegistry()
	reg.RegisterExecutor(encryption.NewFieldExecutor())
	if err := s.SetRuleRegistry(&reg, map[string]string{"secret": secret}); err != nil {
		t.Fatalf("SetRuleRegistry: %v", err)
	}
}

// getJSON GETs url and decodes its 200 answer into dst.
func getJSON(t *testing.T, url string, dst any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, dst); err != nil {
		t.Fatalf("GET %s: %v (%s)", url, err, body)
	}
}

// TestConfluentFieldEncryption is issue 15 §3's acceptance test: with
// confluent-kafka-go's field encryption rule executor and its local KMS
// driver, a record whose PII-tagged field an ENCRYPT rule covers
// round-trips through charter serve encrypted: the serializer creates the
// KEK and the DEK (wrapped on the client) in Charter's DEK registry, a
// fresh deserializer holding the KMS secret fetches them from Charter and
// reads the field back, and without the secret (or without the rule
// executor) the field stays ciphertext. As Confluent's
// TestAvroSerdeEncryption (confluent-kafka-go, serde/avrov2), against a
// real registry instead of mock://.
func TestConfluentFieldEncryption(t *testing.T) {
	s := startServer(t)
	const (
		subject = "customers-value"
		kek     = "kek-customers"
		secret  = "the-local-kms-secret"
		email   = "alice.secret@example.com"
	)
	id, err := newSRClient(t, s.URL).Register(subject, schemaregistry.SchemaInfo{
		Schema: customerSchema, SchemaType: "AVRO", RuleSet: encryptionRules(kek)}, false)
	if err != nil {
		t.Fatalf("Register %s with its ENCRYPT rule: %v", subject, err)
	}

	conf := avrov2.NewSerializerConfig()
	conf.AutoRegisterSchemas = false
	conf.UseLatestVersion = true
	ser, err := avrov2.NewSerializer(newSRClient(t, s.URL), serde.ValueSerde, conf)
	if err != nil {
		t.Fatalf("NewSerializer: %v", err)
	}
	withEncryption(t, ser, secret)
	in := PIICustomer{ID: 7, Email: email}
	rec := in // Serialize encrypts the fields of the record it is given
	msg, err := ser.Serialize("customers", &rec)
	if err != nil {
		t.Fatalf("Serialize with the ENCRYPT rule: %v", err)
	}
	if got := wireID(t, msg); got != id {
		t.Errorf("wire schema ID %d, want %d", got, id)
	}

	// The field is ciphertext on the wire: decoding the Avro payload with
	// the schema alone (no key) gives base64 ciphertext, not the address.
	if bytes.Contains(msg, []byte(email)) {
		t.Fatalf("the serialized record holds the plaintext %q", email)
	}
	var raw PIICustomer
	if err := avro.Unmarshal(avro.MustParse(customerSchema), msg[5:], &raw); err != nil {
		t.Fatalf("decode the payload with the schema: %v", err)
	}
	ct, err := base64.StdEncoding.DecodeString(raw.Email)
	if raw.ID != 7 || raw.Email == email || err != nil || len(ct) <= len(email) {
		t.Fatalf("payload decoded without the key: %+v (base64: %v), want id 7 and an encrypted email", raw, err)
	}

	// The KEK and the DEK are in Charter's DEK registry.
	var k struct {
		Name, KmsType, KmsKeyID string
		Shared, Deleted         bool
	}
	getJSON(t, s.URL+"/dek-registry/v1/keks/"+kek, &k)
	if k.Name != kek || k.KmsType != "local-kms" || k.KmsKeyID != "mykey" || k.Shared || k.Deleted {
		t.Errorf("KEK %+v, want the executor's local-kms KEK mykey, not shared", k)
	}
	var subjects []string
	getJSON(t, s.URL+"/dek-registry/v1/keks/"+kek+"/deks", &subjects)
	if len(subjects) != 1 || subjects[0] != subject {
		t.Errorf("DEK subjects %v, want [%s]", subjects, subject)
	}
	var d struct {
		KekName, Subject, Algorithm string
		Version                     int
		EncryptedKeyMaterial        string
		KeyMaterial                 *string
	}
	getJSON(t, s.URL+"/dek-registry/v1/keks/"+kek+"/deks/"+subject+"/versions/latest", &d)
	if d.KekName != kek || d.Subject != subject || d.Version != 1 || d.Algorithm != "AES256_GCM" || d.EncryptedKeyMaterial == "" || d.KeyMaterial != nil {
		t.Fatalf("DEK %+v, want version 1, AES256_GCM, encryptedKeyMaterial only", d)
	}
	// What Charter stores is the DEK wrapped by the KEK: the KMS key
	// unwraps it, another one does not.
	wrapped, err := base64.StdEncoding.DecodeString(d.EncryptedKeyMaterial)
	if err != nil {
		t.Fatalf("encryptedKeyMaterial: %v", err)
	}
	for _, tc := range []struct {
		secret string
		ok     bool
	}{{secret, true}, {"another-secret", false}} {
		kms, err := localkms.NewLocalClient("local-kms://", tc.secret)
		if err != nil {
			t.Fatal(err)
		}
		aead, err := kms.GetAEAD("local-kms://mykey")
		if err != nil {
			t.Fatal(err)
		}
		rawDek, err := aead.Decrypt(wrapped, nil)
		if (err == nil) != tc.ok || (tc.ok && len(rawDek) == 0) {
			t.Errorf("unwrap the stored DEK with secret %q: %d bytes, %v; want ok=%v", tc.secret, len(rawDek), err, tc.ok)
		}
	}

	// The PII map says the field is encrypted, by which rule and KEK.
	var pii []struct {
		Path       string
		Encryption *struct{ Rule, Type, Kek, KmsType string }
	}
	getJSON(t, s.URL+"/governance/lineage/pii?subject="+subject, &pii)
	if len(pii) != 1 || pii[0].Path != ".email" || pii[0].Encryption == nil || pii[0].Encryption.Rule != "encrypt-pii" ||
		pii[0].Encryption.Kek != kek || pii[0].Encryption.KmsType != "local-kms" {
		t.Errorf("PII map %+v, want .email encrypted by encrypt-pii with %s", pii, kek)
	}

	read := func(secret string, executor bool) (PIICustomer, error) {
		t.Helper()
		// Tink keeps KMS clients process-wide: forget the writer's, so
		// that the reader's KMS client is made from its own secret.
		tinkregistry.ClearKMSClients()
		t.Cleanup(tinkregistry.ClearKMSClients)
		de, err := avrov2.NewDeserializer(newSRClient(t, s.URL), serde.ValueSerde, avrov2.NewDeserializerConfig())
		if err != nil {
			t.Fatalf("NewDeserializer: %v", err)
		}
		if executor {
			withEncryption(t, de, secret)
		} else {
			reg := serde.NewRuleRegistry()
			if err := de.SetRuleRegistry(&reg, nil); err != nil {
				t.Fatal(err)
			}
		}
		var out PIICustomer
		err = de.DeserializeInto("customers", msg, &out)
		return out, err
	}
	// A consumer holding the KMS secret reads the field back, with the
	// DEK fetched from Charter by a fresh client.
	out, err := read(secret, true)
	if err != nil {
		t.Fatalf("DeserializeInto with the key: %v", err)
	}
	if out != in {
		t.Errorf("round trip with the key: %+v, want %+v", out, in)
	}
	// Without the key, or without the encryption executor, the field is
	// not readable.
	for _, tc := range []struct {
		what     string
		secret   string
		executor bool
	}{{"another KMS secret", "another-secret", true}, {"no encryption executor", "", false}} {
		out, err := read(tc.secret, tc.executor)
		if err == nil && out.Email != raw.Email {
			t.Errorf("%s: read %q, want the ciphertext %q (or an error)", tc.what, out.Email, raw.Email)
		}
		t.Logf("%s: %+v, %v", tc.what, out, err)
	}
}

// TestConfluentFieldEncryptionJSONSchema is TestConfluentFieldEncryption
// for a JSON Schema subject (confluent:tags on a property, as Confluent's
// TestJSONSchemaSerdeEncryption): the JSON payload holds the field as
// base64 ciphertext, and a reader with the KMS secret reads it back.
func TestConfluentFieldEncryptionJSONSchema(t *testing.T) {
	s := startServer(t)
	const (
		subject = "members-value"
		kek     = "kek-members"
		secret  = "another-local-kms-secret"
		email   = "bob.secret@example.com"
	)
	schema := `{"type":"object","properties":{"id":{"type":"integer"},` +
		`"email":{"type":"string","confluent:tags":["PII"]}}}`
	if _, err := newSRClient(t, s.URL).Register(subject, schemaregistry.SchemaInfo{
		Schema: schema, SchemaType: "JSON", RuleSet: encryptionRules(kek)}, false); err != nil {
		t.Fatalf("Register %s with its ENCRYPT rule: %v", subject, err)
	}
	type member struct {
		ID    int64  `json:"id"`
		Email string `json:"email"`
	}
	conf := jsonschema.NewSerializerConfig()
	conf.AutoRegisterSchemas = false
	conf.UseLatestVersion = true
	ser, err := jsonschema.NewSerializer(newSRClient(t, s.URL), serde.ValueSerde, conf)
	if err != nil {
		t.Fatalf("NewSerializer: %v", err)
	}
	withEncryption(t, ser, secret)
	rec := member{ID: 3, Email: email}
	msg, err := ser.Serialize("members", &rec)
	if err != nil {
		t.Fatalf("Serialize with the ENCRYPT rule: %v", err)
	}
	var raw member
	if err := json.Unmarshal(msg[5:], &raw); err != nil {
		t.Fatalf("the payload is not JSON: %v (%q)", err, msg[5:])
	}
	if bytes.Contains(msg, []byte(email)) || raw.ID != 3 || raw.Email == email {
		t.Fatalf("payload %s, want id 3 and the email encrypted", msg[5:])
	}
	var subjects []string
	getJSON(t, s.URL+"/dek-registry/v1/keks/"+kek+"/deks", &subjects)
	if len(subjects) != 1 || subjects[0] != subject {
		t.Errorf("DEK subjects %v, want [%s]", subjects, subject)
	}

	tinkregistry.ClearKMSClients()
	t.Cleanup(tinkregistry.ClearKMSClients)
	de, err := jsonschema.NewDeserializer(newSRClient(t, s.URL), serde.ValueSerde, jsonschema.NewDeserializerConfig())
	if err != nil {
		t.Fatalf("NewDeserializer: %v", err)
	}
	withEncryption(t, de, secret)
	var out member
	if err := de.DeserializeInto("members", msg, &out); err != nil {
		t.Fatalf("DeserializeInto with the key: %v", err)
	}
	if out != (member{ID: 3, Email: email}) {
		t.Errorf("round trip with the key: %+v", out)
	}
}
