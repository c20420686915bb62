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

// flagNames returns the flags (as --name) listed in the blocks of text
// that follow a line for which isHead is true, up to the block's end.
func flagNames(text string, isHead func(string) bool, isEnd func(string) bool) []string {
	var out []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case isHead(l):
			in = true
		case in && isEnd(l):
			in = false
		case in:
			f := strings.Fields(strings.ReplaceAll(l, ",", " "))
			for _, w := range f {
				if strings.HasPrefix(w, "--") {
					out = append(out, w)
					break
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestDocsShowWhatHelpShows: the reference page of every command lists
// the flags its --help lists, run through cli.Run as a user runs it, and
// the same sub-commands: the pages come from the tree charter runs, not
// one that lacks what cobra adds when it executes (charter --version).
func TestDocsShowWhatHelpShows(t *testing.T) {
	for _, e := range os.Environ() {
		if name, _, _ := strings.Cut(e, "="); strings.HasPrefix(name, "CHARTER_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
	pages, err := cli.Docs()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pages["charter.md"], "-v, --version") {
		t.Errorf("charter.md lacks -v, --version:\n%s", pages["charter.md"])
	}
	for name, page := range pages {
		for _, l := range strings.Split(page, "\n") {
			if strings.Count(l, "(default ") > 1 {
				t.Errorf("%s: a flag shows its default twice: %s", name, strings.TrimSpace(l))
			}
		}
		args := strings.Split(strings.TrimSuffix(name, ".md"), "_")[1:]
		code, help, errs := runCLI(append(args, "--help")...)
		if code != cli.ExitOK {
			t.Errorf("%v --help: exit %d, %s", args, code, errs)
			continue
		}
		fromHelp := flagNames(help, func(l string) bool { return l == "Flags:" || l == "Global Flags:" },
			func(l string) bool { return strings.TrimSpace(l) == "" })
		fromPage := flagNames(page, func(l string) bool { return strings.HasPrefix(l, "### Options") },
			func(l string) bool { return strings.HasPrefix(l, "###") })
		if strings.Join(fromHelp, " ") != strings.Join(fromPage, " ") {
			t.Errorf("%s lists the flags %q; charter %s --help lists %q", name, fromPage, strings.Join(args, " "), fromHelp)
		}
		var subHelp, subPage []string
		in := false
		for _, l := range strings.Split(help, "\n") {
			switch {
			case l == "Available Commands:":
				in = true
			case in && strings.TrimSpace(l) == "":
				in = false
			case in && strings.Fields(l)[0] != "help":
				// cobra lists `help` in the usage, never as a page.
				subHelp = append(subHelp, strings.Fields(l)[0])
			}
		}
		prefix := "* [" + strings.Join(append([]string{"charter"}, args...), " ") + " "
		for _, l := range strings.Split(page, "\n") {
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				subPage = append(subPage, rest[:strings.Index(rest, "]")])
			}
		}
		sort.Strings(subHelp)
		sort.Strings(subPage)
		if strings.Join(subHelp, " ") != strings.Join(subPage, " ") {
			t.Errorf("%s lists the commands %q; charter %s --help lists %q", name, subPage, strings.Join(args, " "), subHelp)
		}
	}
}
