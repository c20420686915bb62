package cli_test

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/cli"
)

var update = flag.Bool("update", false, "rewrite docs/cli (the CLI reference pages)")

// docsDir is where the generated CLI reference is checked in.
const docsDir = "../../../docs/cli"

// TestCLIDocs: docs/cli holds the reference page of every command as
// cobra/doc generates it from the tree, and nothing else. Regenerate with
// go test ./cmd/internal/cli -run TestCLIDocs -update, or go generate
// ./cmd/internal/cli.
func TestCLIDocs(t *testing.T) {
	// The pages describe the defaults a user without CHARTER_* sees.
	for _, e := range os.Environ() {
		if name, _, _ := strings.Cut(e, "="); strings.HasPrefix(name, "CHARTER_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
	if *update {
		if err := cli.WriteDocs(docsDir); err != nil {
			t.Fatal(err)
		}
	}
	pages, err := cli.Docs()
	if err != nil {
		t.Fatal(err)
	}
	for _, must := range []string{"charter.md", "charter_check.md", "charter_serve.md", "charter_lineage_producers_set.md"} {
		if _, ok := pages[must]; !ok {
			t.Errorf("no page %s", must)
		}
	}
	var names []string
	for name, want := range pages {
		names = append(names, name)
		got, err := os.ReadFile(filepath.Join(docsDir, name))
		if err != nil {
			t.Errorf("%s: %v (go test ./cmd/internal/cli -run TestCLIDocs -update writes it)", name, err)
			continue
		}
		if string(got) != want {
			t.Errorf("docs/cli/%s is not what the command tree generates (go test ./cmd/internal/cli -run TestCLIDocs -update rewrites it)", name)
		}
	}
	files, _ := filepath.Glob(filepath.Join(docsDir, "*.md"))
	for _, f := range files {
		if _, ok := pages[filepath.Base(f)]; !ok && filepath.Base(f) != "README.md" {
			t.Errorf("docs/cli/%s documents no command of the tree (remove it, or -update)", filepath.Base(f))
		}
	}
	sort.Strings(names)
	// serve's page lists its own flags only.
	serve := pages["charter_serve.md"]
	if strings.Contains(serve, "--registry") || strings.Contains(serve, "--token") || !strings.Contains(serve, "--listen") {
		t.Errorf("charter_serve.md must list serve's flags and none of the client's:\n%s", serve)
	}
	if !strings.Contains(pages["charter_subjects.md"], "--registry") {
		t.Error("charter_subjects.md lacks the inherited --registry")
	}
}
