package rules_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/rules"
)

// TestEveryRuleConstantIsListed: every rule ID constant of the module (a
// const named Rule… whose value is a SCREAMING_SNAKE string, in a non-test
// file) is a rule of the catalog, so no package fires a rule that charter
// rules does not list; and every rule of the catalog is such a constant,
// declared once, so grep finds its declaration in one hop.
func TestEveryRuleConstantIsListed(t *testing.T) {
	root := filepath.Join("..", "..")
	declared := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || isModule(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Rule") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					id, _ := strconv.Unquote(lit.Value)
					if !idPattern.MatchString(id) {
						continue
					}
					declared[id] = append(declared[id], path+": "+name.Name)
					if _, ok := rules.Lookup(id); !ok {
						t.Errorf("%s: %s = %q is not in the catalog", path, name.Name, id)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules.All() {
		if d := declared[r.ID]; len(d) != 1 {
			t.Errorf("rule %s is declared by %d constants named Rule…, want one: %v", r.ID, len(d), d)
		}
	}
}

// isModule reports whether dir is the root of a module of its own.
func isModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}
