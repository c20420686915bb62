package evidence_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/formats"
)

var update = flag.Bool("update", false, "rewrite the want.json files of testdata")

// parseCase parses testdata/<dir>/reader.<ext> and writer.<ext>.
func parseCase(t testing.TB, dir string, typ compat.SchemaType) (reader, writer compat.Schema) {
	t.Helper()
	e, ok := formats.ByType(typ)
	if !ok {
		t.Fatalf("no format %s", typ)
	}
	parse := func(name string) compat.Schema {
		text, err := os.ReadFile(filepath.Join(dir, name+e.Extensions[0]))
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.Format.Parse(string(text), nil)
		if err != nil {
			t.Fatalf("%s/%s: %v", dir, name, err)
		}
		return s
	}
	return parse("reader"), parse("writer")
}

// TestRulesHaveCases is the meta-test: every evidence rule has its
// testdata case, the case's events prove the rule (its outcome names it),
// the rules of its format accept the pair (the loss is silent), and the
// counterexample is the one in want.json.
func TestRulesHaveCases(t *testing.T) {
	for _, r := range evidence.Rules() {
		t.Run(r.ID, func(t *testing.T) {
			dir := filepath.Join("testdata", strings.ToLower(r.ID))
			reader, writer := parseCase(t, dir, r.Format)
			e, _ := formats.ByType(r.Format)
			if vs := e.Format.CheckRead(reader, writer); len(vs) != 0 {
				t.Errorf("the %s rules already refuse the case: %v", r.Format, vs)
			}
			res, err := evidence.Read(context.Background(), reader, writer, evidence.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []evidence.Outcome
			for _, o := range res.Outcomes {
				if o.RuleID == r.ID {
					got = append(got, o)
				}
			}
			if len(got) == 0 {
				t.Fatalf("no event proves %s; outcomes: %+v", r.ID, res.Outcomes)
			}
			vs := evidence.Violations(res)
			found := false
			for _, v := range vs {
				found = found || v.RuleID == r.ID
			}
			if !found {
				t.Errorf("Violations does not report %s: %v", r.ID, vs)
			}
			text, err := json.MarshalIndent(got[0], "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			text = append(text, '\n')
			want := filepath.Join(dir, "want.json")
			if *update {
				if err := os.WriteFile(want, text, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantText, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if !bytes.Equal(wantText, text) {
				t.Errorf("counterexample differs from %s:\ngot:\n%s\nwant:\n%s", want, text, wantText)
			}
		})
	}
}
