package protobuf_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
)

// sharedDir returns ../shared/<sub> relative to the repository root (the
// directory holding go.mod). When it is absent the test is skipped, except
// with CI=true, where it fails.
func sharedDir(t testing.TB, sub string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", sub)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("conformance data %s is missing (CI=true): %v", p, err)
		}
		t.Skipf("conformance data %s not present; skipping (set CI=true to make this a failure)", p)
	}
	return p
}

// confluentCase is one record of Confluent's Protobuf diff fixtures (see
// ../shared/conformance/confluent/SOURCES.md).
type confluentCase struct {
	Description          string          `json:"description"`
	OriginalSchema       string          `json:"original_schema"`
	UpdateSchema         string          `json:"update_schema"`
	OriginalDependencies []confluentDep  `json:"original_dependencies"`
	UpdateDependencies   []confluentDep  `json:"update_dependencies"`
	Changes              []string        `json:"changes"`
	Compatible           bool            `json:"compatible"`
	OriginalMetadata     json.RawMessage `json:"original_metadata"`
}

type confluentDep struct {
	Name       string  `json:"name"`
	Dependency *string `json:"dependency"`
}

// confluentCompatible is Confluent's set of compatible change types
// (SchemaDiff.COMPATIBLE_CHANGES).
var confluentCompatible = map[string]bool{
	"MESSAGE_ADDED": true, "MESSAGE_MOVED": true, "ENUM_ADDED": true, "ENUM_REMOVED": true,
	"ENUM_CONST_ADDED": true, "ENUM_CONST_CHANGED": true, "ENUM_CONST_REMOVED": true,
	"FIELD_ADDED": true, "FIELD_REMOVED": true, "FIELD_NAME_CHANGED": true,
	"FIELD_STRING_OR_BYTES_LABEL_CHANGED": true, "ONEOF_ADDED": true, "ONEOF_REMOVED": true,
	"ONEOF_FIELD_ADDED": true, "ONEOF_FIELD_MOVED_TO_TOP_LEVEL": true,
}

func loadConfluent(t *testing.T, dir, file string) []confluentCase {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	var cases []confluentCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return cases
}

// confluentSchema parses a fixture schema: inline text, or (with-meta file)
// a path relative to the fixture folder; dependencies without inline text
// are read from the folder when present there, else left to the standard
// imports.
func confluentSchema(t *testing.T, dir, text string, deps []confluentDep) compat.Schema {
	t.Helper()
	if strings.HasSuffix(text, ".proto") && !strings.Contains(text, "\n") {
		b, err := os.ReadFile(filepath.Join(dir, text))
		if err != nil {
			t.Fatal(err)
		}
		text = string(b)
	}
	var ds []compat.Dependency
	for _, d := range deps {
		if d.Dependency != nil {
			ds = append(ds, compat.Dependency{Name: d.Name, Text: *d.Dependency})
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, d.Name)); err == nil {
			ds = append(ds, compat.Dependency{Name: d.Name, Text: string(b)})
		}
	}
	s, err := protobuf.Format{}.Parse(text, ds)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return s
}

// TestConformanceConfluent reads Confluent's Protobuf diff fixtures in
// place (55 cases; `compatible` means the update can read data written with
// the original, i.e. BACKWARD). Charter's default profile must give the same
// verdict and report exactly the incompatible change types Confluent lists,
// under their PROTO_ names, except as noted in the loop.
func TestConformanceConfluent(t *testing.T) {
	dir := sharedDir(t, filepath.Join("conformance", "confluent", "protobuf"))
	cases := loadConfluent(t, dir, "diff-schema-examples.json")
	cases = append(cases, loadConfluent(t, dir, "diff-schema-examples-with-meta.json")...)
	if len(cases) != 55 {
		t.Errorf("found %d Confluent cases, want 55", len(cases))
	}
	pass := 0
	for i, c := range cases {
		t.Run(strings.ReplaceAll(c.Description, " ", "_"), func(t *testing.T) {
			writer := confluentSchema(t, dir, c.OriginalSchema, c.OriginalDependencies)
			reader := confluentSchema(t, dir, c.UpdateSchema, c.UpdateDependencies)
			got := protobuf.Format{}.CheckRead(reader, writer)
			var want []string
			for _, ch := range c.Changes {
				typ, _, _ := strings.Cut(ch, " ")
				if !confluentCompatible[typ] {
					want = append(want, "PROTO_"+typ)
				}
			}
			want = sortedSet(want)
			gotRules := ruleIDs(got)
			// Confluent adds FIELD_NAMED_TYPE_CHANGED at a field whose
			// message type (from an import) became incompatible, next to the
			// nested change; Charter reports the nested change only, with a
			// path through the field.
			if !slices.Contains(gotRules, protobuf.RuleFieldNamedTypeChanged) && len(want) > 1 {
				want = slices.DeleteFunc(want, func(s string) bool { return s == protobuf.RuleFieldNamedTypeChanged })
			}
			if c.Compatible != (len(got) == 0) || !slices.Equal(gotRules, want) {
				t.Fatalf("case %d: Confluent says compatible=%v %v (%v); Charter says %v", i, c.Compatible, want, c.Changes, got)
			}
			pass++
		})
	}
	t.Logf("confluent protobuf: %d/%d cases agree", pass, len(cases))
}

func ruleIDs(vs []compat.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.RuleID)
	}
	return sortedSet(out)
}

func sortedSet(ss []string) []string {
	out := slices.Clone(ss)
	sort.Strings(out)
	return slices.Compact(out)
}

// bufToCharter maps buf's WIRE and WIRE_JSON rules to Charter's.
var bufToCharter = map[string][]string{
	"FILE_SAME_PACKAGE":                           {protobuf.RulePackageChanged},
	"MESSAGE_SAME_REQUIRED_FIELDS":                {protobuf.RuleRequiredFieldAdded, protobuf.RuleRequiredFieldRemoved},
	"FIELD_SAME_ONEOF":                            {protobuf.RuleFieldSameOneof},
	"FIELD_SAME_DEFAULT":                          {protobuf.RuleFieldSameDefault},
	"RESERVED_MESSAGE_NO_DELETE":                  {protobuf.RuleReservedMessageNoDelete},
	"RESERVED_ENUM_NO_DELETE":                     {protobuf.RuleReservedEnumNoDelete},
	"ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED": {protobuf.RuleEnumValueNoDeleteUnlessNumberReserved},
	"ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED":   {protobuf.RuleEnumValueNoDeleteUnlessNameReserved},
	"FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED":      {protobuf.RuleFieldNoDeleteUnlessNumberReserved},
	"FIELD_NO_DELETE_UNLESS_NAME_RESERVED":        {protobuf.RuleFieldNoDeleteUnlessNameReserved},
	"FIELD_WIRE_COMPATIBLE_CARDINALITY":           {protobuf.RuleFieldWireCompatibleCardinality},
	"FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY":      {protobuf.RuleFieldWireJSONCompatibleCardinality},
	"FIELD_WIRE_COMPATIBLE_TYPE":                  {protobuf.RuleFieldWireCompatibleType},
	"FIELD_WIRE_JSON_COMPATIBLE_TYPE":             {protobuf.RuleFieldWireJSONCompatibleType},
	"ENUM_SAME_JSON_FORMAT":                       {protobuf.RuleEnumSameJSONFormat},
	"MESSAGE_SAME_JSON_FORMAT":                    {protobuf.RuleMessageSameJSONFormat},
	"ENUM_VALUE_SAME_NAME":                        {protobuf.RuleEnumValueNameChanged},
	"FIELD_SAME_JSON_NAME":                        {protobuf.RuleFieldJSONNameChanged},
	"FIELD_SAME_NAME":                             {protobuf.RuleFieldNameChanged},
}

// bufCategories lists the in-scope rules of buf's categories (v1 and v2
// configurations; FIELD_SAME_DEFAULT exists in v2 only).
var bufCategories = map[string][]string{
	"WIRE": {"FILE_SAME_PACKAGE", "MESSAGE_SAME_REQUIRED_FIELDS", "FIELD_SAME_ONEOF", "FIELD_SAME_DEFAULT",
		"RESERVED_MESSAGE_NO_DELETE", "RESERVED_ENUM_NO_DELETE", "ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED",
		"FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED", "FIELD_WIRE_COMPATIBLE_CARDINALITY", "FIELD_WIRE_COMPATIBLE_TYPE"},
	"WIRE_JSON": {"FILE_SAME_PACKAGE", "MESSAGE_SAME_REQUIRED_FIELDS", "FIELD_SAME_ONEOF", "FIELD_SAME_DEFAULT",
		"RESERVED_MESSAGE_NO_DELETE", "RESERVED_ENUM_NO_DELETE", "ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED",
		"FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED", "ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED",
		"FIELD_NO_DELETE_UNLESS_NAME_RESERVED", "FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY",
		"FIELD_WIRE_JSON_COMPATIBLE_TYPE", "ENUM_SAME_JSON_FORMAT", "MESSAGE_SAME_JSON_FORMAT",
		"ENUM_VALUE_SAME_NAME", "FIELD_SAME_JSON_NAME", "FIELD_SAME_NAME"},
	"FILE": {"FILE_SAME_PACKAGE", "MESSAGE_SAME_REQUIRED_FIELDS", "FIELD_SAME_ONEOF", "FIELD_SAME_DEFAULT",
		"RESERVED_MESSAGE_NO_DELETE", "RESERVED_ENUM_NO_DELETE", "ENUM_SAME_JSON_FORMAT", "MESSAGE_SAME_JSON_FORMAT",
		"ENUM_VALUE_SAME_NAME", "FIELD_SAME_JSON_NAME", "FIELD_SAME_NAME"},
}

// bufDeprecated maps deprecated rules to their replacements (buf prints a
// warning and runs the replacements).
var bufDeprecated = map[string][]string{
	"FIELD_SAME_LABEL": {"FIELD_SAME_CARDINALITY", "FIELD_WIRE_COMPATIBLE_CARDINALITY", "FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY"},
	"FIELD_SAME_CTYPE": {"FIELD_SAME_CPP_STRING_TYPE"},
}

type bufLine struct {
	Case        string `json:"case"`
	ExitCode    int    `json:"exit_code"`
	Annotations []struct {
		Path *string `json:"path"`
		Type string  `json:"type"`
	} `json:"annotations"`
}

// bufConfig reads the rule selection of a case's buf.yaml (use, except)
// with a line scanner: the files are small and regular.
func bufConfig(t *testing.T, path string) (use, except []string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		return []string{"FILE"}, nil // buf's default
	}
	var list *[]string
	inBreaking := false
	for _, line := range strings.Split(string(raw), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !strings.HasPrefix(line, " ") && trimmed != "":
			inBreaking = trimmed == "breaking:"
			list = nil
		case inBreaking && trimmed == "use:":
			list = &use
		case inBreaking && trimmed == "except:":
			list = &except
		case inBreaking && strings.HasPrefix(trimmed, "- ") && list != nil:
			*list = append(*list, strings.TrimPrefix(trimmed, "- "))
		case inBreaking && strings.HasSuffix(trimmed, ":"):
			list = nil
		}
	}
	if use == nil {
		use = []string{"FILE"}
	}
	return use, except
}

// bufSkip lists the cases that need check plugins or policies that are not
// in the fixture tree (see SOURCES.md).
var bufSkip = map[string]string{
	"breaking_custom_plugins":        "needs the buf-plugin-suffix check plugin",
	"breaking_policy_local":          "needs WebAssembly check plugins from policies",
	"breaking_policy_disablebuiltin": "uses a policy file that disables built-in rules",
}

// TestConformanceBuf reads buf's breaking-change fixtures in place and
// compares, for every case whose rule selection includes WIRE or WIRE_JSON
// rules, buf v1.75.0's findings (expected-buf-v1.75.0.jsonl) with
// Charter's: for each current file, the set of buf rules with annotations
// must equal the set of buf rules Charter's violations map to, reading the
// current file as the reader of the previous one. Cases that select only
// rules outside WIRE/WIRE_JSON (deletions of whole elements, language
// options, RPCs) are reported out of scope.
func TestConformanceBuf(t *testing.T) {
	dir := sharedDir(t, filepath.Join("conformance", "buf"))
	f, err := os.Open(filepath.Join(dir, "expected-buf-v1.75.0.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []bufLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l bufLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 58 {
		t.Errorf("found %d buf cases, want 58", len(lines))
	}
	charterToBuf := map[string]string{}
	for b, cs := range bufToCharter {
		for _, c := range cs {
			charterToBuf[c] = b
		}
	}
	inScope, pass := 0, 0
	var outOfScope []string
	for _, l := range lines {
		if why, ok := bufSkip[l.Case]; ok {
			outOfScope = append(outOfScope, l.Case+" ("+why+")")
			continue
		}
		use, except := bufConfig(t, filepath.Join(dir, "breaking", "current", l.Case, "buf.yaml"))
		selected := map[string]bool{}
		for _, u := range use {
			for _, r := range expandBuf(u) {
				selected[r] = true
			}
		}
		if len(except) > 0 && len(use) == 1 && use[0] == "FILE" {
			for _, e := range except {
				for _, r := range expandBuf(e) {
					delete(selected, r)
				}
			}
		}
		var scope []string
		for r := range selected {
			if _, ok := bufToCharter[r]; ok {
				scope = append(scope, r)
			}
		}
		if len(scope) == 0 {
			outOfScope = append(outOfScope, l.Case+" (selects no WIRE/WIRE_JSON rule)")
			continue
		}
		inScope++
		t.Run(l.Case, func(t *testing.T) {
			want := map[string][]string{}
			for _, a := range l.Annotations {
				if a.Path != nil && selected[a.Type] {
					if _, ok := bufToCharter[a.Type]; ok {
						want[*a.Path] = append(want[*a.Path], a.Type)
					}
				}
			}
			got := map[string][]string{}
			prevDir := filepath.Join(dir, "breaking", "previous", l.Case)
			curDir := filepath.Join(dir, "breaking", "current", l.Case)
			// buf pairs elements by full name across the whole module, so
			// a message may move between files: every current file is read
			// against every previous file of its package (the file-level
			// package rule only against the file of the same path).
			if st, err := os.Stat(filepath.Join(prevDir, "root")); err == nil && st.IsDir() {
				prevDir = filepath.Join(prevDir, "root") // build root of breaking_file_same_package
			}
			prevFiles := protoFiles(t, prevDir)
			for _, file := range protoFiles(t, curDir) {
				reader := parseTree(t, curDir, file)
				for _, prev := range prevFiles {
					writer := parseTree(t, prevDir, prev)
					samePath := prev == file
					if !samePath && reader.(*protobuf.Schema).Descriptor().Package() != writer.(*protobuf.Schema).Descriptor().Package() {
						continue
					}
					var vs []compat.Violation
					vs = append(vs, protobuf.Format{Profile: protobuf.ProfileWire}.CheckRead(reader, writer)...)
					vs = append(vs, protobuf.Format{Profile: protobuf.ProfileWireJSON}.CheckRead(reader, writer)...)
					for _, v := range vs {
						if v.RuleID == protobuf.RulePackageChanged && !samePath {
							continue
						}
						if b := charterToBuf[v.RuleID]; selected[b] {
							got[file] = append(got[file], b)
						}
					}
				}
			}
			files := map[string]bool{}
			for k := range want {
				files[k] = true
			}
			for k := range got {
				files[k] = true
			}
			ok := true
			for file := range files {
				w, g := sortedSet(want[file]), sortedSet(got[file])
				if !slices.Equal(w, g) {
					ok = false
					t.Errorf("%s: buf reports %v, Charter %v", file, w, g)
				}
			}
			if ok {
				pass++
			}
		})
	}
	t.Logf("buf: %d/%d in-scope cases agree per file and rule; %d out of scope: %s",
		pass, inScope, len(outOfScope), strings.Join(outOfScope, "; "))
}

func expandBuf(id string) []string {
	if rs, ok := bufCategories[id]; ok {
		return rs
	}
	if rs, ok := bufDeprecated[id]; ok {
		return rs
	}
	return []string{id}
}

// protoFiles lists the .proto files under dir (relative, slash-separated).
func protoFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".proto") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// parseTree parses file of a fixture tree with every other file of the tree
// as a reference.
func parseTree(t *testing.T, dir, file string) compat.Schema {
	t.Helper()
	var deps []compat.Dependency
	for _, other := range protoFiles(t, dir) {
		if other == file {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, other))
		if err != nil {
			t.Fatal(err)
		}
		deps = append(deps, compat.Dependency{Name: other, Text: string(b)})
	}
	text, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := protobuf.Format{}.Parse(string(text), deps)
	if err != nil {
		t.Fatalf("parse %s: %v", filepath.Join(dir, file), err)
	}
	return s
}
