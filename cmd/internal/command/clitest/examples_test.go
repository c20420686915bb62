package clitest_test

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/cli"
)

// TestHelpExamplesParse runs the flag parsing of every `charter …` line
// in every command's --help examples, so that an example with an unknown
// flag, a flag missing its value or an unknown command fails here (report
// 2, M3: `changelog --format markdown`). Every runnable command has at
// least one example (M4).
func TestHelpExamplesParse(t *testing.T) {
	t.Parallel()
	root := newRoot()
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			walk(sub)
		}
		if c == root {
			return
		}
		lines := exampleCommands(c.Example)
		if len(lines) == 0 && !noExample[c.CommandPath()] {
			t.Errorf("%s: no example in --help", c.CommandPath())
		}
		for _, line := range lines {
			n++
			args := shellWords(line)[1:]
			fresh := newRoot()
			cmd, rest, err := fresh.Find(args)
			if err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
				continue
			}
			if cmd.CommandPath() != c.CommandPath() && !strings.HasPrefix(cmd.CommandPath(), c.CommandPath()) {
				// An example may show another command (a pipe's
				// second half); parse it as that one.
				t.Logf("%s: example runs %s", c.CommandPath(), cmd.CommandPath())
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
			}
		}
	}
	walk(root)
	if n < 40 {
		t.Errorf("parsed %d example lines, want at least 40 (is the walk broken?)", n)
	}
}

// noExample lists the commands that may have no example: the generated
// shell completion scripts.
var noExample = map[string]bool{
	"charter completion bash": true, "charter completion zsh": true,
	"charter completion fish": true, "charter completion powershell": true,
}

func newRoot() *cobra.Command {
	return cli.NewRootCommand(cli.Env{Stdout: io.Discard, Stderr: io.Discard})
}

// exampleCommands returns the `charter …` commands of an Example text:
// backslash continuations joined, comments dropped, and each pipeline
// split into its commands.
func exampleCommands(ex string) []string {
	ex = strings.ReplaceAll(ex, "\\\n", " ")
	var out []string
	for _, line := range strings.Split(ex, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, part := range strings.Split(line, "|") {
			part = strings.TrimSpace(part)
			if strings.HasPrefix(part, "charter ") || part == "charter" {
				out = append(out, part)
			}
		}
	}
	return out
}

// shellWords splits a command line as sh would for these examples:
// quotes group, and a redirection (>, <, 2>) or && ends the command.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	for i, w := range words {
		if w == ">" || w == "<" || w == "2>" || w == "&&" || w == ";" || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>") {
			return words[:i]
		}
	}
	return words
}
