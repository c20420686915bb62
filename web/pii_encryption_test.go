package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// TestPIIMapEncryption: the PII map's page says which tagged field an
// ENCRYPT rule covers (its type, rule and KEK) and which travel in the
// clear.
func TestPIIMapEncryption(t *testing.T) {
	svc, _ := newService(t)
	_, err := svc.Register(t.Context(), "customers-value", registry.RegisterRequest{
		Schema: `{"type":"record","name":"Customer","fields":[{"name":"email","type":"string","confluent:tags":["PII"]},` +
			`{"name":"phone","type":"string","confluent:tags":["PII","CONTACT"]}]}`,
		RuleSet: []byte(`{"domainRules":[{"name":"encrypt-contact","kind":"TRANSFORM","mode":"WRITEREAD","type":"ENCRYPT","tags":["CONTACT"],` +
			`"params":{"encrypt.kek.name":"kek1","encrypt.kms.type":"local-kms","encrypt.kms.key.id":"k"}}]}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	page := get(t, handler(t, svc, nil), "/ui/pii", http.StatusOK)
	for _, want := range []string{"2 tagged fields, 0 read by a consumer, 1 encrypted by a rule.",
		"<code>ENCRYPT</code> encrypt-contact <span class=\"muted\">(KEK kek1, local-kms)</span>", "in the clear"} {
		if !strings.Contains(page, want) {
			t.Errorf("/ui/pii lacks %q", want)
		}
	}
}
