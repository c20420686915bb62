package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/charter-dev/charter/cmd/internal/command/global"
)

//go:generate go run ./gendocs ../../../docs/cli

// WriteDocs writes the Markdown reference page of every command of the
// tree into dir (cobra/doc: charter.md, charter_check.md, …), one file per
// command, without the generation date, so the pages change only when
// the commands do. Pages of commands no longer in the tree are removed.
func WriteDocs(dir string) error {
	pages, err := Docs()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "charter*.md"))
	for _, p := range old {
		if _, ok := pages[filepath.Base(p)]; !ok {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	for name, text := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Docs returns the Markdown reference pages of the command tree by file
// name. The tree is built with no environment, as by a user who set
// none of CHARTER_*: the pages must not depend on the machine.
func Docs() (map[string]string, error) {
	root := NewRootCommand(Env{Stdout: io.Discard, Stderr: io.Discard})
	root.DisableAutoGenTag = true
	pages := map[string]string{}
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c != root && !c.IsAdditionalHelpTopicCommand() {
			return nil
		}
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		var b strings.Builder
		restore := hideInapplicable(c)
		err := doc.GenMarkdownCustom(c, &b, func(name string) string { return name })
		restore()
		if err != nil {
			return fmt.Errorf("docs of %s: %w", c.CommandPath(), err)
		}
		pages[strings.ReplaceAll(c.CommandPath(), " ", "_")+".md"] = b.String()
		return nil
	}
	return pages, walk(root)
}

// hideInapplicable hides the global flags that do not apply to c (see
// global.HideGlobalFlags).
func hideInapplicable(c *cobra.Command) func() { return global.HideGlobalFlags(c) }
