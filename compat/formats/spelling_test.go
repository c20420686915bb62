package formats_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat/formats"
)

// TestNoOtherPackageSpellsExtensions reads the module's Go files (tests
// aside, which name testdata files) and fails on a quoted schema file
// extension outside this package (or .avro, which is no schema): the
// extension-to-format mapping lives in this table only.
func TestNoOtherPackageSpellsExtensions(t *testing.T) {
	exts := []string{".avro"}
	for _, e := range formats.All() {
		exts = append(exts, e.Extensions...)
	}
	var quoted []string
	for _, x := range exts {
		quoted = append(quoted, regexp.QuoteMeta(x))
	}
	spelled := regexp.MustCompile(`"(` + strings.Join(quoted, "|") + `)"`)
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if abs, _ := filepath.Abs(p); abs == here || d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checked++
		for i, line := range strings.Split(string(b), "\n") {
			if m := spelled.FindString(line); m != "" {
				t.Errorf("%s:%d spells %s: use compat/formats (ByExtension, OfFile)", p, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d Go files, want the whole module", checked)
	}
}
