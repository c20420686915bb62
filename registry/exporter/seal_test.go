package exporter

import (
	"errors"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry/srerr"
)

// TestSealerRoundTrip: a sealed credential opens to its plaintext under
// the same secret and config key only; the sealed text does not contain
// the plaintext, and two seals of one value differ (a fresh nonce each).
func TestSealerRoundTrip(t *testing.T) {
	s, other := testSealer(t), mustSealer(t, "another secret of thirty-two bytes or more")
	sealed, err := s.Seal(ConfigUserInfo, "exporter:s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sealed, sealedPrefix) || strings.Contains(sealed, "s3cret") {
		t.Fatalf("sealed = %q", sealed)
	}
	again, _ := s.Seal(ConfigUserInfo, "exporter:s3cret")
	if again == sealed {
		t.Error("two seals of one value are equal")
	}
	if got, err := s.Open(ConfigUserInfo, sealed); err != nil || got != "exporter:s3cret" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	tampered := sealed[:len(sealed)-2] + "AA"
	for _, tc := range []struct {
		name, key, value string
		s                *Sealer
		want             string
	}{
		{"another secret", ConfigUserInfo, sealed, other, "does not open with this registry's secret"},
		{"another config key", ConfigBearerToken, sealed, s, "does not open with this registry's secret"},
		{"altered", ConfigUserInfo, tampered, s, "does not open"},
		{"not sealed", ConfigUserInfo, "exporter:s3cret", s, "not sealed"},
		{"not base64", ConfigUserInfo, sealedPrefix + "!!!", s, "malformed"},
		{"too short", ConfigUserInfo, sealedPrefix + "AAAA", s, "malformed"},
	} {
		got, err := tc.s.Open(tc.key, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.want) || got != "" {
			t.Errorf("%s: Open = %q, %v; want an error containing %q", tc.name, got, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error names the credential: %v", tc.name, err)
		}
	}
}

func mustSealer(t *testing.T, secret string) *Sealer {
	t.Helper()
	s, err := NewSealer([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNewSealerShortSecret: a secret under MinSecretBytes (white space
// aside) is refused, saying how to make one.
func TestNewSealerShortSecret(t *testing.T) {
	for _, secret := range []string{"", "short", strings.Repeat(" ", 40), strings.Repeat("x", 31) + "\n"} {
		if _, err := NewSealer([]byte(secret)); err == nil || !strings.Contains(err.Error(), "openssl rand") {
			t.Errorf("NewSealer(%q) = %v, want a refusal naming openssl rand", secret, err)
		}
	}
	if _, err := NewSealer([]byte(strings.Repeat("x", 32) + "\n")); err != nil {
		t.Errorf("a 32-byte secret with a newline: %v", err)
	}
}

// TestSealUpdate: the credentials a request sets are sealed in the merged
// config, a Redacted one keeps the stored (sealed) value, other keys stay
// plain; without a Sealer a credential is refused with 40951 and a config
// without one is accepted.
func TestSealUpdate(t *testing.T) {
	s := testSealer(t)
	stored, _ := s.Seal(ConfigBearerToken, "old-token")
	c := map[string]string{ConfigURL: "http://b", ConfigUserInfo: "u:p", ConfigBearerToken: stored}
	upd := map[string]string{ConfigURL: "http://b", ConfigUserInfo: "u:p", ConfigBearerToken: Redacted}
	if err := sealUpdate(s, c, upd); err != nil {
		t.Fatal(err)
	}
	if c[ConfigURL] != "http://b" || c[ConfigBearerToken] != stored {
		t.Errorf("config = %v: the URL or the kept token changed", c)
	}
	if got, err := s.Open(ConfigUserInfo, c[ConfigUserInfo]); err != nil || got != "u:p" {
		t.Errorf("user info = %q (%q, %v), want it sealed", c[ConfigUserInfo], got, err)
	}
	err := sealUpdate(nil, map[string]string{ConfigUserInfo: "u:p"}, map[string]string{ConfigUserInfo: "u:p"})
	if !errors.Is(err, srerr.ErrInvalidExporterConfig) || !strings.Contains(err.Error(), "--secrets-key-file") || strings.Contains(err.Error(), "u:p") {
		t.Errorf("without a Sealer: %v, want 40951 naming --secrets-key-file", err)
	}
	if err := sealUpdate(nil, map[string]string{ConfigURL: "http://b"}, map[string]string{ConfigURL: "http://b"}); err != nil {
		t.Errorf("without a Sealer, no credential: %v", err)
	}
}

// TestSealedValueWithinLimit: a credential of MaxConfigValue bytes, once
// sealed, still validates as a stored config value (maxSealedValue).
func TestSealedValueWithinLimit(t *testing.T) {
	s := testSealer(t)
	sealed, err := s.Seal(ConfigUserInfo, strings.Repeat("p", MaxConfigValue))
	if err != nil {
		t.Fatal(err)
	}
	e := Exporter{Name: "x", ContextType: ContextNone, Subjects: []string{"*"}, SubjectRenameFormat: "${subject}",
		Config: map[string]string{ConfigURL: "http://b", ConfigUserInfo: sealed}}
	if err := validate(e); err != nil {
		t.Fatalf("a sealed %d-byte credential (%d bytes sealed): %v", MaxConfigValue, len(sealed), err)
	}
}
