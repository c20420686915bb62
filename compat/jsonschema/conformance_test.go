package jsonschema_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/jsonschema"
)

// sharedDir returns ../shared/<sub> relative to the repository root (the
// directory holding go.mod). When it is absent the test is skipped, except
// with CI=true, where it fails.
func sharedDir(t *testing.T, sub string) string {
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

// stripTrailingCommas removes a ',' that directly precedes '}' or ']'
// outside strings (one of Confluent's files has one; Java's org.json
// accepts it, encoding/json does not).
func stripTrailingCommas(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == ',' {
			j := i + 1
			for j < len(b) && strings.ContainsRune(" \t\r\n", rune(b[j])) {
				j++
			}
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

type confluentCase struct {
	Description string          `json:"description"`
	Original    json.RawMessage `json:"original_schema"`
	Update      json.RawMessage `json:"update_schema"`
	Changes     []string        `json:"changes"`
	Compatible  bool            `json:"compatible"`
	Lenient     *bool           `json:"compatible_lenient"`
}

// TestConformanceConfluent reads Confluent Schema Registry's JSON Schema
// differ fixtures in place (../shared/conformance/confluent/json-schema, 263
// cases; see SOURCES.md there; they are never copied into this project).
// "compatible" is the BACKWARD verdict of update over original, so each
// case is CheckRead(reader = update, writer = original). Charter must give
// the same verdict, under STRICT and (where the case says) LENIENT, and
// report the same differences: the same incompatible changes and, as a
// multiset, the same full change list.
func TestConformanceConfluent(t *testing.T) {
	dir := sharedDir(t, filepath.Join("conformance", "confluent", "json-schema"))
	files := []struct {
		name  string
		cases int
	}{
		{"diff-schema-examples.json", 104},
		{"diff-combined-schema-examples.json", 28},
		{"diff-schema-examples-2020-12.json", 113},
		{"diff-combined-schema-examples-2020-12.json", 18},
	}
	total, passed := 0, 0
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		var cases []confluentCase
		if err := json.Unmarshal(stripTrailingCommas(raw), &cases); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if len(cases) != f.cases {
			t.Errorf("%s has %d cases, want %d", f.name, len(cases), f.cases)
		}
		verdicts, exact, lenient := 0, 0, 0
		for i, c := range cases {
			name := fmt.Sprintf("%s/%03d %s", f.name, i, c.Description)
			ok := t.Run(name, func(t *testing.T) {
				original := mustParse(t, string(c.Original))
				update := mustParse(t, string(c.Update))
				changes, err := jsonschema.Diff(jsonschema.Strict, original, update)
				if err != nil {
					t.Fatal(err)
				}
				var got, gotIncompatible []string
				compatible := true
				for _, ch := range changes {
					got = append(got, ch.Type+" "+ch.Path)
					if !ch.Compatible {
						compatible = false
						gotIncompatible = append(gotIncompatible, ch.Type+" "+ch.Path)
					}
				}
				if compatible != c.Compatible {
					t.Errorf("compatible = %v, Confluent says %v\n got  %v\n want %v", compatible, c.Compatible, got, c.Changes)
				} else {
					verdicts++
				}
				// Which of Confluent's changes are incompatible, by the
				// same table.
				var wantIncompatible []string
				for _, want := range c.Changes {
					typ, _, _ := strings.Cut(want, " ")
					if !isCompatibleType(typ) {
						wantIncompatible = append(wantIncompatible, want)
					}
				}
				if !sameMultiset(gotIncompatible, wantIncompatible) {
					t.Errorf("incompatible changes:\n got  %v\n want %v", gotIncompatible, wantIncompatible)
				}
				if sameMultiset(got, c.Changes) {
					exact++
				} else {
					t.Errorf("changes:\n got  %v\n want %v", got, c.Changes)
				}
				// Violations from CheckRead are the incompatible changes.
				vs := jsonschema.Format{}.CheckRead(update, original)
				var fromCheck []string
				for _, v := range vs {
					fromCheck = append(fromCheck, strings.TrimPrefix(v.RuleID, "JSON_")+" "+v.Path)
				}
				if !slices.Equal(fromCheck, gotIncompatible) {
					t.Errorf("CheckRead %v, Diff's incompatible changes %v", fromCheck, gotIncompatible)
				}
				wantLenient := c.Compatible
				if c.Lenient != nil {
					wantLenient = *c.Lenient
				}
				if got := len(jsonschema.Format{Policy: jsonschema.Lenient}.CheckRead(update, original)) == 0; got != wantLenient {
					t.Errorf("LENIENT compatible = %v, Confluent says %v", got, wantLenient)
				} else {
					lenient++
				}
			})
			total++
			if ok {
				passed++
			}
		}
		t.Logf("confluent %s: %d/%d verdicts, %d/%d exact change lists, %d/%d LENIENT verdicts",
			f.name, verdicts, len(cases), exact, len(cases), lenient, len(cases))
	}
	t.Logf("confluent json-schema: %d/%d cases pass", passed, total)
}

// isCompatibleType reports whether a Confluent change type is in
// SchemaDiff.COMPATIBLE_CHANGES_STRICT, as Charter's table has it: every
// type whose rule (JSON_ + the type) is not in jsonschema.Rules.
func isCompatibleType(typ string) bool {
	return !isRule("JSON_" + typ)
}

func sameMultiset(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(a, b)
}

// verdict names the directions in which updated can follow original, as
// Apicurio's labels do: "both", "backward", "forward" or "none"; "invalid"
// when a schema does not parse.
func verdict(original, updated string) string {
	o, err1 := jsonschema.Parse(original, nil)
	u, err2 := jsonschema.Parse(updated, nil)
	if err1 != nil || err2 != nil {
		return "invalid"
	}
	backward := len(jsonschema.Format{}.CheckRead(u, o)) == 0
	forward := len(jsonschema.Format{}.CheckRead(o, u)) == 0
	switch {
	case backward && forward:
		return "both"
	case backward:
		return "backward"
	case forward:
		return "forward"
	}
	return "none"
}

// pinnedCase is a case where Charter deliberately disagrees with a peer:
// testdata/apicurio-pinned/<dir>/case.json.
type pinnedCase struct {
	Index    int             `json:"index"`
	ID       string          `json:"id"`
	Apicurio string          `json:"apicurio"`
	Charter  string          `json:"charter"`
	Why      string          `json:"why"`
	Original json.RawMessage `json:"original"`
	Updated  json.RawMessage `json:"updated"`
}

func loadPinned(t *testing.T) map[int]pinnedCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "apicurio-pinned", "*", "case.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no pinned Apicurio cases: %v", err)
	}
	out := map[int]pinnedCase{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c pinnedCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if c.Why == "" || c.Charter == c.Apicurio {
			t.Errorf("%s: a pinned case needs a reason and a different verdict", f)
		}
		out[c.Index] = c
	}
	return out
}

// TestApicurioPinned runs the pinned disagreements from their testdata
// copies (Apicurio's data is Apache-2.0), so they hold without ../shared.
func TestApicurioPinned(t *testing.T) {
	for _, c := range loadPinned(t) {
		t.Run(fmt.Sprintf("%03d %s", c.Index, c.ID), func(t *testing.T) {
			if got := verdict(string(c.Original), string(c.Updated)); got != c.Charter {
				t.Errorf("Charter says %s, pinned %s (%s)", got, c.Charter, c.Why)
			}
		})
	}
}

// TestConformanceApicurio reads Apicurio Registry's JSON Schema
// compatibility data in place (../shared/conformance/apicurio/json-schema,
// 145 cases, Apache-2.0). Labels name the directions the update is
// compatible in: "both" (BACKWARD and FORWARD), "backward", "none". Charter
// must agree, except on the cases pinned in testdata/apicurio-pinned, where
// Confluent's semantics (which Charter follows) or the specification decide
// otherwise.
func TestConformanceApicurio(t *testing.T) {
	dir := sharedDir(t, filepath.Join("conformance", "apicurio", "json-schema"))
	raw, err := os.ReadFile(filepath.Join(dir, "compatibility-test-data.json"))
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Tests []struct {
			ID            string          `json:"id"`
			Enabled       bool            `json:"enabled"`
			Compatibility string          `json:"compatibility"`
			Original      json.RawMessage `json:"original"`
			Updated       json.RawMessage `json:"updated"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Tests) != 145 {
		t.Errorf("compatibility-test-data.json has %d cases, want 145", len(data.Tests))
	}
	pinned := loadPinned(t)
	agree, pins := 0, 0
	for i, c := range data.Tests {
		t.Run(fmt.Sprintf("%03d %s", i, c.ID), func(t *testing.T) {
			got := verdict(string(c.Original), string(c.Updated))
			if p, ok := pinned[i]; ok {
				if p.ID != c.ID || p.Apicurio != c.Compatibility {
					t.Fatalf("pinned case %d no longer matches the data (%q %s); revisit it", i, c.ID, c.Compatibility)
				}
				if !jsonEqualText(p.Original, c.Original) || !jsonEqualText(p.Updated, c.Updated) {
					t.Fatalf("pinned case %d: testdata schemas differ from the corpus", i)
				}
				if got != p.Charter {
					t.Errorf("Charter says %s, pinned %s", got, p.Charter)
				}
				pins++
				return
			}
			if got != c.Compatibility {
				t.Errorf("Charter says %s, Apicurio %s\n original %s\n updated  %s", got, c.Compatibility, c.Original, c.Updated)
				return
			}
			agree++
		})
	}
	if pins != len(pinned) {
		t.Errorf("%d pinned cases, %d found in the corpus", len(pinned), pins)
	}
	t.Logf("apicurio json-schema: %d/%d agree, %d pinned disagreements (testdata/apicurio-pinned), %d/%d as expected",
		agree, len(data.Tests), pins, agree+pins, len(data.Tests))
}

func jsonEqualText(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// --- AxonOps BDD scenarios ---

type bddStep struct {
	line int
	text string
	doc  string
}

type bddScenario struct {
	file  string
	name  string
	steps []bddStep
}

// parseFeature reads the scenarios of a Gherkin file: steps with their doc
// strings; tables (the audit-log expectations) are skipped.
func parseFeature(t *testing.T, path string) []bddScenario {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []bddScenario
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	var inDoc bool
	var doc []string
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if inDoc {
			if line == `"""` {
				inDoc = false
				s := &out[len(out)-1]
				s.steps[len(s.steps)-1].doc = strings.Join(doc, "\n")
				continue
			}
			doc = append(doc, line)
			continue
		}
		switch {
		case strings.HasPrefix(line, "Scenario:"):
			out = append(out, bddScenario{file: filepath.Base(path), name: strings.TrimSpace(strings.TrimPrefix(line, "Scenario:"))})
		case line == `"""`:
			inDoc, doc = true, nil
		case len(out) > 0 && regexp.MustCompile(`^(Given|When|Then|And|But) `).MatchString(line):
			_, rest, _ := strings.Cut(line, " ")
			s := &out[len(out)-1]
			s.steps = append(s.steps, bddStep{line: n, text: rest})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

type bddVersion struct {
	schema *jsonschema.Schema
	text   string
	deps   []compat.Dependency
}

// bddRegistry plays the part of the registry in a scenario: subjects with
// versions, global and subject compatibility levels, the last response.
type bddRegistry struct {
	global   compat.Level
	levels   map[string]compat.Level
	subjects map[string][]bddVersion
	status   int
	verdict  *bool
}

func (r *bddRegistry) level(subject string) compat.Level {
	if l, ok := r.levels[subject]; ok {
		return l
	}
	return r.global
}

// check returns whether text may follow the subject's versions.
func (r *bddRegistry) check(subject, text string, deps []compat.Dependency) (*jsonschema.Schema, bool, error) {
	s, err := jsonschema.Parse(text, deps)
	if err != nil {
		return nil, false, err
	}
	var prev []compat.Previous
	for i, v := range r.subjects[subject] {
		prev = append(prev, compat.Previous{Version: i + 1, Schema: v.schema})
	}
	res := compat.Check(jsonschema.Format{}, r.level(subject), s, prev)
	return s, res.Compatible(), nil
}

// add registers a version unless an equal one exists (Confluent returns
// the existing version then).
func (r *bddRegistry) add(subject string, s *jsonschema.Schema, text string, deps []compat.Dependency) {
	for _, v := range r.subjects[subject] {
		if v.schema.Canonical() == s.Canonical() {
			return
		}
	}
	r.subjects[subject] = append(r.subjects[subject], bddVersion{s, text, deps})
}

// refDeps resolves references to registered versions (their own
// references first).
func (r *bddRegistry) refDeps(name, subject string, version int) ([]compat.Dependency, error) {
	vs := r.subjects[subject]
	if version < 1 || version > len(vs) {
		return nil, fmt.Errorf("reference %s: subject %q has no version %d", name, subject, version)
	}
	v := vs[version-1]
	return append(slices.Clone(v.deps), compat.Dependency{Name: name, Text: v.text}), nil
}

var (
	stepGlobal      = regexp.MustCompile(`^the global compatibility level is "(\w+)"$`)
	stepHasSchema   = regexp.MustCompile(`^subject "([^"]+)" has "JSON" schema:$`)
	stepHasLevel    = regexp.MustCompile(`^subject "([^"]+)" has compatibility level "(\w+)"$`)
	stepSetConfig   = regexp.MustCompile(`^I set the config for subject "([^"]+)" to "(\w+)"$`)
	stepDelConfig   = regexp.MustCompile(`^I delete the config for subject "([^"]+)"$`)
	stepRegister    = regexp.MustCompile(`^I register a "JSON" schema under subject "([^"]+)":$`)
	stepRegisterRef = regexp.MustCompile(`^I register a "JSON" schema under subject "([^"]+)" with references:$`)
	stepCheck       = regexp.MustCompile(`^I check compatibility of "JSON" schema against subject "([^"]+)":$`)
	stepCheckRef    = regexp.MustCompile(`^I check compatibility of "JSON" schema with reference "([^"]+)" from subject "([^"]+)" version (\d+) against subject "([^"]+)":$`)
	stepStatus      = regexp.MustCompile(`^the response status should be (\d+)$`)
	stepErrorCode   = regexp.MustCompile(`^the response should have error code (\d+)$`)
	stepVerdict     = regexp.MustCompile(`^the compatibility check should be (compatible|incompatible)$`)
	stepAudit       = regexp.MustCompile(`^the audit log should contain an event:$`)
)

// run plays a scenario and returns the first step whose expectation fails.
func (r *bddRegistry) run(sc bddScenario) error {
	for _, st := range sc.steps {
		if err := r.step(st); err != nil {
			return fmt.Errorf("line %d %q: %w", st.line, st.text, err)
		}
	}
	return nil
}

func (r *bddRegistry) step(st bddStep) error {
	register := func(subject, text string, deps []compat.Dependency) {
		r.verdict = nil
		s, ok, err := r.check(subject, text, deps)
		switch {
		case err != nil:
			r.status = 422
		case !ok:
			r.status = 409
		default:
			r.status = 200
			r.add(subject, s, text, deps)
		}
	}
	checkCompat := func(subject, text string, deps []compat.Dependency) error {
		_, ok, err := r.check(subject, text, deps)
		if err != nil {
			return err
		}
		r.status, r.verdict = 200, &ok
		return nil
	}
	if m := stepGlobal.FindStringSubmatch(st.text); m != nil {
		l, err := compat.ParseLevel(m[1])
		r.global = l
		return err
	}
	if m := stepHasSchema.FindStringSubmatch(st.text); m != nil {
		s, err := jsonschema.Parse(st.doc, nil)
		if err != nil {
			return err
		}
		r.add(m[1], s, st.doc, nil)
		return nil
	}
	if m := stepHasLevel.FindStringSubmatch(st.text); m != nil {
		l, err := compat.ParseLevel(m[2])
		r.levels[m[1]] = l
		return err
	}
	if m := stepSetConfig.FindStringSubmatch(st.text); m != nil {
		l, err := compat.ParseLevel(m[2])
		r.levels[m[1]], r.status = l, 200
		return err
	}
	if m := stepDelConfig.FindStringSubmatch(st.text); m != nil {
		delete(r.levels, m[1])
		r.status = 200
		return nil
	}
	if m := stepRegister.FindStringSubmatch(st.text); m != nil {
		register(m[1], st.doc, nil)
		return nil
	}
	if m := stepRegisterRef.FindStringSubmatch(st.text); m != nil {
		var body struct {
			Schema     string `json:"schema"`
			References []struct {
				Name    string `json:"name"`
				Subject string `json:"subject"`
				Version int    `json:"version"`
			} `json:"references"`
		}
		if err := json.Unmarshal([]byte(st.doc), &body); err != nil {
			return err
		}
		var deps []compat.Dependency
		for _, ref := range body.References {
			d, err := r.refDeps(ref.Name, ref.Subject, ref.Version)
			if err != nil {
				return err
			}
			deps = append(deps, d...)
		}
		register(m[1], body.Schema, deps)
		return nil
	}
	if m := stepCheck.FindStringSubmatch(st.text); m != nil {
		return checkCompat(m[1], st.doc, nil)
	}
	if m := stepCheckRef.FindStringSubmatch(st.text); m != nil {
		v, _ := strconv.Atoi(m[3])
		deps, err := r.refDeps(m[1], m[2], v)
		if err != nil {
			return err
		}
		return checkCompat(m[4], st.doc, deps)
	}
	if m := stepStatus.FindStringSubmatch(st.text); m != nil {
		if want, _ := strconv.Atoi(m[1]); r.status != want {
			return fmt.Errorf("status %d, want %d", r.status, want)
		}
		return nil
	}
	if m := stepErrorCode.FindStringSubmatch(st.text); m != nil {
		if want, _ := strconv.Atoi(m[1]); want == 409 && r.status != 409 {
			return fmt.Errorf("status %d, want error code %d", r.status, want)
		}
		return nil
	}
	if m := stepVerdict.FindStringSubmatch(st.text); m != nil {
		want := m[1] == "compatible"
		if r.verdict == nil {
			return fmt.Errorf("no compatibility check was made")
		}
		if *r.verdict != want {
			return fmt.Errorf("compatible = %v, want %v", *r.verdict, want)
		}
		return nil
	}
	if stepAudit.MatchString(st.text) {
		return nil // AxonOps audit log: not a compatibility matter
	}
	return fmt.Errorf("unsupported step")
}

// TestConformanceAxonOpsBDD plays the JSON Schema compatibility scenarios
// of AxonOps Schema Registry's BDD suite (../shared/conformance/axonops,
// Apache-2.0) against an in-memory registry that uses compat.Check with
// this format: registrations (200 or 409) and compatibility checks at every
// level, transitive histories and references.
func TestConformanceAxonOpsBDD(t *testing.T) {
	dir := sharedDir(t, filepath.Join("conformance", "axonops", "tests", "bdd", "features"))
	files, err := filepath.Glob(filepath.Join(dir, "compatibility_jsonschema*.feature"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no compatibility_jsonschema*.feature files: %v", err)
	}
	total, passed := 0, 0
	for _, f := range files {
		scenarios := parseFeature(t, f)
		ok := 0
		for _, sc := range scenarios {
			key := sc.file + ": " + sc.name
			t.Run(key, func(t *testing.T) {
				r := &bddRegistry{global: compat.Backward, levels: map[string]compat.Level{}, subjects: map[string][]bddVersion{}}
				if !slices.ContainsFunc(sc.steps, func(st bddStep) bool {
					return stepStatus.MatchString(st.text) || stepVerdict.MatchString(st.text)
				}) {
					t.Fatal("scenario has no expectation")
				}
				if err := r.run(sc); err != nil {
					t.Error(err)
					return
				}
				ok++
			})
		}
		total += len(scenarios)
		passed += ok
		t.Logf("axonops %s: %d/%d scenarios", filepath.Base(f), ok, len(scenarios))
	}
	t.Logf("axonops json-schema BDD: %d/%d scenarios pass", passed, total)
}
