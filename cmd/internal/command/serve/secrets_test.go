package serve_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretsKeyFileValidation: a --secrets-key-file that cannot be read,
// or holds fewer than 32 secret bytes, stops serve before it listens,
// with one line naming the flag.
func TestSecretsKeyFileValidation(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.key")
	if err := os.WriteFile(short, []byte("too short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, want string
	}{
		{filepath.Join(dir, "absent.key"), "--secrets-key-file: open " + filepath.Join(dir, "absent.key") + ": no such file or directory"},
		{short, "--secrets-key-file " + short + ": the secret has 9 bytes, want at least 32"},
	} {
		_, err := runServe(t, "--db", filepath.Join(dir, "c.db"), "--secrets-key-file", tc.file)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--secrets-key-file %s: %v, want one line containing %q", tc.file, err, tc.want)
		}
	}
}
