package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"

	"golang.org/x/crypto/bcrypt"
)

// TokenPrefix starts every token NewToken makes, so that secret scanners
// and people recognise one.
const TokenPrefix = "charter_"

// NewToken returns a new random bearer token (32 random bytes, base64url
// after TokenPrefix) and its hex SHA-256 digest, the value the auth file
// stores in tokens_sha256.
func NewToken() (token, digest string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("new token: %w", err)
	}
	token = TokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashToken(token), nil
}

// HashToken returns the hex SHA-256 digest of token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// MaxPasswordBytes is the longest password bcrypt takes.
const MaxPasswordBytes = 72

// HashPassword returns the bcrypt hash (cost bcrypt.DefaultCost) of
// password for the auth file's password_bcrypt. Errors: an empty password
// or one over MaxPasswordBytes bytes.
func HashPassword(password string) (string, error) {
	switch {
	case password == "":
		return "", errors.New("the password is empty")
	case len(password) > MaxPasswordBytes:
		return "", fmt.Errorf("the password is %d bytes long; bcrypt takes at most %d", len(password), MaxPasswordBytes)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}
