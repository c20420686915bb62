package project

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/fuzztest"
	"github.com/charter-dev/charter/compat/rule"
)

func TestConfigSchemaIsValid(t *testing.T) {
	t.Parallel()
	if !json.Valid(ConfigSchema) {
		t.Fatal("charter.schema.json is not JSON")
	}
	if _, err := configSchema(); err != nil {
		t.Fatal(err)
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig("charter.yaml", []byte(`
version: 1
registry: http://localhost:8081
defaults:
  level: FULL
  strategy: topic-key
  severity: {"*": warning}
schemas:
  - files: ["a/*.avsc", "b/**/*.avsc"]
    exclude: "b/skip/**"
    level: NONE
  - files: "*.data"
    format: json
    topic: "{dir}.{name}"
overrides:
  - subject: "x-*"
    level: BACKWARD_TRANSITIVE
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Registry != "http://localhost:8081" || cfg.Defaults.Level != compat.Full || cfg.Defaults.Strategy != TopicKey {
		t.Errorf("config %+v", cfg)
	}
	for _, tc := range []struct {
		file    string
		mapping int // -1: none
	}{
		{"a/x.avsc", 0}, {"a/b/x.avsc", -1}, {"b/x.avsc", 0}, {"b/c/d/x.avsc", 0}, {"b/skip/x.avsc", -1},
		{"q.data", 1}, {"d/q.data", -1},
	} {
		m := cfg.mappingFor(tc.file)
		got := -1
		for i := range cfg.Schemas {
			if m == &cfg.Schemas[i] {
				got = i
			}
		}
		if got != tc.mapping {
			t.Errorf("mappingFor(%q) = entry %d, want %d", tc.file, got, tc.mapping)
		}
	}
	m0, m1 := &cfg.Schemas[0], &cfg.Schemas[1]
	if m0.Strategy != TopicKey || m1.format != compat.JSON || m1.Topic != "{dir}.{name}" || m0.Topic != "{name}" {
		t.Errorf("mapping defaults: %+v %+v", m0, m1)
	}
	levels := []struct {
		subject string
		m       *Mapping
		want    compat.Level
	}{
		{"a-value", m0, compat.None},
		{"x-value", m0, compat.BackwardTransitive},
		{"a-value", m1, compat.Full},
		{"a-value", nil, compat.Full},
	}
	for _, tc := range levels {
		if got := cfg.LevelFor(tc.subject, tc.m); got != tc.want {
			t.Errorf("LevelFor(%q) = %s, want %s", tc.subject, got, tc.want)
		}
	}
}

func TestSeverityFor(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig("c.yaml", []byte(`
version: 1
defaults:
  severity:
    "*": warning
    "AVRO_*": notice
    AVRO_TYPE_MISMATCH: error
schemas:
  - files: "*.avsc"
    severity: {"AVRO_NAME_*": "off"}
overrides:
  - subject: "loud-*"
    severity: {"*": error}
  - subject: "loud-quiet"
    severity: {SUBJECT_ADDED: "off"}
`))
	if err != nil {
		t.Fatal(err)
	}
	m := &cfg.Schemas[0]
	tests := []struct {
		subject, rule string
		m             *Mapping
		want          rule.Severity
		on            bool
	}{
		{"a", "SUBJECT_ADDED", nil, rule.Warning, true},
		{"a", "AVRO_FIXED_SIZE_MISMATCH", nil, rule.Notice, true},
		{"a", "AVRO_TYPE_MISMATCH", nil, rule.Error, true},
		{"a", "AVRO_NAME_MISMATCH", m, rule.Notice, false},
		{"a", "AVRO_NAME_MISMATCH", nil, rule.Notice, true},
		{"loud-a", "AVRO_FIXED_SIZE_MISMATCH", m, rule.Error, true},
		{"loud-quiet", "SUBJECT_ADDED", nil, rule.Error, false},
	}
	for _, tc := range tests {
		got, on := cfg.SeverityFor(tc.subject, tc.m, tc.rule, rule.Error)
		if on != tc.on || (on && got != tc.want) {
			t.Errorf("SeverityFor(%s, %s) = %v, %v; want %v, %v", tc.subject, tc.rule, got, on, tc.want, tc.on)
		}
	}
	// Without any layer the rule's own severity stays.
	empty, err := ParseConfig("c.yaml", []byte("version: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, on := empty.SeverityFor("a", nil, "X", rule.Notice); got != rule.Notice || !on {
		t.Errorf("no layers: %v %v", got, on)
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       string // in the error, which is one line
	}{
		{"empty", "", "charter.yaml: the file is empty"},
		{"not yaml", "version: [1\n", "charter.yaml:1: invalid YAML: did not find expected ',' or ']'"},
		{"no version", "schemas: []\n", "charter.yaml:1: at /: missing property 'version'"},
		{"wrong version", "version: 2\n", "charter.yaml:1: at /version: value must be 1"},
		{"unknown key", "version: 1\nregistyr: http://x\n", "charter.yaml:1: at /: additional properties 'registyr' not allowed"},
		{"bad level", "version: 1\ndefaults:\n  level: SIDEWAYS\n", `charter.yaml:3: at /defaults/level: value must be one of`},
		{"bad strategy line", "version: 1\nschemas:\n  - files: a\n  - files: b\n    strategy: topic\n", "charter.yaml:5: at /schemas/1/strategy"},
		{"files missing", "version: 1\nschemas:\n  - format: avro\n", "charter.yaml:3: at /schemas/0: missing property 'files'"},
		{"bad template", "version: 1\nschemas:\n  - files: a\n    subject: \"{nam}-value\"\n", "charter.yaml:4: at /schemas/0/subject"},
		{"topic uses record", "version: 1\nschemas:\n  - files: a\n    topic: \"{record}\"\n", "charter.yaml:4: topic may use {name} and {dir} only"},
		{"bad glob", "version: 1\nschemas:\n  - files: \"a**/b\"\n", "charter.yaml:3: glob \"a**/b\": ** must be a whole path element"},
		{"bad severity", "version: 1\ndefaults:\n  severity: {X: loud}\n", "charter.yaml:3: at /defaults/severity/X"},
		{"bad severity key", "version: 1\ndefaults:\n  severity: {x-y: error}\n", "charter.yaml:3: at /defaults/severity: additional properties 'x-y' not allowed"},
		{"import path escapes", "version: 1\nschemas:\n  - files: a\n    import_paths: [\"../x\"]\n", `charter.yaml:4: import path "../x" must be inside the project`},
		{"bad registry", "version: 1\nregistry: localhost:8081\n", "charter.yaml:2: at /registry"},
		{"duplicate key", "version: 1\nversion: 1\n", "key \"version\" appears twice"},
		{"bad override pattern", "version: 1\noverrides:\n  - subject: \"[\"\n", "charter.yaml:3: bad subject pattern"},
		{"several problems", "version: 1\ndefaults:\n  level: X\n  strategy: Y\nexclude: []\n", "charter.yaml:3: at /defaults/level: value must be one of"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseConfig("charter.yaml", []byte(tc.text))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line containing %q", err, tc.want)
			}
		})
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		yes, no []string
	}{
		{"*.avsc", []string{"a.avsc", ".avsc"}, []string{"d/a.avsc", "a.avsc.bak"}},
		{"**/*.avsc", []string{"a.avsc", "d/a.avsc", "d/e/a.avsc"}, []string{"a.proto"}},
		{"schemas/**", []string{"schemas/a", "schemas/x/y"}, []string{"schemas", "other/a"}},
		{"a/**/b/*.proto", []string{"a/b/x.proto", "a/x/y/b/z.proto"}, []string{"a/bx/x.proto", "a/b/c/x.proto"}},
		{"v?/*.json", []string{"v1/a.json"}, []string{"v10/a.json", "v/a.json"}},
		{"[ab]*.avsc", []string{"a1.avsc", "b.avsc"}, []string{"c.avsc"}},
		{"[!ab]*.avsc", []string{"c.avsc"}, []string{"a.avsc"}},
		{"*.{avsc,json}", []string{"x.avsc", "x.json"}, []string{"x.proto"}},
		{"a.b+(c)", []string{"a.b+(c)"}, []string{"aXb+(c)"}},
	}
	for _, tc := range tests {
		g, err := compileGlob(tc.pattern)
		if err != nil {
			t.Errorf("compileGlob(%q): %v", tc.pattern, err)
			continue
		}
		for _, p := range tc.yes {
			if !g.match(p) {
				t.Errorf("%q does not match %q", tc.pattern, p)
			}
		}
		for _, p := range tc.no {
			if g.match(p) {
				t.Errorf("%q matches %q", tc.pattern, p)
			}
		}
	}
	for _, bad := range []string{"", "/abs/*.avsc", "a**", "**b/c", "[ab", "{a,b", "a}", "{a,{b}}", "[]"} {
		if _, err := compileGlob(bad); err == nil {
			t.Errorf("compileGlob(%q) accepted", bad)
		}
	}
}

// FuzzParseConfig: any input gives a config or an error, never a panic
// nor more CPU than fuzztest.Bound allows, and a valid config's globs are
// usable.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		"version: 1\n",
		"version: 1\nschemas:\n  - files: [\"a/**/*.avsc\", \"{x,y}.proto\"]\n    subject: \"{topic}-{record}\"\noverrides:\n  - subject: \"a-*\"\n    level: FULL\n",
		"version: 1\ndefaults: {severity: {\"*\": off}}\nexclude: \"**/testdata/**\"\n",
		"&a [1, *a]",
		"version: 1\nschemas: &s [{files: x}]\noverrides: *s\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		var cfg *Config
		var err error
		fuzztest.Bound(t, len(text), func() { cfg, err = ParseConfig("charter.yaml", text) })
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
			return
		}
		for i := range cfg.Schemas {
			cfg.Schemas[i].matches("a/b.avsc")
		}
		cfg.mappingFor("x/y.proto")
		cfg.LevelFor("s", nil)
		cfg.SeverityFor("s", nil, "R", rule.Error)
	})
}
