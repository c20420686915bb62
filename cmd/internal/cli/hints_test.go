package cli_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/cli"
)

// repoRoot is the module's root, from this package's directory.
const repoRoot = "../../.."

// mention is one `charter …` command line in a string of the code.
type mention struct {
	where, line string
}

// commandMentions returns the `charter …` command lines in the string
// literals (hints, errors, messages) of every non-test Go file outside
// bench/ and the tests' helpers: the code that tells users which command
// to run (hints, errors, the commands' examples). A quoted word is one
// value; a line ends at ')', '(', ';', ',', an unpaired quote, a
// backtick, a pipe or a redirection.
func commandMentions(t *testing.T) []mention {
	t.Helper()
	start := regexp.MustCompile(`\bcharter [a-z-]`)
	quoted := regexp.MustCompile(`(\s)(?:"[^"]*"|'[^']*')`) // opened after a space: not "registry's"
	var out []mention
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		if d.IsDir() {
			switch rel {
			case "cmd/charter", "cmd/internal/cli", "cmd/internal/command/clitest", "bench", ".git":
				return filepath.SkipDir
			}
			if d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, loc := range start.FindAllStringIndex(s, -1) {
				line := s[loc[0]:]
				if i := strings.IndexByte(line, '\n'); i >= 0 {
					line = line[:i]
				}
				// A quoted word is one value, as the shell has it.
				line = quoted.ReplaceAllString(line, "${1}X")
				if i := strings.IndexAny(line, "();,`\"'|<>&\\"); i >= 0 {
					line = line[:i]
				}
				out = append(out, mention{where: fset.Position(lit.Pos()).String(), line: strings.TrimSpace(line)})
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// placeholder reports whether a token stands for a value the user fills
// in: a format verb, an upper-case name (SUBJECT, TEAM), an ellipsis.
func placeholder(tok string) bool {
	return strings.Contains(tok, "%") || tok == "…" || tok == "..." || strings.ToUpper(tok) == tok && strings.ToLower(tok) != tok
}

// dummy is a value of a flag's type, for a placeholder given to it.
func dummy(typ string) string {
	switch typ {
	case "int", "int64", "int32", "uint", "uint64", "float64", "count":
		return "1"
	case "duration":
		return "1s"
	}
	return "X"
}

// checkMention parses line against a fresh command tree: its command path
// must name a command, a lower-case word after it must not be the name of
// a command elsewhere in the tree (`charter owners set S`), its flags must
// be the command's and parse, and its arguments must not be more than the
// command takes (fewer are allowed: a hint may name only a flag, as in
// `charter import --merge`). A word that names no command ends the line
// ("charter rules lists them"). ok is false when line names no command.
func checkMention(line string) (ok bool, problem string) {
	root := cli.NewRootCommand(cli.Env{Stdout: io.Discard, Stderr: io.Discard})
	names := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			names[s.Name()] = true
			walk(s)
		}
	}
	walk(root)
	toks := strings.Fields(line)[1:]
	c := root
	for len(toks) > 0 {
		var next *cobra.Command
		for _, s := range c.Commands() {
			if s.Name() == toks[0] || s.HasAlias(toks[0]) {
				next = s
			}
		}
		if next == nil {
			break
		}
		c, toks = next, toks[1:]
	}
	if c == root {
		return false, ""
	}
	word := regexp.MustCompile(`^[a-z]+$`)
	var args []string
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		if strings.HasPrefix(tok, "-") && tok != "-" { // "-" is stdin
			name, _, hasValue := strings.Cut(strings.TrimLeft(tok, "-"), "=")
			var f = c.Flags().Lookup(name)
			if f == nil {
				f = c.InheritedFlags().Lookup(name)
			}
			if f == nil && !strings.HasPrefix(tok, "--") && len(name) == 1 {
				if f = c.Flags().ShorthandLookup(name); f == nil {
					f = c.InheritedFlags().ShorthandLookup(name)
				}
			}
			if f == nil {
				return true, "unknown flag " + tok + " for " + c.CommandPath()
			}
			args = append(args, tok)
			if !hasValue && f.NoOptDefVal == "" && i+1 < len(toks) {
				i++
				v := toks[i]
				if placeholder(v) {
					v = dummy(f.Value.Type())
				}
				args = append(args, v)
			}
			continue
		}
		if word.MatchString(tok) {
			if names[tok] {
				return true, "\"" + tok + "\" is a command name, not an argument of " + c.CommandPath()
			}
			break // prose: "charter rules lists them"
		}
		args = append(args, tok)
	}
	if err := c.ParseFlags(args); err != nil {
		return true, err.Error()
	}
	pos := c.Flags().Args()
	if c.HasSubCommands() && len(pos) > 0 {
		return true, c.CommandPath() + " only groups commands: " + strings.Join(pos, " ") + " names none"
	}
	var err error
	for extra := 0; extra <= 3; extra++ {
		if err = c.ValidateArgs(pos); err == nil {
			return true, ""
		}
		pos = append(pos, "X")
	}
	return true, err.Error()
}

// TestHintsNameRealCommands: every `charter …` command line that the
// code outside cmd/ shows users (fix hints of the governance engine, the
// gate and the project rules, errors, refusals) parses against the real
// command tree.
func TestHintsNameRealCommands(t *testing.T) {
	for _, tc := range []struct {
		line string
		bad  bool
	}{
		{"charter owners set X --team TEAM --contact CHANNEL", true},
		{"charter owners X --team TEAM --contact CHANNEL --description TEXT", false},
		{"charter extend X Y --consumer TEAM --days N --reason … --approver …", false},
		{"charter extend X Y --consumer TEAM --weeks 2", true},
		{"charter config set X --validate-fields=false", false},
		{"charter import --merge", false},
		{"charter rules lists them", false},
		{"charter versions A B C", true},
		{"charter lineage producers X", true},
	} {
		ok, problem := checkMention(tc.line)
		if !ok || (problem != "") != tc.bad {
			t.Errorf("checkMention(%q) = %v, %q; want bad %v", tc.line, ok, problem, tc.bad)
		}
	}
	ms := commandMentions(t)
	checked := 0
	for _, m := range ms {
		ok, problem := checkMention(m.line)
		if !ok {
			continue
		}
		checked++
		if problem != "" {
			t.Errorf("%s: %q does not parse against the command tree: %s", m.where, m.line, problem)
		}
	}
	if checked < 10 {
		t.Errorf("only %d command lines found in %d mentions; the scan is broken", checked, len(ms))
	}
	t.Logf("%d command lines checked", checked)
}

// TestCountsArePlural: no message of the CLI (cmd/internal) or the
// governance engine formats a count before a plural noun ("%d schema
// files" printed "1 schema files"): counts go through rule.Plural. The
// exceptions count a constant that is never 1.
func TestCountsArePlural(t *testing.T) {
	constant := []string{
		"more than %d days away", // governance.MaxTTLDays
		"want 0 to %d days",      // governance.MaxTTLDays
		"the first %d bytes",     // auth's maxInput
	}
	count := regexp.MustCompile(`%[-+ 0-9]*d (?:[a-z]+ )?([a-z]{3,}s)\b`)
	// Words ending in s that are no plural: verbs ("version %d is") and
	// nouns such as "with loss".
	notPlural := map[string]bool{"does": true, "was": true, "has": true, "goes": true, "says": true, "reads": true, "breaks": true,
		"needs": true, "makes": true, "loss": true, "class": true, "access": true, "address": true, "status": true, "pass": true}
	for _, dir := range []string{"cmd/internal", "registry/governance"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
			next:
				for _, m := range count.FindAllStringSubmatch(s, -1) {
					if notPlural[m[1]] {
						continue
					}
					for _, c := range constant {
						if strings.Contains(s, c) {
							continue next
						}
					}
					t.Errorf("%s: %q formats a count before the plural %q: use rule.Plural", fset.Position(lit.Pos()), s, m[1])
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if bad := count.FindStringSubmatch("wrote %s: %d schema files"); bad == nil || bad[1] != "files" {
		t.Fatalf("the pattern misses %q", "%d schema files")
	}
}
