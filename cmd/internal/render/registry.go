package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/client"
)

// The registry commands (subjects, versions, get, register, lookup,
// config, mode, delete, import) print in two formats: text for a person,
// json for scripts. Their json documents are objects, so fields can be
// added without breaking readers.

// RegistryFormats are the formats of the registry commands.
var RegistryFormats = []string{string(Text), string(JSON)}

// writeJSON writes v indented, with HTML characters unescaped.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json output: %w", err)
	}
	return nil
}

func writeText(w io.Writer, s string) error {
	if _, err := io.WriteString(w, s); err != nil {
		return fmt.Errorf("write text output: %w", err)
	}
	return nil
}

// Subjects writes subject names: one a line, or {"subjects": [...]}.
func Subjects(w io.Writer, f Format, subjects []string) error {
	if subjects == nil {
		subjects = []string{}
	}
	if f == JSON {
		return writeJSON(w, struct {
			Subjects []string `json:"subjects"`
		}{subjects})
	}
	var b strings.Builder
	for _, s := range subjects {
		b.WriteString(s + "\n")
	}
	return writeText(w, b.String())
}

// Versions writes a subject's versions: one a line ("3 (deleted)" for a
// soft-deleted one), or {"subject": s, "versions": [{"version": n,
// "deleted": true}]}.
func Versions(w io.Writer, f Format, subject string, vs []client.VersionState) error {
	if vs == nil {
		vs = []client.VersionState{}
	}
	if f == JSON {
		return writeJSON(w, struct {
			Subject  string                `json:"subject"`
			Versions []client.VersionState `json:"versions"`
		}{subject, vs})
	}
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "%d", v.Version)
		if v.Deleted {
			b.WriteString(" (deleted)")
		}
		b.WriteString("\n")
	}
	return writeText(w, b.String())
}

// versionDoc is the json form of one subject version: Confluent's Schema
// entity.
type versionDoc struct {
	Subject    string             `json:"subject"`
	Version    int                `json:"version"`
	ID         int64              `json:"id"`
	Type       compat.SchemaType  `json:"schemaType"`
	References []client.Reference `json:"references,omitempty"`
	Metadata   *client.Metadata   `json:"metadata,omitempty"`
	RuleSet    *client.RuleSet    `json:"ruleSet,omitempty"`
	Deleted    bool               `json:"deleted,omitempty"`
	Schema     string             `json:"schema"`
}

func docOf(v client.SubjectSchema) versionDoc {
	return versionDoc{Subject: v.Subject, Version: v.Version, ID: v.ID, Type: v.Type, References: v.References,
		Metadata: v.Metadata, RuleSet: v.RuleSet, Deleted: v.Deleted, Schema: v.Text}
}

// SchemaVersion writes one subject version: in text, a header (subject,
// version, id, type, references, metadata, rules) and the schema, JSON
// schemas indented; in json, Confluent's Schema entity. With schemaOnly,
// the schema text alone, as stored (both formats).
func SchemaVersion(w io.Writer, f Format, v client.SubjectSchema, schemaOnly bool) error {
	if schemaOnly {
		text := v.Text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		return writeText(w, text)
	}
	if f == JSON {
		return writeJSON(w, docOf(v))
	}
	var b strings.Builder
	versionHeader(&b, v)
	b.WriteString("\n")
	b.WriteString(prettySchema(v.Type, v.Text))
	return writeText(w, b.String())
}

// versionHeader writes the "key: value" lines that describe a version.
func versionHeader(b *strings.Builder, v client.SubjectSchema) {
	fmt.Fprintf(b, "subject:  %s\nversion:  %d\nid:       %d\ntype:     %s\n", v.Subject, v.Version, v.ID, v.Type)
	if v.Deleted {
		b.WriteString("deleted:  yes (soft-deleted)\n")
	}
	if len(v.References) > 0 {
		b.WriteString("references:\n")
		for _, r := range v.References {
			fmt.Fprintf(b, "  %s → %s version %d\n", r.Name, r.Subject, r.Version)
		}
	}
	if m := v.Metadata; m != nil {
		if len(m.Properties) > 0 {
			b.WriteString("properties:\n")
			for _, k := range sortedKeys(m.Properties) {
				val := m.Properties[k]
				for _, s := range m.Sensitive {
					if s == k {
						val = "(sensitive)"
					}
				}
				fmt.Fprintf(b, "  %s: %s\n", k, val)
			}
		}
		if len(m.Tags) > 0 {
			b.WriteString("tags:\n")
			for _, k := range sortedKeys(m.Tags) {
				fmt.Fprintf(b, "  %s: %s\n", k, strings.Join(m.Tags[k], ", "))
			}
		}
	}
	if rs := v.RuleSet; rs != nil {
		var parts []string
		for _, g := range []struct {
			n    string
			list []client.Rule
		}{{"migration", rs.MigrationRules}, {"domain", rs.DomainRules}, {"encoding", rs.EncodingRules}} {
			for _, r := range g.list {
				parts = append(parts, fmt.Sprintf("%s %s (%s %s)", g.n, r.Name, r.Mode, r.Type))
			}
		}
		if len(parts) > 0 {
			b.WriteString("rules:\n  " + strings.Join(parts, "\n  ") + "\n")
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// prettySchema indents Avro and JSON Schema text (it is JSON); Protobuf
// text is shown as stored. It ends with a newline.
func prettySchema(t compat.SchemaType, text string) string {
	if t != compat.Protobuf {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(text), "", "  "); err == nil {
			text = b.String()
		}
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text
}

// Registered writes the outcome of `charter register` or `charter
// lookup`: "orders-value version 3, schema id 7", or the json Schema
// entity without the schema text.
func Registered(w io.Writer, f Format, v client.SubjectSchema) error {
	if f == JSON {
		doc := docOf(v)
		return writeJSON(w, struct {
			Subject string            `json:"subject"`
			Version int               `json:"version"`
			ID      int64             `json:"id"`
			Type    compat.SchemaType `json:"schemaType"`
			Deleted bool              `json:"deleted,omitempty"`
		}{doc.Subject, doc.Version, doc.ID, doc.Type, doc.Deleted})
	}
	line := fmt.Sprintf("%s version %d, schema id %d", v.Subject, v.Version, v.ID)
	if v.Deleted {
		line += " (soft-deleted)"
	}
	return writeText(w, line+"\n")
}

// configDoc is the json form of a config.
type configDoc struct {
	Scope string `json:"scope"`
	client.Config
}

// Config writes the config of scope ("global" or a subject): "key: value"
// lines of the fields set, or {"scope": …, "compatibilityLevel": …}.
func Config(w io.Writer, f Format, scope string, c client.Config) error {
	if f == JSON {
		return writeJSON(w, configDoc{Scope: scope, Config: c})
	}
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "%-20s %s\n", k+":", v) }
	if c.Compatibility != "" {
		line("compatibilityLevel", string(c.Compatibility))
	}
	if c.Normalize != nil {
		line("normalize", fmt.Sprint(*c.Normalize))
	}
	if c.ValidateFields != nil {
		line("validateFields", fmt.Sprint(*c.ValidateFields))
	}
	if c.CompatibilityGroup != "" {
		line("compatibilityGroup", c.CompatibilityGroup)
	}
	if c.Alias != "" {
		line("alias", c.Alias)
	}
	for _, raw := range []struct {
		k string
		v json.RawMessage
	}{{"defaultMetadata", c.DefaultMetadata}, {"overrideMetadata", c.OverrideMetadata}, {"defaultRuleSet", c.DefaultRuleSet}, {"overrideRuleSet", c.OverrideRuleSet}} {
		if len(raw.v) > 0 {
			line(raw.k, string(raw.v))
		}
	}
	if b.Len() == 0 {
		b.WriteString("(nothing set)\n")
	}
	return writeText(w, b.String())
}

// Mode writes the mode of scope: the mode alone, or {"scope": …, "mode": …}.
func Mode(w io.Writer, f Format, scope, mode string) error {
	if f == JSON {
		return writeJSON(w, struct {
			Scope string `json:"scope"`
			Mode  string `json:"mode"`
		}{scope, mode})
	}
	return writeText(w, mode+"\n")
}

// Deleted writes what a delete removed: "soft-deleted orders-value
// versions 1, 2", or {"subject": …, "versions": [...], "permanent": …}.
func Deleted(w io.Writer, f Format, subject string, versions []int, permanent bool) error {
	if versions == nil {
		versions = []int{}
	}
	if f == JSON {
		return writeJSON(w, struct {
			Subject   string `json:"subject"`
			Versions  []int  `json:"versions"`
			Permanent bool   `json:"permanent"`
		}{subject, versions, permanent})
	}
	how := "soft-deleted"
	if permanent {
		how = "permanently deleted"
	}
	nums := make([]string, len(versions))
	for i, v := range versions {
		nums[i] = fmt.Sprint(v)
	}
	noun := "versions"
	if len(versions) == 1 {
		noun = "version"
	}
	return writeText(w, fmt.Sprintf("%s %s %s %s\n", how, subject, noun, strings.Join(nums, ", ")))
}

// DumpCounts writes what an export holds or an import wrote: "12
// schemas, 5 subjects, 14 versions (1 soft-deleted), 2 subject configs,
// 1 subject mode", prefixed by verb, or the counts as json.
func DumpCounts(w io.Writer, f Format, verb string, n client.DumpCounts) error {
	if f == JSON {
		return writeJSON(w, n)
	}
	return writeText(w, fmt.Sprintf("%s %s, %s, %s (%d soft-deleted), %s, %s\n", verb,
		rule.Plural(n.Schemas, "schema"), rule.Plural(n.Subjects, "subject"),
		rule.Plural(n.Versions, "version"), n.Deleted,
		rule.Plural(n.Configs, "subject config"), rule.Plural(n.Modes, "subject mode")))
}
