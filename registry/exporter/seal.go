package exporter

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/charter-dev/charter/registry/srerr"
)

// MinSecretBytes is the shortest secret NewSealer takes, in bytes.
const MinSecretBytes = 32

// maxSealedValue bounds a stored, sealed config value: the sealing of a
// MaxConfigValue-byte credential.
const maxSealedValue = len(sealedPrefix) + (12+MaxConfigValue+16+2)/3*4

// sealedPrefix marks a sealed credential: the version of the format, then
// base64url (unpadded) of a 12-byte nonce and the AES-256-GCM ciphertext.
const sealedPrefix = "sealed:v1:"

// Sealer encrypts the credentials of exporter configs at rest (AES-256-GCM
// under a key derived with HKDF-SHA-256 from the registry's secret), as
// Confluent's password encoder secret does for schema linking: the store
// and its backups hold only sealed values, and the runner opens them when
// it calls the destination.
type Sealer struct {
	aead cipher.AEAD
}

// NewSealer returns the Sealer of secret, which must hold at least
// MinSecretBytes bytes (surrounding white space aside). Every replica of
// one store must use the same secret.
func NewSealer(secret []byte) (*Sealer, error) {
	secret = []byte(strings.TrimSpace(string(secret)))
	if len(secret) < MinSecretBytes {
		return nil, fmt.Errorf("the secret has %d bytes, want at least %d (e.g. openssl rand -base64 32)", len(secret), MinSecretBytes)
	}
	key, err := hkdf.Key(sha256.New, secret, nil, "charter exporter credentials v1", 32)
	if err != nil {
		return nil, fmt.Errorf("derive the credentials key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plaintext into a sealed value (sealedPrefix...), bound to
// the config key it is stored under so that a sealed value cannot be
// moved to another key.
func (s *Sealer) Seal(key, plaintext string) (string, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal %s: %w", key, err)
	}
	out := s.aead.Seal(nonce, nonce, []byte(plaintext), []byte(key))
	return sealedPrefix + base64.RawURLEncoding.EncodeToString(out), nil
}

// errNotSealed is Open's error for a stored credential that is not sealed.
var errNotSealed = errors.New("not sealed")

// Open decrypts a value Seal returned for the same config key. Errors: a
// value that is not sealed, or that this secret did not seal (another
// secret, or altered).
func (s *Sealer) Open(key, sealed string) (string, error) {
	rest, ok := strings.CutPrefix(sealed, sealedPrefix)
	if !ok {
		return "", fmt.Errorf("credential %s: %w", key, errNotSealed)
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	n := s.aead.NonceSize()
	if err != nil || len(raw) < n {
		return "", fmt.Errorf("credential %s: a malformed sealed value", key)
	}
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], []byte(key))
	if err != nil {
		return "", fmt.Errorf("credential %s: it does not open with this registry's secret (--secrets-key-file): sealed with another, or altered", key)
	}
	return string(plain), nil
}

// sealUpdate seals in c, a config merged from the stored one and upd (a
// request's config), every credential upd sets: a value Redacted kept the
// stored, sealed, one. Without a Sealer a credential is refused (40951),
// as Confluent refuses schema linking credentials without a password
// encoder secret.
func sealUpdate(s *Sealer, c, upd map[string]string) error {
	for k, v := range upd {
		if !secretKey(k) || v == Redacted || v == "" {
			continue // not a credential, kept, or removed
		}
		if s == nil {
			return invalid(srerr.ErrInvalidExporterConfig,
				"%s is a credential, which Charter stores encrypted: start charter serve with --secrets-key-file (a file of at least %d secret bytes, the same on every replica)", clip(k), MinSecretBytes)
		}
		sealed, err := s.Seal(k, v)
		if err != nil {
			return err
		}
		c[k] = sealed
	}
	return nil
}

// openConfig returns c with every credential opened by s, for the
// destination.
func openConfig(s *Sealer, c map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(c))
	for k, v := range c {
		if secretKey(k) {
			if s == nil {
				return nil, fmt.Errorf("credential %s is sealed and this registry has no secret to open it: start charter serve with --secrets-key-file", k)
			}
			var err error
			if v, err = s.Open(k, v); err != nil {
				return nil, err
			}
		}
		out[k] = v
	}
	return out, nil
}
