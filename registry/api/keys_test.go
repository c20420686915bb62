package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// keyCall sends one DEK registry request and checks its status and, for
// an error, Confluent's error body with code.
func (e *env) keyCall(method, path, body string, status, code int) string {
	e.t.Helper()
	got, _, answer := e.do(method, path, body)
	if got != status {
		e.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, got, status, answer)
	}
	if status >= 400 {
		var eb struct {
			ErrorCode int    `json:"error_code"`
			Message   string `json:"message"`
		}
		if err := json.Unmarshal([]byte(answer), &eb); err != nil || eb.Message == "" {
			e.t.Fatalf("%s %s: error body %q is not Confluent's error JSON", method, path, answer)
		}
		if code != 0 && eb.ErrorCode != code {
			e.t.Fatalf("%s %s: error_code %d, want %d; message %q", method, path, eb.ErrorCode, code, eb.Message)
		}
	}
	return answer
}

const keks = "/dek-registry/v1/keks"

// TestDekRegistryBasic follows Confluent's dek-registry RestApiTest.testBasic
// (io.confluent.dekregistry.web.rest.RestApiTest) for a non-shared KEK: a
// KEK created, soft-deleted, recreated (an undelete); DEKs stored with
// client-wrapped encryptedKeyMaterial, soft-deleted, recreated, versioned;
// the lists with deleted, subjectPrefix and offset/limit; 42272 while DEKs
// exist, 40471 for a permanent delete of a live key, 40472 undeleting a
// DEK of a soft-deleted KEK, 40470 after permanent deletes.
func TestDekRegistryBasic(t *testing.T) {
	e := newEnv(t)
	kek := `{"name":"kek1","kmsType":"local-kms","kmsKeyId":"mykey","kmsProps":{"k":"v"},"doc":"a kek"}`
	got := e.keyCall("POST", keks, kek, 200, 0)
	for _, want := range []string{`"name":"kek1"`, `"kmsType":"local-kms"`, `"kmsKeyId":"mykey"`, `"kmsProps":{"k":"v"}`, `"doc":"a kek"`, `"shared":false`, `"deleted":false`, `"ts":`} {
		if !strings.Contains(got, want) {
			t.Errorf("create kek: %s lacks %s", got, want)
		}
	}
	e.keyCall("POST", keks, kek, 409, 40971)
	e.keyCall("POST", keks, `{"name":"kek1","kmsType":"local-kms","kmsKeyId":"other"}`, 409, 40971)
	e.keyCall("GET", keks+"/kek1", "", 200, 0)
	e.keyCall("GET", keks+"/none", "", 404, 40470)
	e.keyCall("GET", keks+"/1bad", "", 422, 42271)
	if got := e.keyCall("GET", keks, "", 200, 0); got != `["kek1"]` {
		t.Errorf("GET keks = %s", got)
	}

	// Soft delete, then creating the same KEK again undeletes it.
	e.keyCall("DELETE", keks+"/kek1", "", 204, 0)
	e.keyCall("GET", keks+"/kek1", "", 404, 40470)
	e.keyCall("GET", keks+"/kek1?deleted=true", "", 200, 0)
	if got := e.keyCall("GET", keks+"?deleted=true", "", 200, 0); got != `["kek1"]` {
		t.Errorf("GET keks?deleted=true = %s", got)
	}
	e.keyCall("POST", keks, kek, 200, 0)
	e.keyCall("GET", keks+"/kek1", "", 200, 0)

	// DEKs: the client sends the DEK wrapped by its KMS.
	const mat = "AQIDBAUGBwgJCgsMDQ4PEA=="
	e.keyCall("POST", keks+"/kek1/deks/orders-value", `{"algorithm":"AES256_GCM"}`, 422, 42271)
	dek := `{"algorithm":"AES256_GCM","encryptedKeyMaterial":"` + mat + `"}`
	got = e.keyCall("POST", keks+"/kek1/deks/orders-value", dek, 200, 0)
	for _, want := range []string{`"kekName":"kek1"`, `"subject":"orders-value"`, `"version":1`, `"algorithm":"AES256_GCM"`, `"encryptedKeyMaterial":"` + mat + `"`, `"deleted":false`} {
		if !strings.Contains(got, want) {
			t.Errorf("create dek: %s lacks %s", got, want)
		}
	}
	if strings.Contains(got, `"keyMaterial"`) {
		t.Errorf("create dek of a non-shared KEK answers keyMaterial: %s", got)
	}
	e.keyCall("POST", keks+"/kek1/deks/orders-value", dek, 409, 40971)
	e.keyCall("DELETE", keks+"/kek1/deks/orders-value", "", 204, 0)
	e.keyCall("GET", keks+"/kek1/deks/orders-value", "", 404, 40470)
	e.keyCall("POST", keks+"/kek1/deks/orders-value", dek, 200, 0) // create acts as undelete
	e.keyCall("GET", keks+"/kek1/deks/orders-value?algorithm=AES256_GCM", "", 200, 0)
	e.keyCall("GET", keks+"/kek1/deks/orders-value?algorithm=AES128_GCM", "", 404, 40470)
	e.keyCall("GET", keks+"/kek1/deks/orders-value?algorithm=DES", "", 422, 42271)

	// The subject in the body (confluent-kafka-go's path), and versions.
	e.keyCall("POST", keks+"/kek1/deks", `{"subject":"clicks-value","encryptedKeyMaterial":"`+mat+`"}`, 200, 0)
	e.keyCall("POST", keks+"/kek1/deks", `{"subject":"clicks-value","version":2,"encryptedKeyMaterial":"`+mat+`","unknownMember":1}`, 200, 0)
	if got := e.keyCall("GET", keks+"/kek1/deks", "", 200, 0); got != `["clicks-value","orders-value"]` {
		t.Errorf("GET deks = %s", got)
	}
	if got := e.keyCall("GET", keks+"/kek1/deks/clicks-value/versions", "", 200, 0); got != `[1,2]` {
		t.Errorf("GET versions = %s", got)
	}
	if got := e.keyCall("GET", keks+"/kek1/deks/clicks-value/versions?offset=1&limit=1", "", 200, 0); got != `[2]` {
		t.Errorf("GET versions?offset=1&limit=1 = %s", got)
	}
	if got := e.keyCall("GET", keks+"/kek1/deks/clicks-value/versions/latest", "", 200, 0); !strings.Contains(got, `"version":2`) {
		t.Errorf("GET versions/latest = %s", got)
	}
	e.keyCall("GET", keks+"/kek1/deks/clicks-value/versions/99", "", 404, 40470)
	e.keyCall("GET", keks+"/kek1/deks/clicks-value/versions/zero", "", 422, 42202)
	if got := e.keyCall("GET", keks+"?subjectPrefix=clicks", "", 200, 0); got != `["kek1"]` {
		t.Errorf("GET keks?subjectPrefix=clicks = %s", got)
	}
	if got := e.keyCall("GET", keks+"?subjectPrefix=foo", "", 200, 0); got != `[]` {
		t.Errorf("GET keks?subjectPrefix=foo = %s", got)
	}

	e.keyCall("DELETE", keks+"/kek1", "", 422, 42272)
	e.keyCall("DELETE", keks+"/kek1/deks/orders-value?permanent=true", "", 404, 40471)
	e.keyCall("DELETE", keks+"/kek1/deks/orders-value", "", 204, 0)
	if got := e.keyCall("GET", keks+"/kek1/deks", "", 200, 0); got != `["clicks-value"]` {
		t.Errorf("GET deks after delete = %s", got)
	}
	if got := e.keyCall("GET", keks+"/kek1/deks?deleted=true&offset=1&limit=1", "", 200, 0); got != `["orders-value"]` {
		t.Errorf("GET deks?deleted=true&offset=1&limit=1 = %s", got)
	}
	e.keyCall("DELETE", keks+"/kek1/deks/clicks-value/versions/2", "", 204, 0)
	if got := e.keyCall("GET", keks+"/kek1/deks/clicks-value/versions", "", 200, 0); got != `[1]` {
		t.Errorf("GET versions after deleting 2 = %s", got)
	}
	e.keyCall("POST", keks+"/kek1/deks/clicks-value/versions/2/undelete", "", 204, 0)
	if got := e.keyCall("GET", keks+"/kek1/deks/clicks-value/versions", "", 200, 0); got != `[1,2]` {
		t.Errorf("GET versions after undelete = %s", got)
	}

	e.keyCall("DELETE", keks+"/kek1/deks/clicks-value", "", 204, 0)
	e.keyCall("DELETE", keks+"/kek1", "", 204, 0)
	e.keyCall("GET", keks+"/kek1/deks", "", 404, 40470)
	if got := e.keyCall("GET", keks+"/kek1/deks?deleted=true", "", 200, 0); got != `["clicks-value","orders-value"]` {
		t.Errorf("GET deks?deleted=true of a deleted KEK = %s", got)
	}
	e.keyCall("POST", keks+"/kek1/deks/clicks-value/undelete", "", 404, 40472)
	e.keyCall("POST", keks+"/kek1/undelete", "", 204, 0)
	e.keyCall("POST", keks+"/kek1/deks/clicks-value/undelete", "", 204, 0)
	if got := e.keyCall("GET", keks+"/kek1/deks", "", 200, 0); got != `["clicks-value"]` {
		t.Errorf("GET deks after undelete = %s", got)
	}

	// Permanent deletes: DEKs once soft-deleted, then the KEK.
	e.keyCall("DELETE", keks+"/kek1/deks/clicks-value", "", 204, 0)
	e.keyCall("DELETE", keks+"/kek1", "", 204, 0)
	e.keyCall("DELETE", keks+"/kek1?permanent=true", "", 422, 42272)
	e.keyCall("DELETE", keks+"/kek1/deks/orders-value?permanent=true", "", 204, 0)
	e.keyCall("DELETE", keks+"/kek1/deks/orders-value?permanent=true", "", 404, 40470)
	e.keyCall("DELETE", keks+"/kek1/deks/clicks-value?permanent=true", "", 204, 0)
	if got := e.keyCall("GET", keks+"/kek1/deks?deleted=true", "", 200, 0); got != `[]` {
		t.Errorf("GET deks after permanent deletes = %s", got)
	}
	e.keyCall("DELETE", keks+"/kek1?permanent=true", "", 204, 0)
	e.keyCall("DELETE", keks+"/kek1?permanent=true", "", 404, 40470)
}

// TestDekRegistryKekValidation: Confluent's createKek checks (name,
// kmsKeyId, kmsType; the key ID's form for the cloud KMS types) and its
// kmsType normalisation; PUT changes kmsProps, doc and shared only.
func TestDekRegistryKekValidation(t *testing.T) {
	e := newEnv(t)
	for _, body := range []string{
		`{"name":"","kmsType":"local-kms","kmsKeyId":"x"}`,
		`{"name":"9lives","kmsType":"local-kms","kmsKeyId":"x"}`,
		`{"name":"a b","kmsType":"local-kms","kmsKeyId":"x"}`,
		`{"name":"k","kmsType":"local-kms"}`,
		`{"name":"k","kmsKeyId":"x"}`,
		`{"name":"k","kmsType":"aws-kms","kmsKeyId":"not-an-arn"}`,
		`{"name":"k","kmsType":"gcp-kms","kmsKeyId":"x"}`,
	} {
		e.keyCall("POST", keks, body, 422, 42271)
	}
	got := e.keyCall("POST", keks, `{"name":"_aws-1","kmsType":"AWS","kmsKeyId":"arn:aws:kms:eu-west-1:1:key/k"}`, 200, 0)
	if !strings.Contains(got, `"kmsType":"aws-kms"`) || !strings.Contains(got, `"kmsProps":{}`) {
		t.Errorf("kmsType AWS: %s, want aws-kms and empty kmsProps", got)
	}
	got = e.keyCall("PUT", keks+"/_aws-1", `{"kmsProps":{"a":"b"},"doc":"d","shared":true,"kmsKeyId":"ignored"}`, 200, 0)
	for _, want := range []string{`"kmsProps":{"a":"b"}`, `"doc":"d"`, `"shared":true`, `"kmsKeyId":"arn:aws:kms:eu-west-1:1:key/k"`} {
		if !strings.Contains(got, want) {
			t.Errorf("PUT kek: %s lacks %s", got, want)
		}
	}
	got = e.keyCall("PUT", keks+"/_aws-1", `{"kmsProps":null}`, 200, 0)
	if !strings.Contains(got, `"kmsProps":{}`) || !strings.Contains(got, `"doc":"d"`) {
		t.Errorf("PUT kmsProps null: %s, want kmsProps cleared and doc kept", got)
	}
	e.keyCall("PUT", keks+"/none", `{"doc":"x"}`, 404, 40470)
	e.keyCall("POST", keks+"/_aws-1/test", "", 422, 42271)
}

// TestDekRegistrySharedKek: Confluent's server generates the DEK of a
// shared KEK with its KMS when the request has no encryptedKeyMaterial;
// Charter, without KMS access, refuses that with 42271 saying why, stores
// a DEK the client wrapped, and never answers keyMaterial.
func TestDekRegistrySharedKek(t *testing.T) {
	e := newEnv(t)
	e.keyCall("POST", keks, `{"name":"shared1","kmsType":"local-kms","kmsKeyId":"k","shared":true}`, 200, 0)
	got := e.keyCall("POST", keks+"/shared1/deks/s", `{}`, 422, 42271)
	if !strings.Contains(got, "encryptedKeyMaterial") || !strings.Contains(got, "no access to its KMS") {
		t.Errorf("shared KEK without material: %s, want a message naming encryptedKeyMaterial and the missing KMS access", got)
	}
	e.keyCall("POST", keks+"?testSharing=true", `{"name":"shared2","kmsType":"local-kms","kmsKeyId":"k","shared":true}`, 422, 42271)
	got = e.keyCall("POST", keks+"/shared1/deks/s", `{"encryptedKeyMaterial":"AQID"}`, 200, 0)
	if strings.Contains(got, `"keyMaterial"`) {
		t.Errorf("DEK of a shared KEK: %s answers keyMaterial, which Charter cannot unwrap", got)
	}
	e.keyCall("POST", keks+"/shared1/deks/s", `{"encryptedKeyMaterial":"AQID"}`, 409, 40971)
	e.keyCall("POST", keks+"/shared1/deks/s", `{"encryptedKeyMaterial":"not base64!"}`, 422, 42271)
	e.keyCall("POST", keks+"/shared1/test", "", 422, 42271)
}

// TestDekRegistryAuth: with authentication on, reading keys needs
// credentials even under `anonymous: read`; KEKs are the admins'; a
// subject's DEKs its owning team's (the subject in the body too); the
// audit log names the principal.
func TestDekRegistryAuth(t *testing.T) {
	e := newAuthEnv(t, "anonymous: read\n")
	root, alice, bob := e.principal("root"), e.principal("alice"), e.principal("bob")
	anon := e.principal("anonymous")
	e.resetOwnership()
	if status, body := e.as(anon, "GET", keks, ""); status != http.StatusUnauthorized {
		t.Errorf("anonymous GET keks under anonymous: read: %d %s, want 401", status, body)
	}
	if status, body := e.as(anon, "GET", "/subjects", ""); status != http.StatusOK {
		t.Errorf("anonymous GET /subjects under anonymous: read: %d %s", status, body)
	}
	kek := `{"name":"k1","kmsType":"local-kms","kmsKeyId":"x"}`
	if status, body := e.as(alice, "POST", keks, kek); status != http.StatusForbidden {
		t.Errorf("alice creates a KEK: %d %s, want 403", status, body)
	}
	if status, body := e.as(root, "POST", keks, kek); status != http.StatusOK {
		t.Fatalf("root creates a KEK: %d %s", status, body)
	}
	dek := `{"subject":"owned","encryptedKeyMaterial":"AQID"}`
	if status, body := e.as(bob, "POST", keks+"/k1/deks", dek); status != http.StatusForbidden {
		t.Errorf("bob stores a DEK of logistics' subject (subject in the body): %d %s, want 403", status, body)
	}
	if status, body := e.as(bob, "POST", keks+"/k1/deks/owned", `{"encryptedKeyMaterial":"AQID"}`); status != http.StatusForbidden {
		t.Errorf("bob stores a DEK of logistics' subject: %d %s, want 403", status, body)
	}
	mark := e.lastAuditID()
	if status, body := e.as(alice, "POST", keks+"/k1/deks", dek); status != http.StatusOK {
		t.Fatalf("alice stores a DEK of her team's subject: %d %s", status, body)
	}
	if n := e.checkAuditActor("POST deks", alice, mark); n != 1 {
		t.Errorf("alice's DEK left %d audit entries, want 1", n)
	}
	if status, body := e.as(bob, "GET", keks+"/k1/deks/owned", ""); status != http.StatusOK || !strings.Contains(body, `"encryptedKeyMaterial":"AQID"`) {
		t.Errorf("bob reads the DEK: %d %s", status, body)
	}
	if status, body := e.as(alice, "DELETE", keks+"/k1/deks/owned", ""); status != http.StatusNoContent {
		t.Errorf("alice soft-deletes her DEK: %d %s", status, body)
	}
	if status, body := e.as(alice, "DELETE", keks+"/k1/deks/owned?permanent=true", ""); status != http.StatusForbidden {
		t.Errorf("alice permanently deletes her DEK: %d %s, want 403 (admins only)", status, body)
	}
	if status, body := e.as(root, "DELETE", keks+"/k1/deks/owned?permanent=true", ""); status != http.StatusNoContent {
		t.Errorf("root permanently deletes the DEK: %d %s", status, body)
	}
}

// isDekOp reports whether an OpenAPI operation is tagged dek-registry
// (called by TestDekRegistryAPIDocumented).
func isDekOp(op any) bool {
	m, _ := op.(map[string]any)
	tags, _ := m["tags"].([]any)
	return slices.Contains(tags, any("dek-registry"))
}

// TestDekRegistryAPIDocumented calls every operation tagged dek-registry,
// checking request and response bodies (errors included) against the
// document's schemas.
func TestDekRegistryAPIDocumented(t *testing.T) {
	e := newGovEnv(t)
	const (
		kek = keks + "/{name}"
		dek = kek + "/deks/{subject}"
		ver = dek + "/versions/{version}"
	)
	// done sends a request answered 204 (no body to validate).
	done := func(method, docPath, url string) {
		t.Helper()
		e.oas.operation(t, method, docPath)
		e.oas.mu.Lock()
		e.oas.called[method+" "+docPath] = true
		e.oas.mu.Unlock()
		if r := e.send(method, url, ""); r.status != http.StatusNoContent {
			t.Fatalf("%s %s: %d %s, want 204", method, url, r.status, r.body)
		}
	}
	const mat = "AQIDBAUGBwgJCgsMDQ4PEA=="
	e.call(200, "POST", keks, keks, `{"name":"k1","kmsType":"local-kms","kmsKeyId":"local-kms://k1","kmsProps":{"a":"b"},"doc":"d"}`)
	e.call(409, "POST", keks, keks, `{"name":"k1","kmsType":"local-kms","kmsKeyId":"other"}`)
	e.call(200, "GET", keks, keks+"?deleted=true&offset=0&limit=10", "")
	e.call(200, "GET", kek, keks+"/k1", "")
	e.call(404, "GET", kek, keks+"/none", "")
	e.call(200, "PUT", kek, keks+"/k1", `{"doc":"changed","kmsProps":null}`)
	e.call(422, "POST", kek+"/test", keks+"/k1/test", "")
	e.call(200, "POST", kek+"/deks", keks+"/k1/deks", `{"subject":"orders-value","encryptedKeyMaterial":"`+mat+`"}`)
	e.call(200, "POST", dek, keks+"/k1/deks/orders-value", `{"version":2,"algorithm":"AES256_GCM","encryptedKeyMaterial":"`+mat+`"}`)
	e.call(422, "POST", dek, keks+"/k1/deks/orders-value", `{"version":3}`)
	e.call(200, "GET", kek+"/deks", keks+"/k1/deks", "")
	e.call(200, "GET", dek, keks+"/k1/deks/orders-value?algorithm=AES256_GCM", "")
	e.call(200, "GET", dek+"/versions", keks+"/k1/deks/orders-value/versions", "")
	e.call(200, "GET", ver, keks+"/k1/deks/orders-value/versions/latest", "")
	e.call(404, "GET", ver, keks+"/k1/deks/orders-value/versions/7", "")
	done("DELETE", ver, keks+"/k1/deks/orders-value/versions/2")
	done("POST", ver+"/undelete", keks+"/k1/deks/orders-value/versions/2/undelete")
	done("DELETE", dek, keks+"/k1/deks/orders-value")
	done("POST", dek+"/undelete", keks+"/k1/deks/orders-value/undelete")
	e.call(422, "DELETE", kek, keks+"/k1", "")
	done("DELETE", dek, keks+"/k1/deks/orders-value")
	done("DELETE", kek, keks+"/k1")
	done("POST", kek+"/undelete", keks+"/k1/undelete")

	for path, item := range e.oas.doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if method == "parameters" || !isDekOp(op) {
				continue
			}
			if k := strings.ToUpper(method) + " " + path; !e.oas.called[k] {
				t.Errorf("the test never calls %s", k)
			}
		}
	}
}

// TestDekRegistryCreateDekVersionIsInt32: Confluent's
// CreateDekRequest.version is a Java Integer, and the {version} path
// segment is read as one: a version beyond 2^31-1 (2147483648, 2^53) is
// refused, 42271 in the body (an invalid field of a key) and 42202 in the
// path, and nothing is stored; 2^31-1 itself is a version.
func TestDekRegistryCreateDekVersionIsInt32(t *testing.T) {
	e := newEnv(t)
	e.keyCall("POST", keks, `{"name":"kek1","kmsType":"local-kms","kmsKeyId":"mykey"}`, 200, 0)
	const mat = "AQIDBAUGBwgJCgsMDQ4PEA=="
	for _, v := range []string{"2147483648", "9007199254740992"} {
		e.keyCall("POST", keks+"/kek1/deks/orders-value", `{"version":`+v+`,"encryptedKeyMaterial":"`+mat+`"}`, 422, 42271)
		e.keyCall("GET", keks+"/kek1/deks/orders-value/versions/"+v, "", 422, 42202)
	}
	if got := e.keyCall("GET", keks+"/kek1/deks/orders-value/versions", "", 200, 0); got != `[]` {
		t.Errorf("versions after the refusals = %s", got)
	}
	e.keyCall("POST", keks+"/kek1/deks/orders-value", `{"version":2147483647,"encryptedKeyMaterial":"`+mat+`"}`, 200, 0)
	if got := e.keyCall("GET", keks+"/kek1/deks/orders-value/versions", "", 200, 0); got != `[2147483647]` {
		t.Errorf("versions = %s", got)
	}
}

// TestDekRegistryAliasFilter: Confluent's AliasFilter rewrites the
// segment after deks/ of a DEK route to the subject config's
// aliasForDeks, else its alias; PUT /config stores and answers
// aliasForDeks, and JSON null clears it.
func TestDekRegistryAliasFilter(t *testing.T) {
	e := newEnv(t)
	e.keyCall("POST", keks, `{"name":"kek1","kmsType":"local-kms","kmsKeyId":"mykey"}`, 200, 0)
	const mat = "AQIDBAUGBwgJCgsMDQ4PEA=="
	dek := `{"encryptedKeyMaterial":"` + mat + `"}`
	e.keyCall("POST", keks+"/kek1/deks/target-value", dek, 200, 0)
	e.keyCall("POST", keks+"/kek1/deks/other-value", dek, 200, 0)
	e.run([]step{
		{method: "PUT", path: "/config/a-value", body: `{"alias":"other-value","aliasForDeks":"target-value"}`,
			contains: []string{`"alias":"other-value"`, `"aliasForDeks":"target-value"`}},
		{method: "GET", path: "/config/a-value", contains: []string{`"aliasForDeks":"target-value"`}},
		{method: "PUT", path: "/config/b-value", body: `{"alias":"other-value"}`},
	})
	// aliasForDeks first, then alias.
	if got := e.keyCall("GET", keks+"/kek1/deks/a-value", "", 200, 0); !strings.Contains(got, `"subject":"target-value"`) {
		t.Errorf("GET deks/a-value = %s, want target-value's DEK", got)
	}
	if got := e.keyCall("GET", keks+"/kek1/deks/b-value/versions/1", "", 200, 0); !strings.Contains(got, `"subject":"other-value"`) {
		t.Errorf("GET deks/b-value/versions/1 = %s, want other-value's DEK", got)
	}
	// A DEK created through the alias is the target's.
	e.keyCall("POST", keks+"/kek1/deks/a-value", `{"version":2,"encryptedKeyMaterial":"`+mat+`"}`, 200, 0)
	if got := e.keyCall("GET", keks+"/kek1/deks/target-value/versions", "", 200, 0); got != `[1,2]` {
		t.Errorf("target-value versions = %s", got)
	}
	e.keyCall("GET", keks+"/kek1/deks/none-value", "", 404, 40470)
	// Cleared, aliasForDeks no longer applies; alias does.
	e.run([]step{{method: "PUT", path: "/config/a-value", body: `{"aliasForDeks":null}`, notContains: []string{"aliasForDeks"}}})
	if got := e.keyCall("GET", keks+"/kek1/deks/a-value", "", 200, 0); !strings.Contains(got, `"subject":"other-value"`) {
		t.Errorf("GET deks/a-value after clearing = %s, want other-value's DEK", got)
	}
}
