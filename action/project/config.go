package project

import (
	_ "embed"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	js "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"gopkg.in/yaml.v3"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/compat/rule"
)

// ConfigFile is the name of the project configuration file.
const ConfigFile = "charter.yaml"

// ConfigSchema is the JSON Schema (draft 2020-12) every charter.yaml is
// validated against; editors can use it for completion.
//
//go:embed charter.schema.json
var ConfigSchema []byte

// Strategy is a subject naming strategy (Confluent's
// TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy).
type Strategy string

// The naming strategies. TopicValue is the default.
const (
	TopicValue  Strategy = "topic-value"  // "<topic>-value"
	TopicKey    Strategy = "topic-key"    // "<topic>-key"
	Record      Strategy = "record"       // the record name
	TopicRecord Strategy = "topic-record" // "<topic>-<record name>"
)

// Config is a parsed and validated charter.yaml.
type Config struct {
	// Version is the file format version (1).
	Version int `yaml:"version"`
	// Registry is the registry URL `charter check` compares with by default.
	Registry string `yaml:"registry"`
	// Context is the schema context of the registry that `charter check`
	// and the registry commands work in (".staging"), when neither
	// --context nor $CHARTER_CONTEXT names one; "" for none.
	Context string `yaml:"context"`
	// Defaults apply to every mapping that does not set its own values.
	Defaults Defaults `yaml:"defaults"`
	// Schemas map files to subjects; a file belongs to the first mapping
	// that matches it.
	Schemas []Mapping `yaml:"schemas"`
	// Overrides set the level and severities of subjects by name pattern.
	Overrides []Override `yaml:"overrides"`
	// Exclude lists globs of files never read as schemas.
	Exclude StringList `yaml:"exclude"`
	// Contracts are the consumer contracts (Pact message pacts) that
	// `charter check` verifies each subject's working-tree schema with.
	Contracts []ContractEntry `yaml:"contracts"`
	// PII tunes the PII policy `charter check` applies to changed
	// subjects.
	PII PIIConfig `yaml:"pii"`
	// ProtobufProfile selects the compatibility rules of Protobuf
	// subjects whose mapping sets none, unless the registry checked
	// against sets one (as defaults.level): CONFLUENT (the default), WIRE
	// or WIRE_JSON (protobuf.ProfileNames).
	ProtobufProfile string `yaml:"protobuf_profile"`

	exclude globs
}

// ContractEntry maps pact files to the subject whose messages they read.
type ContractEntry struct {
	// Pact globs the pact files, relative to the project root.
	Pact StringList `yaml:"pact"`
	// Subject is the subject the consumers read.
	Subject string `yaml:"subject"`
	// Consumer names the consumer instead of the pact's consumer name.
	Consumer string `yaml:"consumer"`
	// Message is the Protobuf message the subject carries; "" means the
	// file's first message.
	Message string `yaml:"message"`

	pact globs
}

// PIIConfig is charter.yaml's pii section (package pii's Config).
type PIIConfig struct {
	// PIITags mark a field as personal data; default PII and SENSITIVE.
	PIITags []string `yaml:"pii_tags"`
	// MaskTags are the tags whose fields must carry a masking marker.
	MaskTags []string `yaml:"mask_tags"`
	// MinConfidence is the least detector confidence that counts: low,
	// medium (the default) or high.
	MinConfidence string `yaml:"min_confidence"`
	// Allow lists field names that are never personal data.
	Allow []string `yaml:"allow"`
}

// MetadataConfig is a Confluent data-contract metadata object given in
// charter.yaml for the subjects of a mapping or override: tags by field
// path glob (Confluent's metadata.tags), properties and sensitive
// property names. The PII policy reads the tags.
type MetadataConfig struct {
	Tags       map[string][]string `yaml:"tags"`
	Properties map[string]string   `yaml:"properties"`
	Sensitive  []string            `yaml:"sensitive"`
}

// Defaults are the project-wide level, naming strategy and severities.
type Defaults struct {
	Level    compat.Level      `yaml:"level"`
	Strategy Strategy          `yaml:"strategy"`
	Severity map[string]string `yaml:"severity"`
}

// Mapping maps the files matched by its globs to subjects.
type Mapping struct {
	Files    StringList `yaml:"files"`
	Exclude  StringList `yaml:"exclude"`
	Format   string     `yaml:"format"`
	Strategy Strategy   `yaml:"strategy"`
	// Topic is a template ({name}, {dir}) for the topic-* strategies;
	// "" means "{name}".
	Topic string `yaml:"topic"`
	// Subject is a template ({name}, {dir}, {topic}, {record}) that
	// names the subject directly, overriding Strategy.
	Subject     string            `yaml:"subject"`
	Level       compat.Level      `yaml:"level"`
	Severity    map[string]string `yaml:"severity"`
	ImportPaths []string          `yaml:"import_paths"`
	// Metadata is the data-contract metadata of the entry's subjects.
	Metadata *MetadataConfig `yaml:"metadata"`
	// ProtobufProfile selects the compatibility rules of the entry's
	// Protobuf subjects, over the top-level protobuf_profile.
	ProtobufProfile string `yaml:"protobuf_profile"`

	files, exclude globs
	format         compat.SchemaType
}

// Override sets the level and severities of the subjects its pattern
// (path.Match syntax: * and ?) matches.
type Override struct {
	Subject  string            `yaml:"subject"`
	Level    compat.Level      `yaml:"level"`
	Severity map[string]string `yaml:"severity"`
	// Metadata adds to the metadata of the matching subjects: tags are
	// united glob by glob, properties replaced key by key.
	Metadata *MetadataConfig `yaml:"metadata"`
}

// StringList is a YAML string or list of strings.
type StringList []string

// UnmarshalYAML accepts a scalar or a sequence of scalars.
func (l *StringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = StringList{n.Value}
		return nil
	}
	var s []string
	if err := n.Decode(&s); err != nil {
		return err
	}
	*l = s
	return nil
}

// ConfigError is a problem in charter.yaml, located by line when known.
type ConfigError struct {
	File string // path of the file as given
	Line int    // 1-based, 0 when unknown
	Msg  string
}

// Error is "file:line: message" on one line.
func (e *ConfigError) Error() string {
	msg := strings.Join(strings.Fields(e.Msg), " ")
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	}
	return fmt.Sprintf("%s: %s", e.File, msg)
}

var (
	schemaOnce sync.Once
	schemaErr  error
	compiled   *js.Schema
)

func configSchema() (*js.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := js.UnmarshalJSON(strings.NewReader(string(ConfigSchema)))
		if err != nil {
			schemaErr = fmt.Errorf("charter.schema.json: %w", err)
			return
		}
		c := js.NewCompiler()
		const u = "https://charter.dev/schemas/charter.yaml/v1.json"
		if err := c.AddResource(u, doc); err != nil {
			schemaErr = fmt.Errorf("charter.schema.json: %w", err)
			return
		}
		compiled, schemaErr = c.Compile(u)
	})
	return compiled, schemaErr
}

// ParseConfig parses and validates charter.yaml text; name is used in
// errors. Problems found by the JSON Schema are reported with their line:
// "charter.yaml:7: at /schemas/0/strategy: value must be one of …" (the
// first three, then how many more).
func ParseConfig(name string, text []byte) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, &ConfigError{File: name, Line: yamlErrLine(err), Msg: "invalid YAML: " + yamlErrMsg(err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &ConfigError{File: name, Msg: "the file is empty; it needs at least `version: 1`"}
	}
	root := doc.Content[0]
	inst, err := (&converter{}).value(root, 0)
	if err != nil {
		return nil, &ConfigError{File: name, Line: root.Line, Msg: err.Error()}
	}
	sch, err := configSchema()
	if err != nil {
		return nil, fmt.Errorf("load the charter.yaml schema: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		var ve *js.ValidationError
		if errors.As(err, &ve) {
			return nil, schemaError(name, root, ve)
		}
		return nil, &ConfigError{File: name, Msg: err.Error()}
	}
	var cfg Config
	if err := root.Decode(&cfg); err != nil {
		return nil, &ConfigError{File: name, Line: root.Line, Msg: err.Error()}
	}
	if err := cfg.prepare(name, root); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// prepare compiles globs and fills defaults. root locates errors.
func (c *Config) prepare(name string, root *yaml.Node) error {
	fail := func(ptr []string, msg string) error {
		return &ConfigError{File: name, Line: lineAt(root, ptr), Msg: msg}
	}
	if c.Defaults.Level == "" {
		c.Defaults.Level = compat.DefaultLevel
	}
	if c.Defaults.Strategy == "" {
		c.Defaults.Strategy = TopicValue
	}
	var err error
	if c.exclude, err = compileGlobs(c.Exclude); err != nil {
		return fail([]string{"exclude"}, err.Error())
	}
	if _, err := protobuf.ProfileByName(c.ProtobufProfile); err != nil {
		return fail([]string{"protobuf_profile"}, err.Error())
	}
	for i := range c.Schemas {
		m := &c.Schemas[i]
		at := []string{"schemas", strconv.Itoa(i)}
		if m.files, err = compileGlobs(m.Files); err != nil {
			return fail(append(at, "files"), err.Error())
		}
		if m.exclude, err = compileGlobs(m.Exclude); err != nil {
			return fail(append(at, "exclude"), err.Error())
		}
		if m.Format != "" {
			m.format = compat.SchemaType(strings.ToUpper(m.Format))
		}
		if m.Strategy == "" {
			m.Strategy = c.Defaults.Strategy
		}
		if m.Topic == "" {
			m.Topic = "{name}"
		}
		if strings.Contains(m.Topic, "{topic}") || strings.Contains(m.Topic, "{record}") {
			return fail(append(at, "topic"), "topic may use {name} and {dir} only")
		}
		if _, err := protobuf.ProfileByName(m.ProtobufProfile); err != nil {
			return fail(append(at, "protobuf_profile"), err.Error())
		}
		for _, p := range m.ImportPaths {
			if path.IsAbs(p) || strings.HasPrefix(path.Clean(p), "..") {
				return fail(append(at, "import_paths"), fmt.Sprintf("import path %q must be inside the project", p))
			}
		}
	}
	for i, o := range c.Overrides {
		if _, err := path.Match(o.Subject, ""); err != nil {
			return fail([]string{"overrides", strconv.Itoa(i), "subject"}, fmt.Sprintf("bad subject pattern %q: %v", o.Subject, err))
		}
	}
	for i := range c.Contracts {
		e := &c.Contracts[i]
		if e.pact, err = compileGlobs(e.Pact); err != nil {
			return fail([]string{"contracts", strconv.Itoa(i), "pact"}, err.Error())
		}
	}
	return nil
}

// MetadataFor returns the metadata charter.yaml gives subject, mapped by
// m (nil for none): the mapping's, then every matching override's added
// in order (tags united per glob, properties replaced per key, sensitive
// names united). Nil when none applies.
func (c *Config) MetadataFor(subject string, m *Mapping) *MetadataConfig {
	var out *MetadataConfig
	add := func(md *MetadataConfig) {
		if md == nil {
			return
		}
		if out == nil {
			out = &MetadataConfig{}
		}
		for glob, tags := range md.Tags {
			if out.Tags == nil {
				out.Tags = map[string][]string{}
			}
			for _, t := range tags {
				if !slices.Contains(out.Tags[glob], t) {
					out.Tags[glob] = append(out.Tags[glob], t)
				}
			}
		}
		for k, v := range md.Properties {
			if out.Properties == nil {
				out.Properties = map[string]string{}
			}
			out.Properties[k] = v
		}
		for _, name := range md.Sensitive {
			if !slices.Contains(out.Sensitive, name) {
				out.Sensitive = append(out.Sensitive, name)
			}
		}
	}
	if m != nil {
		add(m.Metadata)
	}
	for _, o := range c.Overrides {
		if ok, _ := path.Match(o.Subject, subject); ok {
			add(o.Metadata)
		}
	}
	return out
}

// matches reports whether the file belongs to the mapping.
func (m *Mapping) matches(file string) bool {
	return m.files.match(file) && !m.exclude.match(file)
}

// mappingFor returns the first mapping that claims file, nil when none.
func (c *Config) mappingFor(file string) *Mapping {
	if c.exclude.match(file) {
		return nil
	}
	for i := range c.Schemas {
		if c.Schemas[i].matches(file) {
			return &c.Schemas[i]
		}
	}
	return nil
}

// LevelFor returns the compatibility level of subject, mapped by m (nil
// for a subject no mapping names, such as one only the baseline has):
// defaults, then the mapping, then every matching override in order.
func (c *Config) LevelFor(subject string, m *Mapping) compat.Level {
	l := c.Defaults.Level
	if m != nil && m.Level != "" {
		l = m.Level
	}
	for _, o := range c.Overrides {
		if ok, _ := path.Match(o.Subject, subject); ok && o.Level != "" {
			l = o.Level
		}
	}
	return l
}

// OverrideLevel returns the level that the mapping m or an override sets
// for subject (the last matching override wins over the mapping), and ok
// false when neither sets one: then the registry's own level applies when
// checking against a registry, else Defaults.Level. Against a registry a
// level set here applies only when it is at least as strict as the
// registry's (AtLeastAsStrict); Check ignores a weaker one, with a
// RuleLevelIgnored notice. Offline it is the subject's level.
func (c *Config) OverrideLevel(subject string, m *Mapping) (l compat.Level, ok bool) {
	if m != nil && m.Level != "" {
		l, ok = m.Level, true
	}
	for _, o := range c.Overrides {
		if match, _ := path.Match(o.Subject, subject); match && o.Level != "" {
			l, ok = o.Level, true
		}
	}
	return l, ok
}

// SeverityFor returns the severity of ruleID's findings on subject and
// whether the rule is enabled; def is the rule's own severity. Layers
// apply in order (defaults, the mapping, matching overrides) and each
// layer's most specific key wins: an exact rule ID, then the longest
// pattern.
func (c *Config) SeverityFor(subject string, m *Mapping, ruleID string, def rule.Severity) (rule.Severity, bool) {
	sev, on := def, true
	apply := func(layer map[string]string) {
		if v, ok := pickSeverity(layer, ruleID); ok {
			s, enabled, err := rule.ParseSeverity(v)
			if err == nil {
				sev, on = s, enabled
			}
		}
	}
	apply(c.Defaults.Severity)
	if m != nil {
		apply(m.Severity)
	}
	for _, o := range c.Overrides {
		if ok, _ := path.Match(o.Subject, subject); ok {
			apply(o.Severity)
		}
	}
	return sev, on
}

func pickSeverity(layer map[string]string, ruleID string) (string, bool) {
	if v, ok := layer[ruleID]; ok {
		return v, true
	}
	best, val := "", ""
	for k, v := range layer {
		if ok, _ := path.Match(k, ruleID); ok && (len(k) > len(best) || len(k) == len(best) && k < best) {
			best, val = k, v
		}
	}
	return val, best != ""
}

// Limits on the configuration's shape: aliases can make a small file a
// deep or huge (or, with a cycle, infinite) value.
const (
	maxConfigDepth = 64
	maxConfigNodes = 100_000
)

// converter turns YAML nodes into the JSON data model the validator reads:
// map[string]any, []any, string, bool, nil, int64 and float64.
type converter struct{ nodes int }

func (c *converter) value(n *yaml.Node, depth int) (any, error) {
	c.nodes++
	if depth > maxConfigDepth || c.nodes > maxConfigNodes {
		return nil, fmt.Errorf("line %d: the document nests too deep or expands to too many values (recursive aliases?)", n.Line)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], depth+1)
	case yaml.AliasNode:
		return c.value(n.Alias, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: keys must be strings", k.Line)
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %q appears twice", k.Line, k.Value)
			}
			v, err := c.value(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, err
			}
			return b, nil
		case "!!int", "!!float":
			var i int64
			if n.ShortTag() == "!!int" && n.Decode(&i) == nil {
				return i, nil
			}
			var f float64
			if n.Decode(&f) == nil {
				return f, nil
			}
			return n.Value, nil // out of range: the schema reports the type
		}
		return n.Value, nil
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

// lineAt returns the line of the value at the JSON pointer tokens ptr
// under n (the key's line for mapping entries), or the closest ancestor's.
func lineAt(n *yaml.Node, ptr []string) int {
	line := n.Line
	for _, tok := range ptr {
		for n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		switch n.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					line = n.Content[i].Line
					n = n.Content[i+1]
					found = true
					break
				}
			}
			if !found {
				return line
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
		default:
			return line
		}
	}
	return line
}

var printer = message.NewPrinter(language.English)

// schemaError turns a validation error into a ConfigError at the line of
// the first (deepest) cause, listing up to three causes.
func schemaError(name string, root *yaml.Node, ve *js.ValidationError) error {
	type leaf struct {
		line int
		msg  string
	}
	var leaves []leaf
	seen := map[string]bool{}
	var walk func(e *js.ValidationError)
	walk = func(e *js.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		ptr := "/" + strings.Join(e.InstanceLocation, "/")
		msg := fmt.Sprintf("at %s: %s", ptr, strings.Join(strings.Fields(e.ErrorKind.LocalizedString(printer)), " "))
		if !seen[msg] {
			seen[msg] = true
			leaves = append(leaves, leaf{lineAt(root, e.InstanceLocation), msg})
		}
	}
	walk(ve)
	sort.SliceStable(leaves, func(i, j int) bool { return leaves[i].line < leaves[j].line })
	if len(leaves) == 0 {
		return &ConfigError{File: name, Msg: "does not match the charter.yaml schema"}
	}
	msgs := make([]string, 0, 4)
	for i, l := range leaves {
		if i == 3 {
			msgs = append(msgs, fmt.Sprintf("and %d more", len(leaves)-3))
			break
		}
		if i == 0 {
			msgs = append(msgs, l.msg)
		} else {
			msgs = append(msgs, fmt.Sprintf("line %d %s", l.line, l.msg))
		}
	}
	return &ConfigError{File: name, Line: leaves[0].line, Msg: strings.Join(msgs, "; ")}
}

func yamlErrLine(err error) int {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return 0
	}
	s := err.Error()
	if i := strings.Index(s, "line "); i >= 0 {
		rest := s[i+5:]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if n, err := strconv.Atoi(rest[:j]); err == nil {
			return n
		}
	}
	return 0
}

func yamlErrMsg(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.Index(s, "line "); i >= 0 {
		if j := strings.Index(s[i:], ": "); j >= 0 {
			s = s[:i] + s[i+j+2:]
		}
	}
	return strings.Join(strings.Fields(s), " ")
}
